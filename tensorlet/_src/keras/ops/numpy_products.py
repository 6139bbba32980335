"""``keras.ops`` products (also ``keras.ops.numpy.*``): ``matmul``, ``dot``, ``vdot``, ``inner``, ``outer``,
``tensordot``, ``einsum``, ``kron``, ``cross``, ``correlate`` with Keras's promotion (int8 x int8 -> int32, other
integers computed in floating point where Keras does).

>>> matmul(np.ones((2, 3), "int32"), np.ones((3, 1), "int32")).dtype.name
'int32'
"""

from __future__ import annotations

import builtins

from tensorlet._src.keras.backend import floatx
from tensorlet._src.keras.ops._dtypes import cast, convert, result_type
from tensorlet._src.keras.ops.numpy_array import _nd, moveaxis
from tensorlet._src.keras.ops.numpy_elementwise import export
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.math_einsum import einsum as _einsum, tensordot as _tensordot
from tensorlet._src.ops.creation import range as _range
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.matmul import matmul as _matmul


# ---- products ----------------------------------------------------------------------------------------------------


@export("matmul", "numpy")
def matmul(x1, x2):
    """Matrix product with Keras's promotion (int8 x int8 gives int32)."""
    a, b = convert(x1), convert(x2)
    if a.dtype.name == "int8" and b.dtype.name == "int8" and _nd(a) != 1 and _nd(b) != 1:
        return _matmul(cast(a, "int32"), cast(b, "int32"))
    compute = result_type(a.dtype.name, b.dtype.name, float)
    out = result_type(a.dtype.name, b.dtype.name)
    a, b = cast(a, compute), cast(b, compute)
    if _nd(a) == 1 and _nd(b) == 1:
        r = rd.reduce_sum(mb.multiply(a, b))
    elif _nd(a) == 1:
        r = array_shape.squeeze(_matmul(array_shape.expand_dims(a, 0), b), axis=[-2])
    elif _nd(b) == 1:
        r = array_shape.squeeze(_matmul(a, array_shape.expand_dims(b, -1)), axis=[-1])
    else:
        r = _matmul(a, b)
    return cast(r, out)


@export("dot", "numpy")
def dot(x1, x2):
    """Dot product (matmul for 2-D, sum over the last/second-to-last axes otherwise)."""
    a, b = convert(x1), convert(x2)
    out = result_type(a.dtype.name, b.dtype.name)
    compute = result_type(out, float)
    a, b = cast(a, compute), cast(b, compute)
    if _nd(a) == 0 or _nd(b) == 0:
        r = mb.multiply(a, b)
    elif _nd(b) == 1:
        r = _tensordot(a, b, [[_nd(a) - 1], [0]])
    else:
        r = _tensordot(a, b, [[_nd(a) - 1], [_nd(b) - 2]])
    return cast(r, out)


@export("vdot", "numpy")
def vdot(x1, x2):
    """The dot product of the flattened inputs (the first conjugated)."""
    from tensorlet._src.ops.math_unary import conj

    a, b = convert(x1), convert(x2)
    out = result_type(a.dtype.name, b.dtype.name)
    compute = result_type(out, float)
    a, b = cast(array_shape.reshape(a, [-1]), compute), cast(array_shape.reshape(b, [-1]), compute)
    if a.dtype.is_complex:
        a = conj(a)
    return cast(rd.reduce_sum(mb.multiply(a, b)), out)


@export("inner", "numpy")
def inner(x1, x2):
    """Inner product over the last axes."""
    a, b = convert(x1), convert(x2)
    out = result_type(a.dtype.name, b.dtype.name)
    compute = result_type(out, float)
    a, b = cast(a, compute), cast(b, compute)
    if _nd(a) == 0 or _nd(b) == 0:
        r = mb.multiply(a, b)
    else:
        r = _tensordot(a, b, [[-1 % _nd(a)], [-1 % _nd(b)]])
    return cast(r, out)


@export("outer", "numpy")
def outer(x1, x2):
    """Outer product of the flattened inputs."""
    a, b = convert(x1), convert(x2)
    dt = result_type(a.dtype.name, b.dtype.name)
    return mb.multiply(array_shape.reshape(cast(a, dt), [-1, 1]), array_shape.reshape(cast(b, dt), [-1]))


