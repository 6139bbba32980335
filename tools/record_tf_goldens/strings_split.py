"""Record TF's split/decode/ngram/hash results into tests/goldens/strings_split.json
(cases: tests/ops/strings_split_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/strings_split.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/strings_split_cases.py", "strings_split.json")
