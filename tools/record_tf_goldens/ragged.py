"""Record RaggedTensor results from real TF into tests/goldens/ragged.json (cases: tests/ops/ragged/ragged_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/ragged.py
"""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(cases_path, out_name):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    values = load("tests/value_cases.py")
    values.record(load(cases_path).CASES, out_name)


if __name__ == "__main__":
    main("tests/ops/ragged/ragged_cases.py", "ragged.json")
