"""``keras.ops`` core: conversion, shapes and dtypes, control flow (``cond``, ``while_loop``, ``fori_loop``,
``scan``, ``associative_scan``, ``map``, ``switch``, ``vectorized_map``), gradients, slicing and scatter, and
``rearrange`` (einops patterns).

Control flow uses tensorlet's graph control flow, so it runs eagerly as Python and traces into ``If``/``While``
nodes inside ``tf.function``; ``scan`` and ``associative_scan`` loop over the static leading length.

>>> int(fori_loop(0, 3, lambda i, v: v + i, 0))
3
"""

from __future__ import annotations

import builtins
import re

import numpy as np

from tensorlet._src.autodiff.custom import custom_gradient as _custom_gradient
from tensorlet._src.framework.tensor import Tensor, is_tensor as _is_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.control_flow import cond as _cond, switch_case, while_loop as _while_loop
from tensorlet._src.graph.functional_ops import vectorized_map as _vectorized_map
from tensorlet._src.keras.backend import standardize_dtype
from tensorlet._src.keras.ops._dtypes import cast as _cast, convert
from tensorlet._src.keras.ops.numpy_elementwise import export
from tensorlet._src.ops import array_blocks, array_select, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops.array_shape import shape as _shape
from tensorlet._src.ops.array_identity import stop_gradient as _stop_gradient
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros as _zeros
from tensorlet._src.ops.gather_scatter import scatter_nd, tensor_scatter_nd_add, tensor_scatter_nd_max
from tensorlet._src.ops.gather_scatter import tensor_scatter_nd_min, tensor_scatter_nd_update
from tensorlet._src.util import nest


@export("cast")
def cast(x, dtype):
    """``x`` as ``dtype``."""
    return _cast(x, dtype)


@export("saturate_cast")
def saturate_cast(x, dtype):
    """``x`` as ``dtype``, clamped to its range first."""
    return mb.saturate_cast(convert(x), standardize_dtype(dtype))


@export("convert_to_tensor")
def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """A tensor of ``x`` (Python floats become floatx, ints int32)."""
    return convert(x, dtype)


@export("convert_to_numpy")
def convert_to_numpy(x):
    """``x`` as a NumPy array."""
    return np.asarray(convert(x))


@export("is_tensor")
def is_tensor(x):
    """True for tensorlet tensors (NumPy arrays and Python values are not)."""
    return _is_tensor(x) or isinstance(x, Variable)


@export("shape")
def shape(x):
    """The shape as a tuple: ints for known dims, scalar tensors for unknown ones."""
    x = convert(x)
    static = list(x.shape)
    if None in static:
        dyn = _shape(x)
        return tuple(d if d is not None else dyn[i] for i, d in enumerate(static))
    return tuple(static)


@export("dtype")
def dtype(x):
    """The dtype name (``"float32"``)."""
    return standardize_dtype(convert(x).dtype)


@export("stop_gradient")
def stop_gradient(variable):
    """``variable`` with its gradient stopped."""
    return _stop_gradient(convert(variable))


@export("custom_gradient")
def custom_gradient(f):
    """Decorates ``f(*args) -> (y, grad_fn)``; ``grad_fn(upstream)`` returns the input gradients."""
    return _custom_gradient(f)


@export("cond")
def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()`` (graph control flow when traced)."""
    return _cond(pred, true_fn, false_fn)


@export("switch")
def switch(index, branches, *operands):
    """``branches[index](*operands)`` (index clamped to the valid range)."""
    idx = mb.minimum(mb.maximum(convert(index, "int32"), 0), len(branches) - 1)
    return switch_case(idx, [(lambda b=b: b(*operands)) for b in branches])


@export("while_loop")
def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Runs ``body`` while ``cond`` holds; ``loop_vars`` is a tuple/list or a single value."""
    is_tuple = isinstance(loop_vars, (tuple, list))
    lv = tuple(loop_vars) if is_tuple else (loop_vars,)

    def _body(*args):
        out = body(*args)
        return tuple(out) if is_tuple else (out,)

    out = _while_loop(cond, _body, lv, maximum_iterations=maximum_iterations)
    out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return out if is_tuple else out[0]


