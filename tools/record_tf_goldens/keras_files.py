"""Keras model files written by real Keras 3.15 (TF 2.21) for tests/keras/test_saving_interchange.py.

Record (writes tests/goldens/keras_files/: tiny .keras/.h5 files and predictions.json):

    /work/tfenv/bin/python tools/record_tf_goldens/keras_files.py

Check files written by tensorlet (used by the interchange test when /work/tfenv exists): loads every
``*.keras``/``*.h5``/``*.weights.h5`` in DIR with real Keras, predicts on ``<stem>.x.npy`` and writes
``DIR/keras_predictions.json``:

    /work/tfenv/bin/python tools/record_tf_goldens/keras_files.py --check DIR

The models come from tests/keras/saving_cases.py (shared with tensorlet). Two more files are made by hand in the
tf.keras 2.x (Keras 2) legacy HDF5 layout (``legacy_tf2_*.h5``) and loaded by real Keras 3 to get their
predictions; ``lambda.*`` hold a Lambda layer with Python bytecode (for the safe-mode tests).
"""

import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_files")


def _cases():
    spec = importlib.util.spec_from_file_location("saving_cases", os.path.join(ROOT, "tests", "keras",
                                                                               "saving_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pred(model, x):
    import numpy as np

    return np.asarray(model(x, training=False)).astype(np.float64).tolist()


def _fit(model, train):
    if train is not None:
        x, y = train
        model.fit(x, y, epochs=1, batch_size=len(x), shuffle=False, verbose=0)


# --- tf.keras 2.x style legacy HDF5 files, written by hand -------------------------------------------------------
def _k2_dense(name, units, activation, **extra):
    return {"class_name": "Dense", "config": {
        "name": name, "trainable": True, "dtype": "float32", **extra, "units": units, "activation": activation,
        "use_bias": True, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
        "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": None,
        "bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None}}


def _k2_bn(name):
    init = {"class_name": "Zeros", "config": {}}
    ones = {"class_name": "Ones", "config": {}}
    return {"class_name": "BatchNormalization", "config": {
        "name": name, "trainable": True, "dtype": "float32", "axis": [1], "momentum": 0.99, "epsilon": 0.001,
        "center": True, "scale": True, "beta_initializer": init, "gamma_initializer": ones,
        "moving_mean_initializer": init, "moving_variance_initializer": ones, "beta_regularizer": None,
        "gamma_regularizer": None, "beta_constraint": None, "gamma_constraint": None}}


def _write_layer(group, lname, weights):
    import numpy as np

    g = group.create_group(lname)
    names = [f"{lname}/{wname}:0".encode() for wname, _ in weights]
    g.attrs["weight_names"] = np.array(names, dtype=object) if names else np.array([], dtype="S1")
    for (_, value), full in zip(weights, names):
        g.create_dataset(full.decode(), data=value)


def _write_k2(path, model_config, layers, training_config=None, optimizer_weights=None):
    import h5py
    import numpy as np

    with h5py.File(path, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["model_config"] = json.dumps(model_config)
        if training_config is not None:
            f.attrs["training_config"] = json.dumps(training_config)
        mw = f.create_group("model_weights")
        mw.attrs["backend"] = "tensorflow"
        mw.attrs["keras_version"] = "2.15.0"
        mw.attrs["layer_names"] = np.array([n.encode() for n, _ in layers], dtype=object)
        for lname, weights in layers:
            _write_layer(mw, lname, weights)
        if optimizer_weights:
            og = f.create_group("optimizer_weights")
            og.attrs["weight_names"] = np.array([n.encode() for n, _ in optimizer_weights], dtype=object)
            for n, v in optimizer_weights:
                og.create_dataset(n, data=v)


def write_legacy_tf2(out_dir):
    """Two tf.keras 2.x files: a compiled Sequential (with Adam slots) and a Functional with a residual Add."""
    import numpy as np

    rng = np.random.RandomState(21)

    def w(*shape):
        return rng.normal(0, 0.4, size=shape).astype(np.float32)

    seq_layers = [_k2_dense("dense", 5, "relu", batch_input_shape=[None, 4]), _k2_bn("batch_normalization"),
                  _k2_dense("dense_1", 2, "softmax")]
    seq_config = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 4], "dtype": "float32", "sparse": False,
                                                "ragged": False, "name": "dense_input"}}] + seq_layers}}
    weights = [("dense", [("kernel", w(4, 5)), ("bias", w(5))]),
               ("batch_normalization", [("gamma", w(5)), ("beta", w(5)), ("moving_mean", w(5)),
                                        ("moving_variance", rng.uniform(0.5, 1.5, 5).astype(np.float32))]),
               ("dense_1", [("kernel", w(5, 2)), ("bias", w(2))])]
    training = {"loss": "categorical_crossentropy", "metrics": [[{"class_name": "MeanMetricWrapper", "config": {
        "name": "accuracy", "dtype": "float32", "fn": "categorical_accuracy"}}]], "weighted_metrics": None,
        "loss_weights": None, "optimizer_config": {"class_name": "Adam", "config": {
            "name": "Adam", "weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
            "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None, "jit_compile": False,
            "is_legacy_optimizer": False, "learning_rate": 0.0010000000474974513, "beta_1": 0.9, "beta_2": 0.999,
            "epsilon": 1e-07, "amsgrad": False}}}
    trainable = [("dense/kernel", (4, 5)), ("dense/bias", (5,)), ("batch_normalization/gamma", (5,)),
                 ("batch_normalization/beta", (5,)), ("dense_1/kernel", (5, 2)), ("dense_1/bias", (2,))]
    opt = [("Adam/iter:0", np.array(3, np.int64))]
    opt += [(f"Adam/{n}/m:0", w(*s)) for n, s in trainable] + [(f"Adam/{n}/v:0", np.abs(w(*s))) for n, s in trainable]
    _write_k2(os.path.join(out_dir, "legacy_tf2_seq.h5"), seq_config, weights, training, opt)

    func_config = {"class_name": "Functional", "config": {"name": "model", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "dtype": "float32", "sparse": False,
                                                "ragged": False, "name": "input_1"}, "name": "input_1",
         "inbound_nodes": []},
        {**_k2_dense("dense", 3, "tanh"), "name": "dense", "inbound_nodes": [[["input_1", 0, 0, {}]]]},
        {"class_name": "Add", "config": {"name": "add", "trainable": True, "dtype": "float32"}, "name": "add",
         "inbound_nodes": [[["dense", 0, 0, {}], ["input_1", 0, 0, {}]]]},
        {**_k2_dense("dense_1", 2, "linear"), "name": "dense_1", "inbound_nodes": [[["add", 0, 0, {}]]]}],
        "input_layers": [["input_1", 0, 0]], "output_layers": [["dense_1", 0, 0]]}}
    fweights = [("input_1", []), ("dense", [("kernel", w(3, 3)), ("bias", w(3))]), ("add", []),
                ("dense_1", [("kernel", w(3, 2)), ("bias", w(2))])]
    _write_k2(os.path.join(out_dir, "legacy_tf2_func.h5"), func_config, fweights)
    return {"legacy_tf2_seq": rng.normal(size=(3, 4)).astype(np.float32),
            "legacy_tf2_func": rng.normal(size=(2, 3)).astype(np.float32)}


