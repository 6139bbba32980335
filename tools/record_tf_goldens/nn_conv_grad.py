"""Record first- and second-order gradients of the convolutions and poolings from real TensorFlow into
tests/goldens/nn_conv_grad.json.

For each entry of TABLE (tests/autodiff/conv_grad_cases.py): inputs ``det(shape, k=1.3 + i)``,
loss ``L = sum(y * u) + 0.05 * sum(y * y)`` with ``u = det(y.shape, k=0.7)``; recorded are ``dL/dx_i`` and the
second-order ``d/dx_i sum_j <dL/dx_j, v_j>`` with ``v_j = det(x_j.shape, k=0.9 + j)`` (None where TF has no second
derivative).  Run with a Python that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/nn_conv_grad.py
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "nn_conv_grad.json")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grad_cases import load_cases  # noqa: E402

_cases = load_cases("conv_grad_cases")
F64, F32, NO_SECOND = _cases.F64, _cases.F32, _cases.NO_SECOND
TABLE = _cases.table(tf)


def _values(a):
    return [float(f"{v:.12g}") for v in np.asarray(a, np.float64).reshape(-1)]


def record(name):
    fn, shapes, dtype = TABLE[name]
    gs, second = _cases.first_and_second(tf, fn, shapes, dtype, second=name not in NO_SECOND)
    return {"first": [_values(g) for g in gs],
            "second": None if second is None else [None if g is None else _values(g) for g in second]}


def main():
    data = {}
    for name in TABLE:
        try:
            data[name] = record(name)
        except Exception as e:  # noqa: BLE001
            print(name, "FAILED", type(e).__name__, str(e)[:200])
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    print(f"wrote {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
