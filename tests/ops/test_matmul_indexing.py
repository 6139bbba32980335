"""tf.matmul (2-D, batched, broadcasting, transpose/adjoint) and tensor indexing against NumPy."""

import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops.indexing import STRIDED_SLICE_GRAD
from tensorlet._src.ops.registry import bind

MM_TYPES = ("float32", "float64", "int32", "int64", "complex64", "float16", "bfloat16")


def _t(a):
    return np.swapaxes(a, -1, -2)


CASES = [
    Case(tf.matmul, lambda a, b: np.matmul(a, b).astype(a.dtype),
         [((2, 3), (3, 4)), ((1, 1), (1, 1)), ((0, 3), (3, 2))], MM_TYPES, ops=("MatMul",), domain=(-2, 2)),
    Case(lambda a, b: a @ b, np.matmul, [((4, 5), (5, 2))], ("float32",), ops=("MatMul",), id="op@"),
    Case(lambda a, b: tf.matmul(a, b, transpose_a=True), lambda a, b: _t(a) @ b, [((3, 2), (3, 4))],
         ("float32", "float64"), ops=("MatMul",), id="transpose_a"),
    Case(lambda a, b: tf.matmul(a, b, transpose_b=True), lambda a, b: a @ _t(b), [((2, 3), (4, 3))],
         ("float32",), ops=("MatMul",), id="transpose_b"),
    Case(lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True), lambda a, b: np.conj(_t(a)) @ np.conj(_t(b)),
         [((3, 2), (4, 3))], ("complex64", "float32"), ops=("MatMul",), id="adjoint"),
    Case(tf.matmul, np.matmul, [((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)), ((3, 2), (6, 2, 4))],
         ("float32", "float64", "int32"), ops=("BatchMatMulV3",), domain=(-2, 2), id="batched"),
    Case(lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), lambda a, b: _t(a) @ _t(b),
         [((2, 3, 4), (2, 5, 3))], ("float32",), ops=("BatchMatMulV3",), id="batched_transpose"),
    # indexing
    Case(lambda x: x[1], lambda x: x[1], [((3, 4),)], ("float32", "int32", "bool"), ops=("StridedSlice",),
         id="int"),
    Case(lambda x: x[-1, 1:3], lambda x: x[-1, 1:3], [((3, 4),)], ("float32",), ops=("StridedSlice",), id="mixed"),
    Case(lambda x: x[::-1, ::-2], lambda x: x[::-1, ::-2], [((3, 5),)], ("float64",), ops=("StridedSlice",),
         id="negative_steps"),
    Case(lambda x: x[tf.newaxis, ..., 0], lambda x: x[None, ..., 0], [((2, 3, 4),)], ("int64",),
         ops=("StridedSlice",), id="newaxis_ellipsis"),
    Case(lambda x: x[tf.constant(1), :], lambda x: x[1, :], [((3, 2),)], ("float32",), ops=("StridedSlice",),
         id="tensor_index"),
    Case(lambda x: x[[0, 1]], lambda x: x[0, 1], [((3, 2),)], ("float32",), ops=("StridedSlice",),
         id="list_acts_as_tuple"),
    Case(lambda x: x[5:100], lambda x: x[5:100], [((3, 2),)], ("float32",), ops=("StridedSlice",),
         id="slice_past_end"),
    Case(lambda x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1]), lambda x: x[0:2, 1:3], [((3, 4),)], ("float32",),
         ops=("StridedSlice",), id="strided_slice"),
    Case(lambda x: tf.strided_slice(x, [1, 0], [0, 4], [1, 2], begin_mask=0, end_mask=2, shrink_axis_mask=1),
         lambda x: x[1, 0::2], [((3, 4),)], ("int32",), ops=("StridedSlice",), id="strided_slice_masks"),
]



def _slice_grad_ref(g):
    z = np.zeros((3, 4), g.dtype)
    z[1:3, ::-2] = g
    return z


CASES.append(Case(lambda g: bind(STRIDED_SLICE_GRAD, g, shape=(3, 4), key=(slice(1, 3), slice(None, None, -2))),
                  _slice_grad_ref, [((2, 2),)], ("float32", "float64"), ops=("StridedSliceGrad",),
                  id="strided_slice_grad"))

ERRORS = [
    Err(lambda: tf.matmul(tf.constant([1, 2]), tf.constant([1, 2])), tf.errors.InvalidArgumentError,
        r"In\[0\] and In\[1\] ndims must be == 2: 1"),
    Err(lambda: tf.matmul(tf.constant([[1.0, 2.0]]), tf.constant([[1.0, 2.0]])), tf.errors.InvalidArgumentError,
        r"Matrix size-incompatible: In\[0\]: \[1,2\], In\[1\]: \[1,2\]"),
    Err(lambda: tf.matmul(tf.constant([[1]]), tf.constant([[1.0]])), tf.errors.InvalidArgumentError,
        "expected to be a int32 tensor but is a float tensor"),
    Err(lambda: tf.matmul(tf.constant([[True]]), tf.constant([[True]])), tf.errors.InvalidArgumentError,
        "attr 'T' of bool"),
    Err(lambda: tf.constant([[1, 2], [3, 4]])[5], tf.errors.InvalidArgumentError,
        r"slice index 5 of dimension 0 out of bounds. \[Op:StridedSlice\]"),
    Err(lambda: tf.constant([1, 2])[0, 0], tf.errors.InvalidArgumentError, "Index out of range"),
    Err(lambda: tf.constant([1, 2])[1.5], TypeError, "Only integers, slices"),
    Err(lambda: tf.constant([1, 2])[tf.constant([True, False])], TypeError, "Only integers, slices"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_matmul_accepts_python_lists_seed_000():
    m = tf.matmul([[2.0]], [[2.0]])
    assert m.dtype == tf.float32 and m.numpy().tolist() == [[4.0]]
    assert "hello, {}".format(m) == "hello, [[4.]]"  # noqa: UP032 - seed 000 uses str.format
test_compiled = compiled_tests(CASES)
