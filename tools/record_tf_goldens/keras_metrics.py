"""Record real Keras 3 metric results into tests/goldens/keras_metrics.json, and Keras's progress-bar output
(``keras.utils.Progbar`` and the ``ProgbarLogger`` callback, driven by a fake clock) and ``imdb.load_data`` on
a small synthetic ``imdb.npz`` into tests/goldens/keras_metrics_utils.json.

    /work/tfenv/bin/python tools/record_tf_goldens/keras_metrics.py      (a Python that has TensorFlow)

Each case builds ``tf.keras.metrics.<cls>(**kwargs)``, feeds it two batches with ``update_state`` and records
``result()`` after each (and the config).  The inputs are stored in the JSON too, so the test needs no RNG parity.
"""

import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _probs(rng, shape, grid=False):
    p = rng.uniform(0, 1, size=shape).astype(np.float32)
    if grid:  # values on and next to AUC's threshold grid, and the ends of [0, 1]
        flat = p.reshape(-1)
        flat[:6] = np.array([0.0, 1.0, 0.5, 1 / 199, 100 / 199, 0.25], np.float32)
    return p


def cases():
    rng = np.random.RandomState(1234)
    out = []

    def add(name, cls, kwargs, batches, cfg=False):
        out.append({"name": name, "cls": cls, "kwargs": kwargs, "config": cfg,
                    "batches": [[None if a is None else np.asarray(a).tolist() for a in b] for b in batches]})

    def binary(n, shape=None, grid=False, weights=False):
        shape = shape or (n,)
        bs = []
        for _ in range(2):
            yt = (rng.uniform(size=shape) > 0.5).astype(np.float32)
            yp = _probs(rng, shape, grid)
            sw = rng.uniform(0, 2, size=(shape[0],)).astype(np.float32) if weights else None
            bs.append([yt, yp, sw])
        return bs

    def onehot(n, k, weights=False, probs=True):
        bs = []
        for _ in range(2):
            yt = np.eye(k, dtype=np.float32)[rng.randint(0, k, size=n)]
            yp = rng.uniform(size=(n, k)).astype(np.float32)
            if probs:
                yp = yp / yp.sum(-1, keepdims=True)
            sw = rng.uniform(0, 2, size=(n,)).astype(np.float32) if weights else None
            bs.append([yt, yp, sw])
        return bs

    def sparse(n, k, weights=False):
        return [[np.argmax(yt, -1).astype(np.int32).reshape(n, 1), yp, sw] for yt, yp, sw in onehot(n, k, weights)]

    def regress(shape, positive=False, weights=False):
        bs = []
        for _ in range(2):
            lo = 0.1 if positive else -2
            yt = rng.uniform(lo, 2, size=shape).astype(np.float32)
            yp = rng.uniform(lo, 2, size=shape).astype(np.float32)
            sw = rng.uniform(0, 2, size=(shape[0],)).astype(np.float32) if weights else None
            bs.append([yt, yp, sw])
        return bs

    # --- AUC ---
    add("auc_roc", "AUC", {}, binary(40, grid=True), cfg=True)
    add("auc_roc_weighted", "AUC", {}, binary(40, grid=True, weights=True))
    add("auc_pr", "AUC", {"curve": "PR"}, binary(40, grid=True, weights=True))
    add("auc_pr_majoring", "AUC", {"curve": "PR", "summation_method": "majoring", "num_thresholds": 50},
        binary(30, grid=True))
    add("auc_roc_minoring", "AUC", {"summation_method": "minoring", "num_thresholds": 10}, binary(30))
    add("auc_prgain", "AUC", {"curve": "PRGAIN", "num_thresholds": 25}, binary(30))
    add("auc_thresholds", "AUC", {"thresholds": [0.1, 0.35, 0.5, 0.8]}, binary(30, grid=True), cfg=True)
    add("auc_even_thresholds", "AUC", {"thresholds": [0.25, 0.5, 0.75]}, binary(30, grid=True))
    add("auc_logits", "AUC", {"from_logits": True},
        [[yt, (yp - 0.5) * 8, sw] for yt, yp, sw in binary(30)])
    add("auc_2d_flat", "AUC", {"num_thresholds": 20}, binary(12, shape=(12, 3), weights=True))
    add("auc_multilabel", "AUC", {"multi_label": True, "num_thresholds": 20}, binary(12, shape=(12, 3)))
    add("auc_multilabel_weights", "AUC", {"multi_label": True, "num_labels": 3, "label_weights": [0.2, 1.0, 0.5],
                                          "curve": "PR"}, binary(12, shape=(12, 3), weights=True))
    add("auc_label_weights", "AUC", {"label_weights": [0.2, 1.0, 0.5], "num_thresholds": 30},
        binary(12, shape=(12, 3)))
    add("auc_multilabel_uneven", "AUC", {"multi_label": True, "thresholds": [0.3, 0.4, 0.9]},
        binary(12, shape=(12, 3), weights=True))
    # --- precision / recall / counts ---
    for cls in ("Precision", "Recall"):
        low = cls.lower()
        add(f"{low}_default", cls, {}, binary(30, grid=True, weights=True), cfg=True)
        add(f"{low}_thresholds", cls, {"thresholds": [0.3, 0.5, 0.7]}, binary(30, grid=True, weights=True),
            cfg=True)
        add(f"{low}_even", cls, {"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, binary(30, grid=True))
        add(f"{low}_top_k", cls, {"top_k": 2}, binary(10, shape=(10, 5)))
        add(f"{low}_class_id", cls, {"class_id": 1, "thresholds": [0.4, 0.6]}, binary(10, shape=(10, 4),
                                                                                      weights=True))
        add(f"{low}_top_k_class", cls, {"top_k": 1, "class_id": 2}, onehot(16, 4))
    for cls in ("TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"):
        add(f"{cls.lower()}_one", cls, {}, binary(20, grid=True, weights=True))
        add(f"{cls.lower()}_many", cls, {"thresholds": [0.15, 0.5, 0.85]}, binary(20, grid=True, weights=True))
    for cls, arg in (("SensitivityAtSpecificity", "specificity"), ("SpecificityAtSensitivity", "sensitivity"),
                     ("PrecisionAtRecall", "recall"), ("RecallAtPrecision", "precision")):
        add(cls.lower(), cls, {arg: 0.6, "num_thresholds": 50}, binary(40, grid=True, weights=True))
    # --- IoU ---
    def seg(n, k, weights=False):
        bs = []
        for _ in range(2):
            yt = rng.randint(0, k, size=(n,)).astype(np.int32)
            yp = np.where(rng.uniform(size=n) < 0.6, yt, rng.randint(0, k, size=n)).astype(np.int32)
            sw = rng.randint(0, 3, size=(n,)).astype(np.float32) if weights else None
            bs.append([yt, yp, sw])
        return bs

    add("mean_iou", "MeanIoU", {"num_classes": 4}, seg(30, 4), cfg=True)
    add("mean_iou_weighted", "MeanIoU", {"num_classes": 4}, seg(30, 4, weights=True))
    add("mean_iou_ignore", "MeanIoU", {"num_classes": 4, "ignore_class": 0}, seg(30, 4))
    add("mean_iou_float", "MeanIoU", {"num_classes": 3, "dtype": "float32"}, seg(30, 3, weights=True))
    add("iou_targets", "IoU", {"num_classes": 4, "target_class_ids": [0, 2]}, seg(30, 4), cfg=True)
    add("iou_missing_class", "IoU", {"num_classes": 5, "target_class_ids": [1, 4]}, seg(20, 3))
    add("binary_iou", "BinaryIoU", {"threshold": 0.3},
        [[yt, yp, sw] for yt, yp, sw in binary(20)])
    add("one_hot_iou", "OneHotIoU", {"num_classes": 3, "target_class_ids": [0, 2]}, onehot(20, 3))
    add("one_hot_mean_iou", "OneHotMeanIoU", {"num_classes": 3}, onehot(20, 3))
    # --- F-scores ---
    for avg in (None, "micro", "macro", "weighted"):
        add(f"f1_{avg}", "F1Score", {"average": avg}, onehot(20, 4), cfg=avg is None)
        add(f"f1_{avg}_threshold", "F1Score", {"average": avg, "threshold": 0.3}, binary(20, shape=(20, 4),
                                                                                          weights=True))
    add("fbeta_2", "FBetaScore", {"beta": 2.0, "average": "macro", "threshold": 0.5}, binary(20, shape=(20, 3)),
        cfg=True)
    add("fbeta_half", "FBetaScore", {"beta": 0.5}, onehot(20, 3, weights=True))
    # --- R2 ---
    add("r2", "R2Score", {}, regress((20, 3)), cfg=True)
    add("r2_weighted", "R2Score", {}, regress((20, 2), weights=True))
    add("r2_variance_weighted", "R2Score", {"class_aggregation": "variance_weighted_average"}, regress((20, 3)))
    add("r2_raw", "R2Score", {"class_aggregation": None}, regress((20, 3)))
    add("r2_adjusted", "R2Score", {"num_regressors": 3}, regress((20, 1)))
    add("r2_1d", "R2Score", {}, [[yt[:, :1], yp[:, 0], sw] for yt, yp, sw in regress((15, 1))])
    # --- reductions and wrappers ---
    add("mean", "Mean", {}, [[rng.uniform(size=(5,)).astype(np.float32), None, None],
                              [rng.uniform(size=(3,)).astype(np.float32), None, [1.0, 0.0, 2.0]]], cfg=True)
    add("mean_2d_weights", "Mean", {}, [[rng.uniform(size=(4, 3)).astype(np.float32), None,
                                          rng.uniform(size=(4, 3)).astype(np.float32)],
                                         [rng.uniform(size=(4, 3, 2)).astype(np.float32), None,
                                          rng.uniform(size=(4,)).astype(np.float32)]])
    add("sum", "Sum", {}, [[rng.uniform(size=(4, 3)).astype(np.float32), None, [1.0, 2.0, 0.0, 1.0]],
                            [[1.0, 3.0, 5.0, 7.0], None, None]])
    add("accuracy", "Accuracy", {}, [[[1, 2, 3, 4], [0, 2, 3, 4], None], [[[1], [2]], [[1], [3]], [0.5, 2.0]]])
    add("binary_accuracy", "BinaryAccuracy", {}, binary(20, weights=True), cfg=True)
    add("binary_accuracy_th", "BinaryAccuracy", {"threshold": 0.7}, binary(10, shape=(10, 2)))
    add("categorical_accuracy", "CategoricalAccuracy", {}, onehot(20, 5, weights=True))
    add("sparse_categorical_accuracy", "SparseCategoricalAccuracy", {}, sparse(20, 5, weights=True))
    add("sparse_categorical_accuracy_1d", "SparseCategoricalAccuracy", {},
        [[yt.reshape(-1), yp, sw] for yt, yp, sw in sparse(20, 5)])
    add("top_k", "TopKCategoricalAccuracy", {"k": 2}, onehot(20, 5, weights=True), cfg=True)
    add("sparse_top_k", "SparseTopKCategoricalAccuracy", {"k": 3}, sparse(20, 6))
    add("mse", "MeanSquaredError", {}, regress((10, 3), weights=True))
    add("rmse", "RootMeanSquaredError", {}, regress((10, 3), weights=True))
    add("mae", "MeanAbsoluteError", {}, regress((10, 3)))
    add("mape", "MeanAbsolutePercentageError", {}, regress((10, 3), positive=True))
    add("msle", "MeanSquaredLogarithmicError", {}, regress((10, 3)))
    add("cosine", "CosineSimilarity", {}, regress((10, 4), weights=True))
    add("cosine_axis0", "CosineSimilarity", {"axis": 0}, regress((10, 4)))
    add("logcosh", "LogCoshError", {}, regress((10, 3)))
    add("hinge01", "Hinge", {}, [[yt, yp * 2 - 1, sw] for yt, yp, sw in binary(10, shape=(10, 2))])
    add("hinge_pm1", "Hinge", {}, [[yt * 2 - 1, yp * 2 - 1, sw] for yt, yp, sw in binary(10, shape=(10, 2))])
    add("squared_hinge", "SquaredHinge", {}, [[yt, yp * 2 - 1, sw] for yt, yp, sw in binary(10, shape=(10, 2))])
    add("categorical_hinge", "CategoricalHinge", {}, onehot(10, 4, weights=True))
    add("kld", "KLDivergence", {}, onehot(10, 4))
    add("poisson", "Poisson", {}, regress((10, 3), positive=True))
    add("bce", "BinaryCrossentropy", {}, binary(10, shape=(10, 2), grid=True, weights=True))
    add("bce_logits_smooth", "BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1},
        [[yt, (yp - 0.5) * 6, sw] for yt, yp, sw in binary(10, shape=(10, 2))])
    add("cce", "CategoricalCrossentropy", {}, onehot(10, 4, probs=False))
    add("cce_logits_smooth", "CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.2},
        onehot(10, 4, weights=True))
    add("scce", "SparseCategoricalCrossentropy", {}, sparse(10, 4, weights=True))
    add("scce_logits_ignore", "SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 1},
        sparse(10, 4))
    add("pearson", "PearsonCorrelation", {}, regress((6, 5)))
    add("concordance", "ConcordanceCorrelation", {}, regress((6, 5), weights=True))
    return out


def progbar_scenarios():
    """Progbar runs: constructor kwargs, the clock readings it will see, and the updates."""
    out = []

    def add(name, kwargs, clock, steps):
        out.append({"name": name, "kwargs": kwargs, "clock": clock, "steps": steps})

    losses = [0.6931, 0.51234, 0.40001, 0.3, 0.25]
    add("v1_epoch", {"target": 5}, [100.0, 100.45, 100.5, 100.52, 100.6, 100.61],
        [[i + 1, [["accuracy", 0.4 + 0.1 * i], ["loss", losses[i]]], None] for i in range(5)])
    add("v1_small_values", {"target": 3, "stateful_metrics": ["acc"]}, [0.0, 0.0004, 0.0009, 0.0012],
        [[1, [["acc", 0.0005], ["loss", 1e-05]], None], [2, [["acc", -0.0002], ["loss", 123456.5]], None],
         [3, [["acc", 2.5], ["loss", -3.0]], None]])
    add("v1_eta_minutes_hours", {"target": 1000}, [0.0, 5.0, 300.0, 9000.0, 9001.0],
        [[1, [["loss", 1.0]], None], [10, [["loss", 0.9]], None], [100, [["loss", 0.8]], None],
         [1000, [["loss", 0.7]], None]])
    add("v1_interval_skip", {"target": 4, "interval": 1.0}, [0.0, 0.1, 0.2, 0.3, 2.0],
        [[1, [["loss", 1.0]], None], [2, [["loss", 2.0]], None], [3, [["loss", 3.0]], None],
         [4, [["loss", 4.0]], None]])
    add("v1_unknown_target", {"target": None}, [0.0, 1.0, 2.0, 3.0],
        [[1, [["loss", 1.0]], None], [2, [["loss", 0.5]], None], [2, [["loss", 0.25]], True]])
    add("v1_shrinking_line", {"target": 12, "width": 10, "unit_name": "sample"}, [0.0, 2.0, 2.5, 3.0],
        [[3, [["loss", 123456.789]], None], [6, [["loss", 0.5]], None], [12, [["loss", 0.5]], None]])
    add("v2_epoch", {"target": 157, "verbose": 2}, [10.0, 10.5, 11.0, 12.4],
        [[1, [["accuracy", 0.5], ["loss", 0.7]], None], [100, [["accuracy", 0.8], ["loss", 0.4]], None],
         [157, [["accuracy", 0.91], ["loss", 0.3], ["val_loss", 0.0002]], None]])
    add("v2_stateful", {"target": 8, "verbose": 2, "stateless_metrics": ["loss"]}, [0.0, 1.0, 2.0],
        [[4, [["accuracy", 0.5], ["loss", 0.7]], None], [8, [["accuracy", 0.75], ["loss", 0.5]], None]])
    add("v0_silent", {"target": 3, "verbose": 0}, [0.0, 1.0, 2.0, 3.0],
        [[1, [["loss", 1.0]], None], [2, [["loss", 1.0]], None], [3, [["loss", 1.0]], None]])
    return out


def logger_scenarios():
    """ProgbarLogger driven through its callback hooks (what fit/evaluate/predict call)."""
    fit_logs = [{"loss": 0.69, "accuracy": 0.5}, {"loss": 0.5, "accuracy": 0.6}, {"loss": 0.4, "accuracy": 0.7}]
    return [
        {"name": "fit_v1_two_epochs", "params": {"verbose": 1, "epochs": 2, "steps": 3},
         "events": [["train_begin"]] + [e for ep in range(2) for e in (
             [["epoch_begin", ep]] + [["train_batch_end", b, fit_logs[b]] for b in range(3)]
             + [["epoch_end", ep, {**fit_logs[2], "val_loss": 0.45, "val_accuracy": 0.65}]])] + [["train_end"]]},
        {"name": "fit_v2_one_epoch", "params": {"verbose": 2, "epochs": 1, "steps": 3},
         "events": [["train_begin"], ["epoch_begin", 0]] + [["train_batch_end", b, fit_logs[b]] for b in range(3)]
         + [["epoch_end", 0, fit_logs[2]], ["train_end"]]},
        {"name": "evaluate_v1", "params": {"verbose": 1, "epochs": 1, "steps": 2},
         "events": [["test_begin"], ["test_batch_end", 0, {"loss": 1.5}], ["test_batch_end", 1, {"loss": 1.25}],
                    ["test_end", {"loss": 1.25}]]},
        {"name": "predict_unknown_steps", "params": {"verbose": 1, "epochs": 1, "steps": None},
         "events": [["predict_begin"], ["predict_batch_end", 0, {"outputs": 1}],
                    ["predict_batch_end", 1, {"outputs": 1}], ["predict_end"]]},
    ]


def drive_logger(cb, events):
    for ev in events:
        kind, args = ev[0], ev[1:]
        getattr(cb, f"on_{kind}")(*args)


class FakeClock:
    def __init__(self, start=0.0, step=0.25):
        self.t, self.step = start, step

    def __call__(self):
        self.t += self.step
        return self.t


def record_progbar():
    import contextlib
    import io

    import keras.src.utils.progbar as kp
    import tensorflow as tf

    real_time = kp.time.time
    out = {"progbar": [], "logger": []}
    try:
        for sc in progbar_scenarios():
            clock = iter(sc["clock"])
            kp.time.time = lambda: next(clock)  # noqa: B023
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                bar = tf.keras.utils.Progbar(**sc["kwargs"])
                bar._dynamic_display = True  # Keras's value on Linux ("posix" is always imported)
                for cur, vals, fin in sc["steps"]:
                    bar.update(cur, [tuple(v) for v in vals], finalize=fin)
            out["progbar"].append(dict(sc, output=buf.getvalue()))
        for sc in logger_scenarios():
            kp.time.time = FakeClock(1000.0, 0.25)
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                cb = tf.keras.callbacks.ProgbarLogger()
                cb.set_params(sc["params"])
                drive_logger(cb, sc["events"])
            out["logger"].append(dict(sc, output=buf.getvalue()))
    finally:
        kp.time.time = real_time
    path = os.path.join(ROOT, "tests", "goldens", "keras_metrics_utils.json")
    with open(path + ".tmp", "w") as f:
        out["imdb"] = record_imdb()
        json.dump(out, f, indent=0, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


IMDB_CALLS = [{}, {"num_words": 12, "skip_top": 2}, {"maxlen": 6, "seed": 7}, {"start_char": None, "oov_char": None,
                                                                            "num_words": 10, "index_from": 0}]


def imdb_data():
    rng = np.random.RandomState(5)
    def seqs(n):
        return [rng.randint(1, 15, size=rng.randint(2, 9)).tolist() for _ in range(n)]
    return {"x_train": seqs(8), "y_train": rng.randint(0, 2, 8).tolist(), "x_test": seqs(6),
            "y_test": rng.randint(0, 2, 6).tolist()}


def write_imdb_npz(path, data):
    def obj(lists):
        a = np.empty(len(lists), dtype=object)
        a[:] = [list(x) for x in lists]
        return a
    np.savez(path, x_train=obj(data["x_train"]), y_train=np.array(data["y_train"], np.int64),
             x_test=obj(data["x_test"]), y_test=np.array(data["y_test"], np.int64))


def record_imdb():
    import tempfile

    import keras.src.datasets.imdb as kimdb

    data = imdb_data()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "imdb.npz")
        write_imdb_npz(path, data)
        real = kimdb.get_file
        kimdb.get_file = lambda *a, **k: path
        try:
            results = []
            for kw in IMDB_CALLS:
                (xtr, ytr), (xte, yte) = kimdb.load_data(**kw)
                results.append({"kwargs": kw, "x_train": [list(map(int, x)) for x in xtr], "y_train": ytr.tolist(),
                                "x_test": [list(map(int, x)) for x in xte], "y_test": yte.tolist()})
        finally:
            kimdb.get_file = real
    return {"data": data, "results": results}


def main():
    import tensorflow as tf

    record_progbar()

    records = []
    for case in cases():
        m = getattr(tf.keras.metrics, case["cls"])(**case["kwargs"])
        results = []
        for yt, yp, sw in case["batches"]:
            args = [np.asarray(yt)] if yp is None else [np.asarray(yt), np.asarray(yp)]
            kw = {} if sw is None else {"sample_weight": np.asarray(sw, np.float32)}
            if yt is not None and np.asarray(yt).dtype == np.float64:
                args[0] = args[0].astype(np.float32)
            if yp is not None and np.asarray(yp).dtype == np.float64:
                args[1] = args[1].astype(np.float32)
            m.update_state(*args, **kw)
            r = np.asarray(m.result())
            results.append({"dtype": r.dtype.name, "shape": list(r.shape), "value": r.ravel().tolist()})
        rec = dict(case, results=results)
        if case["config"]:
            cfg = m.get_config()
            cfg.pop("name", None)
            rec["config"] = json.loads(json.dumps(cfg, default=lambda o: np.asarray(o).tolist()))
        else:
            rec.pop("config")
        records.append(rec)
    path = os.path.join(ROOT, "tests", "goldens", "keras_metrics.json")
    with open(path + ".tmp", "w") as f:
        json.dump({"keras_version": tf.keras.__version__ if hasattr(tf.keras, "__version__") else None,
                   "cases": records}, f)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}: {len(records)} cases")


if __name__ == "__main__":
    main()