@export("tensordot", "numpy")
def tensordot(x1, x2, axes=2):
    """Sum of products over ``axes``."""
    a, b = convert(x1), convert(x2)
    out = result_type(a.dtype.name, b.dtype.name)
    compute = out if out in ("int32", "int64", "float16", "float32", "float64", "bfloat16", "complex64",
                             "complex128") else result_type(out, float)
    return cast(_tensordot(cast(a, compute), cast(b, compute), axes), out)


@export("einsum", "numpy")
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation (operands promoted; int8 only inputs give int32)."""
    ops = [convert(o) for o in operands]
    dts = list({o.dtype.name for o in ops})
    if len(dts) == 1 and dts[0] == "int8":
        compute, out = "int32", "int32"
    else:
        out = result_type(*dts)
        compute = out if out not in ("bool", "int8", "int16", "uint8", "uint16", "uint32", "uint64") else \
            result_type(out, float) if out != "bool" else floatx()
        compute = "int32" if out in ("int8", "int16", "uint8", "uint16") else compute
    return cast(_einsum(subscripts, *[cast(o, compute) for o in ops]), out)


@export("kron", "numpy")
def kron(x1, x2):
    """The Kronecker product."""
    a, b = convert(x1), convert(x2)
    dt = result_type(a.dtype.name, b.dtype.name)
    a, b = cast(a, dt), cast(b, dt)
    nd = builtins.max(_nd(a), _nd(b))
    a = array_shape.reshape(a, [1] * (nd - _nd(a)) + list(a.shape))
    b = array_shape.reshape(b, [1] * (nd - _nd(b)) + list(b.shape))
    sa, sb = list(a.shape), list(b.shape)
    ae = array_shape.reshape(a, [d for s in sa for d in (s, 1)])
    be = array_shape.reshape(b, [d for s in sb for d in (1, s)])
    return array_shape.reshape(mb.multiply(ae, be), [p * q for p, q in zip(sa, sb)])


@export("cross", "numpy")
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along the given axes."""
    a, b = convert(x1), convert(x2)
    dt = result_type(a.dtype.name, b.dtype.name)
    a, b = cast(a, dt), cast(b, dt)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    two = a.shape[-1] == 2 and b.shape[-1] == 2
    if a.shape[-1] == 2:
        a = array_blocks.pad(a, [[0, 0]] * (_nd(a) - 1) + [[0, 1]])
    if b.shape[-1] == 2:
        b = array_blocks.pad(b, [[0, 0]] * (_nd(b) - 1) + [[0, 1]])
    a0, a1, a2 = array_blocks.unstack(a, 3, -1)
    b0, b1, b2 = array_blocks.unstack(b, 3, -1)
    c = array_blocks.stack([mb.subtract(mb.multiply(a1, b2), mb.multiply(a2, b1)),
                            mb.subtract(mb.multiply(a2, b0), mb.multiply(a0, b2)),
                            mb.subtract(mb.multiply(a0, b1), mb.multiply(a1, b0))], -1)
    if two:
        return c[..., 2]
    return moveaxis(c, -1, axisc)


@export("correlate", "numpy")
def correlate(x1, x2, mode="valid"):
    """Cross-correlation of two 1-D sequences (``valid``, ``same`` or ``full``)."""
    a, b = convert(x1), convert(x2)
    dt = result_type(a.dtype.name, b.dtype.name)
    dt = "float64" if dt == "int64" else dt if dt in ("bfloat16", "float16", "float64") else "float32"
    a, b = cast(a, dt), cast(b, dt)
    n, m = a.shape[0], b.shape[0]
    full_a = array_blocks.pad(a, [[m - 1, m - 1]])
    L = n + m - 1
    idx = _range(L)[:, None] + _range(m)[None, :]
    full = rd.reduce_sum(mb.multiply(gather(full_a, idx), b[None, :]), axis=1)
    if mode == "full":
        return full
    if mode == "same":
        out_len = builtins.max(n, m)
        start = (L - out_len) // 2
        return full[start:start + out_len]
    if mode == "valid":
        out_len = builtins.max(n, m) - builtins.min(n, m) + 1
        start = (L - out_len) // 2
        return full[start:start + out_len]
    raise ValueError(f"Invalid mode: '{mode}'. Mode must be one of: 'full', 'same', 'valid'.")
