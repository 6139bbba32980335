"""tf.experimental.numpy against NumPy itself: values and dtypes of each function on the same inputs."""

import numpy as np
import pytest

import tensorlet as tf
import tensorlet.experimental.numpy as tnp

A = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
IA = np.array([[3, 1, 2], [6, 5, 4]])
P = np.array([0.2, 0.5, 0.9])

# (function name, args, kwargs); the same call goes to NumPy and to tnp
CALLS = [(n, (A,), {}) for n in (
    "abs", "absolute", "negative", "sign", "square", "exp", "expm1", "sin", "cos", "tan", "sinh", "cosh",
    "tanh", "arctan", "arcsinh", "floor", "ceil", "isnan", "isinf", "isfinite", "conj", "rint", "positive",
    "exp2", "cbrt", "deg2rad", "rad2deg", "fix", "around", "signbit", "sinc", "ravel", "transpose", "flip", "fliplr",
    "flipud", "rot90", "sort", "argsort", "argmax", "argmin", "cumsum", "cumprod", "diff", "amax", "amin", "max",
    "min", "sum", "prod", "mean", "var", "std", "ptp", "count_nonzero", "nansum", "nanprod", "nanmean", "all", "any",
    "diagonal", "trace", "copy", "atleast_1d", "atleast_2d", "atleast_3d", "real", "imag", "angle", "isreal",
    "iscomplex", "isneginf", "isposinf", "tril", "triu", "zeros_like", "ones_like", "size", "ndim",
    "shape", "nonzero", "fabs")] + [(n, (P,), {}) for n in (
        "sqrt", "log", "log1p", "log2", "log10", "arcsin", "arccos", "arctanh", "reciprocal")] + [
    (n, (A, A[::-1]), {}) for n in (
        "add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "equal", "not_equal", "less",
        "less_equal", "greater", "greater_equal", "arctan2", "hypot", "logaddexp", "logaddexp2", "heaviside",
        "floor_divide", "mod", "remainder", "isclose", "allclose", "array_equal", "nextafter", "float_power")] + [
    (n, (IA, IA[::-1]), {}) for n in ("gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "power")] + [
    ("add", (IA, 1.5), {}), ("multiply", (IA.astype(np.int32), 2), {}), ("add", (A.astype(np.float32), 2), {}),
    ("bitwise_not", (IA,), {}), ("logical_not", (A > 0,), {}), ("logical_and", (A > 0, A < 2), {}),
    ("logical_or", (A > 0, A < 2), {}), ("logical_xor", (A > 0, A < 2), {}),
    ("sum", (A,), {"axis": 0}), ("mean", (IA,), {"axis": 1, "keepdims": True}), ("amax", (A,), {"axis": -1}),
    ("var", (A,), {"axis": 1, "ddof": 1}), ("average", (A,), {"axis": 1, "weights": [1.0, 2.0, 3.0]}),
    ("clip", (A, -1.0, 2.0), {}), ("reshape", (A, (3, 2)), {}), ("swapaxes", (A, 0, 1), {}),
    ("moveaxis", (np.zeros((2, 3, 4)), 0, -1), {}), ("expand_dims", (A, 1), {}), ("squeeze", (A[:1],), {}),
    ("concatenate", ([A, A],), {"axis": 1}), ("stack", ([A, A],), {}), ("hstack", ([A, A],), {}),
    ("vstack", ([A, A],), {}), ("dstack", ([A, A],), {}), ("append", (A, A), {}), ("split", (A, 3, 1), {}),
    ("hsplit", (A, 3), {}), ("vsplit", (A, 2), {}), ("tile", (A, (2, 1)), {}), ("repeat", (A, 2), {"axis": 0}),
    ("roll", (A, 1), {}), ("roll", (A, 1, 1), {}), ("pad", (A, 1), {}), ("take", (A, [0, 4]), {}),
    ("take_along_axis", (A, np.argsort(A, 1), 1), {}), ("compress", ([True, False, True], A, 1), {}),
    ("where", (A > 0, A, -A), {}), ("broadcast_to", (P, (2, 3)), {}), ("diag", (P,), {}), ("diag", (A,), {}),
    ("diagflat", (P,), {}), ("matmul", (A, A.T), {}), ("dot", (A, A.T), {}), ("dot", (P, P), {}),
    ("vdot", (A, A), {}), ("inner", (A, A), {}), ("outer", (P, P), {}), ("kron", (IA, IA), {}),
    ("tensordot", (A, A.T, 1), {}), ("einsum", ("ij,kj->ik", A, A), {}), ("cross", (P, P[::-1]), {}),
    ("polyval", (P, A), {}), ("vander", (P,), {}), ("select", ([A > 1, A < 0], [A, -A]), {}),
    ("zeros", ((2, 3),), {}), ("ones", (4,), {}), ("full", ((2, 2), 7), {}), ("eye", (3,), {}),
    ("eye", (3, 4, 1), {}), ("identity", (2,), {}), ("tri", (3,), {}), ("arange", (5,), {}),
    ("arange", (1, 2, 0.25), {}), ("linspace", (0, 1, 5), {}), ("linspace", (0, 1, 4), {"endpoint": False}),
    ("logspace", (0, 2, 3), {}), ("geomspace", (1, 100, 3), {}), ("full_like", (A, 3), {}),
    ("asarray", ([1, 2],), {}), ("asarray", ([1.5],), {}), ("array", ([[1, 2]],), {}),
    ("meshgrid", (P, P[:2]), {}), ("diag_indices", (3,), {}), ("broadcast_arrays", (P, A), {}),
    ("divmod", (IA, 4), {}),
]


def _cmp(got, want, where):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            _cmp(g, w, where)
        return
    w = np.asarray(want)
    g = np.asarray(got.numpy()) if hasattr(got, "numpy") else np.asarray(got)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != NumPy's {w.shape}"
    if not isinstance(want, (int, float, bool, tuple)):
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} != NumPy's {w.dtype}"
    np.testing.assert_allclose(g.astype(np.float64) if g.dtype != bool else g, w, rtol=1e-6, atol=1e-9,
                               err_msg=where)


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_matches_numpy(i):
    name, args, kwargs = CALLS[i]
    want = getattr(np, name)(*args, **kwargs)
    got = getattr(tnp, name)(*args, **kwargs)
    _cmp(got, want, name)


