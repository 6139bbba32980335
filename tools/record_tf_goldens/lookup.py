"""Record tf.lookup results from real TF into tests/goldens/lookup.json (cases: tests/ops/lookup_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/lookup.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/lookup_cases.py", "lookup.json")
