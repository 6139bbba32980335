"""``tf.sets``: size, intersection, union and difference of the sets held in the last dimension.

A set is the values along the last dimension of a dense tensor, or the values of a ``SparseTensor`` that share
all but their last index.  Results are ``SparseTensor``s whose last dimension lists each group's result in
ascending order (TF's ordering), padded to the largest group.  The kernels are NumPy (sets of Python values), so
graphs holding them run on the NumPy executor, as TF runs these ops on the CPU only.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op
from tensorlet._src.io.sparse import SparseTensor
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.ops.shapes import Spec

D = _dt
SET_TYPES = (D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.string)
_OPS = ("intersection", "union", "a-b", "b-a")


def _dense_groups(op_name, x):
    if x.ndim < 2:
        raise errors.invalid_argument(op_name, f"Shape must be at least rank 2 but is rank {x.ndim}")
    lead = x.shape[:-1]
    flat = x.reshape(-1, x.shape[-1])
    return lead, {idx: set(flat[i].tolist()) for i, idx in enumerate(np.ndindex(*lead))}


def _sparse_groups(op_name, indices, values, shape):
    shape = tuple(int(s) for s in shape)
    if len(shape) < 2:
        raise errors.invalid_argument(op_name, f"Invalid rank {len(shape)}: sets need at least rank 2")
    groups: dict = {}
    prev = None
    for row, v in zip(np.asarray(indices).tolist(), np.asarray(values).tolist()):
        if prev is not None and row <= prev:
            raise errors.invalid_argument(op_name, f"indices {row} out of order (after {prev}): indices must be "
                                                   "sorted in row-major order")
        if any(i < 0 or i >= s for i, s in zip(row, shape)):
            raise errors.invalid_argument(op_name, f"Invalid indices {row} for shape {list(shape)}")
        prev = row
        groups.setdefault(tuple(row[:-1]), set()).add(v)
    return shape[:-1], groups


def _combine(op_name, dtype, g1, g2, set_operation):
    (lead1, s1), (lead2, s2) = g1, g2
    if len(lead1) != len(lead2):
        raise errors.invalid_argument(op_name, f"Mismatched rank: {len(lead1) + 1} vs. {len(lead2) + 1}")
    lead = tuple(max(a, b) for a, b in zip(lead1, lead2))
    fn = {"intersection": lambda a, b: a & b, "union": lambda a, b: a | b,
          "a-b": lambda a, b: a - b, "b-a": lambda a, b: b - a}[set_operation]
    rows, vals, width = [], [], 0
    for idx in sorted(set(s1) | set(s2)):
        r = sorted(fn(s1.get(idx, set()), s2.get(idx, set())))
        width = max(width, len(r))
        rows.extend(list(idx) + [j] for j in range(len(r)))
        vals.extend(r)
    nd = len(lead) + 1
    indices = np.asarray(rows, np.int64).reshape(-1, nd)
    values = np.array(vals, dtype=object if dtype.kind == "O" else dtype)
    return indices, values.reshape(-1), np.asarray(lead + (width,), np.int64)


def _set_op_shape(rank_of, dtype_of):
    def rule(*specs, set_operation="intersection", validate_indices=True):
        r = rank_of(specs)
        return (Spec(TensorShape([None, r]), D.int64), Spec(TensorShape([None]), dtype_of(specs)),
                Spec(TensorShape([r]), D.int64))
    return rule


def _rank(s):
    return s.shape.rank


def _dd_kernel(xp, a, b, set_operation="intersection", validate_indices=True):
    name = "DenseToDenseSetOperation"
    return _combine(name, a.dtype, _dense_groups(name, a), _dense_groups(name, b), set_operation)


def _ds_kernel(xp, a, bi, bv, bs, set_operation="intersection", validate_indices=True):
    name = "DenseToSparseSetOperation"
    return _combine(name, a.dtype, _dense_groups(name, a), _sparse_groups(name, bi, bv, bs), set_operation)


def _ss_kernel(xp, ai, av, ash, bi, bv, bs, set_operation="intersection", validate_indices=True):
    name = "SparseToSparseSetOperation"
    return _combine(name, av.dtype, _sparse_groups(name, ai, av, ash), _sparse_groups(name, bi, bv, bs),
                    set_operation)


def _size_kernel(xp, indices, values, shape, validate_indices=True):
    lead, groups = _sparse_groups("SetSize", indices, values, shape)
    out = np.zeros(lead, np.int32)
    for idx, s in groups.items():
        out[idx] = len(s)
    return out


DENSE_TO_DENSE = io_op("DenseToDenseSetOperation", _dd_kernel, n_out=3, dtypes=SET_TYPES,
                       shape=_set_op_shape(lambda s: _rank(s[0]), lambda s: s[0].dtype))
DENSE_TO_SPARSE = io_op("DenseToSparseSetOperation", _ds_kernel, n_out=3, dtypes=SET_TYPES,
                        shape=_set_op_shape(lambda s: _rank(s[0]), lambda s: s[0].dtype))
SPARSE_TO_SPARSE = io_op("SparseToSparseSetOperation", _ss_kernel, n_out=3,
                         shape=_set_op_shape(lambda s: s[2].shape[0], lambda s: s[1].dtype))
SET_SIZE = io_op("SetSize", _size_kernel, shape=lambda i, v, s, validate_indices=True: Spec(TensorShape(None),
                                                                                            D.int32))


def _check_dtype(x, which="a"):
    if x.dtype not in SET_TYPES:
        raise TypeError(f"'{which}' has invalid dtype `{x.dtype}` not in supported dtypes: `{frozenset(SET_TYPES)}`.")


def _set_operation(a, b, set_operation, validate_indices=True):
    if isinstance(b, SparseTensor) and not isinstance(a, SparseTensor):
        # TF computes dense-op-sparse only: swap (difference flips its direction)
        a, b = b, a
        set_operation = {"a-b": "b-a", "b-a": "a-b"}.get(set_operation, set_operation)
    if isinstance(a, SparseTensor):
        _check_dtype(a.values)
        if isinstance(b, SparseTensor):
            if b.values.dtype is not a.values.dtype:
                raise TypeError(f"Types don't match, {a.values.dtype} vs {b.values.dtype}.")
            out = bind(SPARSE_TO_SPARSE, a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                       set_operation=set_operation, validate_indices=validate_indices)
        else:
            b = convert_to_tensor(b, dtype_hint=a.values.dtype)
            if b.dtype is not a.values.dtype:
                raise TypeError(f"Types don't match, {a.values.dtype} vs {b.dtype}.")
            # sparse a against dense b: the kernel takes the dense set first
            flip = {"a-b": "b-a", "b-a": "a-b"}.get(set_operation, set_operation)
            out = bind(DENSE_TO_SPARSE, b, a.indices, a.values, a.dense_shape, set_operation=flip,
                       validate_indices=validate_indices)
    else:
        a = convert_to_tensor(a)
        _check_dtype(a)
        b = convert_to_tensor(b, dtype_hint=a.dtype)
        if b.dtype is not a.dtype:
            raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
        out = bind(DENSE_TO_DENSE, a, b, set_operation=set_operation, validate_indices=validate_indices)
    return SparseTensor(*out)


@tf_export("sets.size")
def set_size(a, validate_indices=True):
    """Number of unique elements along the last dimension of the ``SparseTensor`` ``a`` (int32).

    >>> st = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 3])
    >>> tf.sets.size(st).numpy()
    array([2, 1], dtype=int32)
    """
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a!r}.")
    _check_dtype(a.values)
    return bind(SET_SIZE, a.indices, a.values, a.dense_shape, validate_indices=validate_indices)


@tf_export("sets.intersection")
def set_intersection(a, b, validate_indices=True):
    """The sets' intersection along the last dimension, as a ``SparseTensor``.

    >>> tf.sparse.to_dense(tf.sets.intersection([[1, 2, 3]], [[2, 3, 4]])).numpy()
    array([[2, 3]], dtype=int32)
    """
    return _set_operation(a, b, "intersection", validate_indices)


@tf_export("sets.union")
def set_union(a, b, validate_indices=True):
    """The sets' union along the last dimension, as a ``SparseTensor``.

    >>> tf.sparse.to_dense(tf.sets.union([[1, 2]], [[3, 1]])).numpy()
    array([[1, 2, 3]], dtype=int32)
    """
    return _set_operation(a, b, "union", validate_indices)


@tf_export("sets.difference")
def set_difference(a, b, aminusb=True, validate_indices=True):
    """``a - b`` (or ``b - a`` with ``aminusb=False``) along the last dimension, as a ``SparseTensor``.

    >>> tf.sparse.to_dense(tf.sets.difference([[1, 2, 3]], [[2]])).numpy()
    array([[1, 3]], dtype=int32)
    """
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)
