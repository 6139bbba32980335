"""The array_ops family, part 2: shape queries, identity, ``ensure_shape``, ``sequence_mask``,
``one_hot``, ``where``, ``einsum``/``tensordot`` and ``unravel_index``.

Part 2 of the array family (listed in ``ops/__init__.py`` FAMILIES after ``array_ops``).
"""

from __future__ import annotations

import math
import string

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import mismatch, same_dtype, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef

D = _dt
_sh = errors.shape_str


# --- shape queries, identity ----------------------------------------------------------------------


def _out_type(out_type, op_name, allow_any=False):
    d = D.int32 if out_type is None else _dt.as_dtype(out_type)
    if d not in (D.int32, D.int64) and not allow_any:
        word = {"float32": "float", "float64": "double"}.get(d.name, d.name)
        raise errors.invalid_argument(op_name, f"Value for attr 'out_type' of {word} is not in the list of allowed "
                                               f"values: int32, int64")
    return d._np


SHAPE = defop("Shape", lambda xp, x, out_type: xp.asarray(x.shape, dtype=out_type), grad=NONDIFF, shape_only=True)
SHAPE_N = defop("ShapeN", lambda xp, *xs, out_type: tuple(xp.asarray(x.shape, dtype=out_type) for x in xs),
                n_out=None, grad=NONDIFF, shape_only=True)
SIZE = defop("Size", lambda xp, x, out_type: xp.asarray(math.prod(x.shape), dtype=out_type), grad=NONDIFF,
              shape_only=True)
RANK = defop("Rank", lambda xp, x: xp.asarray(x.ndim, dtype=np.int32), grad=NONDIFF, shape_only=True)
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


# Identity passes IndexedSlices through unchanged, as TF's gradient does.
IDENTITY = defop("Identity", lambda xp, x: x, shape=shapes.same, grad=lambda g, ans, x: g, sparse_grad=True)
IDENTITY_N = defop("IdentityN", lambda xp, *xs: tuple(xs), n_out=None, grad=lambda g, ans, *xs: tuple(g))
STOP_GRADIENT = defop("StopGradient", lambda xp, x: x, shape=shapes.same, grad=NONDIFF)


@tf_export("identity")
def identity(input, name=None):  # noqa: A002 - TF's argument name
    """A tensor with the same value as ``input`` (reads a variable's value)."""
    return bind(IDENTITY, t(input))


@tf_export("identity_n")
def identity_n(input, name=None):  # noqa: A002 - TF's argument name
    """``identity`` of each tensor of a list."""
    return list(bind(IDENTITY_N, *[t(x) for x in input]))


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002 - TF's argument name
    """``input`` unchanged, but gradients do not flow through it."""
    return bind(STOP_GRADIENT, t(input))


def _ensure_check(x, shape):
    dims = _dims(x)
    if shape is None or dims is None:
        return
    if len(dims) != len(shape) or any(e is not None and d is not None and d != e for d, e in zip(dims, shape)):
        raise errors.invalid_argument("EnsureShape", f"Shape of tensor input {_sh(dims)} is not compatible with "
                                                     f"expected shape {_sh(shape)}.")


ENSURE_SHAPE = defop("EnsureShape", lambda xp, x, shape: x, check=_ensure_check, grad=lambda g, ans, x, shape: g)


