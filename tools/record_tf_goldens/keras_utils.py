"""Record keras.utils dataset builders (image/text/audio directories, timeseries) from Keras 3 on TensorFlow over
the tiny tree of tests/keras/keras_utils_cases.py into tests/goldens/keras_utils.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_utils.py
"""

import importlib.util
import json
import os
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_utils.json")


def main():
    path = os.path.join(ROOT, "tests", "keras", "keras_utils_cases.py")
    spec = importlib.util.spec_from_file_location("keras_utils_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    with tempfile.TemporaryDirectory() as d:
        data = cases.run(keras, d)
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} entries to {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
