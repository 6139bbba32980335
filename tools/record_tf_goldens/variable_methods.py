"""Record tf.Variable slice/scatter results, tf.Module's variable/submodule order and tf.function tracing counts
from real TF into tests/goldens/variable_methods.json (cases: tests/framework/variable_methods_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/variable_methods.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/framework/variable_methods_cases.py", "variable_methods.json")
