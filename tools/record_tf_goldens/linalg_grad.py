"""Record TF's gradients for the tf.linalg convention cases into tests/goldens/linalg_grad.json.

The cases (norms at zero and at ties, complex inputs where TF's conj conventions show, decompositions through
sign/phase-invariant losses, first and second order) live in tests/autodiff/linalg_grad_cases.py, shared with the
test.  Run with a Python that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/linalg_grad.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from grad_cases import record  # noqa: E402

if __name__ == "__main__":
    record("linalg_grad_cases", "linalg_grad.json")
