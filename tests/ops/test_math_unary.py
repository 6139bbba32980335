"""Elementwise unary math against NumPy / scipy.special, plus TF's edge values, dtype rules and errors."""

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sp
from opcheck import Case, Err, JaxEager, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops.registry import bind

FLOATS = ("float16", "bfloat16", "float32", "float64")
CPLX = ("complex64", "complex128")
SINTS = ("int8", "int16", "int32", "int64")


def _hi(f):
    """Reference computed in float64/complex128 and rounded to the input's dtype."""
    def ref(x):
        wide = np.complex128 if np.dtype(x.dtype).kind == "c" else np.float64
        with np.errstate(all="ignore"):
            return np.asarray(f(x.astype(wide))).astype(x.dtype)
    return ref


def _const(*values):
    """A generator that always yields one fixed array (edge values)."""
    return lambda rng, shapes, dtype: [np.array(values, dtype=ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)]


def _nonzero(rng, shapes, dtype):
    from opcheck import make

    x = make(rng, shapes[0], dtype, (0.25, 3.0))
    signs = np.where(rng.random(shapes[0]) < 0.5, 1, -1)
    return [(x * signs).astype(x.dtype)]


def _negative_non_integers(rng, shapes, dtype):
    x = rng.uniform(-4.9, -0.1, shapes[0])
    x = np.where(np.abs(x - np.round(x)) < 0.05, x + 0.25, x)  # stay away from the poles
    return [x.astype(dtype)]


def _sigmoid_ref(x):
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    return (1 / (1 + np.exp(-x.astype(wide)))).astype(x.dtype)


def _log_sigmoid_ref(x):
    w = x.astype(np.float64)
    return (np.minimum(w, 0) - np.log1p(np.exp(-np.abs(w)))).astype(x.dtype)


def _grad_op(op):
    """TF's gradient ops (raw ops only in TF): op(y, dy)."""
    def fn(y, dy):
        return bind(op, y, dy)
    fn.__name__ = op.name
    return fn


def _grad_op_ref(f):
    """f(conj(y), dy) in float64/complex128, and 0 wherever dy == 0 (as TF's SqrtGrad, RsqrtGrad, ReciprocalGrad)."""
    def ref(y, dy):
        wide = np.complex128 if np.dtype(y.dtype).kind == "c" else np.float64
        cy, w = np.conj(y.astype(wide)), dy.astype(wide)
        with np.errstate(all="ignore"):
            return np.where(w == 0, 0, f(cy, w)).astype(y.dtype)
    return ref


def _y_dy(rng, shapes, dtype):
    """y away from 0, dy with some exact zeros."""
    from opcheck import make

    y = make(rng, shapes[0], dtype, (0.3, 3))
    dy = make(rng, shapes[1], dtype, (-3, 3))
    return [y, np.where(rng.random(shapes[1]) < 0.3, np.zeros((), dy.dtype), dy).astype(dy.dtype)]


def _y_dy_edges(rng, shapes, dtype):
    d = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    return [np.array([0.0, np.nan, 0.0, 2.0, -0.0], d), np.array([0.0, 0.0, 1.0, 0.0, 2.0], d)]


GRAD_OPS = [(mu.SQRT_GRAD, lambda cy, dy: 0.5 * dy / cy), (mu.RSQRT_GRAD, lambda cy, dy: -0.5 * dy * cy ** 3),
            (mu.RECIPROCAL_GRAD, lambda cy, dy: -dy * cy * cy)]


def _sp(name):
    return _hi(getattr(sp, name))


def _u(fn, ref, dtypes, ops, **kw):
    """Two cases: every dtype on a (2, 3) input, and the edge shapes () and (0, 4) in float32 only (each
    shape and dtype compiles once more in test_lowering, so the grid is kept small)."""
    label = kw.pop("id", "") or fn.__name__
    return [Case(fn, ref, [((2, 3),)], dtypes, ops=ops, id=label, **kw),
            Case(fn, ref, [((),), ((0, 4),)], (dtypes[0] if "float32" not in dtypes else "float32",), ops=ops,
                 id=label + "_shapes", **kw)]


