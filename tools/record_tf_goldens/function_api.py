"""Record tf.function API results from real TF into tests/goldens/function_api.json
(cases: tests/graph/function_api_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/function_api.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/graph/function_api_cases.py", "function_api.json")
