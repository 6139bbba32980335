"""Reductions against NumPy/SciPy: sum, mean, max/min, prod, any/all, norms, logsumexp, moments, argmax/argmin."""

import warnings

import pytest

import ml_dtypes
import numpy as np
import scipy.special
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int32", "int64", "uint8")
BF16 = np.dtype(ml_dtypes.bfloat16)

ALL_AXES = [((2, 3),), ((4,),), ((),), ((0, 3),), ((2, 3, 4),)]  # axis=None
AXIS1 = [((2, 3),), ((0, 3),), ((2, 0),), ((2, 3, 4),)]  # axis=1 / axis=-1
AXES02 = [((2, 3, 4),), ((0, 2, 1),)]  # axis=[0, 2]


def _acc(d):
    d = np.dtype(d)
    if d.kind == "c":
        return np.complex128
    if d.kind == "f" or d == BF16:
        return np.float64
    return d


def _sum(x, axis=None, keepdims=False):
    return np.asarray(np.sum(x, axis=axis, dtype=_acc(x.dtype), keepdims=keepdims)).astype(x.dtype)


def _mean(x, axis=None, keepdims=False):
    d = x.dtype
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
    if d.kind in "iu":
        s = np.sum(x, axis=axis, dtype=np.float64, keepdims=keepdims)
        return np.asarray(np.trunc(s / max(n, 1))).astype(d)
    with np.errstate(all="ignore"):
        return np.asarray(np.sum(x, axis=axis, dtype=_acc(d), keepdims=keepdims) / n).astype(d)


def _extreme(fn, lowest):
    def ref(x, axis=None, keepdims=False):
        d = x.dtype
        if d.kind == "f" or d == BF16:
            init = -np.inf if lowest else np.inf
        else:
            init = np.iinfo(d).min if lowest else np.iinfo(d).max
        return np.asarray(fn(x, axis=axis, keepdims=keepdims, initial=init)).astype(d)
    return ref


_max = _extreme(np.max, True)
_min = _extreme(np.min, False)


def _prod(x, axis=None, keepdims=False):
    return np.asarray(np.prod(x, axis=axis, dtype=x.dtype if x.dtype.kind in "iu" else _acc(x.dtype),
                              keepdims=keepdims)).astype(x.dtype)


def _euclid(x, axis=None, keepdims=False):
    d = x.dtype
    s = np.sum(np.abs(x.astype(_acc(d) if d.kind != "c" else np.complex128)) ** 2, axis=axis, keepdims=keepdims)
    r = np.sqrt(s.astype(np.float64))
    return np.asarray(np.floor(r) if d.kind in "iu" else r).astype(d)


def _lse(x, axis=None, keepdims=False):
    if x.size == 0:  # scipy does not take empty arrays with several axes
        return np.full(np.shape(np.sum(x, axis=axis, keepdims=keepdims)), -np.inf, x.dtype)
    return np.asarray(scipy.special.logsumexp(x.astype(np.float64), axis=axis, keepdims=keepdims)).astype(x.dtype)


def _real_dtype(d):
    return np.float32 if d == np.complex64 else np.float64 if d == np.complex128 else d


def _var(x, axis=None, keepdims=False):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        v = np.var(x.astype(_acc(x.dtype)), axis=axis, keepdims=keepdims)
    return np.asarray(v).astype(_real_dtype(x.dtype))


def _std(x, axis=None, keepdims=False):
    return np.sqrt(_var(x, axis, keepdims).astype(np.float64)).astype(_real_dtype(x.dtype))


def _with_zeros(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype)
    if x.dtype.kind == "f" or x.dtype == BF16:
        x = np.round(x / 2).astype(x.dtype)  # plenty of zeros
    return [x]


def cases_for(tf_fn, ref, dtypes, ops, name="", domain=(-3.0, 3.0), **kw):
    """The axis variants of one reduction: shapes swept with the first dtype, dtypes swept on one shape."""
    n = name or tf_fn.__name__
    main = dtypes[:1]
    return [
        Case(lambda x: tf_fn(x), lambda x: ref(x), ALL_AXES, main, ops=ops, domain=domain, id=f"{n}_all", **kw),
        Case(lambda x: tf_fn(x, axis=1), lambda x: ref(x, 1), AXIS1, main, ops=ops, domain=domain,
             id=f"{n}_axis1", **kw),
        Case(lambda x: tf_fn(x, axis=1), lambda x: ref(x, 1), [((3, 4),)], dtypes, ops=ops, domain=domain,
             id=f"{n}_dtypes", **kw),
        Case(lambda x: tf_fn(x, axis=-1, keepdims=True), lambda x: ref(x, -1, True), AXIS1[:2], main, ops=ops,
             domain=domain, id=f"{n}_keepdims", **kw),
        Case(lambda x: tf_fn(x, axis=[0, -1]), lambda x: ref(x, (0, 2)), AXES02, main, ops=ops,
             domain=domain, id=f"{n}_axes_list", **kw),
        Case(lambda x: tf_fn(x, axis=tf.constant([2, 0], tf.int64), keepdims=True),
             lambda x: ref(x, (0, 2), True), AXES02[:1], main, ops=ops, domain=domain,
             id=f"{n}_axis_tensor", **kw),
    ]


