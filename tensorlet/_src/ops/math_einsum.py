"""Tensor contractions: einsum (with its equation checks and gradient) and tensordot."""

from __future__ import annotations

import math
import string

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops._helpers import same_dtype, static
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
_sh = errors.shape_str


# --- einsum / tensordot ---------------------------------------------------------------------------

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


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_unary  # noqa: E402
from tensorlet._src.ops.array_shape import RESHAPE, _dims, broadcast_to, dense, reshape, transpose  # noqa: E402