CASES = [
    *_u(tf.math.exp, _hi(np.exp), FLOATS + CPLX, ("Exp",)),
    *_u(tf.math.expm1, _hi(np.expm1), FLOATS + CPLX, ("Expm1",), domain=(-1, 1)),
    *_u(tf.math.log, _hi(np.log), FLOATS + CPLX, ("Log",), domain=(0.1, 4)),
    *_u(tf.math.log1p, _hi(np.log1p), FLOATS + CPLX, ("Log1p",), domain=(-0.5, 3)),
    *_u(tf.math.sqrt, _hi(np.sqrt), FLOATS + CPLX, ("Sqrt",), domain=(0, 4)),
    *_u(tf.math.rsqrt, _hi(lambda x: 1 / np.sqrt(x)), FLOATS + CPLX, ("Rsqrt",), domain=(0.1, 4)),
    *_u(tf.math.square, _hi(np.square), FLOATS + CPLX, ("Square",)),
    Case(tf.math.square, np.square, [((2, 3),)], SINTS + ("uint8", "uint16", "uint32", "uint64"), ops=("Square",),
         domain=(0, 9), id="square_int"),
    *_u(tf.math.sin, _hi(np.sin), FLOATS + CPLX, ("Sin",)),
    *_u(tf.math.cos, _hi(np.cos), FLOATS + CPLX, ("Cos",)),
    *_u(tf.math.tan, _hi(np.tan), FLOATS + CPLX, ("Tan",), domain=(-1.3, 1.3)),
    *_u(tf.math.asin, _hi(np.arcsin), FLOATS + CPLX, ("Asin",), domain=(-0.95, 0.95)),
    *_u(tf.math.acos, _hi(np.arccos), FLOATS + CPLX, ("Acos",), domain=(-0.95, 0.95)),
    *_u(tf.math.atan, _hi(np.arctan), FLOATS + CPLX, ("Atan",), domain=(-0.9, 0.9)),
    *_u(tf.math.sinh, _hi(np.sinh), FLOATS + CPLX, ("Sinh",)),
    *_u(tf.math.cosh, _hi(np.cosh), FLOATS + CPLX, ("Cosh",)),
    *_u(tf.math.tanh, _hi(np.tanh), FLOATS + CPLX, ("Tanh",)),
    *_u(tf.math.asinh, _hi(np.arcsinh), FLOATS + CPLX, ("Asinh",)),
    *_u(tf.math.acosh, _hi(np.arccosh), FLOATS + CPLX, ("Acosh",), domain=(1.05, 4)),
    *_u(tf.math.atanh, _hi(np.arctanh), FLOATS + CPLX, ("Atanh",), domain=(-0.9, 0.9)),
    *_u(tf.math.floor, _hi(np.floor), FLOATS, ("Floor",), domain=(-5, 5)),
    *_u(tf.math.ceil, _hi(np.ceil), FLOATS, ("Ceil",), domain=(-5, 5)),
    *_u(tf.math.rint, _hi(np.rint), FLOATS, ("Rint",), domain=(-5, 5)),
    *_u(tf.math.round, _hi(np.round), FLOATS, ("Round",), domain=(-5, 5)),
    Case(tf.math.round, _hi(np.round), [((8,),)], FLOATS, ops=("Round",),
         gen=_const(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -4.5), id="round_halves_to_even",
         grad=False),  # every point is on a jump: no finite differences
    Case(tf.math.round, lambda x: x, [((2, 3),), ((),)], SINTS + ("uint8",), ops=(), id="round_int_passthrough"),
    *_u(tf.math.reciprocal, _hi(lambda x: 1 / x), FLOATS + CPLX, ("Reciprocal",), gen=_nonzero),
    *_u(tf.math.sign, np.sign, FLOATS + SINTS, ("Sign",)),
    Case(tf.math.sign, np.sign, [((6,),)], FLOATS, ops=("Sign",), gen=_const(-0.0, 0.0, np.nan, -2, 3, -np.inf),
         id="sign_edges", grad=False),  # the jump at 0, nan and inf: no finite differences
    *_u(tf.math.sign, lambda x: np.where(x == 0, 0, x / np.where(x == 0, 1, np.abs(x))).astype(x.dtype), CPLX,
        ("DivNoNan", "Cast", "ComplexAbs"), id="sign_complex"),
    Case(tf.math.sign, lambda x: x, [((3,),)], CPLX, ops=("DivNoNan",), gen=_const(0j, 1j, -1 + 0j),
         id="sign_complex_units"),
    Case(tf.math.is_nan, np.isnan, [((5,),)], FLOATS, ops=("IsNan",), gen=_const(1, np.nan, np.inf, -np.inf, 0)),
    Case(tf.math.is_inf, np.isinf, [((5,),)], FLOATS, ops=("IsInf",), gen=_const(1, np.nan, np.inf, -np.inf, 0)),
    Case(tf.math.is_finite, np.isfinite, [((5,),)], FLOATS, ops=("IsFinite",),
         gen=_const(1, np.nan, np.inf, -np.inf, 0)),
    Case(tf.math.is_nan, np.isnan, [((),), ((0, 4),)], ("float32",), ops=("IsNan",), id="is_nan_shapes"),
    *_u(tf.math.sigmoid, _sigmoid_ref, FLOATS + CPLX, ("Sigmoid",), domain=(-10, 10)),
    Case(tf.math.sigmoid, _sigmoid_ref, [((6,),)], ("float32", "float64"), ops=("Sigmoid",),
         gen=_const(-100, -30, 0, 30, 100, 800), id="sigmoid_saturates"),
    *_u(tf.math.log_sigmoid, _log_sigmoid_ref, FLOATS, ("Neg", "Softplus"), domain=(-20, 20)),
    Case(tf.math.log_sigmoid, _log_sigmoid_ref, [((5,),)], ("float32", "float64"), ops=("Softplus",),
         gen=_const(-100, -1, 0, 50, 100), id="log_sigmoid_tails"),
    *_u(tf.math.erf, _sp("erf"), FLOATS, ("Erf",)),
    *_u(tf.math.erfc, _sp("erfc"), FLOATS, ("Erfc",)),
    *_u(tf.math.erfinv, _sp("erfinv"), FLOATS, ("Erfinv",), domain=(-0.99, 0.99)),
    *_u(tf.math.ndtri, _sp("ndtri"), FLOATS, ("Ndtri",), domain=(0.01, 0.99)),
    *_u(tf.math.lgamma, _sp("gammaln"), FLOATS, ("Lgamma",), domain=(0.1, 6)),
    Case(tf.math.lgamma, _sp("gammaln"), [((9,),)], ("float32", "float64"), ops=("Lgamma",),
         gen=_negative_non_integers, id="lgamma_negative"),
    *_u(tf.math.digamma, _sp("psi"), FLOATS, ("Digamma",), domain=(0.1, 6)),
    Case(tf.math.digamma, _sp("psi"), [((9,),)], ("float32", "float64"), ops=("Digamma",),
         gen=_negative_non_integers, id="digamma_negative"),
    # complex parts
    *_u(tf.math.real, np.real, CPLX, ("Real",)),
    *_u(tf.math.imag, np.imag, CPLX, ("Imag",)),
    *_u(tf.math.conj, np.conj, CPLX, ("Conj",)),
    *_u(tf.math.angle, np.angle, CPLX, ("Angle",)),
    Case(tf.math.real, lambda x: x, [((2, 3),), ((),)], ("float32", "int32"), ops=(), id="real_of_real"),
    Case(tf.math.imag, np.zeros_like, [((2, 3),), ((),)], ("float32", "int64"), ops=("ZerosLike",),
         id="imag_of_real"),
    Case(tf.math.conj, lambda x: x, [((2, 3),), ((),)], ("float64", "int8"), ops=(), id="conj_of_real"),
    Case(tf.math.angle, lambda x: np.where(x < 0, np.pi, 0).astype(x.dtype), [((6,),)], ("float32", "float64"),
         ops=("Less", "Cast", "Mul"), gen=_const(-1, 2, -0.0, 0, np.nan, -np.inf), id="angle_of_real"),
    Case(tf.math.negative, np.negative, [((2, 3),), ((),)], ("float32", "int64", "complex64"), ops=("Neg",)),
    # TF's gradient ops of sqrt, rsqrt and reciprocal
    *[c for op, f in GRAD_OPS for c in (
        Case(_grad_op(op), _grad_op_ref(f), [((2, 3), (2, 3))], FLOATS + CPLX, ops=(op.name,), gen=_y_dy),
        Case(_grad_op(op), _grad_op_ref(f), [((), ()), ((0, 4), (0, 4))], ("float32",), ops=(op.name,), gen=_y_dy,
             id=op.name + "_shapes"),
        Case(_grad_op(op), _grad_op_ref(f), [((5,), (5,))], ("float32", "float64"), ops=(op.name,),
             gen=_y_dy_edges, id=op.name + "_edges", grad=False))],  # y = 0 and nan: no finite differences
]


