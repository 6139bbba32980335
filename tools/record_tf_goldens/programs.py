"""Record real TF's results for the user-style programs in tests/programs/ into tests/goldens/programs.json.

    /work/tfenv/bin/python tools/record_tf_goldens/programs.py      (a Python that has TensorFlow)
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = ("mixed_ops",)


def main():
    import tensorflow as tf

    out = {}
    for name in PROGRAMS:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tests", "programs", f"{name}.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[name] = mod.run(tf)
    path = os.path.join(ROOT, "tests", "goldens", "programs.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
