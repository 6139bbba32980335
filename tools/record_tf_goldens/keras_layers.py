"""Record Keras 3 layer outputs, gradients, weights, output shapes and configs into tests/goldens/keras_layers.json.

The cases live in tests/keras/keras_layers_cases.py (shared with the tests); see its docstring for what each case
does.  Run with a Python that has TensorFlow 2.21 / Keras 3:

    /work/tfenv/bin/python tools/record_tf_goldens/keras_layers.py [case ...]
"""

import importlib.util
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_layers.json")


def load_cases():
    path = os.path.join(ROOT, "tests", "keras", "keras_layers_cases.py")
    spec = importlib.util.spec_from_file_location("keras_layers_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _slim(config):
    """Nested serialized objects (initializers, dtype policies, ...) keep only their class_name, all the tests
    compare, to keep the file small."""
    return {k: {"class_name": v["class_name"]} if isinstance(v, dict) and "class_name" in v else v
            for k, v in config.items()}


def main(argv):
    cases = load_cases()
    data = {}
    if argv and os.path.exists(OUT):
        with open(OUT) as f:
            data = json.load(f)
    for name, spec in cases.CASES.items():
        if argv and name not in argv:
            continue
        keras.utils.clear_session()
        try:
            r = cases.run(tf, keras, spec)
        except Exception as e:  # noqa: BLE001
            print(name, "FAILED", type(e).__name__, str(e)[:300])
            data[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            continue
        data[name] = {"outputs": [cases.encode_array(o) for o in r["outputs"]],
                      "grads": [None if g is None else cases.encode_array(g) for g in r["grads"]],
                      "weights": [cases.encode_array(w) for w in r["weights"]],
                      "output_shape": r["output_shape"], "config": _slim(r["config"]), "losses": r["losses"]}
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} cases to {OUT}: {os.path.getsize(OUT)} bytes")
    _ = np


if __name__ == "__main__":
    main(sys.argv[1:])