def test_results_are_tensors_and_trace():
    assert tnp.ndarray is tf.Tensor and isinstance(tnp.sin(1.0), tf.Tensor)

    @tf.function
    def f(x):
        return tnp.sum(tnp.square(x) + tnp.mean(x), axis=0)

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.sum(x * x + x.mean(), axis=0))


def test_gradients_flow():
    x = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        y = tnp.sum(tnp.logaddexp(x, tnp.flip(x)))
    g = t.gradient(y, x).numpy()
    e = np.exp(np.array([1.0, 2.0, 3.0]))
    r = e[::-1]
    np.testing.assert_allclose(g, e / (e + r) + (e / (e + r)), rtol=1e-12)


def test_dtypes_and_constants():
    assert tnp.float32 is np.float32 and tnp.pi == np.pi and tnp.inf == np.inf and tnp.newaxis is None
    assert tnp.finfo(tnp.float32).eps == np.finfo(np.float32).eps and tnp.iinfo(tnp.int8).max == 127
    assert tnp.result_type(tnp.int32, tnp.float32) == np.float64
    assert tnp.promote_types(tnp.int8, tnp.uint8) == np.int16
    assert tnp.issubdtype(tnp.float32, tnp.inexact) and tnp.isscalar(3.0) and not tnp.isscalar([3.0])
    assert tnp.iscomplexobj(np.array([1j])) and tnp.isrealobj(np.array([1.0]))


def test_random_shapes_and_ranges():
    tnp.random.seed(3)
    u = tnp.random.uniform(2.0, 3.0, size=(50,)).numpy()
    assert u.shape == (50,) and u.dtype == np.float64 and (u >= 2).all() and (u < 3).all()
    assert tnp.random.randn(2, 3).shape == (2, 3) and tnp.random.rand(4).shape == (4,)
    r = tnp.random.randint(0, 5, size=(100,)).numpy()
    assert r.dtype == np.int64 and r.min() >= 0 and r.max() < 5
    assert tnp.random.random((2,)).shape == (2,) and tnp.random.standard_normal((3,)).dtype == tf.float64
    assert tnp.random.poisson(3.0, size=(10,)).dtype == tf.int64


def test_numpy_behavior_methods():
    tnp.experimental_enable_numpy_behavior()
    t = tf.constant([[1, 2, 3]])
    assert t.reshape(3, 1).shape == (3, 1) and t.T.shape == (3, 1) and t.ravel().shape == (3,)
    assert t.astype(tf.float32).dtype == tf.float32 and t.tolist() == [[1, 2, 3]] and t.ndim == 2
