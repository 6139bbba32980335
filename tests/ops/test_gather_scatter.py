"""gather / gather_nd / scatter_nd / tensor_scatter_nd_* / boolean_mask against NumPy, plus TF's index errors."""

import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf

TYPES = ("float32", "int32", "bool", "complex64", "int64")
IAE = tf.errors.InvalidArgumentError


def _with_indices(shape, lo, hi, idx_dtype="int32"):
    """Generator: params of the case's dtype and ``shape``, then indices of ``idx_dtype`` in [lo, hi)."""
    def gen(rng, shapes, dtype):
        return [make(rng, shapes[0], dtype), rng.integers(lo, hi, size=shape).astype(idx_dtype)]
    return gen


def _batched_gather_ref(p, i, axis, bd):
    out = np.stack([_batched_gather_ref(p[k], i[k], axis - 1, bd - 1) for k in range(p.shape[0])]) if bd else \
        np.take(p, i, axis=axis)
    return out


def _gather_nd_ref(p, i, bd=0):
    if bd:
        return np.stack([_gather_nd_ref(p[k], i[k], bd - 1) for k in range(p.shape[0])])
    return p[tuple(np.moveaxis(i, -1, 0))]


def _scatter_ref(shape):
    def ref(i, u):
        out = np.zeros(shape, u.dtype)
        np.add.at(out, tuple(np.moveaxis(i, -1, 0)), u)
        return out
    return ref


def _scatter_gen(n_idx, shape, upd_tail=()):
    """indices [n_idx, len(shape_prefix)] within ``shape`` (duplicates likely), updates of the case's dtype."""
    def gen(rng, shapes, dtype):
        k = len(shape) - len(upd_tail)
        idx = np.stack([rng.integers(0, shape[j], size=n_idx) for j in range(k)], -1).astype(np.int32)
        return [idx, make(rng, (n_idx,) + tuple(upd_tail), dtype)]
    return gen


def _ts_gen(n_idx, shape, k):
    def gen(rng, shapes, dtype):
        idx = np.stack([rng.integers(0, shape[j], size=n_idx) for j in range(k)], -1).astype(np.int64)
        return [make(rng, shape, dtype), idx, make(rng, (n_idx,) + tuple(shape[k:]), dtype)]
    return gen


def _ts_unique_gen(shape):
    """Distinct indices (TF leaves the order of duplicate updates unspecified)."""
    def gen(rng, shapes, dtype):
        idx = rng.permutation(shape[0])[:2].reshape(2, 1).astype(np.int32)
        return [make(rng, shape, dtype), idx, make(rng, (2,) + tuple(shape[1:]), dtype)]
    return gen


def _ts_ref(kind):
    def ref(x, i, u):
        out = x.copy()
        key = tuple(np.moveaxis(i, -1, 0))
        if kind == "update":
            out[key] = u
        else:
            {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum}[kind].at(out, key, u)
        return out
    return ref


def _mask_gen(tshape, mshape):
    def gen(rng, shapes, dtype):
        return [make(rng, tshape, dtype), rng.random(mshape) < 0.5]
    return gen


