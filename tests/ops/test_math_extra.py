"""atan2, the xlogy family, tf.complex, add_n, clipping and norms, polyval and scalar_mul against NumPy."""

import functools

import numpy as np
from opcheck import Case, Err, JaxEager, make, compiled_tests, op_tests

import tensorlet as tf

BIN = [((2, 3), (2, 3)), ((4, 1), (3,)), ((), (5,)), ((0, 2), (2,))]
FLOATS = ("float16", "bfloat16", "float32", "float64")
CPLX = ("complex64", "complex128")
INTS = ("int8", "int32", "int64", "uint8")


def _wide(a):
    return a.astype(np.complex128 if np.dtype(a.dtype).kind == "c" else np.float64)


def _hi(f):
    """Reference computed in float64/complex128, rounded to the first input's dtype."""
    def ref(*xs):
        with np.errstate(all="ignore"):
            return np.asarray(f(*[_wide(x) for x in xs])).astype(xs[0].dtype)
    return ref


def _with_zeros(domain_y):
    """x with some exact zeros (the xlogy family returns 0 there whatever y is), y in domain_y with some zeros."""
    def gen(rng, shapes, dtype):
        x = make(rng, shapes[0], dtype, (-3, 3))
        y = make(rng, shapes[1], dtype, domain_y)
        x = np.where(rng.random(shapes[0]) < 0.3, np.zeros((), x.dtype), x).astype(x.dtype)
        y = np.where(rng.random(shapes[1]) < 0.3, np.zeros((), y.dtype), y).astype(y.dtype)
        return [x, y]
    return gen


def _xf(f):
    return _hi(lambda x, y: np.where(x == 0, 0, x * f(y)))


def _clip_gen(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype, (-5, 5))
    lo = make(rng, shapes[1], dtype, (-2, 0))
    hi = make(rng, shapes[2], dtype, (1, 3))
    return [x, lo, hi]


def _clip_by_norm_ref(axes):
    def ref(x):
        w = _wide(x)
        l2 = np.sqrt(np.sum(w * w, axis=axes, keepdims=True))
        return (w * 1.5 / np.maximum(l2, 1.5)).astype(x.dtype)
    return ref


def _global_norm_ref(a, b):
    return np.sqrt(np.sum(_wide(a) ** 2) + np.sum(_wide(b) ** 2)).astype(a.dtype)


def _clip_global_ref(clip):
    def ref(a, b):
        n = np.sqrt(np.sum(_wide(a) ** 2) + np.sum(_wide(b) ** 2))
        scale = clip * min(1 / n, 1 / clip)
        return [(_wide(a) * scale).astype(a.dtype), (_wide(b) * scale).astype(b.dtype)], n.astype(a.dtype)
    return ref


def _l2n_ref(axis):
    def ref(x):
        w = _wide(x)
        s = np.sum(np.abs(w) ** 2, axis=axis, keepdims=True)
        return (w / np.sqrt(np.maximum(s, 1e-12))).astype(x.dtype)
    return ref


def sp_polygamma(n, x):
    import scipy.special as sp

    with np.errstate(all="ignore"):
        return sp.polygamma(n.astype(np.float64), x.astype(np.float64)).astype(x.dtype)


def _polygamma_gen(rng, shapes, dtype):
    """Orders 0..4 (integer-valued floats) and x away from the poles."""
    n = rng.integers(0, 5, size=shapes[0]).astype(dtype)
    return [n, make(rng, shapes[1], dtype, (0.2, 5))]


def _complex_parts(re, im):
    z = tf.complex(re, im)
    w = z * z
    return tf.math.real(w), tf.math.imag(w), tf.abs(z), tf.math.angle(z)


def _complex_parts_ref(re, im):
    z = _wide(re) + 1j * _wide(im)
    return [np.asarray(v).astype(re.dtype) for v in (np.real(z * z), np.imag(z * z), np.abs(z), np.angle(z))]


def _polyval_ref(c0, c1, c2, x):
    return (c0 * x + c1) * x + c2


