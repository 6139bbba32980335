"""Registry-wide checks: every op is covered by a reference case, and every op block is well formed."""

import importlib
import pathlib
import sys

import pytest

from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, REGISTRY

HERE = pathlib.Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def _all_cases():
    cases = []
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem == "test_registry":
            continue
        mod = importlib.import_module(path.stem)
        cases += list(getattr(mod, "CASES", []))
    return cases


def test_every_op_has_a_reference_case():
    covered = set()
    for case in _all_cases():
        covered.update(case.ops)
    unknown = covered - set(REGISTRY)
    assert not unknown, f"cases name ops that are not registered: {sorted(unknown)}"
    missing = sorted(set(REGISTRY) - covered)
    assert not missing, f"registered ops with no reference case in tests/ops: {missing}"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_op_block_is_well_formed(name):
    op = REGISTRY[name]
    assert op.name == name
    assert callable(op.impl)
    assert op.grad is NONDIFF or op.grad is NO_GRADIENT or callable(op.grad)
    assert op.n_out is None or op.n_out >= 1


def test_every_op_declares_its_gradient():
    """Each op has a gradient, or says it is not differentiable (NONDIFF), or that TF has none (NO_GRADIENT)."""
    undeclared = sorted(name for name, op in REGISTRY.items() if op.grad is None)
    assert not undeclared, f"ops with neither a gradient nor a declaration: {undeclared}"