CASES = [
    Case(tf.gather, lambda p, i: np.take(p, i, axis=0), [((5, 3), ())], TYPES, gen=_with_indices((4,), 0, 5),
         ops=("GatherV2",)),
    Case(tf.gather, lambda p, i: np.take(p, i, axis=0), [((5,), ())], ("float32",),
         gen=_with_indices((2, 3), 0, 5, "int64"), ops=("GatherV2",), id="gather_2d_indices_int64"),
    Case(tf.gather, lambda p, i: np.take(p, i, axis=0), [((5, 2), ())], ("float64",),
         gen=_with_indices((), 0, 5, "int16"), ops=("GatherV2",), id="gather_scalar_index_int16"),
    Case(tf.gather, lambda p, i: np.take(p, i, axis=0), [((5, 2), ())], ("float32",),
         gen=_with_indices((0,), 0, 5), ops=("GatherV2",), id="gather_no_indices"),
    Case(lambda p, i: tf.gather(p, i, axis=-1), lambda p, i: np.take(p, i, axis=-1), [((2, 3, 4), ())],
         ("float32", "int32"), gen=_with_indices((2, 5), 0, 4), ops=("GatherV2",), id="gather_axis"),
    Case(lambda p, i: tf.gather(p, i, axis=2, batch_dims=1), lambda p, i: _batched_gather_ref(p, i, 2, 1),
         [((2, 3, 4, 2), ())], ("float32", "int64"), gen=_with_indices((2, 5), 0, 4), ops=("GatherV2",),
         id="gather_batch_dims"),
    Case(lambda p, i: tf.gather(p, i, batch_dims=-1), lambda p, i: _batched_gather_ref(p, i, 1, 1),
         [((3, 4, 2), ())], ("float32",), gen=_with_indices((3, 2), 0, 4), ops=("GatherV2",),
         id="gather_batch_dims_negative"),
    Case(lambda p, i: tf.gather(p, i, axis=2, batch_dims=2), lambda p, i: _batched_gather_ref(p, i, 2, 2),
         [((2, 3, 4), ())], ("int32",), gen=_with_indices((2, 3, 2), 0, 4), ops=("GatherV2",),
         id="gather_batch_dims_2"),
    Case(tf.gather_nd, _gather_nd_ref, [((4, 3), ())], TYPES, gen=_with_indices((5, 2), 0, 3), ops=("GatherNd",)),
    Case(tf.gather_nd, _gather_nd_ref, [((4, 3, 2), ())], ("float32",), gen=_with_indices((2, 3, 1), 0, 4),
         ops=("GatherNd",), id="gather_nd_slices"),
    Case(tf.gather_nd, lambda p, i: np.broadcast_to(p, (2,) + p.shape), [((3, 2), ())], ("float32",),
         gen=_with_indices((2, 0), 0, 1), ops=("GatherNd",), id="gather_nd_empty_index"),
    Case(lambda p, i: tf.gather_nd(p, i, batch_dims=1), lambda p, i: _gather_nd_ref(p, i, 1), [((2, 3, 4), ())],
         ("float32", "int32"), gen=_with_indices((2, 5, 2), 0, 3), ops=("GatherNd",), id="gather_nd_batch_dims"),
    Case(lambda i, u: tf.scatter_nd(i, u, [6]), _scatter_ref((6,)), [((), ())], ("float32", "int32", "float64",
                                                                                 "complex64"),
         gen=_scatter_gen(8, (6,)), ops=("ScatterNd",), id="scatter_nd"),
    Case(lambda i, u: tf.scatter_nd(i, u, tf.constant([4, 3], tf.int64)), _scatter_ref((4, 3)), [((), ())],
         ("float32",), gen=_scatter_gen(5, (4, 3), (3,)), ops=("ScatterNd",), id="scatter_nd_slices"),
    Case(lambda i, u: tf.scatter_nd(i, u, [3, 2]), _scatter_ref((3, 2)), [((), ())], ("int64",),
         gen=_scatter_gen(4, (3, 2)), ops=("ScatterNd",), id="scatter_nd_elements"),
    Case(tf.tensor_scatter_nd_update, _ts_ref("update"), [((), (), ())], ("float32", "int32", "bool"),
         gen=_ts_unique_gen((5, 2)), ops=("TensorScatterUpdate",)),
    Case(tf.tensor_scatter_nd_add, _ts_ref("add"), [((), (), ())], ("float32", "int32", "complex64"),
         gen=_ts_gen(6, (4, 3), 2), ops=("TensorScatterAdd",)),
    Case(tf.tensor_scatter_nd_sub, _ts_ref("sub"), [((), (), ())], ("float64", "int64"),
         gen=_ts_gen(6, (4, 3), 1), ops=("TensorScatterSub",)),
    Case(tf.tensor_scatter_nd_min, _ts_ref("min"), [((), (), ())], ("float32", "int32"),
         gen=_ts_gen(6, (5,), 1), ops=("TensorScatterMin",)),
    Case(tf.tensor_scatter_nd_max, _ts_ref("max"), [((), (), ())], ("float32", "int8"),
         gen=_ts_gen(6, (3, 3), 2), ops=("TensorScatterMax",)),
    Case(tf.boolean_mask, lambda x, m: x[m], [((), ())], ("float32", "int32"), gen=_mask_gen((5, 2), (5,)),
         ops=("Where", "GatherV2")),
    Case(tf.boolean_mask, lambda x, m: x[m], [((), ())], ("float64",), gen=_mask_gen((3, 4, 2), (3, 4)),
         ops=("Where", "GatherV2", "Reshape"), id="boolean_mask_2d"),
    Case(lambda x, m: tf.boolean_mask(x, m, axis=1), lambda x, m: x[:, m], [((), ())], ("int64",),
         gen=_mask_gen((2, 4, 3), (4,)), ops=("Where", "GatherV2"), id="boolean_mask_axis"),
    # the same composite without declaring Where, so the gradient checks cover it (through gather and reshape)
    Case(lambda x, m: tf.boolean_mask(x, m, axis=1), lambda x, m: x[:, m], [((), ())], ("float64",),
         gen=_mask_gen((2, 2, 3, 2), (2, 3)), ops=("GatherV2", "Reshape"), id="boolean_mask_grad"),
    Case(lambda p, i: tf.gather(p, i, axis=2, batch_dims=2), lambda p, i: _batched_gather_ref(p, i, 2, 2),
         [((2, 3, 4), ())], ("float64",), gen=_with_indices((2, 3, 5), 0, 4), ops=("GatherV2",),
         id="gather_batch_dims_2_float"),
]


