"""Tensor creation (zeros/ones/fill, *_like, eye, range, linspace, meshgrid) against NumPy, plus TF's dtype rules."""

import ml_dtypes
import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

FLOATS = ("float16", "bfloat16", "float32", "float64")
ALL = FLOATS + ("int8", "int32", "int64", "uint8", "complex64", "bool")


def _np(d):
    return np.dtype(ml_dtypes.bfloat16) if d == "bfloat16" else np.dtype(d)


def proto(rng, shapes, dtype):
    """A 0-d array that only carries the dtype under test (creation ops take no tensor inputs)."""
    return [np.zeros((), _np(dtype))]


def proto_shape(rng, shapes, dtype):
    """The dtype carrier plus the shape under test, as a plain tuple."""
    return [np.zeros((), _np(dtype)), shapes[0]]


def _strings(rng, shapes, dtype):
    return [np.array([b"a", b"bc"], dtype=object)]


def _linspace_ref(start, stop, num, axis=0):
    """TF's formula: start + i * (stop - start) / (num - 1) in the input dtype, the last value exactly ``stop``."""
    start, stop = np.broadcast_arrays(start, stop)
    a, b = start[..., None], stop[..., None]
    if num == 1:
        out = a
    else:
        step = (b - a) / start.dtype.type(num - 1)
        out = np.concatenate([a, (a + np.arange(1, num - 1).astype(start.dtype) * step).astype(start.dtype), b], -1)
    return np.moveaxis(out, -1, axis)


SHAPES = [((2, 3),), ((),), ((0, 4),), ((1, 1, 5),)]

