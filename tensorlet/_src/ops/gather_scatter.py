"""Gather and scatter: ``gather`` (axis, batch_dims), ``gather_nd``, ``scatter_nd``,
``tensor_scatter_nd_*`` and ``boolean_mask``.

Indices are checked eagerly as TF does on CPU (``InvalidArgumentError`` naming the bad
index).  NumPy scatter kernels write into a fresh output array with ``np.add.at`` & co;
the jax lowerings use ``.at[...]``.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.ops._helpers import mismatch, static, t
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, scalar_axis

D = _dt
_sh = errors.shape_str
INDEX_TYPES = (D.int16, D.int32, D.int64)
_INDEX_NP = frozenset(d._np for d in INDEX_TYPES)


def _index_tensor(indices, op_name):
    idx = t(indices)
    if idx.dtype not in INDEX_TYPES:
        word = {"float32": "float", "float64": "double"}.get(idx.dtype.name, idx.dtype.name)
        raise errors.invalid_argument(op_name, f"Value for attr 'Tindices' of {word} is not in the list of allowed "
                                               f"values: int16, int32, int64")
    return idx


def _pos(p) -> str:
    return "indices" if len(p) == 0 else "indices[" + ",".join(str(int(i)) for i in p) + "]"


# --- gather ----------------------------------------------------------------------------------------


def _gather_check(params, indices, axis, batch_dims):
    v, p = getattr(indices, "_v", None), getattr(params, "_v", None)
    if v is None or p is None or not v.size:
        return
    n = p.shape[axis]
    if np.minimum.reduce(v, axis=None) >= 0 and np.maximum.reduce(v, axis=None) < n:
        return
    bad = (v < 0) | (v >= n)
    if np.any(bad):
        pos = np.argwhere(bad)[0] if v.ndim else ()
        raise errors.invalid_argument("GatherV2", f"{_pos(pos)} = {int(v[tuple(pos)])} is not in [0, {n})")


def _gather_kernel(xp, params, indices, axis, batch_dims):
    if batch_dims == 0:
        return xp.take(params, indices, axis=axis)
    ps, ish = params.shape, indices.shape
    b, a = math.prod(ps[:batch_dims]), math.prod(ps[batch_dims:axis])
    r = math.prod(ps[axis + 1:])
    p = params.reshape(b, a, ps[axis], r)
    i = indices.reshape(b, -1)
    out = p[xp.arange(b)[:, None, None], xp.arange(a)[None, :, None], i[:, None, :]]  # [b, a, I, r]
    return out.reshape(ps[:axis] + ish[batch_dims:] + ps[axis + 1:])


def _gather_grad(g, ans, params, indices, axis, batch_dims):
    """TF: ``IndexedSlices`` for axis 0 without batch dims (the embedding case), else a dense scatter-add."""
    g = dense(g)
    pd, idd = _dims(params), _dims(indices)
    if axis == 0 and batch_dims == 0:
        n = math.prod(idd)
        values = bind(RESHAPE, g, shape=(n,) + tuple(pd[1:]))
        return IndexedSlices(values, bind(RESHAPE, indices, shape=(n,)), array_shape.shape(params)), None
    # params [B, A, N, R] (B: batch dims, N: the gathered axis), indices [B, I], g [B, A, I, R]
    b, a, n, r = math.prod(pd[:batch_dims]), math.prod(pd[batch_dims:axis]), pd[axis], math.prod(pd[axis + 1:])
    i = math.prod(idd[batch_dims:])
    gt = bind(TRANSPOSE, bind(RESHAPE, g, shape=(b, a, i, r)), perm=(0, 2, 1, 3))  # [B, I, A, R]
    ids = math_binary.cast(bind(RESHAPE, indices, shape=(b, i)), D.int64)
    if b > 1:
        # the row of each batch in [B*N]
        ids = ids + array_shape.reshape(creation.range(0, b * n, n, dtype=D.int64), [b, 1])
    out = bind(SCATTER_ND, bind(RESHAPE, ids, shape=(b * i, 1)), bind(RESHAPE, gt, shape=(b * i, a, r)),
               shape=(b * n, a, r))
    out = bind(TRANSPOSE, bind(RESHAPE, out, shape=(b, n, a, r)), perm=(0, 2, 1, 3))  # [B, A, N, R]
    return bind(RESHAPE, out, shape=tuple(pd)), None


GATHER = defop("GatherV2", _gather_kernel, check=_gather_check, grad=_gather_grad,
               tfdef=TFDef(consts=[("axis", 2, "int32")], from_tf=scalar_axis))


@tf_export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices`` (leading ``batch_dims`` dims shared).

    >>> gather([10, 20, 30], [2, 0]).numpy()
    array([30, 10], dtype=int32)
    """
    p = params if params.__class__ is EagerTensor else t(params)
    idx = indices if indices.__class__ is EagerTensor and indices._v.dtype in _INDEX_NP else \
        _index_tensor(indices, "GatherV2")
    if axis is None and batch_dims.__class__ is int and batch_dims == 0 and p.__class__ is EagerTensor \
            and p._v.ndim:
        return bind(GATHER, p, idx, axis=0, batch_dims=0)  # the common case
    ir = idx.ndim
    bd = int(static(batch_dims))
    if not -ir <= bd <= ir:
        raise errors.invalid_argument("GatherV2", f"Expected batch_dims in the range [{-ir}, {ir}], but got {bd}")
    if bd < 0:
        bd += ir
    pr = p.ndim
    if pr == 0:
        raise errors.invalid_argument("GatherV2", "params must be at least 1 dimensional")
    ax = bd if axis is None else int(static(axis))
    if ax >= pr:
        raise errors.invalid_argument("GatherV2", f"Shape must be at least rank {ax + 1} but is rank {pr}")
    if ax < -pr:
        raise errors.invalid_argument("GatherV2", f"Expected axis in the range [{-pr}, {pr}), but got {ax}")
    ax %= pr
    if bd > ax:
        raise errors.invalid_argument("GatherV2", f"batch_dims ({bd}) must be less than or equal to axis ({ax})")
    pd, idd = _dims(p), _dims(idx)
    for i in range(bd):
        if pd[i] != idd[i]:
            raise errors.invalid_argument("GatherV2", f"params.shape[{i}]: {pd[i]} should be equal to "
                                                      f"indices.shape[{i}]: {idd[i]}")
    return bind(GATHER, p, idx, axis=ax, batch_dims=bd)