CASES = [
    Case(tf.math.atan2, _hi(np.arctan2), BIN[:1], FLOATS, ops=("Atan2",)),
    Case(tf.math.atan2, _hi(np.arctan2), BIN[1:], ("float32",), ops=("Atan2",), id="atan2_shapes"),
    # grad=False: (+-0, -1) sits on atan2's branch cut and (0, 0) has no derivative; finite differences are meaningless
    Case(tf.math.atan2, np.arctan2, [((4,), (4,))], ("float32",), ops=("Atan2",),
         gen=lambda rng, s, d: [np.array([0.0, -0.0, 1.0, 0.0], d), np.array([-1.0, -1.0, 0.0, 0.0], d)],
         id="atan2_signed_zeros", grad=False),
    # grad=False on the cases with exact zeros: there TF's gradient w.r.t. x is 0 by convention (not the limit log(y))
    # and y = 0 is a pole; the *_smooth cases check the gradients (test_grad_math.py checks the zeros)
    Case(tf.math.xlogy, _xf(np.log), BIN[:1], FLOATS + CPLX, ops=("Xlogy",), gen=_with_zeros((0.1, 3)), grad=False),
    Case(tf.math.xlogy, _xf(np.log), BIN[1:], ("float32",), ops=("Xlogy",), gen=_with_zeros((0.1, 3)),
         id="xlogy_shapes", grad=False),
    Case(tf.math.xdivy, _hi(lambda x, y: np.where(x == 0, 0, x / y)), BIN[:2], FLOATS + CPLX, ops=("Xdivy",),
         gen=_with_zeros((0.5, 3)), grad=False),
    Case(tf.math.xlog1py, _xf(np.log1p), BIN[:2], FLOATS + CPLX, ops=("Xlog1py",), gen=_with_zeros((-0.5, 3)),
         grad=False),
    Case(tf.math.xlogy, _xf(np.log), [((4, 1), (3,)), ((), (2,))], ("float64",), ops=("Xlogy",), domain=(0.1, 3),
         id="xlogy_smooth"),
    Case(tf.math.xdivy, _hi(lambda x, y: x / y), [((2, 3), (3,)), ((1,), ())], ("float64",), ops=("Xdivy",),
         domain=(0.5, 3), id="xdivy_smooth"),
    Case(tf.math.xlog1py, _xf(np.log1p), [((3,), (2, 1))], ("float64",), ops=("Xlog1py",), domain=(0.1, 3),
         id="xlog1py_smooth"),
    # grad=False: complex output (the finite-difference check sums float outputs); complex_parts covers Complex
    Case(tf.complex, lambda re, im: (_wide(re) + 1j * _wide(im)).astype(np.complex64 if re.dtype == np.float32
                                                                        else np.complex128),
         BIN, ("float32", "float64"), ops=("Complex",), grad=False),
    Case(_complex_parts, _complex_parts_ref, [((4, 1), (3,)), ((2,), (2,))], ("float32", "float64"),
         ops=("Complex", "Mul", "Real", "Imag", "ComplexAbs", "Angle"), domain=(0.2, 2), id="complex_parts"),
    Case(lambda n, x: tf.math.polygamma(n, x), sp_polygamma, [((2, 3), (2, 3)), ((3, 1), (4,))],
         ("float32", "float64"), ops=("Polygamma",), gen=_polygamma_gen, rtol=2e-5, id="polygamma",
         grad=False),  # TF gives no gradient w.r.t. the order n; the polygamma_k cases check the one w.r.t. x
    Case(lambda n, x: tf.math.polygamma(n, x), sp_polygamma, [((), (0, 2)), ((), ())], ("float32",),
         ops=("Polygamma",), gen=_polygamma_gen, id="polygamma_shapes", grad=False),  # as above
    *[Case(functools.partial(tf.math.polygamma, float(k)), lambda x, k=k: sp_polygamma(np.array(k, x.dtype), x),
           [((2, 3),)], ("float64",), ops=("Polygamma",), domain=(0.3, 4), id=f"polygamma_{k}") for k in (0, 1, 3)],
    Case(lambda *xs: tf.add_n(list(xs)), lambda *xs: functools.reduce(np.add, xs),
         [((2, 3), (2, 3), (2, 3))], FLOATS + INTS + CPLX, ops=("AddN",), id="add_n"),
    Case(lambda *xs: tf.add_n(list(xs)), lambda *xs: functools.reduce(np.add, xs),
         [((), ()), ((0, 2), (0, 2)), ((4,),) * 5], ("float32",), ops=("AddN",), id="add_n_shapes"),
    Case(lambda x: tf.add_n([x]), lambda x: x, [((2, 3),)], ("float32",), ops=(), id="add_n_single"),
    Case(tf.clip_by_value, lambda x, lo, hi: np.maximum(np.minimum(x, hi), lo),
         [((2, 3), (), ())], FLOATS + INTS, ops=("ClipByValue",), gen=_clip_gen),
    Case(tf.clip_by_value, lambda x, lo, hi: np.maximum(np.minimum(x, hi), lo),
         [((2, 3), (3,), (2, 1)), ((), (), ()), ((0, 3), (), ())], ("float32", "int32"), ops=("ClipByValue",),
         gen=_clip_gen, id="clip_by_value_shapes"),
    Case(tf.clip_by_value, lambda x, lo, hi: np.full_like(x, 1), [((5,), (), ())], ("float32", "int32"),
         ops=("ClipByValue",), gen=lambda rng, s, d: [np.array([-3, 0, 1, 2, 5], d), np.array(1, d), np.array(-1, d)],
         id="clip_min_above_max"),
    Case(lambda x: tf.clip_by_value(x, -1.0, 1.0), lambda x: np.clip(x, -1, 1), [((4,),)], ("float32",),
         ops=("ClipByValue",), gen=lambda rng, s, d: [np.array([np.nan, -np.inf, np.inf, 0.5], d)],
         id="clip_nan_inf", grad=False),  # nan/inf inputs: no finite differences (test_grad_math checks the values)
    Case(lambda c0, c1, c2, x: tf.math.polyval([c0, c1, c2], x), _polyval_ref,
         [((), (), (), (2, 3)), ((3,), (3,), (3,), (3,)), ((), (), (), ())], ("float32", "float64", "int32"),
         ops=("Mul", "AddV2"), id="polyval"),
    Case(lambda x: tf.math.polyval([], x), np.zeros_like, [((2, 3),), ((),)], ("float32", "int32"),
         ops=("ZerosLike",), id="polyval_empty"),
    Case(tf.math.scalar_mul, np.multiply, [((), (2, 3)), ((), ()), ((), (0, 2))], ("float32", "int32", "complex64"),
         ops=("Mul",)),
    Case(lambda x: tf.clip_by_norm(x, 1.5), _clip_by_norm_ref(None), [((2, 3),), ((),), ((0, 3),)],
         ("float32",), ops=("Sum", "Greater", "SelectV2", "Sqrt", "Mul", "Maximum", "RealDiv"), domain=(-2, 2),
         id="clip_by_norm"),
    # the case above declares Greater (not differentiable), so the gradient check uses this one
    Case(lambda x: tf.clip_by_norm(x, 1.5), _clip_by_norm_ref(None), [((2, 3),)], ("float64",),
         ops=("Sum", "SelectV2", "Sqrt", "Mul", "Maximum", "RealDiv"), domain=(-2, 2), id="clip_by_norm_grad"),
    Case(lambda x: tf.clip_by_norm(x, 1.5, axes=[1]), _clip_by_norm_ref((1,)), [((4, 3),)], ("float16", "float64"),
         ops=("Sum",), domain=(-1, 1), id="clip_by_norm_axes"),
    Case(lambda x: tf.clip_by_norm(x, 1.5, axes=0), _clip_by_norm_ref(0), [((4, 3),)], ("float64",), ops=("Sum",),
         id="clip_by_norm_axis0"),
    Case(lambda a, b: tf.linalg.global_norm([a, None, b]), _global_norm_ref, [((2, 3), (4,)), ((), (0,))],
         ("bfloat16", "float32"), ops=("Square", "Sum", "AddN", "Sqrt"), id="global_norm"),
    Case(lambda a, b: tf.clip_by_global_norm([a, b], 1.0), _clip_global_ref(1.0), [((2, 3), (4,))],
         ("float32", "float64"), ops=("Minimum", "Mul"), id="clip_by_global_norm"),
    Case(lambda a, b: tf.clip_by_global_norm([a, b], 100.0), _clip_global_ref(100.0), [((2, 3), (4,))],
         ("float32",), ops=("Minimum",), id="clip_by_global_norm_no_clip"),
    Case(tf.math.l2_normalize, _l2n_ref(None), [((2, 3),), ((),), ((0, 3),)], ("float32",),
         ops=("Square", "Sum", "Maximum", "Rsqrt", "Mul")),
    Case(lambda x: tf.math.l2_normalize(x, axis=1), _l2n_ref(1), [((3, 4),)], ("float16", "float64"),
         ops=("Sum", "Rsqrt"), id="l2_normalize_axis"),
    Case(lambda x: tf.nn.l2_normalize(x, axis=[0, 1]), _l2n_ref((0, 1)), [((3, 4),)], ("complex64",),
         ops=("Real", "Imag", "Complex"), id="l2_normalize_complex"),
]