CASES = [
    Case(lambda p, s: tf.zeros(s, p.dtype), lambda p, s: np.zeros(s, p.dtype), SHAPES, ALL, ops=("Fill",),
         gen=proto_shape, as_tensors=False, id="zeros"),
    Case(lambda p, s: tf.ones(s, p.dtype), lambda p, s: np.ones(s, p.dtype), SHAPES, ALL, ops=("Fill",),
         gen=proto_shape, as_tensors=False, id="ones"),
    Case(lambda p, s: tf.zeros(tf.constant(s, tf.int64)), lambda p, s: np.zeros(s, np.float32), SHAPES[:1],
         ("float32",), ops=("Fill",), gen=proto_shape, as_tensors=False, id="zeros_tensor_shape"),
    Case(lambda p, s: tf.ones(tf.TensorShape(s), tf.int64), lambda p, s: np.ones(s, np.int64), SHAPES[:2],
         ("int64",), ops=("Fill",), gen=proto_shape, as_tensors=False, id="ones_tensorshape"),
    Case(lambda v: tf.fill([2, 3], v), lambda v: np.full((2, 3), v, v.dtype), [((),)], ALL, ops=("Fill",), id="fill"),
    Case(lambda v: tf.fill([0, 2], v), lambda v: np.full((0, 2), v, v.dtype), [((),)], ("int32",), ops=("Fill",),
         id="fill_empty"),
    Case(lambda p: tf.zeros([2], tf.string), lambda p: np.array([b"", b""], dtype=object), [()], ("float32",),
         ops=("Fill",), gen=proto, as_tensors=False, jax=False, id="zeros_string"),  # jax has no strings
    Case(tf.zeros_like, np.zeros_like, [((2, 3),), ((),), ((0,),)], ALL, ops=("ZerosLike",)),
    Case(tf.ones_like, np.ones_like, [((2, 3),), ((),), ((0,),)], ALL, ops=("OnesLike",)),
    Case(lambda x: tf.zeros_like(x, dtype=tf.float64), lambda x: np.zeros(x.shape, np.float64), [((2, 3),)],
         ("int32",), ops=("Fill",), id="zeros_like_dtype"),
    # grad=False: the output (bool ones) does not depend on x's values
    Case(lambda x: tf.ones_like(x, dtype=tf.bool), lambda x: np.ones(x.shape, bool), [((4,),)], ("float32",),
         ops=("Fill",), grad=False, id="ones_like_dtype"),
    Case(tf.zeros_like, lambda x: np.array([b"", b""], dtype=object), [((2,),)], ("object",), ops=("ZerosLike",),
         gen=_strings, jax=False, id="zeros_like_string"),  # jax has no strings
    # eye (composite)
    Case(lambda p: tf.eye(3, dtype=p.dtype), lambda p: np.eye(3, dtype=p.dtype), [()], ALL, gen=proto,
         as_tensors=False, ops=("Range", "Equal"), id="eye"),
    Case(lambda p: tf.linalg.eye(2, 4, batch_shape=[2, 1], dtype=p.dtype),
         lambda p: np.broadcast_to(np.eye(2, 4, dtype=p.dtype), (2, 1, 2, 4)), [()], ("float32", "int64"),
         gen=proto, as_tensors=False, ops=("Range", "BroadcastTo"), id="eye_batch"),
    Case(lambda p: tf.eye(0), lambda p: np.eye(0, dtype=np.float32), [()], ("float32",), gen=proto,
         as_tensors=False, ops=("Range",), id="eye_empty"),
    # range
    Case(lambda p: tf.range(10), lambda p: np.arange(10, dtype=np.int32), [()], ("int32",), gen=proto,
         as_tensors=False, ops=("Range",), id="range_limit"),
    Case(lambda p: tf.range(2, 11, 3, dtype=p.dtype), lambda p: np.arange(2, 11, 3).astype(p.dtype), [()],
         ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint16"), gen=proto, as_tensors=False,
         ops=("Range",), id="range_dtype"),
    Case(lambda p: tf.range(5, -4, -2), lambda p: np.arange(5, -4, -2, dtype=np.int32), [()], ("int32",),
         gen=proto, as_tensors=False, ops=("Range",), id="range_negative_delta"),
    Case(lambda p: tf.range(1.5, 4.0, 0.3), lambda p: (np.float32(1.5) + np.arange(9, dtype=np.float32)
                                                       * np.float32(0.3)), [()], ("float32",),
         gen=proto, as_tensors=False, ops=("Range",), id="range_float"),
    Case(lambda p: tf.range(3, 3), lambda p: np.zeros(0, np.int32), [()], ("int32",), gen=proto,
         as_tensors=False, ops=("Range",), id="range_empty"),
    Case(lambda a, b: tf.range(a, b), lambda a, b: np.arange(a, b).astype(np.int64), [((), ())], ("int64",),
         gen=lambda rng, s, d: [np.array(-3, np.int64), np.array(4, np.int64)], ops=("Range",),
         id="range_tensors"),
    # linspace
    Case(lambda a, b: tf.linspace(a, b, 7), lambda a, b: _linspace_ref(a, b, 7), [((), ())],
         ("float32", "float64", "float16", "complex64"), ops=("LinSpace",), id="linspace"),
    Case(lambda a, b: tf.linspace(a, b, 4, axis=-1), lambda a, b: _linspace_ref(a, b, 4, -1),
         [((2, 1), (3,)), ((3,), (3,))], ("float32", "float64"), ops=("LinSpace",), id="linspace_nd"),
    Case(lambda a, b: tf.linspace(a, b, 1), lambda a, b: _linspace_ref(a, b, 1), [((), ())], ("float32",),
         ops=("LinSpace",), id="linspace_one"),
    Case(lambda a, b: tf.linspace(a, b, 0), lambda a, b: np.zeros((0,), a.dtype), [((), ())], ("float32",),
         ops=("LinSpace",), id="linspace_zero"),
    Case(lambda a, b: tf.linspace(a, b, 5), lambda a, b: _linspace_ref(a.astype(np.float64), b.astype(np.float64), 5),
         [((), ())], ("int32", "int64"), domain=(-10, 10), ops=("LinSpace", "Cast"), id="linspace_int_to_f64"),
    # meshgrid (composite)
    Case(lambda x, y: tf.meshgrid(x, y), lambda x, y: np.meshgrid(x, y), [((3,), (2,)), ((1,), (4,))],
         ("float32", "int32"), ops=("Reshape", "BroadcastTo"), id="meshgrid"),
    Case(lambda x, y, z: tf.meshgrid(x, y, z, indexing="ij"), lambda x, y, z: np.meshgrid(x, y, z, indexing="ij"),
         [((3,), (2,), (4,))], ("float64",), ops=("Reshape", "BroadcastTo"), id="meshgrid_ij"),
    Case(lambda x, y, z: tf.meshgrid(x, y, z), lambda x, y, z: np.meshgrid(x, y, z),
         [((3,), (2,), (4,))], ("int64",), ops=("Reshape", "BroadcastTo"), id="meshgrid_xy3"),
]


