"""Record the tf.data service and issue-15 tf.data.experimental cases from real TF into
tests/goldens/data_service.json (cases: tests/data/service_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/data_service.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/data/service_cases.py", "data_service.json")
