"""Shapes: the queries (shape, shape_n, size, rank, get_static_value) and the ops that change a tensor's
shape: reshape, expand_dims, squeeze, transpose, tile, repeat and broadcasting.  Also the shape-argument
helpers the array families share (``int_list``, ``dense``).
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, int_tuple, scalar_axis

D = _dt
_sh = errors.shape_str


# --- helpers shared by the array families ----------------------------------------------------------

def _dims(x) -> tuple:
    """The static shape of a tensor as a tuple (None for unknown dims)."""
    v = getattr(x, "_v", None)
    if v is not None:
        return np.shape(v)
    s = x.shape
    return tuple(s.as_list()) if s.rank is not None else None


def dense(g):
    """A gradient as a tensor: ``IndexedSlices`` (from gather) become dense, as TF's grad functions do."""
    return g if isinstance(g, Tensor) else _tensor.convert_to_tensor(g)


def _reshape_like(g, ans, x, **_):
    """The gradient of every op that only reshapes (Reshape, ExpandDims, Squeeze): reshape back."""
    dims = _dims(x)
    if dims is None or None in dims:  # traced with dims known only at run time
        return reshape(dense(g), shape(x, out_type=_dt.int32))
    return bind(RESHAPE, dense(g), shape=dims)


def int_list(v, op_name, what="shape") -> list:
    """A shape-like argument (list, tuple, TensorShape, int tensor) as a list of ints."""
    if isinstance(v, TensorShape):
        return v.as_list()
    if isinstance(v, (Tensor, np.ndarray, np.generic)) or hasattr(v, "__tf_tensor__"):
        tv = t(v)
        if tv.__class__ is not EagerTensor:  # a graph tensor: its value must be known while tracing
            static(tv, f"`{what}` argument of {op_name}")
            a = np.asarray(tv._const)
        else:
            a = np.asarray(tv._v)
        if a.dtype.kind not in "iu":
            raise errors.invalid_argument(op_name, f"Value for attr 'T{what}' of {D.from_numpy(a.dtype).name} "
                                                   f"is not in the list of allowed values: int32, int64")
        return a.reshape(-1).tolist() if a.ndim else [a.item()]
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return [int(v)]
    out = []
    for d in v:
        d = static(d)
        if hasattr(d, "value") and not isinstance(d, (int, float)):  # Dimension
            d = d.value
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            kind = "float" if isinstance(d, float) else type(d).__name__
            raise errors.invalid_argument(op_name, f"Value for attr 'T{what}' of {kind} is not in the list of "
                                                   f"allowed values: int32, int64")
        out.append(int(d))
    return out


# --- shape queries --------------------------------------------------------------------------------

def _out_type(out_type, op_name, allow_any=False):
    d = D.int32 if out_type is None else _dt.as_dtype(out_type)
    if d not in (D.int32, D.int64) and not allow_any:
        word = {"float32": "float", "float64": "double"}.get(d.name, d.name)
        raise errors.invalid_argument(op_name, f"Value for attr 'out_type' of {word} is not in the list of allowed "
                                               f"values: int32, int64")
    return d._np


def _shape_vector(x, out_type):  # a vector of the input's rank (its length unknown when the rank is)
    return shapes.Spec(TensorShape([x.shape.rank]), _dt.as_dtype(out_type))


SHAPE = defop("Shape", lambda xp, x, out_type: xp.asarray(x.shape, dtype=out_type), grad=NONDIFF, shape_only=True,
              shape=_shape_vector)
SHAPE_N = defop("ShapeN", lambda xp, *xs, out_type: tuple(xp.asarray(x.shape, dtype=out_type) for x in xs),
                n_out=None, grad=NONDIFF, shape_only=True,
                shape=lambda *xs, out_type: tuple(_shape_vector(x, out_type) for x in xs))
SIZE = defop("Size", lambda xp, x, out_type: xp.asarray(math.prod(x.shape), dtype=out_type), grad=NONDIFF,
             shape_only=True, shape=lambda x, out_type: shapes.Spec(TensorShape([]), _dt.as_dtype(out_type)))
RANK = defop("Rank", lambda xp, x: xp.asarray(x.ndim, dtype=np.int32), grad=NONDIFF, shape_only=True,
             shape=lambda x: shapes.Spec(TensorShape([]), _dt.int32))