ERRORS = [
    Err(lambda: tf.sqrt(tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, "
        r"complex64, complex128 \[Op:Sqrt\]"),
    Err(lambda: tf.exp([1, 2]), tf.errors.InvalidArgumentError, r"attr 'T' of int32 .*\[Op:Exp\]"),
    Err(lambda: tf.math.is_nan(tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double \[Op:IsNan\]"),
    Err(lambda: tf.floor(tf.constant([1])), tf.errors.InvalidArgumentError, r"attr 'T' of int32 .*\[Op:Floor\]"),
    Err(lambda: tf.math.erf(tf.constant([1j])), tf.errors.InvalidArgumentError,
        r"attr 'T' of complex128 .*\[Op:Erf\]"),
    Err(lambda: tf.square(tf.constant([True])), tf.errors.InvalidArgumentError, r"attr 'T' of bool .*\[Op:Square\]"),
    Err(lambda: tf.sign(tf.constant([1], tf.uint8)), tf.errors.InvalidArgumentError,
        r"attr 'T' of uint8 .*\[Op:Sign\]"),
    Err(lambda: tf.round(tf.constant([True])), tf.errors.InvalidArgumentError, r"attr 'T' of bool .*\[Op:Round\]"),
    Err(lambda: tf.round(tf.constant([0.5 + 1j], tf.complex64)), tf.errors.NotFoundError,
        r"Round\[T=DT_COMPLEX64\]"),
    Err(lambda: tf.math.reciprocal(tf.constant([2, 1])), tf.errors.NotFoundError, r"Reciprocal\[T=DT_INT32\]"),
    Err(lambda: tf.sigmoid(tf.constant([1])), tf.errors.InvalidArgumentError, r"attr 'T' of int32 .*\[Op:Sigmoid\]"),
    Err(lambda: tf.math.log_sigmoid(tf.constant([1])), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double \[Op:Softplus\]"),
    Err(lambda: tf.math.log_sigmoid(tf.constant([1j])), tf.errors.InvalidArgumentError, "Softplus"),
    Err(lambda: tf.math.real(tf.constant(["a"])), TypeError,
        "input must be a numeric tensor, but got tensor with dtype <dtype: 'string'>"),
    Err(lambda: tf.math.real(tf.constant([True])), TypeError, "input must be a numeric tensor"),
    Err(lambda: tf.math.conj(tf.constant([True])), TypeError, r"Expected numeric or variant tensor, got dtype tf.bool"),
    Err(lambda: tf.math.angle(tf.constant([-1, 2])), TypeError,
        "Cannot convert 3.14159.* to EagerTensor of dtype int32"),
    Err(lambda: tf.math.lgamma(tf.constant([2], tf.int64)), tf.errors.InvalidArgumentError, r"\[Op:Lgamma\]"),
    Err(lambda: tf.abs(tf.constant([1], tf.uint8)), tf.errors.InvalidArgumentError, r"attr 'T' of uint8 .*\[Op:Abs\]"),
    Err(lambda: bind(mu.SQRT_GRAD, tf.constant([1]), tf.constant([1])), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32 .*\[Op:SqrtGrad\]"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# --- TF's exact values at edges (recorded from TensorFlow 2.21), eagerly and through the lowerings -----

def _both(fn):
    """fn() eagerly and with every kernel on jax.numpy."""
    from tensorlet._src.framework.context import interpreter

    eager = fn().numpy()
    with interpreter(JaxEager()):
        lowered = fn().numpy()
    return eager, lowered


INF, NAN = np.inf, np.nan
EDGES = [
    (tf.math.digamma, [0.0, -0.0, -1.0, -0.5, 1.0, -2.0, INF, -INF, NAN],
     [NAN, NAN, NAN, 0.03648996, -0.5772159, NAN, INF, NAN, NAN]),
    (tf.math.lgamma, [0.0, -1.0, -2.5, 1.0, 0.5, -0.5, INF, -INF, -0.0],
     [INF, INF, -0.05624371, 0.0, 0.5723649, 1.2655121, INF, INF, INF]),
    (tf.math.erfinv, [1.0, -1.0, 1.5, 0.0, 0.5], [INF, -INF, NAN, 0.0, 0.4769363]),
    (tf.math.ndtri, [0.0, 1.0, 2.0, -0.1, 0.5, 0.975], [-INF, INF, NAN, NAN, 0.0, 1.9599644]),
    (tf.sqrt, [-1.0, 0.0, 4.0], [NAN, 0.0, 2.0]),
    (tf.math.log, [0.0, -1.0, 1.0], [-INF, NAN, 0.0]),
    (tf.math.rsqrt, [0.0, -1.0, 4.0], [INF, NAN, 0.5]),
    (tf.acosh, [0.5, 1.0], [NAN, 0.0]),
    (tf.atanh, [1.0, -1.0, 2.0], [INF, -INF, NAN]),
    (tf.math.reciprocal, [2.0, 0.0, -0.0], [0.5, INF, -INF]),
    (tf.sign, [-0.0, 0.0, NAN, -2.0, 3.0, -INF], [0.0, 0.0, NAN, -1.0, 1.0, -1.0]),
    (tf.round, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, NAN, -0.0], [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, NAN, -0.0]),
    (tf.sigmoid, [-100.0, -20.0, -10.0, 0.0, 20.0, 100.0], [0.0, 2.0611537e-09, 4.5397868e-05, 0.5, 1.0, 1.0]),
    (tf.math.log_sigmoid, [-100.0, -1.0, 0.0, 50.0, 100.0], [-100.0, -1.3132616, -0.6931472, -1.9287499e-22, -0.0]),
    (tf.math.angle, [-1.0, 2.0, -0.0, NAN], [np.pi, 0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("fn,x,expected", EDGES, ids=[e[0].__name__ for e in EDGES])
def test_tf_edge_values(fn, x, expected):
    for got in _both(lambda: fn(tf.constant(x, tf.float32))):
        assert got.dtype == np.float32
        # atol: XLA's float32 lgamma is off by ~5e-7 near its zeros
        np.testing.assert_allclose(got, np.array(expected, np.float32), rtol=1e-5, atol=1e-6, equal_nan=True)


def test_inf_nan_results_are_silent():
    # TF returns inf/nan without warnings.  Run outside pytest's process: the test-only kernel wrappers would
    # otherwise be the code NumPy's warnings are attributed to.
    code = ("import warnings; warnings.simplefilter('error')\n"
            "import tensorlet as tf\n"
            "x = tf.constant([0.0, -1.0, 1.0, 2.0])\n"
            "for f in (tf.math.log, tf.sqrt, tf.math.rsqrt, tf.math.reciprocal, tf.atanh, tf.acosh, tf.math.log1p,\n"
            "          tf.math.lgamma, tf.math.digamma, tf.math.erfinv, tf.math.ndtri, tf.math.log_sigmoid):\n"
            "    f(x - 1.0); f(x * 1e30)\n"
            "tf.exp(tf.constant(1e4)); tf.sigmoid(tf.constant([-1e4, 1e4]))\n"
            "print('silent')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "silent" in r.stdout, r.stderr[-2000:]


def test_sign_and_round_of_zero_match_tf():
    for got in _both(lambda: tf.sign(tf.constant([-0.0, 0.0]))):
        assert not np.signbit(got).any()  # TF: sign(-0.0) is +0.0
    for got in _both(lambda: tf.round(tf.constant([-0.5, -0.0, 0.5]))):
        np.testing.assert_array_equal(np.signbit(got), [True, True, False])


def test_complex_edges():
    for got in _both(lambda: tf.sign(tf.constant([0j, 3 + 4j, -1j], tf.complex64))):
        np.testing.assert_allclose(got, [0, 0.6 + 0.8j, -1j], rtol=1e-6)
    for got in _both(lambda: tf.math.angle(tf.constant([-1 + 0j, 1j, -1 - 0j]))):
        np.testing.assert_allclose(got, [np.pi, np.pi / 2, np.pi], rtol=1e-12)
    got = tf.math.real(tf.constant([1 + 2j], tf.complex64))
    assert got.dtype == tf.float32


def test_dtypes_and_passthrough():
    assert tf.exp(1.0).dtype == tf.float32
    assert tf.math.lgamma(tf.constant([3.5], tf.float16)).dtype == tf.float16
    assert tf.math.erf(tf.constant([1.0], tf.bfloat16)).dtype == tf.bfloat16
    x = tf.constant([3], tf.uint8)
    assert tf.round(x) is x  # TF returns integer tensors as they are
    y = tf.constant([1.5, 2.0])
    assert tf.math.real(y) is y and tf.math.conj(y) is y
    assert tf.math.is_nan(tf.constant([1.0])).dtype == tf.bool
    assert tf.math.imag(tf.constant(["a"])).numpy().tolist() == [b""]


def test_namespaces():
    assert tf.sigmoid is tf.math.sigmoid is tf.nn.sigmoid
    assert tf.tanh is tf.math.tanh is tf.nn.tanh
    assert tf.exp is tf.math.exp and tf.sqrt is tf.math.sqrt and tf.round is tf.math.round
    assert tf.sign is tf.math.sign and tf.floor is tf.math.floor and tf.square is tf.math.square
    for name in ("log", "log1p", "expm1", "rsqrt", "ceil", "rint", "erf", "erfinv", "ndtri", "lgamma", "digamma",
                 "reciprocal", "is_nan", "real", "imag", "conj", "angle", "log_sigmoid"):
        assert callable(getattr(tf.math, name))
test_compiled = compiled_tests(CASES)