ERRORS = [
    Err(lambda: tf.zeros([-1, 2]), tf.errors.InvalidArgumentError, r"Dimension -1 must be >= 0 \[Op:Fill\]"),
    Err(lambda: tf.zeros(tf.TensorShape([2, None])), ValueError, "Cannot convert a partially known TensorShape"),
    Err(lambda: tf.zeros([2.0]), TypeError, "Cannot convert"),
    Err(lambda: tf.ones([2], tf.string), TypeError, "Cannot convert 1 to EagerTensor of dtype string"),
    Err(lambda: tf.fill([2], [1, 2]), tf.errors.InvalidArgumentError,
        r"value must represent a scalar, got shape \[2\]"),
    Err(lambda: tf.fill([-2], 1), tf.errors.InvalidArgumentError, "Dimension -2 must be >= 0"),
    Err(lambda: tf.ones_like(tf.constant(["a"])), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of string is not in the list of allowed values"),
    Err(lambda: tf.eye(-1), tf.errors.InvalidArgumentError, "Dimension -1 must be >= 0"),
    Err(lambda: tf.range(0, 5, 0), tf.errors.InvalidArgumentError, r"Requires delta != 0: 0 \[Op:Range\]"),
    Err(lambda: tf.range(0.0, 5.0, 0.0), tf.errors.InvalidArgumentError, "Requires delta != 0: 0"),
    Err(lambda: tf.range(5, 0), tf.errors.InvalidArgumentError, "Requires start <= limit when delta > 0: 5/0"),
    Err(lambda: tf.range(5.5, 0.0), tf.errors.InvalidArgumentError, "Requires start <= limit when delta > 0: 5.5/0"),
    Err(lambda: tf.range(0, 5, -1), tf.errors.InvalidArgumentError, "Requires start >= limit when delta < 0: 0/5"),
    Err(lambda: tf.range(5, dtype=tf.uint8), tf.errors.InvalidArgumentError, "Value for attr 'Tidx' of uint8"),
    Err(lambda: tf.range(0.5, 3, dtype=tf.int32), TypeError, "Cannot convert 0.5 to EagerTensor of dtype int32"),
    Err(lambda: tf.linspace(tf.constant(0.0), tf.constant(3.0, tf.float64), 4), ValueError,
        "stop: Tensor conversion requested dtype float32"),
    Err(lambda: tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=2), tf.errors.InvalidArgumentError,
        "Tried to expand dim index 2 for tensor with 1 dimensions"),
    Err(lambda: tf.meshgrid([1, 2], [1, 2], indexing="foo"), ValueError,
        "Argument `indexing` parameter must be either 'xy' or 'ij', got 'foo'"),
    Err(lambda: tf.meshgrid([1, 2], [1.0, 2.0]), tf.errors.InvalidArgumentError,
        "cannot compute Mul as input #1"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_default_dtypes():
    assert tf.zeros([2]).dtype == tf.float32
    assert tf.ones(3).shape == (3,)
    assert tf.fill([1], 3).dtype == tf.int32
    assert tf.fill([1], 3.0).dtype == tf.float32
    assert tf.fill([1], np.float64(1)).dtype == tf.float64
    assert tf.fill([2], "a").numpy().tolist() == [b"a", b"a"]
    assert tf.zeros_like([1, 2]).dtype == tf.int32
    assert tf.zeros_like(tf.Variable([1.0, 2.0])).dtype == tf.float32
    assert tf.zeros([2], "int8").dtype == tf.int8 and tf.zeros([2], np.int64).dtype == tf.int64


def test_range_dtype_inference():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(0, 1.0, 0.25).dtype == tf.float32
    assert tf.range(np.int64(3)).dtype == tf.int64
    assert tf.range(2**40, 2**40 + 2).dtype == tf.int64
    assert tf.range(tf.constant(1), tf.constant(5, tf.int64)).dtype == tf.int64
    assert tf.range(np.float16(1), 3).dtype == tf.float16
    assert tf.range(5, dtype=tf.float64).dtype == tf.float64
    np.testing.assert_array_equal(tf.range(0.0, 1.0, 0.3).numpy(),
                                  np.arange(4, dtype=np.float32) * np.float32(0.3))


def test_linspace_dtypes():
    assert tf.linspace(0, 10, 4).dtype == tf.float64
    assert tf.linspace(0.0, 1.0, tf.constant(3)).shape == (3,)
    r = tf.linspace(-3.3, 7.1, 11).numpy()
    assert r[0] == np.float32(-3.3) and r[-1] == np.float32(7.1)


def test_zeros_is_cheap_and_fresh():
    a = tf.zeros([2])
    b = tf.zeros([2])
    assert a is not b
    assert tf.meshgrid() == []
test_compiled = compiled_tests(CASES)
