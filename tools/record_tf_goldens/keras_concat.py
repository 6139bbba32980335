"""Record keras.layers.Concatenate build/shape/mask outcomes from Keras 3 on TensorFlow over the cases of
tests/keras/keras_concat_cases.py into tests/goldens/keras_concat.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_concat.py
"""

import importlib.util
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_concat.json")


def main():
    path = os.path.join(ROOT, "tests", "keras", "keras_concat_cases.py")
    spec = importlib.util.spec_from_file_location("keras_concat_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    data = {"keras_version": keras.__version__, **cases.run(keras)}
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} entries to {OUT}")


if __name__ == "__main__":
    main()