_I32 = np.dtype(np.int32)


@tf_export("shape")
def shape(input, out_type=None, name=None):  # noqa: A002 - TF's argument name
    """The shape of ``input`` as a 1-D int32 (or ``out_type``) tensor.

    >>> shape([[1, 2, 3]]).numpy()
    array([1, 3], dtype=int32)
    """
    if input.__class__ is EagerTensor and out_type is None:
        return bind(SHAPE, input, out_type=_I32)
    return bind(SHAPE, t(input), out_type=_out_type(out_type, "Shape"))


@tf_export("shape_n")
def shape_n(input, out_type=D.int32, name=None):  # noqa: A002 - TF's argument name
    """The shapes of a list of tensors."""
    return list(bind(SHAPE_N, *[t(x) for x in input], out_type=_out_type(out_type, "ShapeN")))


@tf_export("size")
def size(input, out_type=None, name=None):  # noqa: A002 - TF's argument name
    """The number of elements of ``input`` as a scalar int32 (or ``out_type``) tensor.

    >>> int(size([[1, 2, 3]]))
    3
    """
    return bind(SIZE, t(input), out_type=_out_type(out_type, "Size", allow_any=True))


@tf_export("rank")
def rank(input, name=None):  # noqa: A002 - TF's argument name
    """The number of dimensions of ``input`` as a scalar int32 tensor.

    >>> int(rank([[1, 2, 3]]))
    2
    """
    return bind(RANK, t(input))


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The NumPy value of ``tensor`` if it is known now (an eager tensor), else None; non-tensors pass through.

    >>> tf.get_static_value(tf.constant([1, 2])).tolist()
    [1, 2]
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if isinstance(tensor, Tensor) or hasattr(tensor, "__tf_tensor__"):
        return None
    return tensor


# --- reshape --------------------------------------------------------------------------------------

RESHAPE = defop("Reshape", lambda xp, x, shape: xp.reshape(x, shape), grad=_reshape_like,
                tfdef=TFDef(consts=[("shape", 1, "int32")]))


