"""Record real TF's tf.data results (orders, seeds, specs, reprs, errors) into tests/goldens/data.json.

    /work/tfenv/bin/python tools/record_tf_goldens/data.py      (a Python that has TensorFlow)

The cases live in tests/data/data_cases.py and run unchanged against tensorlet in tests/data/test_goldens.py.
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    tf.autograph.set_verbosity(0)
    spec = importlib.util.spec_from_file_location("data_cases", os.path.join(ROOT, "tests", "data", "data_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = {name: fn(tf) for name, fn in mod.CASES.items()}
    path = os.path.join(ROOT, "tests", "goldens", "data.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
