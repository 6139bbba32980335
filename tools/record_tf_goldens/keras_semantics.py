"""Record real Keras 3 (TF 2.21) results of tests/keras/keras_semantics_cases.py into
tests/goldens/keras_semantics.json (the recorder of keras_engine.py, on another case module).

    COLUMNS=80 PYTHONPATH=$PWD /work/tfvenv/bin/python tools/record_tf_goldens/keras_semantics.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_engine import record  # noqa: E402

if __name__ == "__main__":
    record("keras_semantics_cases.py", "keras_semantics.json")