def _resolve_reshape(in_shape, shape):
    unknown = [i for i, d in enumerate(shape) if d == -1]
    for i, d in enumerate(shape):
        if d < -1:
            raise errors.invalid_argument("Reshape", f"Size {i} must be non-negative, not {d}")
    if len(unknown) > 1:
        raise errors.invalid_argument("Reshape", f"Only one input size may be -1, not both {unknown[0]} and "
                                                 f"{unknown[1]}")
    if in_shape is None or None in in_shape:
        return tuple(shape)
    n = math.prod(in_shape)
    known = math.prod(d for d in shape if d != -1)
    if unknown:
        if known == 0:  # TF: the -1 takes the input's nonzero extent over the output's nonzero extent
            nz_in = math.prod(d for d in in_shape if d)
            nz_out = math.prod(d for d in shape if d > 0)
            missing = nz_in // nz_out if n == 0 else 0
            if n != 0:
                raise errors.invalid_argument("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                                         f"requested shape has 0")
        else:
            if n % known:
                raise errors.invalid_argument("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                                         f"requested shape requires a multiple of {known}")
            missing = n // known
        shape = list(shape)
        shape[unknown[0]] = missing
        return tuple(shape)
    if known != n:
        raise errors.invalid_argument("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                                 f"requested shape has {known}")
    return tuple(shape)


@tf_export("reshape")
def reshape(tensor, shape, name=None):
    """``tensor`` with a new shape (one dimension may be -1: inferred).

    >>> reshape([1, 2, 3, 4], [2, -1]).shape
    TensorShape([2, 2])
    """
    x = tensor if tensor.__class__ is EagerTensor else t(tensor)
    c = shape.__class__
    if (c is list or c is tuple) and x.__class__ is EagerTensor:
        n = 1
        free = -1
        for i, d in enumerate(shape):
            if d.__class__ is not int or d < -1 or (d == -1 and free >= 0):
                break
            if d == -1:
                free = i
            else:
                n *= d
        else:  # fast path: ints, at most one -1, and a matching size
            size = x._v.size
            if free < 0 and n == size:
                return bind(RESHAPE, x, shape=tuple(shape))
            if free >= 0 and n and size % n == 0:
                shape = list(shape)
                shape[free] = size // n
                return bind(RESHAPE, x, shape=tuple(shape))
    if c not in (list, tuple) or not all(d.__class__ is int for d in shape):
        dyn = _dynamic_shape(shape)
        if dyn is not None:  # traced with a shape known only at run time (e.g. from tf.shape of a None dim)
            from tensorlet._src.ops.dynamic_shape import RESHAPE_DYN

            return bind(RESHAPE_DYN, x, dyn)
        shape = int_list(shape, "Reshape", "shape")
    return bind(RESHAPE, x, shape=_resolve_reshape(_dims(x), shape))


def _dynamic_shape(shape):
    """While tracing: ``shape`` as one int tensor when some entry is a graph value unknown until run time."""
    parts = shape if isinstance(shape, (list, tuple)) else [shape]
    if not any(isinstance(d, Tensor) and d.__class__ is not EagerTensor and getattr(d, "_const", None) is None
               for d in parts):
        return None
    if isinstance(shape, (list, tuple)):
        from tensorlet._src.ops.math_binary import cast

        return stack([cast(t(d), _dt.int32) if isinstance(d, Tensor) else t(int(static(d)), _dt.int32) for d in shape])
    return t(shape)


# --- transpose ------------------------------------------------------------------------------------

def _inverse(perm) -> tuple:
    return tuple(int(i) for i in np.argsort(perm))


TRANSPOSE = defop("Transpose", lambda xp, x, perm: xp.transpose(x, perm),
                  grad=lambda g, ans, x, perm: bind(TRANSPOSE, dense(g), perm=_inverse(perm)),
                  tfdef=TFDef(consts=[("perm", 1, "int32")], from_tf=int_tuple("perm")))
CONJ_TRANSPOSE = defop("ConjugateTranspose", lambda xp, x, perm: xp.conj(xp.transpose(x, perm)),
                       grad=lambda g, ans, x, perm: bind(CONJ_TRANSPOSE, dense(g), perm=_inverse(perm)))


@tf_export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes the dimensions of ``a`` (reverses them when ``perm`` is None).

    >>> transpose([[1, 2, 3]]).shape
    TensorShape([3, 1])
    """
    x = t(a)
    rank = x.ndim
    if perm is None:
        perm = tuple(range(rank - 1, -1, -1))
    else:
        perm = tuple(int_list(perm, "Transpose", "perm"))
        if len(perm) != rank:
            raise errors.invalid_argument("Transpose", f"transpose expects a vector of size {rank}. But input(1) "
                                                       f"is a vector of size {len(perm)}")
        for p in perm:
            if not -rank <= p < rank:
                raise errors.invalid_argument("Transpose", f"{p + rank if p < 0 else p} is out of range "
                                                           f"[0 .. {rank})")
        perm = tuple(p % rank for p in perm)
        for i in range(rank):
            if i not in perm:
                raise errors.invalid_argument("Transpose", f"{i} is missing from {{{','.join(map(str, perm))}}}.")
    if conjugate and x.dtype._kind == "c":
        return bind(CONJ_TRANSPOSE, x, perm=perm)
    return bind(TRANSPOSE, x, perm=perm)


# --- expand_dims / squeeze ------------------------------------------------------------------------

def _expand_dims_kernel(xp, x, axis):
    axis = axis if axis >= 0 else axis + x.ndim + 1  # (a TF graph's ExpandDims carries dim=-1 as written)
    return xp.reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


EXPAND_DIMS = defop("ExpandDims", _expand_dims_kernel,
                    grad=_reshape_like, tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=scalar_axis))


@tf_export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002 - TF's argument name
    """Inserts a dimension of size 1 at ``axis``.

    >>> expand_dims([1, 2], 0).shape
    TensorShape([1, 2])
    """
    x = input if input.__class__ is EagerTensor else t(input)
    if axis.__class__ is int:
        ax = axis
    else:
        ax = int_list(axis, "ExpandDims", "dim")
        if len(ax) != 1:
            raise errors.invalid_argument("ExpandDims", "'dim' must be a tensor with a single value")
        ax = ax[0]
    rank = x.ndim
    if not -rank - 1 <= ax <= rank:
        raise errors.invalid_argument("ExpandDims", f"Tried to expand dim index {ax} for tensor with {rank} "
                                                    f"dimensions.")
    return bind(EXPAND_DIMS, x, axis=ax % (rank + 1))


SQUEEZE = defop("Squeeze", lambda xp, x, axis: xp.squeeze(x, axis=axis), grad=_reshape_like,
                tfdef=TFDef(rename={"axis": "squeeze_dims"}, from_tf=lambda a: {**a, "axis": tuple(a["axis"]) or None}))


@tf_export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002 - TF's argument name
    """Removes dimensions of size 1 (all of them, or those in ``axis``).

    >>> squeeze([[1], [2]]).shape
    TensorShape([2])
    """
    x = t(input)
    dims = _dims(x)
    if axis is None:
        return bind(SQUEEZE, x, axis=None if dims is None else tuple(i for i, d in enumerate(dims) if d == 1))
    axes = int_list(axis, "Squeeze", "axis")
    rank = len(dims)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise errors.invalid_argument("Squeeze", f"Tried to squeeze dim index {a} for tensor with {rank} "
                                                     f"dimensions.")
        a %= rank
        if dims[a] is not None and dims[a] != 1:
            raise errors.invalid_argument("Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                                                     f"{dims[a]}")
        if a not in out:
            out.append(a)
    return bind(SQUEEZE, x, axis=tuple(sorted(out)))


# --- tile / repeat --------------------------------------------------------------------------------

def _tile_grad(g, ans, x, multiples):
    """Sum the tiles: reshape ``[m0*d0, m1*d1, ...]`` to ``[m0, d0, m1, d1, ...]`` and reduce the m axes."""
    g = dense(g)
    if not multiples:
        return g
    split = []
    for m, d in zip(multiples, _dims(x)):
        split += [m, d]
    return reduce.reduce_sum(bind(RESHAPE, g, shape=tuple(split)), axis=list(range(0, len(split), 2)))


TILE = defop("Tile", lambda xp, x, multiples: xp.tile(x, multiples) if multiples else x, grad=_tile_grad,
             tfdef=TFDef(consts=[("multiples", 1, "int32")], from_tf=int_tuple("multiples")))


@tf_export("tile")
def tile(input, multiples, name=None):  # noqa: A002 - TF's argument name
    """Repeats ``input`` ``multiples[i]`` times along dimension i.

    >>> tile([1, 2], [2]).numpy()
    array([1, 2, 1, 2], dtype=int32)
    """
    x = t(input)
    m = tuple(int_list(multiples, "Tile", "multiples"))
    if len(m) != x.ndim:
        raise errors.invalid_argument("Tile", f"Expected multiples argument to be a vector of length {x.ndim} but "
                                              f"got length {len(m)}")
    for i, k in enumerate(m):
        if k < 0:
            raise errors.invalid_argument("Tile", f"Expected multiples[{i}] >= 0, but got {k}")
    return bind(TILE, x, multiples=m)


@tf_export("repeat")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's argument name
    """Repeats elements: ``repeats`` is a scalar or one count per element along ``axis`` (None: flattened).

    >>> repeat([1, 2], [1, 2]).numpy()
    array([1, 2, 2], dtype=int32)
    """
    from tensorlet._src.ops.gather_scatter import gather

    x = t(input)
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    axis = int(static(axis))
    rank = x.ndim
    if not -rank <= axis < rank:
        raise errors.invalid_argument("GatherV2", f"Expected axis in the range [{-rank}, {rank}), but got {axis}")
    axis %= rank
    n = _dims(x)[axis]
    r = np.asarray(static(repeats), dtype=np.int64)
    if r.ndim > 1 or (r.ndim == 1 and r.shape[0] not in (1, n)):
        raise ValueError(f"Dimensions {n} and {r.shape[0] if r.ndim else r.size} are not compatible")
    if np.any(r < 0):
        raise errors.invalid_argument("Tile", f"Expected multiples[{axis + 1}] >= 0, but got {int(r.min())}")
    idx = np.repeat(np.arange(n, dtype=np.int32), r.reshape(-1) if r.ndim else int(r))
    return gather(x, idx, axis=axis)


# --- broadcasting ---------------------------------------------------------------------------------

def _broadcast_kernel(xp, x, shape):
    if xp is np and x.ndim == 0:
        return np.full(shape, x, dtype=x.dtype)  # the scalar case (reduction gradients): np.full is 3x faster
    return xp.broadcast_to(x, shape)


BROADCAST_TO = defop("BroadcastTo", _broadcast_kernel, grad=lambda g, ans, x, shape: unbroadcast(dense(g), x),
                     tfdef=TFDef(consts=[("shape", 1, "int32")], from_tf=int_tuple("shape")))


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002 - TF's argument name
    """Broadcasts ``input`` to ``shape`` (NumPy's rules).

    >>> broadcast_to([1, 2], [2, 2]).numpy().tolist()
    [[1, 2], [1, 2]]
    """
    x = t(input)
    if x.__class__ is EagerTensor and shape.__class__ in (tuple, list):  # fast path for the eager common case
        dims = x._v.shape
        shape = tuple(shape)
        if dims == shape:
            return x
        if len(dims) <= len(shape) and all(d.__class__ is int and (a == 1 or a == d)
                                           for a, d in zip(reversed(dims), reversed(shape))):
            return bind(BROADCAST_TO, x, shape=shape)
    dyn = _dynamic_shape(shape)
    if dyn is not None:  # traced, to a shape known only at run time
        from tensorlet._src.ops.dynamic_shape import BROADCAST_TO_DYN

        from tensorlet._src.ops.math_binary import cast

        return bind(BROADCAST_TO_DYN, x, cast(dyn, _dt.int32))
    shape = tuple(int_list(shape, "BroadcastTo", "idx"))
    dims = _dims(x)
    if dims is not None and None not in dims:
        try:
            out = np.broadcast_shapes(dims, shape)
        except ValueError:
            raise errors.invalid_argument("BroadcastTo", f"Incompatible shapes: {_sh(dims)} vs. {_sh(shape)}") \
                from None
        if out != shape:
            raise errors.invalid_argument("BroadcastTo", f"Unable to broadcast tensor of shape {_sh(dims)} to "
                                                         f"tensor of shape {_sh(shape)}")
        if dims == shape:
            return x
    return bind(BROADCAST_TO, x, shape=shape)


@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two ``TensorShape``s (unknown dims stay unknown).

    >>> broadcast_static_shape(TensorShape([2, 1]), TensorShape([3]))
    TensorShape([2, 3])
    """
    sx, sy = TensorShape(shape_x), TensorShape(shape_y)
    try:
        return shapes.broadcast_shapes(sx, sy)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         f"pair they are either equal or one of them is 1. Received: {cr._ts_text(sx)} and "
                         f"{cr._ts_text(sy)}.") from None


def _bargs_check(a, b):
    va, vb = getattr(a, "_v", None), getattr(b, "_v", None)
    if va is None or vb is None:
        return
    try:
        np.broadcast_shapes(tuple(va.tolist()), tuple(vb.tolist()))
    except ValueError:
        raise errors.invalid_argument("BroadcastArgs", f"Incompatible shapes: {_sh(va.tolist())} vs. "
                                                       f"{_sh(vb.tolist())}") from None


def _bargs_kernel(xp, a, b):
    n = max(a.shape[0], b.shape[0])
    a = xp.concatenate([xp.ones(n - a.shape[0], a.dtype), a])
    b = xp.concatenate([xp.ones(n - b.shape[0], b.dtype), b])
    return xp.where(a == 1, b, a)


BROADCAST_ARGS = defop("BroadcastArgs", _bargs_kernel, dtypes=(D.int32, D.int64), check=_bargs_check,
                       grad=NONDIFF)


@tf_export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D int tensors.

    >>> broadcast_dynamic_shape([2, 1], [3]).numpy()
    array([2, 3], dtype=int32)
    """
    a, b = t(shape_x), t(shape_y)
    if a.dtype is not b.dtype:
        from tensorlet._src.ops.math_binary import cast

        a, b = cast(a, D.int64), cast(b, D.int64)
    return bind(BROADCAST_ARGS, a, b)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import creation as cr  # noqa: E402
from tensorlet._src.ops import reduce  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops.array_blocks import stack  # noqa: E402
