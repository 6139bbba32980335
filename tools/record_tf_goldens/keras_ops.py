"""Record ``keras.ops`` results (dtype, shape, values) and gradients from Keras 3 on TensorFlow into
tests/goldens/keras_ops.json.  The cases live in tests/keras/keras_ops_cases.py (shared with the tests).

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_ops.py [case ...]
"""

import importlib.util
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["KERAS_BACKEND"] = "tensorflow"
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_ops.json")


def load_cases():
    path = os.path.join(ROOT, "tests", "keras", "keras_ops_cases.py")
    spec = importlib.util.spec_from_file_location("keras_ops_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    cases = load_cases()
    data = {}
    if argv and os.path.exists(OUT):
        with open(OUT) as f:
            data = json.load(f)
    failed = 0
    for name, case in cases.CASES.items():
        if argv and name not in argv:
            continue
        try:
            entry = {"out": cases.encode(cases.run(tf, keras.ops, case))}
        except Exception as e:  # noqa: BLE001 - recorded: the test expects the same failure kind
            failed += 1
            data[name] = {"error": type(e).__name__, "message": str(e)[:200]}
            print(name, "ERROR", type(e).__name__, str(e)[:160])
            continue
        if name in cases.GRAD:
            try:
                entry["grads"] = [None if g is None else g.tolist() for g in cases.grads(tf, keras.ops, case)]
            except Exception as e:  # noqa: BLE001
                print(name, "GRAD ERROR", type(e).__name__, str(e)[:160])
        data[name] = entry
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"keras_version": keras.__version__, **data} if not argv else data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} cases ({failed} errors) to {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