# --- gather_nd -------------------------------------------------------------------------------------


def _nd_bad(v, shape, batch_dims):
    """Position (over the leading dims of indices) of the first index outside ``shape``, or None."""
    k = v.shape[-1]
    lim = np.asarray(shape[batch_dims:batch_dims + k])
    bad = np.any((v < 0) | (v >= lim), axis=-1)
    return np.argwhere(bad)[0] if np.any(bad) else None


def _gather_nd_check(params, indices, batch_dims):
    v, p = getattr(indices, "_v", None), getattr(params, "_v", None)
    if v is None or p is None or not v.size:
        return
    pos = _nd_bad(v, p.shape, batch_dims)
    if pos is not None:
        coords = list(int(c) for c in pos[:batch_dims]) + [int(c) for c in v[tuple(pos)]]
        raise errors.invalid_argument("GatherNd", f"{_pos(pos)} = [{', '.join(map(str, coords))}] does not index "
                                                  f"into param shape {_sh(p.shape)}, node name: GatherNd")


def _gather_nd_kernel(xp, params, indices, batch_dims):
    k = indices.shape[-1]
    if batch_dims == 0:
        if k == 0:
            return xp.broadcast_to(params, indices.shape[:-1] + params.shape)
        return params[tuple(indices[..., i] for i in range(k))]
    bshape = params.shape[:batch_dims]
    b = math.prod(bshape)
    p = params.reshape((b,) + params.shape[batch_dims:])
    i = indices.reshape((b,) + indices.shape[batch_dims:])
    inner = i.shape[1:-1]
    bi = xp.arange(b).reshape((b,) + (1,) * len(inner))
    out = p[(bi,) + tuple(i[..., j] for j in range(k))]
    return out.reshape(bshape + inner + params.shape[batch_dims + k:])


