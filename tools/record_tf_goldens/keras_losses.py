"""Record Keras 3 (TF 2.21) loss values (classes with every reduction and sample weights, functions, the logits
that softmax/sigmoid outputs carry) into tests/goldens/keras_losses.json.  The program is in
tests/keras/_k2_programs.py (``run_losses``) and runs unchanged on tensorlet.

    /work/tfenv/bin/python tools/record_tf_goldens/keras_losses.py      (a Python that has TensorFlow)
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_optim import ROOT, load_programs  # noqa: E402


def main():
    import tensorflow as tf

    out = load_programs().run_losses(tf)
    path = os.path.join(ROOT, "tests", "goldens", "keras_losses.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
