"""Gradient of an RNN-style tf.while_loop writing a TensorArray: a growing one (``dynamic_size=True``, size 0:
differentiated step by step on NumPy) against a fixed-size one (``size=T``: one compiled scan), same run,
interleaved rounds.  The peer is tensorlet's own fixed-size path (the growing loop has no compiled form).

    python benchmarks/bench_tensor_array_grad.py [--rounds 5] [--steps 20 100]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import tensorlet as tf


def make(dynamic, steps):
    @tf.function
    def f(x, w):
        n = tf.shape(x)[0]
        ta = tf.TensorArray(tf.float32, size=0 if dynamic else steps, dynamic_size=dynamic, element_shape=[8])

        def body(i, h, ta):
            h = tf.tanh(tf.linalg.matvec(w, h) + x[i])
            return i + 1, h, ta.write(i, h)

        _, h, ta = tf.while_loop(lambda i, h, ta: i < n, body, [tf.constant(0), tf.zeros([8]), ta])
        return tf.reduce_sum(ta.stack() ** 2)

    return f


def step(f, x, w):
    t0 = time.perf_counter()
    with tf.GradientTape() as t:
        t.watch(w)
        y = f(x, w)
    t.gradient(y, w).numpy()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, nargs="+", default=[20, 100])
    args = ap.parse_args()
    tf.get_logger().setLevel("ERROR")
    rng = np.random.default_rng(0)
    print(f"load average {os.getloadavg()[0]:.2f}")
    for n in args.steps:
        x = tf.constant(rng.random((n, 8), np.float32))
        w = tf.constant(rng.random((8, 8), np.float32) * 0.1)
        fs = {"growing": make(True, n), "fixed": make(False, n)}
        for f in fs.values():  # trace, compile
            for _ in range(2):
                step(f, x, w)
        times = {k: [] for k in fs}
        for _ in range(args.rounds):
            for k, f in fs.items():
                times[k].append(step(f, x, w))
        g, fx = np.median(times["growing"]), np.median(times["fixed"])
        print(f"T={n}: growing {g * 1e3:.1f} ms, fixed {fx * 1e3:.1f} ms per gradient (growing/fixed {g / fx:.1f}x)")


if __name__ == "__main__":
    main()