def _gather_nd_grad(g, ans, params, indices, batch_dims):
    """TF: ``IndexedSlices`` for indices of shape [n, 1], else ``scatter_nd`` of ``g`` (batch dims flattened)."""
    g = dense(g)
    pd, idd = tuple(_dims(params)), tuple(_dims(indices))
    k = idd[-1]
    if k == 0:  # every index selects all of params (TF's ScatterNd rejects this; the sum is the gradient)
        return array_shape.reshape(reduce.reduce_sum(g, axis=list(range(len(idd) - 1))), pd), None
    if batch_dims == 0:
        if len(idd) == 2 and k == 1:
            out_type = D.int64 if indices.dtype is D.int64 else D.int32
            dense_shape = array_shape.shape(params, out_type=out_type)
            return IndexedSlices(g, bind(RESHAPE, indices, shape=idd[:1]), dense_shape), None
        return bind(SCATTER_ND, indices, g, shape=pd), None
    b = math.prod(pd[:batch_dims])
    inner = idd[batch_dims:-1]
    idx = math_binary.cast(bind(RESHAPE, indices, shape=(b,) + inner + (k,)), D.int64)
    rows = array_shape.broadcast_to(
        array_shape.reshape(creation.range(b, dtype=D.int64), (b,) + (1,) * (len(inner) + 1)),
        (b,) + inner + (1,))
    full = array_blocks.concat([rows, idx], -1)
    upd = bind(RESHAPE, g, shape=(b,) + inner + pd[batch_dims + k:])
    return bind(RESHAPE, bind(SCATTER_ND, full, upd, shape=(b,) + pd[batch_dims:]), shape=pd), None


GATHER_ND = defop("GatherNd", _gather_nd_kernel, check=_gather_nd_check, grad=_gather_nd_grad)


@tf_export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Elements or slices of ``params`` at the index vectors in the last dimension of ``indices``.

    >>> gather_nd([[1, 2], [3, 4]], [[0, 1], [1, 0]]).numpy()
    array([2, 3], dtype=int32)
    """
    p = t(params)
    idx = _index_tensor(indices, "GatherNd")
    bd = int(static(batch_dims))
    if idx.ndim < 1:
        raise errors.invalid_argument("GatherNd", "indices must be at least a vector")
    pd, idd = _dims(p), _dims(idx)
    if bd < 0 or bd >= idx.ndim or bd > len(pd):
        raise errors.invalid_argument("GatherNd", f"Expected batch_dims in the range [0, {idx.ndim}), but got {bd}")
    for i in range(bd):
        if pd[i] != idd[i]:
            raise errors.invalid_argument("GatherNd", f"Batch dimensions of params and indices must match: "
                                                      f"{_sh(pd)} vs. {_sh(idd)}")
    k = idd[-1]
    if k is not None and k > len(pd) - bd:
        raise errors.invalid_argument("GatherNd", f"index innermost dimension length must be <= params rank; "
                                                  f"saw: {k} vs. {len(pd) - bd}")
    return bind(GATHER_ND, p, idx, batch_dims=bd)


# --- scatter ---------------------------------------------------------------------------------------


def _scatter_shapes(op_name, idd, upd, shape, what="input"):
    """TF's checks: updates.shape == indices.shape[:-1] + shape[indices.shape[-1]:]."""
    k = idd[-1] if idd else 0
    outer = idd[:-1]
    if k > len(shape):
        raise errors.invalid_argument(op_name, f"Index innermost dimension length must be <= {what} rank; saw: "
                                               f"{k} vs. {len(shape)}")
    if op_name != "ScatterNd" and len(upd) == 0:
        raise errors.invalid_argument(op_name, f"Updates shape must have rank at least one. Found:{_sh(upd)}")
    n = len(outer)
    if tuple(upd[:n]) != tuple(outer):
        if op_name == "ScatterNd":
            raise errors.invalid_argument(op_name, f"Dimensions [0,{n}) of indices[shape={_sh(idd)}] must match "
                                                   f"dimensions [0,{n}) of updates[shape={_sh(upd)}]")
        raise errors.invalid_argument(op_name, f"Outer dimensions of indices and update must match. Indices shape: "
                                               f"{_sh(idd)}, updates shape:{_sh(upd)}")
    if tuple(upd[n:]) != tuple(shape[k:]):
        raise errors.invalid_argument(op_name, f"Dimensions [{k},{len(shape)}) of {what}[shape={_sh(shape)}] = "
                                               f"{_sh(shape[k:])} must match dimensions [{n},{len(upd)}) of "
                                               f"updates[shape={_sh(upd)}] = {_sh(upd[n:])}")


