"""Record preprocessing-layer outputs, vocabularies and config round trips from Keras 3 on TensorFlow into
tests/goldens/keras_preprocessing.json (cases: tests/keras/keras_preprocessing_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_preprocessing.py
"""

import importlib.util
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_preprocessing.json")


def main():
    path = os.path.join(ROOT, "tests", "keras", "keras_preprocessing_cases.py")
    spec = importlib.util.spec_from_file_location("keras_preprocessing_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    data = {}
    for name, case in cases.CASES.items():
        try:
            data[name] = cases.run(tf, keras, case)
        except Exception as e:  # noqa: BLE001 - recorded so the test can expect the same kind of failure
            data[name] = {"error": type(e).__name__, "message": str(e)[:300]}
            print(name, "ERROR", type(e).__name__, str(e)[:200])
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} cases to {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
