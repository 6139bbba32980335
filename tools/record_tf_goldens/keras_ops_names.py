"""Record the public names of Keras 3's ``keras.ops`` (and its sub-namespaces), ``keras.random``, ``keras.config``,
``keras.backend`` and ``keras.utils`` into tests/goldens/keras_ops_names.json (tests/keras/test_ops_names.py reports
tensorlet's coverage of them).  Run with a Python that has Keras 3:

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_ops_names.py
"""

import json
import os
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_ops_names.json")
SPACES = ["ops", "ops.nn", "ops.linalg", "ops.image", "ops.numpy", "random", "config", "backend", "utils"]


def public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_") and not isinstance(getattr(mod, n), types.ModuleType))


def main():
    data = {"keras_version": keras.__version__}
    for space in SPACES:
        mod = keras
        for part in space.split("."):
            mod = getattr(mod, part)
        data[space] = public(mod)
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {OUT}: " + ", ".join(f"{s}={len(data[s])}" for s in SPACES))


if __name__ == "__main__":
    main()