def _argref(fn, fill):
    def ref(x, axis=0, output_type=np.int64):
        if x.dtype.kind == "f" or x.dtype == BF16:
            x = np.where(np.isnan(x), fill, x.astype(np.float64))
        return np.asarray(fn(x, axis=axis)).astype(output_type)
    return ref


def _nan_gen(rng, shapes, dtype):
    x = make(rng, shapes[0], dtype)
    x.flat[::3] = np.nan  # TF's argmax/argmin skip NaNs
    return [x]


CASES = (
    cases_for(tf.reduce_sum, _sum, FLOATS[2:] + FLOATS[:2] + INTS + ("complex64", "int16", "uint32", "uint64"),
              ("Sum",))
    + cases_for(tf.math.reduce_mean, _mean, FLOATS[2:] + FLOATS[:2] + INTS + ("complex128",), ("Mean",))
    + cases_for(tf.reduce_max, _max, FLOATS[2:] + FLOATS[:2] + INTS + ("uint64",), ("Max",))
    + cases_for(tf.math.reduce_min, _min, FLOATS[2:] + FLOATS[:2] + INTS + ("int16",), ("Min",))
    + cases_for(tf.reduce_prod, _prod, ("float32", "float64", "int32", "int64", "complex64"), ("Prod",),
                domain=(-1.5, 1.5))
    + cases_for(tf.reduce_any, lambda x, axis=None, keepdims=False: np.any(x, axis=axis, keepdims=keepdims),
                ("bool",), ("Any",), name="reduce_any")
    + cases_for(tf.math.reduce_all, lambda x, axis=None, keepdims=False: np.all(x, axis=axis, keepdims=keepdims),
                ("bool",), ("All",), name="reduce_all")
    + cases_for(tf.math.reduce_euclidean_norm, _euclid, ("float32", "float64", "int32", "uint8", "complex64",
                                                         "float16"), ("EuclideanNorm",))
    + cases_for(tf.reduce_logsumexp, _lse, ("float32", "float16", "float64", "bfloat16"),
                ("Max", "IsFinite", "SelectV2", "StopGradient", "Sub", "Exp", "Sum", "Log", "AddV2"),
                name="reduce_logsumexp", domain=(-30.0, 30.0))
    + cases_for(tf.math.reduce_variance, _var, ("float32", "float64", "complex64"),
                ("Mean", "Sub"), name="reduce_variance")
    + cases_for(tf.math.reduce_std, _std, ("float32", "float64", "complex128"),
                ("Mean", "Sub", "Sqrt"), name="reduce_std")
    + cases_for(tf.math.count_nonzero, lambda x, axis=None, keepdims=False: np.asarray(
        np.count_nonzero(x, axis=axis, keepdims=keepdims)).astype(np.int64),
        ("float32", "int32", "bool", "complex64"), ("NotEqual", "Cast", "Sum"),
        name="count_nonzero", gen=_with_zeros)
    + [
        # the cases above declare IsFinite (not differentiable): the gradient flows through Exp/Sum/Log only
        Case(lambda x: tf.reduce_logsumexp(x, axis=[0, 2], keepdims=True), lambda x: _lse(x, (0, 2), True),
             [((2, 3, 4),), ((1, 2, 1),)], ("float64", "float32"), ops=("Exp", "Sum", "Log"),
             id="reduce_logsumexp_grad"),
        Case(tf.math.reduce_sum, lambda x: np.sum(x.astype(np.float32)).astype(np.float16), [((3000,),)],
             ("float16",), domain=(1, 1), ops=("Sum",), id="sum_f16_accumulates_f32"),
        Case(tf.reduce_mean, lambda x: np.asarray(np.trunc(x.astype(np.float64).sum() / x.size)).astype(x.dtype),
             [((300,),)], ("int8", "uint8", "int32"), domain=(-128, 127), ops=("Mean",), id="mean_int_no_overflow"),
        Case(lambda x: tf.math.count_nonzero(x, 1, keepdims=True, dtype=tf.float32),
             lambda x: np.count_nonzero(x, 1, keepdims=True).astype(np.float32), [((3, 4),)], ("int64",),
             ops=("NotEqual", "Cast", "Sum"), id="count_nonzero_dtype"),
        Case(lambda x: tf.math.count_nonzero(x), lambda x: np.int64(np.count_nonzero(x != b"")), [((3,),)],
             ("object",), ops=("NotEqual", "Cast", "Sum"), jax=False, id="count_nonzero_strings",
             gen=lambda rng, s, d: [np.array([b"a", b"", b"bc"], dtype=object)]),  # jax has no string arrays
        Case(tf.argmax, _argref(np.argmax, -np.inf), [((4, 3),), ((5,),), ((2, 3, 4),)], ("float32",),
             ops=("ArgMax",)),
        Case(tf.argmax, _argref(np.argmax, -np.inf), [((4, 3),)], FLOATS + INTS + ("bool", "uint16"),
             ops=("ArgMax",), id="argmax_dtypes"),
        Case(lambda x: tf.math.argmax(x, axis=-1, output_type=tf.int32),
             lambda x: _argref(np.argmax, -np.inf)(x, -1, np.int32), [((4, 3),), ((0, 3),)], ("float32", "int8"),
             ops=("ArgMax",), id="argmax_last_int32"),
        Case(lambda x: tf.math.argmin(x, tf.constant(1, tf.int64), output_type=tf.int16),
             lambda x: _argref(np.argmin, np.inf)(x, 1, np.int16), [((4, 3),), ((2, 3, 4),)], ("float64", "int32"),
             ops=("ArgMin",), id="argmin_axis_tensor"),
        Case(tf.argmin, _argref(np.argmin, np.inf), [((6,),)], FLOATS + INTS + ("bool",), ops=("ArgMin",)),
        Case(lambda x: tf.argmax(x, 1), lambda x: _argref(np.argmax, -np.inf)(x, 1), [((4, 5),)],
             ("float32", "float16"), gen=_nan_gen, ops=("ArgMax",), id="argmax_skips_nan"),
        Case(lambda x: tf.argmin(x, 1), lambda x: _argref(np.argmin, np.inf)(x, 1), [((4, 5),)], ("float64",),
             gen=_nan_gen, ops=("ArgMin",), id="argmin_skips_nan"),
    ]
)