@export("fori_loop")
def fori_loop(lower, upper, body_fun, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)``."""
    return while_loop(lambda i, v: mb.less(i, upper) if isinstance(i, Tensor) else i < upper,
                      lambda i, v: (mb.add(i, 1) if isinstance(i, Tensor) else i + 1, body_fun(i, v)),
                      (convert(lower), init_val))[1]


def _leading(xs):
    return nest.flatten(xs)[0].shape[0]


@export("scan")
def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """JAX's scan: ``carry, y = f(carry, x)`` over the leading axis; returns ``(carry, stacked ys)``."""
    n = length if xs is None else _leading(xs)
    if xs is None and length is None:
        raise ValueError("`length` must be specified when `xs` is None.")
    flat = None if xs is None else [convert(v) for v in nest.flatten(xs)]
    carry, ys = init, []
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        x = None if flat is None else nest.pack_sequence_as(xs, [v[i] for v in flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    if not ys:
        return carry, None
    if ys[0] is None:
        return carry, None
    stacked = [array_blocks.stack([convert(v) for v in col], 0) for col in zip(*[nest.flatten(y) for y in ys])]
    return carry, nest.pack_sequence_as(ys[0], stacked)


@export("associative_scan")
def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive prefix combination with the associative ``f`` along ``axis``."""
    flat = [convert(v) for v in nest.flatten(elems)]
    n = flat[0].shape[axis]

    def take(v, i):
        sl = [builtins.slice(None)] * v.shape.rank
        sl[axis] = i
        return v[tuple(sl)]

    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    acc, outs = None, []
    for i in order:
        cur = nest.pack_sequence_as(elems, [take(v, i) for v in flat])
        acc = cur if acc is None else f(acc, cur)
        outs.append(acc)
    if reverse:
        outs = outs[::-1]
    cols = zip(*[nest.flatten(o) for o in outs])
    return nest.pack_sequence_as(elems, [array_blocks.stack([convert(c) for c in col], axis) for col in cols])


@export("map")
def map(f, xs):  # noqa: A001 - Keras's name
    """``stack([f(x) for x in xs])`` over the leading axis."""
    flat = [convert(v) for v in nest.flatten(xs)]
    outs = [f(nest.pack_sequence_as(xs, [v[i] for v in flat])) for i in range(flat[0].shape[0])]
    cols = zip(*[nest.flatten(o) for o in outs])
    return nest.pack_sequence_as(outs[0], [array_blocks.stack([convert(c) for c in col], 0) for col in cols])


@export("vectorized_map")
def vectorized_map(function, elements):
    """``function`` applied to each slice along the leading axis (results stacked)."""
    return _vectorized_map(function, elements)


@export("vectorize", "numpy")
def vectorize(pyfunc, *, excluded=None, signature=None):
    """NumPy's ``vectorize`` without a signature: ``pyfunc`` over every scalar element."""
    if signature is not None:
        raise NotImplementedError("keras.ops.vectorize(signature=...) is not supported by tensorlet yet")

    def wrapped(*args):
        ts = [convert(a) for a in args]
        shp = ts[0].shape
        flat = [array_shape.reshape(t, [-1]) for t in ts]
        n = flat[0].shape[0]
        out = array_blocks.stack([convert(pyfunc(*[f[i] for f in flat])) for i in range(n)], 0)
        return array_shape.reshape(out, list(shp))

    return wrapped


@export("slice")
def slice(inputs, start_indices, shape):  # noqa: A001 - Keras's name
    """The block of ``shape`` starting at ``start_indices``."""
    return array_select.slice(convert(inputs), [int(s) if not isinstance(s, Tensor) else s for s in start_indices],
                              list(shape))


@export("slice_update")
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``."""
    x, u = convert(inputs), convert(updates)
    u = _cast(u, x.dtype.name)
    pads = [[int(s), int(d) - int(s) - int(k)] for s, d, k in zip(start_indices, x.shape, u.shape)]
    placed = array_blocks.pad(u, pads)
    mask = array_blocks.pad(mb.not_equal(_zeros(list(u.shape), dtype="bool"), True), pads)
    return where(mask, placed, x)


@export("scatter")
def scatter(indices, values, shape):
    """A zero tensor of ``shape`` with ``values`` added at ``indices``."""
    v = convert(values)
    return scatter_nd(convert(indices), v, list(shape))


@export("scatter_update")
def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written (or combined with ``reduction``) at ``indices``."""
    x = convert(inputs)
    idx, u = convert(indices), _cast(updates, x.dtype.name)
    if reduction is None:
        return tensor_scatter_nd_update(x, idx, u)
    fns = {"add": tensor_scatter_nd_add, "max": tensor_scatter_nd_max, "min": tensor_scatter_nd_min}
    if reduction == "mul":
        from tensorlet._src.ops.creation import ones_like

        factors = tensor_scatter_nd_update(ones_like(x), idx, u)
        return mb.multiply(x, factors)
    if reduction not in fns:
        raise ValueError(f"Unsupported reduction: {reduction}")
    return fns[reduction](x, idx, u)


# ---- einops ------------------------------------------------------------------------------------------------------


def _parse_side(side):
    groups = []
    for tok in re.findall(r"\([^)]*\)|\S+", side.strip()):
        groups.append(tok[1:-1].split() if tok.startswith("(") else [tok])
    return groups


@export("rearrange")
def rearrange(tensor, pattern, **axes_lengths):
    """einops ``rearrange``: ``rearrange(x, "b (h w) c -> b h w c", h=4)``."""
    x = convert(tensor)
    left, right = pattern.split("->")
    lg, rg = _parse_side(left), _parse_side(right)
    if len(lg) != x.shape.rank:
        raise ValueError(f"Pattern {pattern!r} has {len(lg)} input axes but the tensor has rank {x.shape.rank}")
    sizes = dict(axes_lengths)
    for group, dim in zip(lg, x.shape):
        unknown = [a for a in group if a not in sizes]
        known = int(np.prod([sizes[a] for a in group if a in sizes])) if len(group) > len(unknown) else 1
        if len(unknown) == 1:
            sizes[unknown[0]] = dim // known
        elif len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {unknown} in {pattern!r}")
    elem = [a for g in lg for a in g]
    x = array_shape.reshape(x, [sizes[a] for a in elem])
    out_elem = [a for g in rg for a in g]
    x = array_shape.transpose(x, [elem.index(a) for a in out_elem])
    return array_shape.reshape(x, [int(np.prod([sizes[a] for a in g])) for g in rg])
