"""The op-test helper: two-line reference checks against NumPy, generated per shape and dtype.

Each test module under ``tests/ops`` declares ``CASES`` (value checks) and ``ERRORS``
(bad inputs and the TF error class they must raise).  ``Case.ops`` names the
registry ops the case exercises; ``tests/ops/test_registry.py`` fails when a
registered op is covered by no case, and every case fails when it does not in fact
run the ops it claims.

    Case(tf.add, np.add, [((2, 3), (2, 3)), ((4, 1), (3,))], ops=("AddV2",))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.ops.registry import REGISTRY

# Every op's impl is wrapped (by conftest) to record that it ran.
EXECUTED: set[str] = set()
# The recording wrapper below is where NumPy attributes kernel warnings while testing; tensorlet silences
# them for its own modules (registry.py), so pyproject's pytest filterwarnings does the same for "opcheck".

_TOL = {
    "float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-5, 1e-6),
    "float64": (1e-10, 1e-12), "complex64": (1e-5, 1e-6), "complex128": (1e-10, 1e-12),
}


@dataclasses.dataclass
class Case:
    fn: Callable  # tensorlet side, called with tensors made from the generated arrays
    ref: Callable  # NumPy side, called with the same arrays
    shapes: list  # a list of argument-shape tuples, e.g. [((2, 3), (2, 3)), ((4, 1), (3,))]
    dtypes: tuple = ("float32",)
    ops: tuple = ()  # registry op names the case must exercise
    domain: tuple = (-3.0, 3.0)  # range of generated values
    gen: Callable | None = None  # custom generator: gen(rng, shapes, dtype) -> list of arrays
    rtol: float | None = None
    atol: float | None = None
    check_dtype: bool = True
    as_tensors: bool = True  # False: pass the raw NumPy arrays to fn as well
    jax: bool = True  # also check the op's lowering (jax.numpy kernels); False only with a reason (strings)
    grad: bool = True  # also check gradients by finite differences (float64); False only with a reason
    graph: bool = True  # also check inside tf.function (traced, compiled); False only with a reason
    id: str = ""

    def label(self):
        return self.id or getattr(self.fn, "__name__", "case")


@dataclasses.dataclass
class Err:
    fn: Callable  # called with no arguments
    exc: Any  # exception class TF raises
    match: str = ""  # regex the message must contain
    id: str = ""


def make(rng, shape, dtype, domain=(-3.0, 3.0)):
    """A random array of ``shape``/``dtype`` in ``domain`` (ints rounded, bools random)."""
    d = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    lo, hi = domain
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        lo = max(lo, np.iinfo(d).min) if d.kind == "i" else max(lo, 0)
        return rng.integers(int(np.floor(lo)), int(np.ceil(hi)) + 1, size=shape).astype(d)
    if d.kind == "c":
        return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(d)
    if d.kind == "O":
        return np.array([f"s{i}".encode() for i in range(int(np.prod(shape)))], dtype=object).reshape(shape)
    return rng.uniform(lo, hi, shape).astype(d)


def assert_close(got, expected, dtype_name, rtol=None, atol=None, check_dtype=True, where=""):
    """Compare a tensorlet result (tensor, or nested tuple/list of them) with a NumPy result."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{where}: expected a sequence of results, got {type(got)}"
        assert len(got) == len(expected), f"{where}: {len(got)} results, expected {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_close(g, e, dtype_name, rtol, atol, check_dtype, f"{where}[{i}]")
        return
    assert isinstance(got, tf.Tensor), f"{where}: expected a tf.Tensor, got {type(got).__name__}"
    e = np.asarray(expected)
    g = np.asarray(got.numpy(), dtype=object) if got.dtype == tf.string else np.asarray(got.numpy())
    if check_dtype:
        assert g.dtype == e.dtype, f"{where}: dtype {g.dtype}, expected {e.dtype}"
    assert g.shape == e.shape, f"{where}: shape {g.shape}, expected {e.shape}"
    if e.dtype.kind in "fc" or e.dtype == ml_dtypes.bfloat16:
        r, a = _TOL.get(str(e.dtype), (1e-5, 1e-6))
        np.testing.assert_allclose(g.astype(np.complex128 if e.dtype.kind == "c" else np.float64),
                                   e.astype(np.complex128 if e.dtype.kind == "c" else np.float64),
                                   rtol=rtol or r, atol=atol or a, err_msg=where, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, e, err_msg=where)


def run_case(case: Case, seed: int = 0, backend: str = "numpy"):
    """Check ``case`` eagerly (NumPy kernels) or, with ``backend="jax"``, through every op's lowering."""
    if backend == "jax":
        if not case.jax:
            pytest.skip("case declared NumPy-only (jax=False)")
        from tensorlet._src.framework.context import interpreter

        with interpreter(JaxEager()):
            return run_case(case, seed)
    rng = np.random.default_rng(seed)
    for shapes in case.shapes:
        for dtype in case.dtypes:
            arrays = case.gen(rng, shapes, dtype) if case.gen else [make(rng, s, dtype, case.domain) for s in shapes]
            EXECUTED.clear()
            args = [tf.constant(a) if case.as_tensors and isinstance(a, np.ndarray) else a for a in arrays]
            got = case.fn(*args)
            expected = case.ref(*arrays)
            where = f"{case.label()} shapes={shapes} dtype={dtype}"
            assert_close(got, expected, dtype, case.rtol, case.atol, case.check_dtype, where)
            missing = set(case.ops) - EXECUTED
            assert not missing, f"{where}: declared ops {sorted(missing)} did not run (ran {sorted(EXECUTED)})"