X = tf.constant([[1.0, 2.0], [3.0, 4.0]])

ERRORS = [
    Err(lambda: tf.reduce_sum(X, 3), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(3 for input with 2 dimension\(s\) \[Op:Sum\]"),
    Err(lambda: tf.reduce_max(X, -3), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(-3 for input with 2 dimension\(s\) \[Op:Max\]"),
    Err(lambda: tf.reduce_sum(tf.constant(3.0), 0), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(0 for input with 0 dimension\(s\)"),
    Err(lambda: tf.reduce_mean(X, [0, -2]), tf.errors.InvalidArgumentError,
        "Axes contains duplicate dimension: 0"),
    Err(lambda: tf.reduce_sum(X, 1.0), TypeError, "Cannot convert 1.0 to EagerTensor of dtype int32"),
    Err(lambda: tf.reduce_sum(X, tf.constant(1.0)), tf.errors.InvalidArgumentError,
        "Value for attr 'Tidx' of float32 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.reduce_sum(tf.constant([True])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of bool is not in the list of allowed values.*\[Op:Sum\]"),
    Err(lambda: tf.reduce_mean(tf.constant(["a"])), tf.errors.InvalidArgumentError, "attr 'T' of string"),
    Err(lambda: tf.reduce_max(tf.constant([1j])), tf.errors.InvalidArgumentError,
        r"attr 'T' of complex128 is not in the list.*\[Op:Max\]"),
    Err(lambda: tf.reduce_min(tf.constant([True])), tf.errors.InvalidArgumentError, r"attr 'T' of bool.*\[Op:Min\]"),
    Err(lambda: tf.reduce_prod(tf.constant([True])), tf.errors.InvalidArgumentError, r"\[Op:Prod\]"),
    Err(lambda: tf.reduce_any(X), tf.errors.InvalidArgumentError,
        r"cannot compute Any as input #0\(zero-based\) was expected to be a bool tensor but is a float tensor"),
    Err(lambda: tf.reduce_all(tf.constant([1])), tf.errors.InvalidArgumentError, "cannot compute All"),
    Err(lambda: tf.reduce_any([1, 0]), TypeError, "Cannot convert"),
    Err(lambda: tf.reduce_any(tf.constant([[True]]), axis=5), tf.errors.InvalidArgumentError,
        r"Invalid reduction dimension \(5 for input with 2 dimension\(s\) \[Op:Any\]"),
    Err(lambda: tf.math.reduce_euclidean_norm(tf.constant([True])), tf.errors.InvalidArgumentError,
        r"\[Op:EuclideanNorm\]"),
    Err(lambda: tf.math.reduce_euclidean_norm(X, 2), tf.errors.InvalidArgumentError, "Invalid reduction dimension"),
    Err(lambda: tf.reduce_logsumexp(tf.constant([1, 2])), tf.errors.InvalidArgumentError, "attr 'T' of int32"),
    Err(lambda: tf.reduce_logsumexp(X, 2), tf.errors.InvalidArgumentError, r"Invalid reduction dimension.*\[Op:Max\]"),
    Err(lambda: tf.math.reduce_variance(tf.constant([1, 2])), TypeError,
        "Input must be either real or complex. Received integer type <dtype: 'int32'>."),
    Err(lambda: tf.math.reduce_std(tf.constant([1, 2], tf.uint8)), TypeError, "Received integer type"),
    Err(lambda: tf.math.reduce_variance(X, 2), tf.errors.InvalidArgumentError, r"\[Op:Mean\]"),
    Err(lambda: tf.math.count_nonzero(X, 2), tf.errors.InvalidArgumentError, r"\[Op:Sum\]"),
    Err(lambda: tf.argmax(tf.constant(3.0)), tf.errors.InvalidArgumentError,
        r"Expected dimension in the range \[0, 0\), but got 0 \[Op:ArgMax\]"),
    Err(lambda: tf.argmax(X, 2), tf.errors.InvalidArgumentError, r"Expected dimension in the range \[-2, 2\)"),
    Err(lambda: tf.argmin(X, -3), tf.errors.InvalidArgumentError, r"but got -3 \[Op:ArgMin\]"),
    Err(lambda: tf.argmax(tf.zeros([0])), tf.errors.InvalidArgumentError, r"Reduction axis 0 is empty in shape \[0\]"),
    Err(lambda: tf.argmax(X, [1]), TypeError, "axis must be int or Tensor with integer datatype"),
    Err(lambda: tf.argmax(X, 1.0), TypeError, "axis must be int"),
    Err(lambda: tf.argmax(X, tf.constant([1])), tf.errors.InvalidArgumentError, "dim must be a scalar"),
    Err(lambda: tf.argmax(X, 1, output_type=tf.float32), tf.errors.InvalidArgumentError,
        "Value for attr 'output_type' of float32 is not in the list of allowed values: int16, uint16, int32, int64"),
    Err(lambda: tf.argmax(tf.constant([1j])), tf.errors.InvalidArgumentError, r"attr 'T' of complex128.*ArgMax"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_empty_reductions_match_tf():
    assert tf.reduce_sum(tf.zeros([0])).numpy() == 0.0
    assert tf.reduce_max(tf.zeros([0])).numpy() == -np.inf
    assert tf.reduce_min(tf.zeros([0])).numpy() == np.inf
    assert tf.reduce_max(tf.zeros([0], tf.int32)).numpy() == np.iinfo(np.int32).min
    assert tf.reduce_max(tf.zeros([0], tf.uint8)).numpy() == 0
    assert tf.reduce_min(tf.zeros([0], tf.int32)).numpy() == np.iinfo(np.int32).max
    assert tf.reduce_prod(tf.zeros([0])).numpy() == 1.0
    assert np.isnan(tf.reduce_mean(tf.zeros([0])).numpy())
    assert tf.reduce_mean(tf.zeros([0], tf.int32)).numpy() == 0
    assert not tf.reduce_any(tf.zeros([0], tf.bool)).numpy()
    assert tf.reduce_all(tf.zeros([0], tf.bool)).numpy()
    assert tf.reduce_logsumexp(tf.zeros([0])).numpy() == -np.inf


def test_tf_integer_and_half_semantics():
    assert tf.reduce_mean(tf.constant([-7, 0])).numpy() == -3  # truncates toward zero
    assert tf.reduce_mean(tf.constant([100, 100, 100], tf.int8)).numpy() == 100  # no overflow
    assert tf.reduce_sum(tf.constant([100, 100], tf.int8)).numpy() == -56  # sums wrap
    assert tf.reduce_prod(tf.constant([100, 100], tf.int8)).numpy() == 16
    assert tf.math.reduce_euclidean_norm(tf.constant([3, 3])).numpy() == 4  # sqrt(18) truncated
    assert tf.math.reduce_euclidean_norm(tf.constant([20, 20], tf.uint8)).numpy() == 5  # squares wrap
    assert np.isinf(tf.math.reduce_euclidean_norm(tf.constant([300.0, 400.0], tf.float16)).numpy())
    assert tf.reduce_sum(tf.constant([1.0] * 3000, tf.bfloat16)).numpy() == 3008
    assert tf.reduce_mean(tf.constant([1.0] * 3000, tf.float16)).numpy() == 1.0


def test_nan_and_inf():
    assert np.isnan(tf.reduce_max(tf.constant([np.nan, 1.0])).numpy())
    assert np.isnan(tf.reduce_min(tf.constant([1.0, np.nan, 0.0])).numpy())
    assert tf.argmax(tf.constant([np.nan, 1.0, 3.0])).numpy() == 2
    assert tf.argmin(tf.constant([np.nan, 1.0, 3.0])).numpy() == 1
    assert tf.argmax(tf.constant([np.nan, np.nan])).numpy() == 0
    assert tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])).numpy() == -np.inf
    assert tf.reduce_logsumexp(tf.constant([np.inf, 1.0])).numpy() == np.inf
    big = tf.reduce_logsumexp(tf.constant([1000.0, 1000.0]))  # stable: no overflow
    np.testing.assert_allclose(big.numpy(), 1000 + np.log(2), rtol=1e-6)


def test_dtypes_and_shapes():
    x = tf.ones([2, 3, 4])
    assert tf.reduce_sum(x, axis=[]).shape == (2, 3, 4)
    assert tf.reduce_max(x, keepdims=True).shape == (1, 1, 1)
    assert tf.reduce_mean(tf.constant(3.0), keepdims=True).shape == ()
    assert tf.reduce_sum(x, [[0], [2]]).shape == (3,)  # nested axis lists flatten, as in TF
    assert tf.reduce_sum([1, 2]).dtype == tf.int32
    assert tf.argmax(x).dtype == tf.int64
    assert tf.argmax(tf.constant([[1, 200]], tf.uint8), 1, output_type=tf.uint16).dtype == tf.uint16
    assert tf.math.reduce_variance(tf.constant([1 + 1j, 2])).dtype == tf.float64
    np.testing.assert_allclose(tf.math.reduce_std(tf.constant([1 + 1j, 2])).numpy(), np.sqrt(0.5))
    assert tf.math.reduce_variance(tf.constant([1.0, 2.0], tf.float16)).dtype == tf.float16
    assert tf.math.count_nonzero(tf.constant([1, 0]), dtype=tf.bool).dtype == tf.bool
    assert tf.math.reduce_euclidean_norm(tf.constant([3 + 4j, 0])).numpy() == 5 + 0j
    assert tf.sparse is not None if hasattr(tf, "sparse") else True
test_compiled = compiled_tests(CASES)


def test_reductions_of_an_input_of_unknown_rank_in_a_function():
    # axes stay as given (negative ones too) until run time; gradients build their shapes at run time
    x = np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4) / 7

    def losses(v):
        outs = [tf.reduce_sum(v, axis=1), tf.reduce_mean(v, axis=[0, -1], keepdims=True),
                tf.reduce_max(v, axis=-1), tf.reduce_min(v, axis=[-2]), tf.norm(v, axis=-1),
                tf.math.reduce_euclidean_norm(v, axis=0)]
        return outs, sum(tf.reduce_sum(o * (i + 1)) for i, o in enumerate(outs))

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def f(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            outs, loss = losses(v)
        return outs, tape.gradient(loss, v), tf.shape(v), tf.size(v)

    outs, grad, shp, size = f(tf.constant(x))
    assert all(o.shape.rank is None for o in f.get_concrete_function().structured_outputs[0])
    assert f.get_concrete_function().structured_outputs[2].shape.as_list() == [None]  # Shape of an unknown rank
    xe = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xe)
        want, loss = losses(xe)
    want_grad = tape.gradient(loss, xe)
    np.testing.assert_allclose(want[0].numpy(), x.sum(1), rtol=1e-6)
    for got, ref in zip(outs, want):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), want_grad.numpy(), rtol=1e-5)
    assert shp.numpy().tolist() == [2, 3, 4] and int(size) == 24
    with pytest.raises(tf.errors.InvalidArgumentError, match="Sum"):  # axis 1 of a vector, seen at run time
        f(tf.constant(np.ones(3, np.float32)))
