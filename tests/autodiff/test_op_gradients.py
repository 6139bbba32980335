"""Every differentiable op's gradient against finite differences, first and second order, float64.

Driven by the CASES tables in tests/ops, so an op gets gradient checks as soon as it has a
reference case.
"""

import importlib
import pathlib

import pytest

from gradcheck import case_grad_status, check_case_gradients

OPS_DIR = pathlib.Path(__file__).parent.parent / "ops"


def _cases():
    out = []
    for path in sorted(OPS_DIR.glob("test_*.py")):
        if path.stem == "test_registry":
            continue
        mod = importlib.import_module(path.stem)
        for i, case in enumerate(getattr(mod, "CASES", [])):
            out.append(pytest.param(case, id=f"{path.stem[5:]}:{case.label()}#{i}"))
    return out


@pytest.mark.parametrize("case", _cases())
def test_gradients(case):
    ok, why = case_grad_status(case)
    if not ok:
        pytest.skip(why)
    check_case_gradients(case)
