"""The ``tensorlet`` command: ``tensorlet demo`` (the README's main job) and ``tensorlet version``."""

from __future__ import annotations

import argparse
import os
import sys


def demo(args) -> int:
    """A short tour: TF's tensors and dtype rules, errors that point at your line, and speed."""
    import time

    import numpy as np

    import tensorlet as tf

    print(f"tensorlet {tf.__version__}: TensorFlow's API, eager on NumPy\n")
    a = tf.constant([[1, 2], [3, 4]])
    print(a)
    print(a * (a + 1))
    print("matmul:", repr(tf.matmul([[2.0]], [[2.0]])))
    print("int / int is float64, as in TF:", repr(tf.constant(1) / tf.constant(2)))
    try:
        a + tf.constant(1.0)
    except tf.errors.InvalidArgumentError as e:
        print("\nmixing dtypes raises TF's error, naming the op:\n ", type(e).__name__ + ":", e)

    x = tf.Variable([1.0, 2.0, 3.0])
    x.assign_add([0.5, 0.5, 0.5])
    print("\nvariable:", x)

    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((784, 10)).astype(np.float32))
    path = args.data or os.path.join(os.path.dirname(os.path.dirname(__file__)), "_src", "data", "mnist_5k.npz")
    with np.load(path, allow_pickle=False) as f:
        images = f["x"][:256].reshape(256, 784).astype(np.float32) / 255.0
    logits = tf.matmul(tf.constant(images), w)
    print("logits for 256 MNIST images:", logits.shape, logits.dtype.name, "\n")

    # gradients: fit y = 3x + 2 with a GradientTape (seed 000's linear regression)
    xs = tf.constant(rng.standard_normal(1000).astype(np.float32))
    ys = xs * 3.0 + 2.0 + tf.constant(rng.standard_normal(1000).astype(np.float32) * 0.1)
    w, b = tf.Variable(5.0), tf.Variable(10.0)
    for step in range(200):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(xs * w + b - ys))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * dw)
        b.assign_sub(0.05 * db)
        if step % 50 == 0:
            print(f"  step {step:3d}: loss {float(loss):.4f}")
    print(f"fitted W = {float(w):.3f}, B = {float(b):.3f} (true 3, 2)")

    p, q = tf.constant(np.ones((2, 2), np.float32)), tf.constant(np.ones((2, 2), np.float32))
    n = 100_000
    t = time.perf_counter()
    for _ in range(n):
        p + q
    print(f"\neager a + b (2x2 float32): {(time.perf_counter() - t) / n * 1e6:.2f} us per op (TensorFlow: ~16 us)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tensorlet", description="tensorlet: TensorFlow's API, eager on NumPy.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="a short tour of tensorlet")
    d.add_argument("--data", help="an .npz with MNIST-style 'x' images to use", default=None)
    sub.add_parser("version", help="print the version")
    args = ap.parse_args(argv)
    if args.cmd == "demo":
        return demo(args)
    import tensorlet

    print(tensorlet.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
