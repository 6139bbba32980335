"""Record TF's gradients for the math_unary / math_extra convention cases into tests/goldens/math_grad.json.

The cases (edges such as sqrt'(0), clip_by_value at ties, the xlogy family at x == 0, and complex inputs, where
TF's conj convention shows) live in tests/autodiff/math_grad_cases.py, shared with the test.  Run with a Python
that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/math_grad.py
"""

import importlib.util
import json
import os

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "math_grad.json")


def _cases():
    spec = importlib.util.spec_from_file_location("math_grad_cases",
                                                  os.path.join(ROOT, "tests", "autodiff", "math_grad_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    mod = _cases()
    out = {}
    for name, spec in mod.CASES.items():
        g1, g2 = mod.run(tf, spec)
        out[name] = {"first": mod.encode(g1), "second": mod.encode(g2)}
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))  # inf/nan as JSON's Infinity/NaN extension (Python reads them)
        f.write("\n")
    print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
    main()