@tf_export("ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x`` unchanged after checking that its shape is compatible with ``shape``."""
    s = TensorShape(shape)
    return bind(ENSURE_SHAPE, t(x), shape=None if s.rank is None else tuple(s.as_list()))


# --- sequence_mask / one_hot ---------------------------------------------------------------------


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (default: the largest length).

    >>> sequence_mask([1, 3], 4).numpy().tolist()
    [[True, False, False, False], [True, True, True, False]]
    """
    from tensorlet._src.ops.math_binary import cast, less

    lengths = t(lengths)
    if maxlen is None:
        v = getattr(lengths, "_v", None)
        if v is not None:
            m = np.max(v) if v.size else 0
            maxlen = t(np.asarray(m).astype(v.dtype))
        else:
            from tensorlet._src.ops.reduce import reduce_max

            maxlen = reduce_max(lengths)
        maxlen = cast(maxlen, D.int32) if lengths.dtype is D.int32 else maxlen
    maxlen = t(maxlen)
    row = cr.range(maxlen)
    lens = expand_dims(lengths, -1)
    if lens.dtype is not row.dtype:
        lens = cast(lens, row.dtype)
    mask = less(row, lens)
    dtype = _dt.as_dtype(dtype)
    return mask if dtype is D.bool else cast(mask, dtype)


def _one_hot_kernel(xp, indices, on, off, depth, axis):
    ax = indices.ndim if axis == -1 else axis
    r = xp.arange(depth).reshape((depth,) + (1,) * (indices.ndim - ax))
    hit = xp.expand_dims(indices, ax).astype(np.int64) == r
    return xp.where(hit, on, off)


ONE_HOT = defop("OneHot", _one_hot_kernel, dtypes=(D.uint8, D.int8, D.int32, D.int64), grad=NONDIFF,
                tfdef=TFDef(consts=[("depth", 1, "int32")], from_tf=lambda a: {**a, "depth": int(a["depth"])}))


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encoding: a new axis of size ``depth``; out-of-range indices give all ``off_value``.

    >>> one_hot([0, 2], 3).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    idx = t(indices)
    on = None if on_value is None else t(on_value)
    off = None if off_value is None else t(off_value)
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
        if on is not None and on.dtype is not dtype:
            raise TypeError(f"dtype {on.dtype!s} of on_value does not match dtype parameter {dtype!s}")
        if off is not None and off.dtype is not dtype:
            raise TypeError(f"dtype {off.dtype!s} of off_value does not match dtype parameter {dtype!s}")
    if on is not None and off is not None and on.dtype is not off.dtype:
        raise TypeError(f"dtype {on.dtype!s} of on_value does not match dtype {off.dtype!s} of off_value")
    dtype = dtype or (on.dtype if on is not None else off.dtype if off is not None else D.float32)
    on = on if on is not None else cr._scalar(dtype, True)
    off = off if off is not None else cr._scalar(dtype, False)
    depth = int(static(depth))
    if depth < 0:
        raise errors.invalid_argument("OneHot", f"depth must be non-negative, got: {depth}")
    axis = -1 if axis is None else int(static(axis))
    if axis != -1 and not 0 <= axis < idx.ndim + 1:
        raise errors.invalid_argument("OneHot", f"Expected axis to be -1 or between [0, {idx.ndim + 1}).  But "
                                                f"received: {axis}")
    if idx.dtype not in ONE_HOT.dtypes:
        word = {"float32": "float", "float64": "double"}.get(idx.dtype.name, idx.dtype.name)
        raise errors.invalid_argument("OneHot", f"Value for attr 'TI' of {word} is not in the list of allowed "
                                                f"values: uint8, int8, int32, int64")
    return bind(ONE_HOT, idx, on, off, depth=depth, axis=axis)


# --- where -----------------------------------------------------------------------------------------


def _where_check(c):
    if np.ndim(getattr(c, "_v", 1)) == 0 and getattr(c, "_v", None) is not None:
        raise errors.invalid_argument("Where", "WhereOp : Unhandled input dimensions: 0")


# Output size depends on the data: compiled code needs a static bound (tracing supplies one or falls back).
WHERE = defop("Where", lambda xp, c: xp.argwhere(c).astype(np.int64), check=_where_check, grad=NONDIFF)


def _select_check(c, x, y):
    try:
        np.broadcast_shapes(_dims(c), _dims(x), _dims(y))
    except (ValueError, TypeError):
        raise errors.invalid_argument("SelectV2", f"condition {_sh(_dims(c))}, then {_sh(_dims(x))}, and else "
                                                  f"{_sh(_dims(y))} must be broadcastable") from None


def _select_grad(g, ans, c, x, y):
    """TF: the condition gets None; each branch gets ``g`` where it was selected and 0 elsewhere, unbroadcast."""
    g = dense(g)
    zeros = cr.zeros_like(g)
    return None, unbroadcast(bind(SELECT, c, g, zeros), x), unbroadcast(bind(SELECT, c, zeros, g), y)


SELECT = defop("SelectV2", lambda xp, c, x, y: xp.where(c, x, y), check=_select_check, grad=_select_grad)


@tf_export("where")
def where(condition, x=None, y=None, name=None):
    """With ``x`` and ``y``: elementwise ``x if condition else y`` (broadcasting).  Alone: the int64
    coordinates ``[N, rank]`` of the true (nonzero) elements of ``condition``.

    >>> where([True, False], [1, 2], [3, 4]).numpy()
    array([1, 4], dtype=int32)
    """
    if x is None and y is None:
        return bind(WHERE, t(condition))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    c = t(condition, dtype=D.bool) if not isinstance(condition, Tensor) else t(condition)
    if c.dtype is not D.bool:
        raise errors.invalid_argument("SelectV2", f"cannot compute SelectV2 as input #0(zero-based) was expected "
                                                  f"to be a bool tensor but is a {c.dtype.name} tensor")
    x_is_t = isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")
    y_is_t = isinstance(y, Tensor) or hasattr(y, "__tf_tensor__")
    if x_is_t or not y_is_t:
        x = t(x)
        y = t(y) if y_is_t else convert_to_tensor(y, dtype=x.dtype)
    else:
        y = t(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    if x.dtype is not y.dtype:
        raise mismatch("SelectV2", 2, x.dtype, y.dtype)
    return bind(SELECT, c, x, y)


# --- einsum / tensordot ----------------------------------------------------------------------------

EINSUM_TYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int32, D.int64, D.complex64, D.complex128)


def _einsum_kernel(xp, *xs, equation):
    if xp is np:
        if _dt.is_bfloat16_np(xs[0].dtype):  # no bfloat16 BLAS: accumulate in float32
            return np.einsum(equation, *[a.astype(np.float32) for a in xs], optimize=len(xs) > 1).astype(xs[0].dtype)
        return np.einsum(equation, *xs, optimize=len(xs) > 1)
    return xp.einsum(equation, *xs)


def _einsum_labels(equation, shapes_):
    """Per-operand label lists and the output labels, with ``...`` expanded into fresh letters (right-aligned
    across operands, as broadcasting aligns them) and the implicit output made explicit (NumPy's and TF's rule:
    ellipsis first, then the labels used once, sorted)."""
    lhs, _, out = equation.partition("->")
    subs = lhs.split(",")
    free = [c for c in string.ascii_letters if c not in equation]
    ell_dims = [len(shp) - len(s.replace("...", "")) if "..." in s else 0 for s, shp in zip(subs, shapes_)]
    n_ell = max(ell_dims, default=0)
    ell, free = free[:n_ell], free[n_ell:]

    def expand(s, e):
        if "..." not in s:
            return list(s)
        a, b = s.split("...")
        return list(a) + ell[n_ell - e:] + list(b)

    ins = [expand(s, e) for s, e in zip(subs, ell_dims)]
    if "->" in equation:
        outs = expand(out, n_ell)
    else:
        counts = {}
        for s in subs:
            for c in s.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        outs = ell + sorted(c for c, k in counts.items() if k == 1)
    # a dimension of size 1 broadcast against a larger one is its own (summed or broadcast) label
    size = {}
    for labels, shp in zip(ins, shapes_):
        for c, d in zip(labels, shp):
            if d != 1:
                size[c] = d
            else:
                size.setdefault(c, 1)
    for labels, shp in zip(ins, shapes_):
        for j, (c, d) in enumerate(zip(labels, shp)):
            if d == 1 and size[c] != 1:
                labels[j] = free.pop(0)
    return ins, outs


def _einsum_into(sources, target, tshape, dtype):
    """``einsum(sources -> target)`` where ``target`` may repeat labels (the result is placed on that
    diagonal, zeros elsewhere) and may hold labels no source has (the result is broadcast along them)."""
    uniq = list(dict.fromkeys(target))
    lsize = {}
    for c, d in zip(target, tshape):
        lsize.setdefault(c, d)
    have = set().union(*[set(s) for s, _ in sources])
    present = [c for c in uniq if c in have]
    if len(sources) == 1 and list(sources[0][0]) == present:
        core = sources[0][1]
    else:
        eq = ",".join("".join(s) for s, _ in sources) + "->" + "".join(present)
        core = bind(EINSUM, *[x for _, x in sources], equation=eq)
    if len(present) < len(uniq):
        core = bind(RESHAPE, core, shape=tuple(lsize[c] if c in have else 1 for c in uniq))
        core = broadcast_to(core, [lsize[c] for c in uniq])
    if len(uniq) == len(target):
        return core
    first = {}
    for pos, c in enumerate(target):
        first.setdefault(c, pos)
    core = bind(RESHAPE, core, shape=tuple(lsize[c] if first[c] == pos else 1 for pos, c in enumerate(target)))
    for pos, c in enumerate(target):
        if first[c] != pos:
            mshape = [1] * len(target)
            mshape[first[c]] = mshape[pos] = lsize[c]
            core = core * convert_to_tensor(np.eye(lsize[c], dtype=dtype._np).reshape(mshape))
    return core


def _einsum_grad(g, ans, *xs, equation):
    """Each operand's gradient is the einsum of ``g`` with the (conjugated, as TF) other operands back onto the
    operand's labels: traces become diagonals, summed labels are broadcast back, broadcast dims summed."""
    g = dense(g)
    shapes_ = [_dims(x) for x in xs]
    ins, outs = _einsum_labels(equation, shapes_)
    grads = []
    for i, x in enumerate(xs):
        others = [(ins[j], math_unary.conj(xs[j]) if xs[j].dtype.is_complex else xs[j]) for j in range(len(xs))
                  if j != i]
        grads.append(_einsum_into(others + [(outs, g)], ins[i], shapes_[i], x.dtype))
    return tuple(grads)


EINSUM = defop("Einsum", _einsum_kernel, dtypes=EINSUM_TYPES, grad=_einsum_grad)


def _check_einsum(equation, xs):
    lhs = equation.split("->")[0]
    subs = lhs.split(",")
    if len(subs) != len(xs):
        raise ValueError(f'Got {len(xs)} inputs for equation "{equation}", expecting {len(subs)}')
    sizes = {}
    for sub, x in zip(subs, xs):
        dims = _dims(x)
        ell = "..." in sub
        labels = sub.replace("...", "").replace(" ", "")
        if dims is None:
            continue
        if (not ell and len(labels) != len(dims)) or (ell and len(labels) > len(dims)):
            raise errors.invalid_argument("Einsum", f"Expected input {subs.index(sub)} to have rank "
                                                    f"{len(labels)} but got: {len(dims)}")
        own = dims if not ell else dims[:sub.index("...")] + dims[len(dims) - len(sub.split("...")[1]):]
        for lab, d in zip(labels, own):
            if d is None:
                continue
            if lab in sizes and sizes[lab] != d:  # TF broadcasts only the ellipsis dims, not named labels
                raise errors.invalid_argument("Einsum", f"Expected dimension {sizes[lab]} at axis "
                                                        f"{labels.index(lab)} of the input shaped {_sh(dims)} but "
                                                        f"got dimension {d}")
            sizes.setdefault(lab, d)


@tf_export("einsum", "linalg.einsum")
def einsum(equation, *inputs, **kwargs):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    >>> float(einsum("i,i->", [1., 2.], [3., 4.]))
    11.0
    """
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    xs = same_dtype("Einsum", *inputs)
    equation = equation.replace(" ", "")
    _check_einsum(equation, xs)
    return bind(EINSUM, *xs, equation=equation)


def _tensordot_axes(axes, ra, rb, a):
    axes = static(axes)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {n}.")
        if n > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                             f"Received {n}, vs tensor dimensions {ra}.")
        return list(range(ra - n, ra)), list(range(n))
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    xa, xb = (list(v) if isinstance(v, (list, tuple)) else [int(v)] for v in (static(axes[0]), static(axes[1])))
    if len(xa) != len(xb):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(xa)} != {len(xb)}.")
    return [int(i) % ra for i in xa], [int(i) % rb for i in xb]


@tf_export("tensordot", "linalg.tensordot")
def tensordot(a, b, axes, name=None):
    """Sums products of ``a`` and ``b`` over the given axes (``axes=1`` is matrix product).

    >>> tensordot([[1., 2.]], [3., 4.], 1).numpy()
    array([11.], dtype=float32)
    """
    from tensorlet._src.ops.matmul import matmul

    a, b = same_dtype("MatMul", a, b)
    da, db = _dims(a), _dims(b)
    ca, cb = _tensordot_axes(axes, len(da), len(db), a)
    fa = [i for i in range(len(da)) if i not in ca]
    fb = [i for i in range(len(db)) if i not in cb]
    a2 = reshape(transpose(a, fa + ca), [math.prod(da[i] for i in fa), math.prod(da[i] for i in ca)])
    b2 = reshape(transpose(b, cb + fb), [math.prod(db[i] for i in cb), math.prod(db[i] for i in fb)])
    return reshape(matmul(a2, b2), [da[i] for i in fa] + [db[i] for i in fb])


# --- unravel_index -----------------------------------------------------------------------------------


def _unravel_check(idx, dims):
    v = getattr(idx, "_v", None)
    if v is not None and v.size and np.max(v) >= math.prod(dims):
        raise errors.invalid_argument("UnravelIndex", "index is out of bound as with dims")


def _unravel_kernel(xp, idx, dims):
    out = []
    for i, d in enumerate(dims):
        s = np.asarray(math.prod(dims[i + 1:]), idx.dtype)
        q = (idx - xp.fmod(idx, s)) // s  # C's truncating division, as TF
        out.append(xp.fmod(q, np.asarray(d, idx.dtype)))
    return xp.stack(out, axis=0)


UNRAVEL = defop("UnravelIndex", _unravel_kernel, dtypes=(D.int32, D.int64), check=_unravel_check, grad=NONDIFF)


@tf_export("unravel_index")
def unravel_index(indices, dims, name=None):
    """Flat indices into coordinates of an array of shape ``dims``: shape ``[len(dims)] + indices.shape``.

    >>> unravel_index([1, 5], [2, 3]).numpy().tolist()
    [[0, 1], [1, 2]]
    """
    idx = t(indices)
    return bind(UNRAVEL, idx, dims=tuple(int_list(dims, "UnravelIndex", "idx")))


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_unary  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops import creation as cr  # noqa: E402
from tensorlet._src.ops.array_ops import (  # noqa: E402
    RESHAPE,
    _dims,
    broadcast_to,
    dense,
    expand_dims,
    int_list,
    reshape,
    transpose,
)
