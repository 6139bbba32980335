"""Record tf.signal results and gradients from real TF into tests/goldens/signal.json
(cases: tests/ops/signal_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/signal.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/signal_cases.py", "signal.json")