class JaxEager:
    """A test interpreter that runs each op's lowering with ``jax.numpy`` on concrete arrays.

    It checks that every kernel is written against ``xp`` (or has a ``jax_impl``) and agrees
    with NumPy, which is what compiled functions will rely on.
    """

    eager = True

    def __init__(self):
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        self.jnp = jnp

    def bind(self, op, inputs, attrs):
        from tensorlet._src.framework.tensor import _wrap

        if op.check is not None:
            op.check(*inputs, **attrs)
        EXECUTED.add(op.name)
        arrays = [self.jnp.asarray(x._v) for x in inputs]
        out = op.lowering()(self.jnp, *arrays, **attrs)
        if op.n_out == 1:
            return _wrap(np.asarray(out))
        return tuple(_wrap(np.asarray(o)) for o in out)


# Ops XLA cannot compile because their output shape depends on input values (TF's XLA cannot either):
# their functions run on the NumPy graph executor instead.
VALUE_DEPENDENT = {"Where", "Unique", "UniqueWithCounts", "DenseBincount", "Bincount", "DynamicRange",
                   "DynamicPartition", "ListDiff", "SegmentSum", "SegmentMean", "SegmentProd", "SegmentMin",
                   "SegmentMax", "BooleanMask", "DynamicStitch"}


def run_compiled(case: Case, seed: int = 0):
    """The case traced by ``tf.function``: NumPy graph executor on the first call, XLA from the second."""
    if not case.graph or not case.as_tensors:
        pytest.skip("case not traceable (graph=False or raw NumPy arguments)")
    from tensorlet._src.graph.function import set_retracing_policy

    set_retracing_policy("ignore")
    try:
        rng = np.random.default_rng(seed)
        fn = tf.function(case.fn, autograph=False)
        # the first shape in up to two dtypes: tracing and XLA compiles dominate, values are checked eagerly
        for shapes in case.shapes[:1]:
            for dtype in case.dtypes[:2]:
                arrays = case.gen(rng, shapes, dtype) if case.gen else [make(rng, s, dtype, case.domain)
                                                                        for s in shapes]
                args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]
                expected = case.ref(*arrays)
                where = f"{case.label()} shapes={shapes} dtype={dtype}"
                for tier in ("numpy executor", "XLA"):
                    got = fn(*args)
                    assert_close(got, expected, dtype, case.rtol, case.atol, case.check_dtype, f"{where} ({tier})")
                cf = fn.get_concrete_function(*args)
                if cf._compiled is None and cf._no_xla is None:  # tiny graph kept on NumPy: compile it anyway
                    flat = [a._v for a in args if isinstance(a, tf.Tensor)]
                    if cf._try_compile():
                        got = cf._packer(cf._first_compiled_call(flat))
                        assert_close(got, expected, dtype, case.rtol, case.atol, case.check_dtype, f"{where} (XLA)")
                if cf._no_xla is not None:
                    ops = {n.op.name for n in cf.graph.nodes}
                    assert ops & (VALUE_DEPENDENT | {"Const", "StringFormat"}) or any(
                        t.dtype == tf.string for n in cf.graph.nodes for t in n.outputs), \
                        f"{where}: not compiled: {cf._no_xla}"
                else:
                    assert cf._compiled is not None, f"{where}: second call did not compile"
    finally:
        set_retracing_policy("warn")


def run_err(err: Err):
    with pytest.raises(err.exc, match=err.match or None):
        err.fn()


def params(cases):
    """pytest parametrization with readable (and unique) ids."""
    ids, seen = [], {}
    for c in cases:
        base = c.label()
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return pytest.mark.parametrize("case", cases, ids=ids)


def instrument_registry():
    """Wrap each op's kernel so tests can see which ops ran (test-only; production pays nothing)."""
    for name, op in REGISTRY.items():
        if getattr(op.np_fn, "_recorded", False):
            continue
        op.np_fn = _recording(op.np_fn, name)


def _recording(fn, name):
    def wrapped(*a, **k):
        EXECUTED.add(name)
        return fn(*a, **k)

    wrapped._recorded = True
    wrapped.__wrapped__ = fn
    return wrapped


def op_tests(cases, errors=()):
    """The three standard tests of an op family module::

        test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)

    values: each case eagerly against its NumPy reference; lowering: the same through every op's
    jax.numpy kernel; errors: each bad input raises TF's error class and message.
    """
    @params(cases)
    def test_values(case):
        run_case(case)

    @params(cases)
    def test_lowering(case):
        run_case(case, backend="jax")

    @pytest.mark.parametrize("err", list(errors), ids=[str(i) for i in range(len(errors))])
    def test_errors(err):
        run_err(err)

    return test_values, test_lowering, test_errors


def compiled_tests(cases):
    """``test_compiled``: each case inside ``tf.function`` (traced graph, NumPy executor, then XLA)."""
    @params(cases)
    def test_compiled(case):
        run_compiled(case)

    return test_compiled
