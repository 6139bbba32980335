"""Record real Keras 3 (TF 2.21) results of tests/keras/engine_cases.py into tests/goldens/keras_engine.json.

    COLUMNS=80 /work/tfenv/bin/python tools/record_tf_goldens/keras_engine.py
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _jsonable(x):
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x


def record(case_file, golden_file):
    """Runs every case of tests/keras/<case_file> (its ``CASES``) on real TF and writes tests/goldens/<golden_file>."""
    os.environ.setdefault("COLUMNS", "80")
    import tensorflow as tf

    spec = importlib.util.spec_from_file_location(case_file[:-3], os.path.join(ROOT, "tests", "keras", case_file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = {}
    for name, fn in mod.CASES.items():
        tf.keras.backend.clear_session()
        out[name] = _jsonable(fn(tf))
    path = os.path.join(ROOT, "tests", "goldens", golden_file)
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


def main():
    record("engine_cases.py", "keras_engine.json")


if __name__ == "__main__":
    main()