def _check_bounds(op_name, v, shape):
    if v is None or not v.size or v.shape[-1] == 0:
        return
    pos = _nd_bad(v, shape, 0)
    if pos is not None:
        raise errors.invalid_argument(op_name, f"{_pos(pos)} = [{', '.join(str(int(c)) for c in v[tuple(pos)])}] "
                                               f"does not index into shape {_sh(shape)}")


def _key(indices):
    return tuple(indices[..., i] for i in range(indices.shape[-1]))


def _np_scatter(ufunc):
    def kernel(xp, tensor, indices, updates):
        out = np.array(tensor)  # a fresh array: the input tensor is never written
        if ufunc is None:
            out[_key(indices)] = updates
        else:
            ufunc.at(out, _key(indices), updates)
        return out
    return kernel


def _jax_scatter(method):
    def kernel(xp, tensor, indices, updates):
        ref = tensor.at[_key(indices)]
        if method == "sub":
            return ref.add(-updates)
        return getattr(ref, method)(updates)
    return kernel


def _empty_index_check(op_name, v):
    if v is not None and v.ndim and v.shape[-1] == 0 and math.prod(v.shape[:-1]):
        raise errors.invalid_argument(op_name, "Indices and updates specified for empty output shape")


def _scatter_nd_check(indices, updates, shape):
    _empty_index_check("ScatterNd", getattr(indices, "_v", None))
    _check_bounds("ScatterNd", getattr(indices, "_v", None), shape)


def _scatter_nd_kernel(xp, indices, updates, shape):
    if updates.dtype == object:
        out = np.full(shape, b"", dtype=object)
    else:
        out = np.zeros(shape, updates.dtype)
    np.add.at(out, _key(indices), updates)
    return out


def _scatter_nd_jax(xp, indices, updates, shape):
    return xp.zeros(shape, updates.dtype).at[_key(indices)].add(updates)


SCATTER_ND = defop("ScatterNd", _scatter_nd_kernel, jax_impl=_scatter_nd_jax, check=_scatter_nd_check,
                   grad=lambda g, ans, indices, updates, shape: (None, _gather_at(dense(g), indices)))


@tf_export("scatter_nd")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates add up).

    >>> scatter_nd([[1], [3], [1]], [1., 2., 3.], [5]).numpy()
    array([0., 4., 0., 2., 0.], dtype=float32)
    """
    idx = _index_tensor(indices, "ScatterNd")
    upd = t(updates)
    shape = tuple(int_list(shape, "ScatterNd", "indices"))
    if idx.ndim < 1:
        raise errors.invalid_argument("ScatterNd", "Indices shape must have rank at least one.")
    _scatter_shapes("ScatterNd", _dims(idx), _dims(upd), shape, "input")
    return bind(SCATTER_ND, idx, upd, shape=shape)


def _tensor_scatter_check(op_name):
    def check(tensor, indices, updates):
        _empty_index_check(op_name, getattr(indices, "_v", None))
        _check_bounds(op_name, getattr(indices, "_v", None), _dims(tensor))
    return check


def _def_tensor_scatter(name, ufunc, method, dtypes, grad):
    return defop(name, _np_scatter(ufunc), jax_impl=_jax_scatter(method), check=_tensor_scatter_check(name),
                 dtypes=dtypes, grad=grad)


def _gather_at(g, indices):
    return bind(GATHER_ND, g, indices, batch_dims=0)


def _ts_update_grad(g, ans, tensor, indices, updates):
    """TF: the overwritten positions get no gradient; every update gets ``g`` at its index (duplicates too)."""
    g = dense(g)
    return bind(TS_UPDATE, g, indices, creation.zeros_like(updates)), None, _gather_at(g, indices)


def _ts_min_max_grad(g, ans, tensor, indices, updates):
    """TF's rule: the gradient is split evenly among the tensor element and the updates equal to the result."""
    g = dense(g)
    x_hit = math_binary.cast(math_binary.equal(tensor, ans), g.dtype)
    y_hit = math_binary.cast(math_binary.equal(updates, _gather_at(ans, indices)), g.dtype)
    count = x_hit + bind(SCATTER_ND, indices, y_hit, shape=tuple(_dims(tensor)))
    return g * x_hit / count, None, _gather_at(g / count, indices) * y_hit


