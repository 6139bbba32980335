"""Record Keras 3 (TF 2.21) optimizer steps, sparse updates, schedules and loss scaling into
tests/goldens/keras_optim.json, and seeded initializers, activations, regularizers and constraints into
tests/goldens/keras_optim_basics.json.  The programs live in tests/keras/_k2_programs.py and run unchanged on tensorlet.

    /work/tfenv/bin/python tools/record_tf_goldens/keras_optim.py      (a Python that has TensorFlow)
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_programs():
    spec = importlib.util.spec_from_file_location("_k2_programs", os.path.join(ROOT, "tests", "keras",
                                                                               "_k2_programs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    import tensorflow as tf

    programs = load_programs()
    for fname, out in (("keras_optim.json", programs.run_all(tf)), ("keras_optim_basics.json",
                                                                     programs.run_basics(tf))):
        path = os.path.join(ROOT, "tests", "goldens", fname)
        with open(path + ".tmp", "w") as f:
            json.dump(out, f, indent=0, sort_keys=True)
            f.write("\n")
        os.replace(path + ".tmp", path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
