"""Registry-wide checks over the one op table: every op the graph IR can hold is declared with ``defop``, is well
formed, and has its tests (array ops: a reference case in tests/ops)."""

import importlib
import pathlib
import pkgutil

import pytest

import tensorlet._src.io as io_pkg
from tensorlet._src.ops import registry
from tensorlet._src.ops.registry import KINDS, NO_GRADIENT, NONDIFF, REGISTRY, Op

HERE = pathlib.Path(__file__).parent

# the packages whose modules declare ops beyond those ``import tensorlet`` loads
for _info in pkgutil.iter_modules(io_pkg.__path__):
    importlib.import_module(f"tensorlet._src.io.{_info.name}")
importlib.import_module("tensorlet._src.compat.v1_graph")

_BOOL_FIELDS = ("stateful", "no_lowering", "heavy", "foldable", "located", "shape_only", "serializable", "quiet",
                "sparse_grad")


def _all_cases():
    cases = []
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem == "test_registry":
            continue
        mod = importlib.import_module(path.stem)
        cases += list(getattr(mod, "CASES", []))
    return cases


def test_every_array_op_has_a_reference_case():
    covered = set()
    for case in _all_cases():
        covered.update(case.ops)
    unknown = covered - set(REGISTRY)
    assert not unknown, f"cases name ops that are not registered: {sorted(unknown)}"
    array_ops = {n for n, op in REGISTRY.items() if op.kind == "array"}
    missing = sorted(array_ops - covered)
    assert not missing, f"registered ops with no reference case in tests/ops: {missing}"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_op_block_is_well_formed(name):
    op = REGISTRY[name]
    assert type(op) is Op  # one Op type
    assert op.name == name
    assert op.kind in KINDS
    assert callable(op.impl)
    assert op.grad is NONDIFF or op.grad is NO_GRADIENT or callable(op.grad)
    assert op.n_out is None or op.n_out >= 1
    for f in _BOOL_FIELDS:
        assert isinstance(getattr(op, f), bool), f"{name}.{f} is not a bool"
    assert op.host in (None, "sink", "source")
    assert op.lower_check is None or callable(op.lower_check)
    if op.no_lowering:
        assert op.kind != "array" or op.no_lowering_reason is None or isinstance(op.no_lowering_reason, str)
    if op.kind == "io":  # Python kernels: never compiled, and never folded when they have effects
        assert op.no_lowering or op.jax_impl is not None
    if op.stateful:
        assert not op.foldable and op.located, f"{name} is stateful but may be folded or loses its location"
    if op.host == "sink":
        assert op.stateful, f"{name} runs as a host callback but is not stateful"


def test_every_op_declares_its_gradient():
    """Each op has a gradient, or says it is not differentiable (NONDIFF), or that TF has none (NO_GRADIENT)."""
    undeclared = sorted(name for name, op in REGISTRY.items() if op.grad is None)
    assert not undeclared, f"ops with neither a gradient nor a declaration: {undeclared}"


def test_the_graph_runtime_reads_op_properties_from_the_table():
    """Properties that used to be name lists are fields: spot-check that each names real ops."""
    heavy = {n for n, op in REGISTRY.items() if op.heavy}
    assert {"Conv2D", "BatchMatMulV3", "While", "If", "MaxPool"} <= heavy
    assert {n for n, op in REGISTRY.items() if op.shape_only} == {"Shape", "ShapeN", "Size", "Rank"}
    assert {n for n, op in REGISTRY.items() if op.host == "sink"} >= {"PrintV2", "Assert"}
    assert not REGISTRY["PyFunc"].serializable and not REGISTRY["EagerPyFunc"].serializable
    assert not REGISTRY["ReadFile"].foldable  # reads a file: its value is only known at run time
    assert REGISTRY["CheckNumerics"].located


def test_defop_refuses_duplicates_and_unknown_kinds():
    with pytest.raises(ValueError, match="already registered"):
        registry.defop("AddV2", lambda xp, x: x, grad=NONDIFF)
    with pytest.raises(ValueError, match="kind must be one of"):
        Op("Bogus", lambda xp, x: x, grad=NONDIFF, kind="nope")