TS_UPDATE = _def_tensor_scatter("TensorScatterUpdate", None, "set", None, _ts_update_grad)
TS_ADD = _def_tensor_scatter("TensorScatterAdd", np.add, "add", D.NUMERIC,
                             lambda g, ans, x, i, u: (dense(g), None, _gather_at(dense(g), i)))
TS_SUB = _def_tensor_scatter("TensorScatterSub", np.subtract, "sub", D.NUMERIC,
                             lambda g, ans, x, i, u: (dense(g), None, -_gather_at(dense(g), i)))
TS_MIN = _def_tensor_scatter("TensorScatterMin", np.minimum, "min", D.REALS, _ts_min_max_grad)
TS_MAX = _def_tensor_scatter("TensorScatterMax", np.maximum, "max", D.REALS, _ts_min_max_grad)


def _is_tensor(x):
    return isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")


def _tensor_scatter(op, tensor, indices, updates):
    if _is_tensor(tensor) or not _is_tensor(updates):
        tensor = t(tensor)
        updates = t(updates) if _is_tensor(updates) else convert_to_tensor(updates, dtype=tensor.dtype)
    else:
        updates = t(updates)
        tensor = convert_to_tensor(tensor, dtype=updates.dtype)
    if tensor.dtype is not updates.dtype:
        raise mismatch(op.name, 2, tensor.dtype, updates.dtype)
    idx = _index_tensor(indices, op.name)
    if idx.ndim < 1:
        raise errors.invalid_argument(op.name, "Indices shape must have rank at least one.")
    _scatter_shapes(op.name, _dims(idx), _dims(updates), _dims(tensor), "input")
    return bind(op, tensor, idx, updates)


@tf_export("tensor_scatter_nd_update")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with the elements/slices at ``indices`` replaced by ``updates``.

    >>> tensor_scatter_nd_update([1, 2, 3], [[1]], [9]).numpy()
    array([1, 9, 3], dtype=int32)
    """
    return _tensor_scatter(TS_UPDATE, tensor, indices, updates)


@tf_export("tensor_scatter_nd_add")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (duplicates add up)."""
    return _tensor_scatter(TS_ADD, tensor, indices, updates)


@tf_export("tensor_scatter_nd_sub")
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``."""
    return _tensor_scatter(TS_SUB, tensor, indices, updates)


@tf_export("tensor_scatter_nd_min")
def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of ``tensor`` with the elementwise minimum of it and ``updates`` at ``indices``."""
    return _tensor_scatter(TS_MIN, tensor, indices, updates)


@tf_export("tensor_scatter_nd_max")
def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of ``tensor`` with the elementwise maximum of it and ``updates`` at ``indices``."""
    return _tensor_scatter(TS_MAX, tensor, indices, updates)


# --- boolean_mask ------------------------------------------------------------------------------------


def _shape_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


@tf_export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The elements (or slices along ``axis``) of ``tensor`` where ``mask`` is true.

    >>> boolean_mask([1, 2, 3], [True, False, True]).numpy()
    array([1, 3], dtype=int32)
    """
    x = t(tensor)
    m = t(mask)
    md = _dims(m)
    if len(md) == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(static(axis))
    xd = _dims(x)
    part = xd[axis:axis + len(md)]
    if len(part) != len(md) or any(a is not None and b is not None and a != b for a, b in zip(part, md)):
        raise ValueError(f"Shapes {_shape_text(part)} and {_shape_text(md)} are incompatible")
    lead = math.prod(part)
    x = reshape(x, list(xd[:axis]) + [lead] + list(xd[axis + len(md):]))
    idx = squeeze(where(reshape(m, [-1])), axis=[1])
    return gather(x, idx, axis=axis)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_shape, array_blocks, creation, math_binary, reduce  # noqa: E402
from tensorlet._src.ops.indexed_slices import IndexedSlices  # noqa: E402
from tensorlet._src.ops.array_select import where  # noqa: E402
from tensorlet._src.ops.array_shape import RESHAPE, TRANSPOSE, _dims, dense, int_list, reshape, squeeze  # noqa: E402
