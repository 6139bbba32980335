"""An input pipeline feeding ``fit``: does tf.data keep up with the train step?

The 5,000-image MNIST sample (../shared/data/mnist_5k.npz, else the package copy) as uint8 images, through

    from_tensor_slices((x, y)).shuffle(5000).map(decode_augment, AUTOTUNE).batch(32).prefetch(AUTOTUNE)

(``decode_augment``: uint8 -> float32 / 255, pad 2 + random 28x28 crop, random brightness, clip) into ``fit`` of
the seed CNN (Conv2D 16, Conv2D 16, GlobalAveragePooling2D, Dense 10) and the MLP (Flatten, Dense 128, Dense 10)
of benchmarks/bench_keras.py (same weights, Adam, sparse categorical cross-entropy, accuracy, verbose=0).

Reported per model: the steady-state step time (best epoch after the first, / 157 steps; the epochs of the two
models alternate) with the pipeline and with the same images as in-memory arrays (``fit(x, y, batch_size=32)``),
their ratio (the pipeline must not starve
the step: ratio near 1.0), and the pipeline alone (an epoch iterated without training, per batch).  Keras 3 on
TF with its own tf.data runs the same script in a subprocess (``--tf-python``, default /work/tfvenv/bin/python,
if present); rounds alternate tensorlet and TF so load drift hits both; the best round is kept.

    python benchmarks/bench_pipeline_fit.py [--rounds 2] [--epochs 6] [--only cnn,mlp] [--tf-python PATH|none]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data", "mnist_5k.npz")
PACKAGE = os.path.join(ROOT, "tensorlet", "_src", "data", "mnist_5k.npz")
MARK = "@@bench_pipeline_fit@@"
BATCH = 32


def load_uint8():
    d = np.load(SHARED if os.path.exists(SHARED) else PACKAGE)
    return d["x"].astype(np.uint8)[..., None], d["y"].astype(np.int32)


def pipeline(tf, x, y):
    def decode_augment(img, label):
        img = tf.cast(img, tf.float32) / 255.0
        img = tf.pad(img, [[2, 2], [2, 2], [0, 0]])
        off = tf.random.uniform([2], 0, 5, dtype=tf.int32)
        img = tf.slice(img, tf.concat([off, [0]], 0), [28, 28, 1])
        img = img + tf.random.uniform([], -0.1, 0.1)
        return tf.clip_by_value(img, 0.0, 1.0), label

    return (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(5000)
            .map(decode_augment, num_parallel_calls=tf.data.AUTOTUNE).batch(BATCH).prefetch(tf.data.AUTOTUNE))


def make_model(keras, kind):
    from bench_keras import build

    model = build(keras, kind)
    model.compile(optimizer=keras.optimizers.Adam(), metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def epoch_step_ms(keras, model, data):
    """One epoch of ``fit`` on ``data`` ((x, y) arrays or a dataset): ms per step, and the loss."""
    times = []

    class EpochTimer(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            times.append(time.perf_counter() - self.t0)

    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        if isinstance(data, tuple):
            hist = model.fit(data[0], data[1], batch_size=BATCH, epochs=1, verbose=0, callbacks=[EpochTimer()])
        else:
            hist = model.fit(data, epochs=1, verbose=0, callbacks=[EpochTimer()])
    return times[0] / -(-5000 // BATCH) * 1e3, float(hist.history["loss"][-1])


def pipeline_batch_ms(ds, epochs=3):
    best = float("inf")
    for _ in range(epochs):
        t = time.perf_counter()
        n = sum(1 for _ in ds)
        best = min(best, (time.perf_counter() - t) / n * 1e3)
    return best


def run(name, only, epochs):
    sys.path.insert(0, HERE)
    if name == "tensorlet":
        sys.path.insert(0, ROOT)
        import tensorlet as tf

        keras = tf.keras
    else:
        os.environ["KERAS_BACKEND"] = "tensorflow"
        import keras
        import tensorflow as tf
    keras.utils.set_random_seed(0)
    x8, y = load_uint8()
    xf = x8.astype(np.float32) / 255.0
    ds = pipeline(tf, x8, y)
    out = {"pipeline_batch_ms": pipeline_batch_ms(ds)}
    for kind in only:
        m_arrays, m_pipe = make_model(keras, kind), make_model(keras, kind)
        epoch_step_ms(keras, m_arrays, (xf, y))  # the first epochs hold the compilations
        epoch_step_ms(keras, m_pipe, ds)
        arrays_ms = pipe_ms = float("inf")
        for _ in range(epochs):  # epochs alternate between the two models: load drift hits both alike
            a, loss_a = epoch_step_ms(keras, m_arrays, (xf, y))
            p, loss_p = epoch_step_ms(keras, m_pipe, ds)
            arrays_ms, pipe_ms = min(arrays_ms, a), min(pipe_ms, p)
        out[kind] = {"arrays_step_ms": arrays_ms, "pipeline_step_ms": pipe_ms, "ratio": pipe_ms / arrays_ms,
                     "loss_arrays": loss_a, "loss_pipeline": loss_p}
    return out


def merge(best, new):
    if best is None:
        return new
    out = dict(best)
    out["pipeline_batch_ms"] = min(best["pipeline_batch_ms"], new["pipeline_batch_ms"])
    for k, v in new.items():
        if isinstance(v, dict):
            a = min(best[k]["arrays_step_ms"], v["arrays_step_ms"])
            p = min(best[k]["pipeline_step_ms"], v["pipeline_step_ms"])
            out[k] = dict(v, arrays_step_ms=a, pipeline_step_ms=p, ratio=p / a)
    return out


def subprocess_run(python, only, epochs):
    cmd = [python, os.path.abspath(__file__), "--worker", "keras-tf", "--only", ",".join(only), "--epochs",
           str(epochs)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="tensorflow")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    for line in p.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    print(f"  (keras-tf worker failed: {p.stderr.strip().splitlines()[-1:] or p.returncode})")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--only", default="cnn,mlp")
    ap.add_argument("--tf-python", default="/work/tfvenv/bin/python")
    ap.add_argument("--worker", default=None)
    args = ap.parse_args()
    only = [k for k in args.only.split(",") if k]
    if args.worker:
        print(MARK + json.dumps(run(args.worker, only, args.epochs)))
        return
    peer = args.tf_python if args.tf_python != "none" and os.path.exists(args.tf_python) else None
    res = {"tensorlet": None, "keras-tf": None}
    for _ in range(args.rounds):  # alternating rounds: load drift hits both alike
        res["tensorlet"] = merge(res["tensorlet"], run("tensorlet", only, args.epochs))
        if peer:
            r = subprocess_run(peer, only, args.epochs)
            if r is not None:
                res["keras-tf"] = merge(res["keras-tf"], r)
    print(f"cores: {os.cpu_count()}, load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    for name, r in res.items():
        if r is None:
            print(f"{name}: not measured")
            continue
        print(f"{name}: pipeline alone {r['pipeline_batch_ms']:.3f} ms/batch")
        for kind in only:
            k = r[kind]
            print(f"  {kind}: step {k['arrays_step_ms']:.2f} ms (arrays) vs {k['pipeline_step_ms']:.2f} ms (pipeline) "
                  f"-> pipeline/arrays {k['ratio']:.2f}  (loss {k['loss_arrays']:.3f} / {k['loss_pipeline']:.3f})")
    tl, tfr = res["tensorlet"], res["keras-tf"]
    if tfr is not None:
        for kind in only:
            print(f"  {kind} with the pipeline: tensorlet/Keras-on-TF step "
                  f"{tl[kind]['pipeline_step_ms'] / tfr[kind]['pipeline_step_ms']:.2f}x")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
