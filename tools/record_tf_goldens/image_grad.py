"""Record gradients of tf.image.resize, tf.image.extract_patches and the tf.image composites from
real TensorFlow into tests/goldens/image_grad.json.

For each method and output size, the gradient of ``sum(resize(x) * w)`` with respect to ``x``
(that is TF's ResizeBilinearGrad / ResizeNearestNeighborGrad / ResizeBicubicGrad /
ScaleAndTranslateGrad applied to ``w``).  The upstream ``w`` are multiples of 1/8, stored exactly.
Run with a Python that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/image_grad.py
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "image_grad.json")

SHAPE = (1, 5, 7, 2)
SIZES = [(3, 11), (8, 4), (1, 1), (2, 3), (10, 14)]
METHODS = [("bilinear", False), ("nearest", False), ("bicubic", False), ("lanczos3", False), ("lanczos5", False),
           ("gaussian", False), ("mitchellcubic", False), ("bilinear", True), ("bicubic", True)]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grad_cases import load_cases  # noqa: E402

COMPOSITES = load_cases("image_grad_cases").composites(tf)
PATCHES = [([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"), ([1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 2, 1], "VALID"),
           ([1, 3, 2, 1], [1, 3, 2, 1], [1, 2, 1, 1], "SAME")]


def _values(a):
    """float32 values with 9 significant digits (exact for float32, and short)."""
    return [float(f"{v:.9g}") for v in np.asarray(a, np.float64).reshape(-1)]


def _grad(f, x, w):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
        loss = tf.reduce_sum(y * tf.cast(w, y.dtype))
    return tape.gradient(loss, x)


def main():
    rng = np.random.default_rng(1)
    x = np.round(rng.uniform(0, 255, SHAPE)).astype(np.float32)
    upstream = {}
    for size in SIZES:
        upstream["x".join(map(str, size))] = (rng.integers(-9, 10, (SHAPE[0], *size, SHAPE[3])) / 8).tolist()
    cases = []
    for method, antialias in METHODS:
        for size in SIZES:
            w = np.array(upstream["x".join(map(str, size))], np.float32)
            g = _grad(lambda v, s=size, m=method, a=antialias: tf.image.resize(v, s, method=m, antialias=a), x, w)
            cases.append({"method": method, "antialias": antialias, "size": list(size), "dtype": g.dtype.name,
                          "grad": _values(g.numpy())})
    for method in ("bilinear", "bicubic", "nearest"):
        w = np.array(upstream["3x11"], np.float32)
        g = _grad(lambda v, m=method: tf.image.resize(v, (3, 11), method=m), x.astype(np.float64), w)
        cases.append({"method": method, "antialias": False, "size": [3, 11], "dtype": g.dtype.name,
                      "input": "float64", "grad": _values(g.numpy())})
    patches = []
    for sizes, strides, rates, padding in PATCHES:
        y = tf.image.extract_patches(x, sizes, strides, rates, padding)
        w = rng.integers(-9, 10, y.shape) / 8
        g = _grad(lambda v, a=(sizes, strides, rates, padding): tf.image.extract_patches(v, *a), x, w)
        patches.append({"sizes": sizes, "strides": strides, "rates": rates, "padding": padding,
                        "upstream": w.reshape(-1).tolist(), "grad": _values(g.numpy())})
    small = (rng.permutation(2 * 3 * 4 * 3) / 72).astype(np.float32).reshape(2, 3, 4, 3)  # no equal neighbours
    composites = {}
    for name, fn in COMPOSITES.items():
        v = tf.constant(small)
        with tf.GradientTape() as tape:
            tape.watch(v)
            ys = tf.nest.flatten(fn(v))
        ws = [(rng.integers(-9, 10, y.shape) / 8) for y in ys]
        g = tape.gradient(ys, v, output_gradients=[tf.cast(w, y.dtype) for w, y in zip(ws, ys)])
        composites[name] = {"upstream": [w.reshape(-1).tolist() for w in ws], "dtype": g.dtype.name,
                            "grad": _values(g.numpy())}
    with open(OUT, "w") as f:
        json.dump({"image": x.reshape(-1).tolist(), "image_shape": list(SHAPE), "upstream": upstream,
                   "resize": cases, "patches": patches, "small": small.reshape(-1).tolist(),
                   "small_shape": list(small.shape), "composites": composites}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} resize and {len(patches)} patch gradients to {OUT}")


if __name__ == "__main__":
    main()
