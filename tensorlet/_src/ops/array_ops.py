"""Shape manipulation: reshape, transpose, expand/squeeze, concat/stack/unstack/split, tile, repeat, pad,
slice, reverse, roll and broadcasting (part 2 of the family, shape queries to einsum, is array_misc.py)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import mismatch, same_dtype, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, int_tuple, scalar_axis

D = _dt
_sh = errors.shape_str


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
    return bind(RESHAPE, dense(g), shape=_dims(x))


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


# --- reshape -----------------------------------------------------------------------------------

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


# --- transpose -----------------------------------------------------------------------------------

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

EXPAND_DIMS = defop("ExpandDims", lambda xp, x, axis: xp.reshape(x, x.shape[:axis] + (1,) + x.shape[axis:]),
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


# --- concat / stack / unstack / split ----------------------------------------------------------


def _concat_check(*xs, axis):
    shp = [_dims(x) for x in xs]
    for i, s in enumerate(shp[1:], 1):
        if len(s) != len(shp[0]):
            raise errors.invalid_argument("ConcatV2", f"ConcatOp : Ranks of all input tensors should match: "
                                                      f"shape[0] = {_sh(shp[0])} vs. shape[{i}] = {_sh(s)}")
        for d, (p, q) in enumerate(zip(shp[0], s)):
            if d != axis and p is not None and q is not None and p != q:
                raise errors.invalid_argument("ConcatV2", f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                                          f"shape[0] = {_sh(shp[0])} vs. shape[{i}] = {_sh(s)}")


def _concat_grad(g, ans, *xs, axis):
    return bind(SPLITV, dense(g), sizes=tuple(_dims(x)[axis] for x in xs), axis=axis)


CONCAT = defop("ConcatV2", lambda xp, *xs, axis: xp.concatenate(xs, axis=axis), check=_concat_check,
               grad=_concat_grad, tfdef=TFDef(consts=[("axis", -1, "int32")], from_tf=scalar_axis))


def _as_list(values):
    if isinstance(values, (Tensor, np.ndarray)) or hasattr(values, "__tf_tensor__"):
        return list(t(values))  # unpacks along the first dimension, as TF does
    return list(values)


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along an existing ``axis``.

    >>> concat([[1, 2], [3]], 0).numpy()
    array([1, 2, 3], dtype=int32)
    """
    if isinstance(values, (Tensor, np.ndarray)) or hasattr(values, "__tf_tensor__"):
        return array_misc.identity(values)  # one value, as in TF
    values = list(values)
    if len(values) == 1:
        return array_misc.identity(values[0])
    if not values:
        raise errors.invalid_argument("ConcatV2", "ConcatOp : Expected a non-empty list of tensors")
    d0 = getattr(values[0], "_v", None)
    if d0 is not None and all(v.__class__ is EagerTensor and v._v.dtype == d0.dtype for v in values):
        xs = values
    else:
        xs = same_dtype("ConcatV2", *values)
    axis = axis if axis.__class__ is int else int(static(axis))
    rank = xs[0].ndim
    if rank == 0:
        raise errors.invalid_argument("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= axis < rank:
        raise errors.invalid_argument("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                                  f"[{-rank}, {rank}), but got {axis}")
    return bind(CONCAT, *xs, axis=axis % rank)


def _pack_check(*xs, axis):
    s0 = _dims(xs[0])
    for i, x in enumerate(xs[1:], 1):
        if _dims(x) != s0:
            raise errors.invalid_argument("Pack", f"Shapes of all inputs must match: values[0].shape = {_sh(s0)} "
                                                  f"!= values[{i}].shape = {_sh(_dims(x))}")


PACK = defop("Pack", lambda xp, *xs, axis: xp.stack(xs, axis=axis), check=_pack_check,
             grad=lambda g, ans, *xs, axis: bind(UNPACK, dense(g), num=len(xs), axis=axis))


@tf_export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks same-shaped tensors along a new ``axis``.

    >>> stack([1, 2]).numpy()
    array([1, 2], dtype=int32)
    """
    values = _as_list(values)
    if not values:
        return convert_to_tensor([])
    d0 = getattr(values[0], "_v", None)
    if d0 is not None and all(v.__class__ is EagerTensor and v._v.dtype == d0.dtype for v in values):
        xs = values
    else:
        xs = same_dtype("Pack", *values)
    axis = axis if axis.__class__ is int else int(static(axis))
    rank = xs[0].ndim + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    return bind(PACK, *xs, axis=axis % rank)


_tensor.stack_hook = stack  # convert_to_tensor packs lists holding graph tensors with it


def _unpack_kernel(xp, x, num, axis):
    y = xp.moveaxis(x, axis, 0)
    return tuple(y[i] for i in range(num))


# missing upstream gradients arrive as zeros (the tape fills them in)
UNPACK = defop("Unpack", _unpack_kernel, n_out=None,
               grad=lambda g, ans, x, num, axis: bind(PACK, *[dense(v) for v in g], axis=axis))


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list of tensors along ``axis``, removing that dimension.

    >>> [v.numpy() for v in unstack([[1, 2], [3, 4]])]
    [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
    """
    x = t(value)
    rank = x.ndim
    axis = int(static(axis))
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    axis %= rank
    n = _dims(x)[axis]
    if num is not None and n is not None and int(num) != n:
        raise errors.invalid_argument("Unpack", f"Input shape axis {axis} must equal {int(num)}, got shape "
                                                f"{_sh(_dims(x))}")
    if n is None:
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
        n = int(num)
    return list(bind(UNPACK, x, num=n, axis=axis))


def _split_kernel(xp, x, sizes, axis):
    cuts = np.cumsum(sizes)[:-1].tolist()
    return tuple(xp.split(x, cuts, axis=axis))


def _split_grad(g, ans, x, axis, **_):
    gs = [dense(v) for v in g]
    return gs[0] if len(gs) == 1 else bind(CONCAT, *gs, axis=axis)


SPLIT = defop("Split", lambda xp, x, num_split, axis: tuple(xp.split(x, num_split, axis=axis)), n_out=None,
              grad=_split_grad, tfdef=TFDef(consts=[("axis", 0, "int32")], from_tf=scalar_axis))
SPLITV = defop("SplitV", _split_kernel, n_out=None, grad=_split_grad,
               tfdef=TFDef(consts=[("sizes", 1, "int32"), ("axis", 2, "int32")],
                           from_tf=lambda a: scalar_axis(int_tuple("sizes")(a))))


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` into ``num_or_size_splits`` equal parts, or parts of the given sizes (one may be -1).

    >>> [p.numpy().tolist() for p in split([1, 2, 3, 4, 5, 6], [1, -1, 2])]
    [[1], [2, 3, 4], [5, 6]]
    """
    x = t(value)
    rank = x.ndim
    axis = int(static(axis))
    if not -rank <= axis < rank:
        raise errors.invalid_argument("Split", f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got "
                                               f"{axis}")
    axis %= rank
    n = _dims(x)[axis]
    spec = static(num_or_size_splits)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        k = int(spec)
        if k < 1:
            raise errors.invalid_argument("Split", f"Value for attr 'num_split' of {k} must be at least minimum 1")
        if n is not None and n % k:
            raise errors.invalid_argument("Split", f"Number of ways to split should evenly divide the split "
                                                   f"dimension, but got split_dim {axis} (size = {n}) and "
                                                   f"num_split {k}")
        return list(bind(SPLIT, x, num_split=k, axis=axis))
    sizes = int_list(num_or_size_splits, "SplitV", "len")
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"Argument `num` ({num}) does not match the number of size splits ({len(sizes)})")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise errors.invalid_argument("SplitV", "There can only be one -1 in the input.")
    total = sum(s for s in sizes if s != -1)
    if n is not None:
        if (not unknown and total != n) or (unknown and total > n) or any(s < -1 for s in sizes):
            raise errors.invalid_argument(
                "SplitV", f"Determined shape must either match input shape along split_dim exactly if fully "
                          f"specified, or be less than the size of the input along split_dim if not fully "
                          f"specified.  Got: {total}")
        if unknown:
            sizes[unknown[0]] = n - total
    return list(bind(SPLITV, x, sizes=tuple(sizes), axis=axis))


# --- tile / repeat / pad / slice / reverse / roll ---------------------------------------------------

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


def _pad_kernel(xp, x, paddings):
    if x.dtype == object:  # strings pad with b""
        out = np.full(tuple(d + a + b for d, (a, b) in zip(x.shape, paddings)), b"", dtype=object)
        out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, paddings))] = x
        return out
    return xp.pad(x, paddings)


def _unpad(g, x, paddings):
    return bind(SLICE, dense(g), begin=tuple(a for a, _ in paddings), size=_dims(x))


def _mirror_pad_grad_kernel(xp, g, paddings, mode):
    """Folds the reflected borders of ``g`` back onto the positions they were copied from, axis by axis."""
    off = 1 if mode == "REFLECT" else 0  # REFLECT skips the edge element, SYMMETRIC repeats it
    for ax, (a, b) in enumerate(paddings):
        if not a and not b:
            continue
        n = g.shape[ax]
        d = n - a - b
        pre = (builtins.slice(None),) * ax
        out = g[pre + (builtins.slice(a, a + d),)]
        widths = [(0, 0)] * g.ndim
        if a:
            widths[ax] = (off, d - a - off)
            out = out + xp.pad(xp.flip(g[pre + (builtins.slice(0, a),)], axis=ax), widths)
        if b:
            widths[ax] = (d - b - off, off)
            out = out + xp.pad(xp.flip(g[pre + (builtins.slice(a + d, n),)], axis=ax), widths)
        g = out
    return g


PAD = defop("Pad", _pad_kernel, grad=lambda g, ans, x, paddings: _unpad(g, x, paddings),
            tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
# TF: constant_values gets no gradient
PADV2 = defop("PadV2", lambda xp, x, c, paddings: xp.pad(x, paddings, constant_values=c),
              grad=lambda g, ans, x, c, paddings: (_unpad(g, x, paddings), None),
              tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
MIRROR_PAD = defop("MirrorPad", lambda xp, x, paddings, mode: xp.pad(x, paddings, mode=mode.lower()),
                   grad=lambda g, ans, x, paddings, mode: bind(MIRROR_PAD_GRAD, dense(g), paddings=paddings,
                                                               mode=mode),
                   tfdef=TFDef(consts=[("paddings", 1, "int32")], from_tf=int_tuple("paddings")))
MIRROR_PAD_GRAD = defop("MirrorPadGrad", _mirror_pad_grad_kernel,
                        grad=lambda g, ans, x, paddings, mode: bind(MIRROR_PAD, dense(g), paddings=paddings,
                                                                    mode=mode))


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads ``tensor``: ``paddings[i] = [before, after]``; mode CONSTANT, REFLECT or SYMMETRIC.

    >>> pad([1, 2], [[1, 0]]).numpy()
    array([0, 1, 2], dtype=int32)
    """
    x = t(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    p = np.asarray(static(paddings) if not isinstance(paddings, Tensor) else t(paddings)._v)
    op_name = "Pad" if mode == "CONSTANT" else "MirrorPad"
    rank = x.ndim
    if p.dtype.kind not in "iu" and p.size:
        raise errors.invalid_argument(op_name, "Value for attr 'Tpaddings' of float is not in the list of allowed "
                                               "values: int32, int64")
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != rank:
        if not (p.size == 0 and rank == 0):
            raise errors.invalid_argument(op_name, f"The first dimension of paddings must be the rank of inputs"
                                                   f"{_sh(p.shape)} {_sh(_dims(x))}")
    pads = tuple((int(a), int(b)) for a, b in p.reshape(-1, 2))
    for a, b in pads:
        if a < 0 or b < 0:
            raise errors.invalid_argument(op_name, f"Paddings must be non-negative: {a} {b}")
    if mode != "CONSTANT":
        off = 0 if mode == "SYMMETRIC" else 1
        for (a, b), d in zip(pads, _dims(x)):
            if d is not None and (a > d - off or b > d - off):
                if off:
                    raise errors.invalid_argument("MirrorPad", f"paddings must be less than the dimension size: "
                                                               f"{a}, {b} not less than {d}")
                raise errors.invalid_argument("MirrorPad", f"paddings must be no greater than the dimension size: "
                                                           f"{a}, {b} greater than {d}")
        return bind(MIRROR_PAD, x, paddings=pads, mode=mode)
    if isinstance(constant_values, (int, float)) and not isinstance(constant_values, bool) \
            and constant_values == 0:
        return bind(PAD, x, paddings=pads)
    c = t(constant_values, dtype=x.dtype) if not isinstance(constant_values, Tensor) else t(constant_values)
    if c.dtype is not x.dtype:
        raise mismatch("PadV2", 2, x.dtype, c.dtype)
    return bind(PADV2, x, c, paddings=pads)


def _slice_grad(g, ans, x, begin, size):
    return bind(PAD, dense(g), paddings=tuple((b, d - b - s) for b, s, d in zip(begin, size, _dims(x))))


SLICE = defop("Slice", lambda xp, x, begin, size: x[tuple(builtins.slice(b, b + s) for b, s in zip(begin, size))],
              grad=_slice_grad,
              tfdef=TFDef(consts=[("begin", 1, "int32"), ("size", 2, "int32")], from_tf=int_tuple("begin", "size")))


@tf_export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the end).

    >>> slice([[1, 2, 3], [4, 5, 6]], [0, 1], [2, -1]).numpy().tolist()
    [[2, 3], [5, 6]]
    """
    x = t(input_)
    dyn = _dynamic_shape(begin)
    if dyn is not None:  # traced with a start known only at run time (random crops): lax.dynamic_slice
        s = int_list(size, "Slice", "Index")
        dims = _dims(x)
        if dims is None or -1 in s:
            raise ValueError("tf.slice with a `begin` known only at run time (inside tf.function) needs an explicit "
                             f"`size` without -1 (XLA needs the result's shape), got size={s}")
        s = tuple(s)
        from tensorlet._src.ops.dynamic_shape import SLICE_DYN
        from tensorlet._src.ops.math_binary import cast

        return bind(SLICE_DYN, x, cast(dyn, _dt.int32), size=s)
    b = int_list(begin, "Slice", "Index")
    s = int_list(size, "Slice", "Index")
    dims = _dims(x)
    if len(b) != len(dims) or len(s) != len(dims):
        raise errors.invalid_argument("Slice", f"Expected begin and size arguments to be 1-D tensors of size "
                                               f"{len(dims)}, but got shapes [{len(b)}] and [{len(s)}] instead.")
    for i, d in enumerate(dims):
        if d is None:
            continue
        if not 0 <= b[i] <= d:
            raise errors.invalid_argument("Slice", f"Expected begin[{i}] in [0, {d}], but got {b[i]}")
        if s[i] == -1:
            s[i] = d - b[i]
        if not 0 <= s[i] <= d - b[i]:
            raise errors.invalid_argument("Slice", f"Expected size[{i}] in [0, {d - b[i]}], but got {s[i]}")
    return bind(SLICE, x, begin=tuple(b), size=tuple(s))


REVERSE = defop("ReverseV2", lambda xp, x, axis: xp.flip(x, axis=axis) if axis else x,
                 grad=lambda g, ans, x, axis: bind(REVERSE, dense(g), axis=axis),
                tfdef=TFDef(consts=[("axis", 1, "int32")], from_tf=int_tuple("axis")))


@tf_export("reverse")
def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along each dimension in the list ``axis``.

    >>> reverse([[1, 2]], [1]).numpy().tolist()
    [[2, 1]]
    """
    x = t(tensor)
    a = static(axis)
    if isinstance(a, (int, np.integer)):
        raise errors.invalid_argument("ReverseV2", "'dims' must be 1-dimension, not 0")
    axes = int_list(a, "ReverseV2", "idx")
    rank = x.ndim
    out = []
    for i, ax in enumerate(axes):
        if not -rank <= ax < rank:
            raise errors.invalid_argument("ReverseV2", f"'axis'[{i}] = {ax} is out of valid range [0, {rank - 1}")
        if ax % rank in out:
            raise errors.invalid_argument("ReverseV2", f"axis {ax % rank} specified more than once.")
        out.append(ax % rank)
    return bind(REVERSE, x, axis=tuple(out))


ROLL = defop("Roll", lambda xp, x, shift, axis: xp.roll(x, shift, axis) if axis else x,
              grad=lambda g, ans, x, shift, axis: bind(ROLL, dense(g), shift=tuple(-s for s in shift), axis=axis))


@tf_export("roll")
def roll(input, shift, axis, name=None):  # noqa: A002 - TF's argument name
    """Rolls elements along ``axis`` by ``shift`` (scalars or equal-length lists).

    >>> roll([0, 1, 2, 3, 4], 2, 0).numpy()
    array([3, 4, 0, 1, 2], dtype=int32)
    """
    x = t(input)
    s = int_list(shift, "Roll", "shift")
    a = int_list(axis, "Roll", "axis")
    if len(s) != len(a):
        raise errors.invalid_argument("Roll", "shift and axis must have the same size")
    rank = x.ndim
    for ax in a:
        if not -rank <= ax < rank:
            raise errors.invalid_argument("Roll", f"axis {ax} is out of range")
    return bind(ROLL, x, shift=tuple(s), axis=tuple(ax % rank for ax in a))


# --- broadcasting ------------------------------------------------------------------------------------

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
from tensorlet._src.ops import array_misc, reduce  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
