"""Record TF's gradients of math_unary / math_binary_fn / math_clip cases into tests/goldens/math_grad.json.

The cases (edges such as sqrt'(0), clip_by_value at ties, the xlogy family at x == 0, and complex inputs, where
TF's conj convention shows) live in tests/autodiff/math_grad_cases.py, shared with the test.  Run with a Python
that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/math_grad.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from grad_cases import record  # noqa: E402

if __name__ == "__main__":
    record("math_grad_cases", "math_grad.json")
