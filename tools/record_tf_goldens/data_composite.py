"""Record tf.data composite elements from real TF into tests/goldens/data_composite.json
(cases: tests/data/composite_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/data_composite.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/data/composite_cases.py", "data_composite.json")