ERRORS = [
    Err(lambda: tf.atan2(tf.constant([1]), tf.constant([1])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double "
        r"\[Op:Atan2\]"),
    Err(lambda: tf.atan2(tf.constant([1.0]), tf.constant([1.0], tf.float64)), tf.errors.InvalidArgumentError,
        r"cannot compute Atan2 as input #1\(zero-based\) was expected to be a float tensor but is a double tensor"),
    Err(lambda: tf.atan2(tf.zeros([2, 3]), tf.zeros([4])), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:Atan2\]"),
    Err(lambda: tf.math.xlogy(tf.constant([1]), tf.constant([1])), tf.errors.InvalidArgumentError,
        r"allowed values: half, bfloat16, float, double, complex64, complex128 \[Op:Xlogy\]"),
    Err(lambda: tf.math.xdivy(tf.constant([1]), tf.constant([1])), tf.errors.InvalidArgumentError, r"\[Op:Xdivy\]"),
    Err(lambda: tf.complex(tf.constant([1.0]), tf.constant([2.0], tf.float64)), TypeError,
        r"The `real` and `imag` components have incorrect types: float32 float64. They must be consistent, and one "
        r"of \[tf.float32, tf.float64\]"),
    Err(lambda: tf.complex(1, 2), TypeError, "incorrect types: int32 int32"),
    Err(lambda: tf.complex(tf.zeros([2, 3]), tf.zeros([4])), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:Complex\]"),
    Err(lambda: tf.math.polygamma(tf.constant([1, 2]), tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of int32 is not in the list of allowed values: float, double \[Op:Polygamma\]"),
    Err(lambda: tf.math.polygamma(tf.constant([1.0], tf.float16), tf.constant([1.0], tf.float16)),
        tf.errors.InvalidArgumentError, r"attr 'T' of float16 is not in the list of allowed values: float, double"),
    Err(lambda: tf.math.polygamma(tf.constant(1.0, tf.float64), tf.constant([2.0])), tf.errors.InvalidArgumentError,
        r"cannot compute Polygamma as input #1\(zero-based\) was expected to be a double tensor but is a float tensor"),
    Err(lambda: tf.math.polygamma(tf.zeros([3]), tf.zeros([2])), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[3\] vs. \[2\] \[Op:Polygamma\]"),
    Err(lambda: tf.math.polygamma([1, 2], [2.0, 3.0]), TypeError,
        r"Cannot convert \[2.0, 3.0\] to EagerTensor of dtype int32"),
    Err(lambda: tf.add_n([]), ValueError,
        "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."),
    Err(lambda: tf.add_n(3), TypeError, "not iterable"),
    Err(lambda: tf.add_n([tf.constant([1, 2]), tf.constant([3, 4, 5])]), tf.errors.InvalidArgumentError,
        r"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: \[2\] != input 1: "
        r"\[3\] \[Op:AddN\]"),
    Err(lambda: tf.add_n([tf.constant([1, 2]), tf.constant(3)]), tf.errors.InvalidArgumentError,
        r"Input 0: \[2\] != input 1: \[\]"),
    Err(lambda: tf.add_n([[1, 2], [3.0, 4]]), tf.errors.InvalidArgumentError,
        r"cannot compute AddN as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor"),
    Err(lambda: tf.add_n([tf.constant([True]), tf.constant([False])]), tf.errors.InvalidArgumentError,
        r"attr 'T' of bool .*\[Op:AddN\]"),
    Err(lambda: tf.clip_by_value(tf.constant([1.0, 2.0]), tf.zeros([3, 2]), 1.0), ValueError,
        r"Shapes \(2,\) and \(3, 2\) are incompatible"),
    Err(lambda: tf.clip_by_value(tf.constant([1.0, 2.0]), tf.zeros([3]), 1.0), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2\] vs. \[3\]"),
    Err(lambda: tf.clip_by_value(tf.constant([1, 5, -3]), 0.5, 3), TypeError,
        "Cannot convert 0.5 to EagerTensor of dtype int32"),
    Err(lambda: tf.clip_by_value(tf.constant([1.0]), tf.constant(0.0, tf.float64), 2.0),
        tf.errors.InvalidArgumentError, "expected to be a float tensor but is a double tensor"),
    Err(lambda: tf.clip_by_value(tf.constant([1j]), 0j, 1 + 0j), tf.errors.InvalidArgumentError,
        "attr 'T' of complex128 is not in the list of allowed values"),
    Err(lambda: tf.clip_by_value(tf.constant([True]), False, True), tf.errors.InvalidArgumentError,
        "attr 'T' of bool"),
    Err(lambda: tf.math.polyval((1.0,), 1.0), ValueError,
        "Argument coeffs must be list type. Received type <class 'tuple'>."),
    Err(lambda: tf.math.polyval([1, 2], tf.constant([1.0, 2.0])), tf.errors.InvalidArgumentError,
        r"cannot compute Mul as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor"),
    Err(lambda: tf.math.scalar_mul([2.0, 1.0], tf.constant([1.0, 2.0])), ValueError,
        r"The input scalar must be a 0-D value. Received shape \(2,\)."),
    Err(lambda: tf.math.scalar_mul(2.5, tf.constant([1, 2])), TypeError, "Cannot convert 2.5 to EagerTensor"),
    Err(lambda: tf.math.scalar_mul(tf.constant(2.0, tf.float64), tf.constant([1.0])), ValueError,
        "Tensor conversion requested dtype float32 for Tensor with dtype float64"),
    Err(lambda: tf.clip_by_norm(tf.constant([3, 4]), 1), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32 .*\[Op:Sqrt\]"),
    Err(lambda: tf.clip_by_norm(tf.constant([3j, 4.0]), 1.0), tf.errors.InvalidArgumentError,
        r"attr 'T' of complex128 .*\[Op:Greater\]"),
    Err(lambda: tf.clip_by_norm(tf.constant([[3.0, 4.0]]), 1.0, axes=[3]), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(3 for input with 2 dimension\(s\)"),
    Err(lambda: tf.linalg.global_norm(tf.constant([3.0, 4.0])), TypeError, "`t_list` should be a sequence of tensors"),
    Err(lambda: tf.linalg.global_norm([tf.constant([3.0]), tf.constant([4.0], tf.float64)]),
        tf.errors.InvalidArgumentError,
        r"cannot compute Pack as input #1\(zero-based\) was expected to be a float tensor but is a double tensor"),
    Err(lambda: tf.linalg.global_norm([tf.constant([3, 4])]), tf.errors.InvalidArgumentError,
        r"attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double \[Op:L2Loss\]"),
    Err(lambda: tf.clip_by_global_norm(tf.constant([3.0]), 1.0), TypeError, "`t_list` should be a sequence"),
    Err(lambda: tf.math.l2_normalize(tf.constant([3.0, 4.0]), axis=0, dim=0), ValueError,
        "Cannot specify both 'dim' and 'axis'."),
    Err(lambda: tf.math.l2_normalize(tf.constant([3, 4])), TypeError,
        "Cannot convert 1e-12 to EagerTensor of dtype int32"),
    Err(lambda: tf.math.l2_normalize(tf.constant([3.0, 4.0]), axis=2), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(2 for input with 1 dimension\(s\)"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def _both(fn):
    """fn() eagerly and with every kernel on jax.numpy."""
    from tensorlet._src.framework.context import interpreter

    eager = fn()
    with interpreter(JaxEager()):
        lowered = fn()
    return eager, lowered


NAN, INF = np.nan, np.inf


def test_xlogy_family_edges_match_tf():
    # values recorded from TensorFlow 2.21
    for got in _both(lambda: tf.math.xlogy([0.0, 0.0, 0.0, 1.0, 2.0, NAN], [0.0, NAN, -1.0, 0.0, 3.0, 0.0])):
        np.testing.assert_allclose(got.numpy(), [0, 0, 0, -INF, 2.1972246, NAN], rtol=1e-6)
    for got in _both(lambda: tf.math.xdivy([0.0, 0.0, 1.0, 2.0, NAN], [0.0, NAN, 0.0, 4.0, 0.0])):
        np.testing.assert_allclose(got.numpy(), [0, 0, INF, 0.5, NAN], rtol=1e-6)
    for got in _both(lambda: tf.math.xlog1py([0.0, 0.0, 0.0, 1.0, 2.0], [-1.0, NAN, -2.0, -1.0, 3.0])):
        np.testing.assert_allclose(got.numpy(), [0, 0, 0, -INF, 2.7725887], rtol=1e-6)


def test_polygamma_edges_match_tf():
    # values recorded from TensorFlow 2.21 (float64): nan unless the order is a non-negative integer; at the poles
    # inf for odd orders and nan for even ones; 0 at +inf for orders >= 1
    n = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 1.0, 2.0, 0.0, 1.0, 5.0, 1.0, 1.5, -1.0, 1.0]
    x = [0.0, -1.0, -0.5, 2.5, -0.0, -3.0, 0.0, -1.0, -0.5, -2.5, 1e-3, 30.0, INF, NAN, 0.7, -INF, 2.0, 2.0, INF]
    expected = [NAN, NAN, 0.03648997397857645, 0.7031566406452434, INF, INF, NAN, NAN, 193.40909103400242,
                -0.06799599950675606, 1000001.6425331959, -0.0011487652037285997, INF, NAN, 1025.3283541434716, INF,
                NAN, NAN, 0.0]
    for got in _both(lambda: tf.math.polygamma(tf.constant(n, tf.float64), tf.constant(x, tf.float64))):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    assert tf.math.polygamma(1.0, [2, 3]).dtype == tf.float32  # Python values follow the first argument
    got = tf.math.polygamma(tf.ones([2, 1]), tf.ones([3]))
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got.numpy(), np.full((2, 3), np.pi ** 2 / 6), rtol=1e-6)


def test_complex_keeps_infinite_parts():
    for got in _both(lambda: tf.complex(tf.constant([1.0, INF], tf.float64), tf.constant(INF, tf.float64))):
        assert got.dtype == tf.complex128
        v = got.numpy()
        np.testing.assert_array_equal(v.real, [1.0, INF])
        np.testing.assert_array_equal(v.imag, [INF, INF])
    assert tf.complex(1.0, 2.0).dtype == tf.complex64


def test_add_n_passes_single_input_through():
    x = tf.constant([1.0, 2.0])
    assert tf.add_n([x]) is x
    np.testing.assert_array_equal(tf.add_n(tf.constant([[1, 2], [3, 4]])).numpy(), [4, 6])


def test_clip_by_norm_edges():
    np.testing.assert_array_equal(tf.clip_by_norm(tf.zeros([3]), 1.0).numpy(), [0, 0, 0])
    assert np.isnan(tf.clip_by_norm(tf.zeros([3]), 0.0).numpy()).all()  # 0 * 0 / max(0, 0), as TF
    np.testing.assert_array_equal(tf.clip_by_norm(tf.constant([3.0, 4.0]), -1.0).numpy(), [0, 0])
    got = tf.clip_by_norm(tf.constant([[3.0, 4.0], [0.3, 0.4]]), [1.0, 2.0]).numpy()
    np.testing.assert_allclose(got, [[0.59702235, 1.5920596], [0.05970224, 0.15920596]], rtol=1e-6)
    assert tf.clip_by_norm(tf.constant([3.0, 4.0], tf.float16), 1.0).dtype == tf.float16


def test_global_norm_edges():
    for t_list in ([], [None]):
        n = tf.linalg.global_norm(t_list)
        assert n.dtype == tf.float32 and float(n) == 0.0
    assert float(tf.linalg.global_norm([[3.0], [4.0]])) == 5.0


def test_clip_by_global_norm_edges():
    clipped, norm = tf.clip_by_global_norm([tf.constant([3.0]), None, tf.constant([[4.0]])], 1.0)
    assert clipped[1] is None and float(norm) == 5.0
    np.testing.assert_allclose(clipped[0].numpy(), [0.6], rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), [[0.8]], rtol=1e-6)
    for bad in (INF, NAN):
        clipped, norm = tf.clip_by_global_norm([tf.constant([bad]), tf.constant([[4.0]])], 1.0)
        assert np.isnan(clipped[0].numpy()).all() and np.isnan(clipped[1].numpy()).all()
    clipped, norm = tf.clip_by_global_norm([tf.constant([3.0]), tf.constant([4.0])], 1.0, use_norm=10.0)
    np.testing.assert_allclose(clipped[0].numpy(), [0.3], rtol=1e-6)
    clipped, norm = tf.clip_by_global_norm([], 1.0)
    assert clipped == [] and float(norm) == 0.0
    clipped, norm = tf.clip_by_global_norm([tf.ones([2])], 0.0)
    np.testing.assert_array_equal(clipped[0].numpy(), [0, 0])
    clipped, _ = tf.clip_by_global_norm([tf.constant([3.0, 4.0], tf.float16)], 1.0)
    assert clipped[0].dtype == tf.float16


def test_l2_normalize_forms():
    x = tf.constant([[3.0, 4.0], [0.0, 0.0]])
    expected = [[0.6, 0.8], [0.0, 0.0]]
    for got in (tf.math.l2_normalize(x, axis=1), tf.math.l2_normalize(x, dim=1), tf.nn.l2_normalize(x, 1)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.math.l2_normalize(tf.constant([0.3, 0.4]), epsilon=1.0).numpy(), [0.3, 0.4])
    got = tf.math.l2_normalize(tf.constant([3j, 4.0], tf.complex64))
    assert got.dtype == tf.complex64
    np.testing.assert_allclose(got.numpy(), [0.6j, 0.8], rtol=1e-6)
    assert tf.math.l2_normalize(tf.constant([3.0, 4.0], tf.bfloat16)).dtype == tf.bfloat16


def test_namespaces():
    assert tf.math.l2_normalize is tf.nn.l2_normalize is tf.linalg.l2_normalize
    assert tf.complex is tf.dtypes.complex
    assert tf.add_n is tf.math.add_n and tf.atan2 is tf.math.atan2 and tf.scalar_mul is tf.math.scalar_mul
    assert callable(tf.clip_by_value) and callable(tf.clip_by_norm) and callable(tf.clip_by_global_norm)
    assert callable(tf.linalg.global_norm) and callable(tf.math.polyval) and callable(tf.math.xlog1py)
    assert callable(tf.math.polygamma)
test_compiled = compiled_tests(CASES)
