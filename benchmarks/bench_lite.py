"""tf.lite on the seed CNN (Conv2D 16 -> MaxPool -> Conv2D 64 -> MaxPool -> Dense softmax), trained briefly on
the bundled MNIST sample: file sizes, accuracy and LiteRT latency of float / dynamic-range / float16 / int8
files, against the same model converted by TensorFlow's converter when its files are given (--peer-dir, written
by tools/record_tf_goldens/lite_peer.py).  Model optimization (tfmot): "qat" is the model after one epoch of
quantization-aware training converted to int8 with its learned ranges; "pruned" is the model pruned to 80%
sparsity during one epoch of fine-tuning, stripped and converted to float (its gzip size is the point).
Latencies are medians of interleaved rounds in one run after a warm-up call; "vs TF" gives the ratio of medians
and, in brackets, of the fastest rounds (steadier on a loaded machine).

    python benchmarks/bench_lite.py [--save-weights DIR/weights.npz] [--peer-dir DIR] [--no-optimize]
"""

import argparse
import gzip
import os
import time

import numpy as np

import tensorlet as tf
from tensorlet._src.lite.interpreter import Interpreter

MODES = ("float", "dynamic", "float16", "int8")


def build_and_train(keras, x, y):
    keras.utils.set_random_seed(0)
    m = keras.Sequential([
        keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dropout(0.25), keras.layers.Dense(10, activation="softmax")])
    m.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    m.fit(x, y, batch_size=32, epochs=1, verbose=0)
    return m


def convert(model, mode, calib):
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    if mode != "float":
        c.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode == "float16":
        c.target_spec.supported_types = [tf.float16]
    if mode == "int8":
        c.representative_dataset = lambda: ([calib[i:i + 10]] for i in range(0, len(calib), 10))
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    return c.convert()


def runner(content):
    it = Interpreter(model_content=content)
    d, o = it.get_input_details()[0], it.get_output_details()[0]
    it.allocate_tensors()

    def run(x):
        out = []
        for row in x:
            it.set_tensor(d["index"], row[None])
            it.invoke()
            out.append(it.get_tensor(o["index"])[0])
        return np.stack(out)
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer-dir")
    ap.add_argument("--save-weights")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-optimize", action="store_true", help="skip the tfmot pruning / QAT rows")
    args = ap.parse_args()
    (xt, yt), (xs, ys) = tf.keras.datasets.mnist.load_data()
    xt, xs = (xt[..., None] / 255).astype("float32"), (xs[..., None] / 255).astype("float32")
    model = build_and_train(tf.keras, xt[:2400], yt[:2400])
    calib = xt[:200]
    if args.save_weights:
        os.makedirs(os.path.dirname(os.path.abspath(args.save_weights)), exist_ok=True)
        np.savez(args.save_weights, calib=calib, **{f"w{i}": w for i, w in enumerate(model.get_weights())})
    keras_acc = float(np.mean(np.argmax(model.predict(xs, verbose=0), 1) == ys))
    files = {("tensorlet", m): convert(model, m, calib) for m in MODES}
    if args.peer_dir:
        for m in MODES:
            p = os.path.join(args.peer_dir, f"{m}.tflite")
            if os.path.exists(p):
                files[("tf", m)] = open(p, "rb").read()
    if not args.no_optimize:
        files.update(optimized(model, xt[:2400], yt[:2400]))
    runs = {k: runner(v) for k, v in files.items()}
    probe = xs[:64]
    for r in runs.values():  # warm-up: XNNPack packs the weights on the first invoke
        r(probe[:2])
    times = {k: [] for k in files}
    for _ in range(args.rounds):  # interleaved rounds
        for k, r in runs.items():
            t0 = time.perf_counter()
            r(probe)
            times[k].append((time.perf_counter() - t0) / len(probe))
    print(f"Keras accuracy on {len(ys)} test images: {keras_acc:.4f}   (load average {os.getloadavg()[0]:.1f})")
    print(f"{'converter':10} {'mode':8} {'bytes':>8} {'x float':>8} {'gzip x':>7} {'accuracy':>9} {'us/image':>9} "
          f"{'vs TF':>7}")
    for (who, m), content in files.items():
        acc = float(np.mean(np.argmax(runs[(who, m)](xs), 1) == ys))
        us = 1e6 * float(np.median(times[(who, m)]))
        ratio = ""
        if who == "tensorlet" and ("tf", m) in files:
            ratio = f"{us / (1e6 * float(np.median(times[('tf', m)]))):.2f}x"
            ratio += f" ({min(times[(who, m)]) / min(times[('tf', m)]):.2f}x)"
            ratio += f" size {len(content) / len(files[('tf', m)]):.2f}x"
        print(f"{who:10} {m:8} {len(content):8d} {len(content) / len(files[(who, 'float')]):8.3f} "
              f"{len(content) / len(gzip.compress(content)):7.2f} {acc:9.4f} {us:9.1f} {ratio:>7}")


def optimized(model, x, y):
    """The tfmot rows: QAT (on a copy) then pruning (which wraps, and so changes, ``model`` itself)."""
    from tensorlet._src.tfmot import quantization, sparsity

    q = quantization.keras.quantize_model(model)
    q.compile("adam", "sparse_categorical_crossentropy")
    q.fit(x, y, batch_size=32, epochs=1, verbose=0)
    c = tf.lite.TFLiteConverter.from_keras_model(q)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    out = {("tensorlet", "qat"): c.convert()}
    sk = sparsity.keras
    p = sk.prune_low_magnitude(model, pruning_schedule=sk.PolynomialDecay(0.5, 0.8, 0, 30, frequency=5))
    p.compile("adam", "sparse_categorical_crossentropy")
    p.fit(x, y, batch_size=32, epochs=1, verbose=0, callbacks=[sk.UpdatePruningStep()])
    out[("tensorlet", "pruned")] = tf.lite.TFLiteConverter.from_keras_model(sk.strip_pruning(p)).convert()
    return out


if __name__ == "__main__":
    main()
