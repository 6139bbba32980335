"""Record real Keras 3 (TF 2.21) results of tests/keras/steps_per_execution_cases.py into
tests/goldens/keras_steps_per_execution.json.

    /work/tfenv/bin/python tools/record_tf_goldens/keras_steps_per_execution.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_engine import record  # noqa: E402


def main():
    record("steps_per_execution_cases.py", "keras_steps_per_execution.json")


if __name__ == "__main__":
    main()
