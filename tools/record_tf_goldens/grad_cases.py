"""Shared by the recorders whose cases live in a tests/autodiff/*_grad_cases.py table (run(tf, spec), encode).

    /work/tfenv/bin/python tools/record_tf_goldens/math_grad.py      (a Python that has TensorFlow)
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_cases(name):
    """Import tests/autodiff/<name>.py by path (the tests folder is not a package)."""
    import sys

    here = os.path.join(ROOT, "tests", "autodiff")
    if here not in sys.path:
        sys.path.insert(0, here)  # for the case tables' own imports (grad_encoding)
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tests", "autodiff", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record(cases_name, out_name):
    """Run every case of the table with real TF; write first- and second-order results to tests/goldens/."""
    import tensorflow as tf

    mod = load_cases(cases_name)
    out = {}
    for name, spec in mod.CASES.items():
        g1, g2 = mod.run(tf, spec)
        out[name] = {"first": mod.encode(g1), "second": mod.encode(g2)}
    path = os.path.join(ROOT, "tests", "goldens", out_name)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, separators=(",", ":"))  # inf/nan as JSON's Infinity/NaN extension (Python reads them)
        f.write("\n")
    os.replace(tmp, path)
    print(f"wrote {len(out)} cases to {path}")
