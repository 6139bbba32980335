"""Record sparse and ragged preprocessing-layer outputs (tests/keras/keras_sparse_ragged_cases.py) from Keras 3 on
TensorFlow into tests/goldens/keras_sparse_ragged.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_sparse_ragged.py
"""

import importlib.util
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_sparse_ragged.json")


def main():
    path = os.path.join(ROOT, "tests", "keras", "keras_sparse_ragged_cases.py")
    spec = importlib.util.spec_from_file_location("keras_sparse_ragged_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    data = {"keras_version": keras.__version__, **cases.run(keras, tf),
            "text_ragged_map": cases.run_ragged_map(keras, tf)}
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} entries to {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
