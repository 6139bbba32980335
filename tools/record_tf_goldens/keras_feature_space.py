"""Record keras.utils.FeatureSpace programs (tests/keras/keras_feature_space_cases.py) from Keras 3 on TensorFlow
into tests/goldens/keras_feature_space.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_feature_space.py
"""

import importlib.util
import json
import os
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_feature_space.json")


def main():
    path = os.path.join(ROOT, "tests", "keras", "keras_feature_space_cases.py")
    spec = importlib.util.spec_from_file_location("keras_feature_space_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    with tempfile.TemporaryDirectory() as d:
        data = {"keras_version": keras.__version__, **cases.run(keras, tf, d)}
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} entries to {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
