"""Record tf.function semantics from real TF into tests/goldens/function_semantics.json
(cases: tests/graph/function_semantics_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/function_semantics.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/graph/function_semantics_cases.py", "function_semantics.json")
