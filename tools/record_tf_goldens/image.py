"""Record tf.image.resize outputs from real TensorFlow into tests/goldens/image.json.

The interpolation conventions (half-pixel centers, TF's bicubic coefficient table, the
area and scale-and-translate kernels) matter to the last digits, so the image tests compare
against values TensorFlow itself produced.  Run with a Python that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/image.py
"""

import json
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "image.json")

METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"]
SIZES = [(3, 4), (8, 11), (5, 3), (2, 14)]


def _values(a):
    """float32 values with 9 significant digits (exact for float32, and short)."""
    return [float(f"{v:.9g}") for v in np.asarray(a, np.float64).reshape(-1)]


def main():
    rng = np.random.default_rng(0)
    image = np.round(rng.uniform(0, 255, (5, 7, 1))).astype(np.float32)
    cases = []
    for method in METHODS:
        for antialias in (False, True):
            for size in SIZES:
                out = tf.image.resize(image, size, method=method, antialias=antialias)
                cases.append({"method": method, "antialias": antialias, "size": list(size),
                              "dtype": out.dtype.name, "output": _values(out.numpy())})
    small = np.round(rng.uniform(0, 255, (2, 3, 1))).astype(np.uint8)
    for method in METHODS:
        out = tf.image.resize(small, (5, 4), method=method)
        cases.append({"method": method, "antialias": False, "size": [5, 4], "input": "uint8",
                      "dtype": out.dtype.name, "output": _values(out.numpy())})
    with open(OUT, "w") as f:
        json.dump({"image": image.reshape(-1).tolist(), "image_shape": list(image.shape),
                   "uint8_image": small.reshape(-1).tolist(), "uint8_shape": list(small.shape),
                   "resize": cases}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
