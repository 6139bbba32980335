"""Record gradients through growing TensorArrays from real TF into tests/goldens/tensor_array_grad.json
(cases: tests/graph/tensor_array_grad_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/tensor_array_grad.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/graph/tensor_array_grad_cases.py", "tensor_array_grad.json")