def record():
    import keras
    import numpy as np
    import tensorflow as tf

    mod = _cases()
    os.makedirs(OUT, exist_ok=True)
    for fname in os.listdir(OUT):
        os.remove(os.path.join(OUT, fname))
    golden = {"keras_version": keras.__version__, "cases": {}}
    for name, fn in mod.CASES.items():
        keras.backend.clear_session()
        model, x, train = fn(tf)
        _fit(model, train)
        model.save(os.path.join(OUT, f"{name}.keras"))
        files = [f"{name}.keras"]
        if name in mod.H5_CASES:
            model.save(os.path.join(OUT, f"{name}.h5"))
            files.append(f"{name}.h5")
        if name == "mlp":
            model.save_weights(os.path.join(OUT, "mlp.weights.h5"))
            files.append("mlp.weights.h5")
        golden["cases"][name] = {"x": x.tolist(), "x_dtype": str(x.dtype), "y": _pred(model, x), "files": files}
        if name == "cnn":  # one more step after saving: the loaded optimizer state must continue identically
            _fit(model, train)
            golden["cases"][name]["y_after_step"] = _pred(model, x)

    # a Lambda layer with Python bytecode (refused in safe mode)
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda t: t * 2.0 + 1.0),
                              keras.layers.Dense(2)], name="with_lambda")
    mod.set_weights(model, 17)
    model.save(os.path.join(OUT, "lambda.keras"))
    model.save(os.path.join(OUT, "lambda.h5"))
    x = np.random.RandomState(18).normal(size=(2, 3)).astype(np.float32)
    golden["cases"]["lambda"] = {"x": x.tolist(), "x_dtype": "float32", "y": _pred(model, x),
                                 "files": ["lambda.keras", "lambda.h5"]}

    # tf.keras 2.x files made by hand, read back by real Keras 3
    for name, x in write_legacy_tf2(OUT).items():
        keras.backend.clear_session()
        entry = {"x": x.tolist(), "x_dtype": "float32", "files": [f"{name}.h5"], "compile_error": None}
        try:
            loaded = keras.saving.load_model(os.path.join(OUT, f"{name}.h5"))
        except ValueError as e:  # Keras 3 refuses Keras 2 optimizer arguments when compiling
            entry["compile_error"] = str(e)
            loaded = keras.saving.load_model(os.path.join(OUT, f"{name}.h5"), compile=False)
        entry["y"] = _pred(loaded, x)
        entry["compiled"] = bool(loaded.compiled)
        golden["cases"][name] = entry
    with open(os.path.join(OUT, "predictions.json"), "w") as f:
        json.dump(golden, f, indent=0, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files ({total} bytes) to {OUT}")


def check(directory):
    """Loads tensorlet-written files with real Keras; writes their predictions (or the error) as JSON."""
    import keras
    import numpy as np
    import tensorflow as tf

    mod = _cases()
    custom = mod.define_custom(tf)
    out = {}
    for fname in sorted(os.listdir(directory)):
        if not fname.endswith((".keras", ".h5")):
            continue
        stem = fname.split(".")[0]
        xpath = os.path.join(directory, f"{stem}.x.npy")
        try:
            keras.backend.clear_session()
            if fname.endswith(".weights.h5"):
                model, _, _ = mod.CASES[stem](tf)
                model.load_weights(os.path.join(directory, fname))
                entry = {}
            else:
                entry = {"compile_error": None}
                try:
                    model = keras.saving.load_model(os.path.join(directory, fname), custom_objects=custom)
                except ValueError as e:  # Keras 3.15 cannot compile its own .h5 files with loss="mse"
                    if not fname.endswith(".h5"):
                        raise
                    entry["compile_error"] = str(e)
                    model = keras.saving.load_model(os.path.join(directory, fname), custom_objects=custom,
                                                    compile=False)
                entry.update({"compiled": bool(model.compiled),
                         "optimizer_iterations": int(model.optimizer.iterations.numpy())
                         if model.compiled and model.optimizer is not None else None})
            entry["y"] = _pred(model, np.load(xpath))
            out[fname] = entry
        except Exception as e:  # noqa: BLE001  (reported to the test)
            out[fname] = {"error": f"{type(e).__name__}: {e}"[:2000]}
    with open(os.path.join(directory, "keras_predictions.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        record()