_p = tf.reshape(tf.range(6.0), [3, 2])
_p3 = tf.reshape(tf.range(24), [2, 3, 4])

ERRORS = [
    Err(lambda: tf.gather(_p, [0, 5]), IAE, r"indices\[1\] = 5 is not in \[0, 3\) \[Op:GatherV2\]"),
    Err(lambda: tf.gather(_p, [-1]), IAE, r"indices\[0\] = -1 is not in \[0, 3\)"),
    Err(lambda: tf.gather(_p, [[0, 1], [5, 0]]), IAE, r"indices\[1,0\] = 5 is not in \[0, 3\)"),
    Err(lambda: tf.gather(_p, [[1, 2]], axis=1), IAE, r"indices\[0,1\] = 2 is not in \[0, 2\)"),
    Err(lambda: tf.gather(_p, [1], axis=2), IAE, "Shape must be at least rank 3 but is rank 2"),
    Err(lambda: tf.gather(_p, [1.0]), IAE, "Value for attr 'Tindices' of float is not in the list of allowed values"),
    Err(lambda: tf.gather(tf.constant(1), [0]), IAE, "params must be at least 1 dimensional"),
    Err(lambda: tf.gather(_p3, [[0, 2], [1, 1], [0, 0]], axis=2, batch_dims=1), IAE,
        r"params.shape\[0\]: 2 should be equal to indices.shape\[0\]: 3"),
    Err(lambda: tf.gather(_p3, [[0, 2], [1, 1]], axis=2, batch_dims=3), IAE,
        r"Expected batch_dims in the range \[-2, 2\], but got 3"),
    Err(lambda: tf.gather(_p3, [[0, 2], [1, 7]], axis=2, batch_dims=1), IAE, r"indices\[1,1\] = 7 is not in \[0, 4\)"),
    Err(lambda: tf.gather_nd(_p, [[0, 1], [3, 0]]), IAE,
        r"indices\[1\] = \[3, 0\] does not index into param shape \[3,2\], node name: GatherNd \[Op:GatherNd\]"),
    Err(lambda: tf.gather_nd(_p, [[-1, 0]]), IAE, r"indices\[0\] = \[-1, 0\] does not index into param shape"),
    Err(lambda: tf.gather_nd(_p, [[0, 0, 0]]), IAE, "index innermost dimension length must be <= params rank; saw: 3"),
    Err(lambda: tf.gather_nd(_p3, [[[0, 1]], [[3, 3]]], batch_dims=1), IAE,
        r"indices\[1,0\] = \[1, 3, 3\] does not index into param shape \[2,3,4\]"),
    Err(lambda: tf.gather_nd(_p, 1), IAE, "indices must be at least a vector"),
    Err(lambda: tf.gather_nd(_p, [[0.0]]), IAE, "Value for attr 'Tindices' of float"),
    Err(lambda: tf.scatter_nd([[1], [7]], [1.0, 2.0], [5]), IAE,
        r"indices\[1\] = \[7\] does not index into shape \[5\] \[Op:ScatterNd\]"),
    Err(lambda: tf.scatter_nd([[-1]], [1.0], [5]), IAE, r"indices\[0\] = \[-1\] does not index into shape \[5\]"),
    Err(lambda: tf.scatter_nd([[1], [3]], [1.0, 2.0, 3.0], [5]), IAE,
        r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] must match dimensions \[0,1\) of updates\[shape=\[3\]\]"),
    Err(lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1], [7]], [9, 8]), IAE,
        r"indices\[1\] = \[7\] does not index into shape \[4\] \[Op:TensorScatterUpdate\]"),
    Err(lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1]], [9.0]), TypeError,
        r"Cannot convert \[9.0\] to EagerTensor of dtype int32"),
    Err(lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1]], [9, 8]), IAE,
        r"Outer dimensions of indices and update must match. Indices shape: \[1,1\], updates shape:\[2\]"),
    Err(lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4], [1], 9), IAE,
        r"Updates shape must have rank at least one. Found:\[\]"),
    Err(lambda: tf.tensor_scatter_nd_add([1, 2, 3, 4], [[7]], [9]), IAE, r"\[Op:TensorScatterAdd\]"),
    Err(lambda: tf.tensor_scatter_nd_min([1, 2, 3, 4], [[7]], [9]), IAE, r"\[Op:TensorScatterMin\]"),
    Err(lambda: tf.tensor_scatter_nd_add([True, False], [[1]], [True]), IAE, "Value for attr 'T' of bool"),
    Err(lambda: tf.tensor_scatter_nd_add(tf.constant([1]), [[0]], tf.constant([1.0])), IAE,
        "cannot compute TensorScatterAdd as input #2"),
    Err(lambda: tf.boolean_mask(_p, [True, False]), ValueError, r"Shapes \(3,\) and \(2,\) are incompatible"),
    Err(lambda: tf.boolean_mask(_p, True), ValueError, "mask cannot be scalar."),
    Err(lambda: tf.boolean_mask(_p, [[[True]]]), ValueError, r"Shapes \(3, 2\) and \(1, 1, 1\) are incompatible"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_gather_python_list_and_strings():
    assert tf.gather([1, 2, 3], 1).numpy() == 2
    assert tf.gather(tf.constant(["a", "b"]), [1]).numpy().tolist() == [b"b"]
    assert tf.gather(np.arange(4.0), [3]).dtype == tf.float64


def test_scatter_duplicates_add_and_strings():
    np.testing.assert_array_equal(tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]).numpy(), [0, 4, 0, 2, 0])
    assert tf.scatter_nd([[1]], [True], [3]).numpy().tolist() == [False, True, False]
    assert tf.scatter_nd([[1]], ["a"], [3]).numpy().tolist() == [b"", b"a", b""]
    assert tf.tensor_scatter_nd_update(["a", "b"], [[1]], ["c"]).numpy().tolist() == [b"a", b"c"]


def test_tensor_scatter_does_not_mutate_input():
    x = tf.constant([1, 2, 3])
    y = tf.tensor_scatter_nd_add(x, [[0]], [10])
    assert x.numpy().tolist() == [1, 2, 3] and y.numpy().tolist() == [11, 2, 3]


def test_boolean_mask_int_mask_and_empty():
    assert tf.boolean_mask(_p, [1, 0, 1]).shape == (2, 2)
    assert tf.boolean_mask(tf.zeros([0, 2]), tf.zeros([0], tf.bool)).shape == (0, 2)
    assert tf.boolean_mask([1, 2, 3], [True, False, True]).numpy().tolist() == [1, 3]
test_compiled = compiled_tests(CASES)
