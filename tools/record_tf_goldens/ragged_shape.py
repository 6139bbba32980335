"""Record RowPartition, DynamicRaggedShape and StructuredTensor results from real TF into
tests/goldens/ragged_shape.json
(cases: tests/ops/ragged/ragged_shape_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/ragged_shape.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/ragged/ragged_shape_cases.py", "ragged_shape.json")
