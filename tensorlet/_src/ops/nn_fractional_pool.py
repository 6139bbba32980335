"""``tf.nn.fractional_max_pool`` / ``fractional_avg_pool`` (Graham, arXiv:1412.6071) with TF's pooling sequences.

The row and column boundaries come from TF's rule (fractional_pool_common.cc): with a seed they are drawn from
``PhiloxRandom(seed, seed2)`` exactly as TF's kernel draws them -- rows from the stream's first reserved blocks,
columns from the next; "random" sequences shuffle the ``k``/``k+1`` gaps with ``word % n`` swaps, "pseudo random"
ones are ``ceil(alpha * (i + u))`` for one ``u``.  Without a seed they are random.  Windows are
``[seq[i], seq[i+1] - 1]`` (``seq[i+1]`` too when ``overlapping``), clipped to the input.  Pooling and its
gradients (max: to the first maximum of each window, per channel; average: spread evenly) are NumPy loops given the
sequences, as TF's CPU kernels; TF defines no second-order gradient.
"""

from __future__ import annotations

import collections
import math
import os

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop, tf_export

_TYPES = (D.float32, D.float64, D.int32, D.int64)
_NO_XLA = "pooling regions drawn on the host"
_U64 = np.uint64


# --- TF's pooling sequences ---------------------------------------------------------------------

def _words(seed, seed2, block, n):
    """``n`` 32-bit words of ``PhiloxRandom(seed, seed2)`` from 128-bit block ``block`` on."""
    from tensorlet._src.ops.random_ops import philox

    blocks = np.arange(block, block + (n + 3) // 4, dtype=_U64)
    w = philox(np, np.array([seed % 2 ** 64], _U64), np.array([0, seed2 % 2 ** 64], _U64), blocks)
    return [int(v) for v in np.stack(w, axis=-1).reshape(-1)[:n]]


def _diff_pseudo(n_in, n_out, seed, seed2, block):
    alpha = n_in / n_out
    k = n_in // n_out
    max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
    x0, x1 = _words(seed, seed2, block, 2)
    bits = (0x3FF << 52) | ((x0 & 0xFFFFF) << 32) | x1  # SimplePhilox::RandDouble: 52 random mantissa bits
    u = (np.array([bits], _U64).view(np.float64)[0] - 1.0) * max_u
    cum = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
    return [cum[i + 1] - cum[i] for i in range(n_out)], block + 1


def _diff_random(n_in, n_out, seed, seed2, block):
    k, extra = divmod(n_in, n_out)
    diff = [k + 1] * extra + [k] * (n_out - extra)
    words = _words(seed, seed2, block, n_out)
    for i in range(n_out - 1):  # TF's RandomShuffle with uniform(n) = word % n
        j = i + words[i] % (n_out - i)
        diff[i], diff[j] = diff[j], diff[i]
    return diff, block + (n_out + 3) // 4


def pooling_sequences(in_rows, in_cols, out_rows, out_cols, pseudo_random, seed, seed2):
    """(row, col) cumulative pooling sequences as TF's kernel generates them for one call."""
    gen = _diff_pseudo if pseudo_random else _diff_random
    if seed == 0 and seed2 == 0:
        seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
    rows, block = gen(in_rows, out_rows, seed, seed2, 0)
    cols, _ = gen(in_cols, out_cols, seed, seed2, block)
    return np.cumsum([0] + rows).astype(np.int64), np.cumsum([0] + cols).astype(np.int64)


# --- pooling given sequences ----------------------------------------------------------------------

def _windows(seq, size, overlapping):
    ends = [min(int(seq[i + 1]) if overlapping else int(seq[i + 1]) - 1, size - 1) for i in range(len(seq) - 1)]
    return [(int(seq[i]), ends[i] + 1) for i in range(len(seq) - 1)]


def _pool(x, rows, cols, overlapping, avg):
    n, h, w, c = x.shape
    rw, cw = _windows(rows, h, overlapping), _windows(cols, w, overlapping)
    out = np.empty((n, len(rw), len(cw), c), x.dtype)
    for i, (r0, r1) in enumerate(rw):
        for j, (c0, c1) in enumerate(cw):
            win = x[:, r0:r1, c0:c1, :]
            if avg:
                s = win.sum(axis=(1, 2), dtype=x.dtype)
                m = win[0, :, :, 0].size
                out[:, i, j] = np.sign(s) * (np.abs(s) // m) if x.dtype.kind in "iu" else s / x.dtype.type(m)
            else:
                out[:, i, j] = win.max(axis=(1, 2))
    return out


def _out_size(size, ratio):
    return int(math.floor(np.float32(size) / np.float32(ratio)))


def _fmp_kernel(xp, x, pooling_ratio=(), pseudo_random=False, overlapping=False, seed=0, seed2=0, avg=False):
    n, h, w, c = x.shape
    rows, cols = pooling_sequences(h, w, _out_size(h, pooling_ratio[1]), _out_size(w, pooling_ratio[2]),
                                   pseudo_random, seed, seed2)
    return _pool(x, rows, cols, overlapping, avg), rows, cols


def _max_grad_kernel(xp, x, out, g, rows, cols, overlapping=False):
    n, h, w, c = x.shape
    dx = np.zeros(x.shape, g.dtype)
    for i, (r0, r1) in enumerate(_windows(rows, h, overlapping)):
        for j, (c0, c1) in enumerate(_windows(cols, w, overlapping)):
            win = x[:, r0:r1, c0:c1, :].reshape(n, -1, c)
            first = win.argmax(axis=1)  # the first maximum in row-major window order, as TF's strict compare
            rr, cc = r0 + first // (c1 - c0), c0 + first % (c1 - c0)
            b, ch = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
            np.add.at(dx, (b, rr, cc, ch), g[:, i, j, :])
    return dx


def _avg_grad_kernel(xp, g, rows, cols, orig_shape=(), overlapping=False):
    n, h, w, c = orig_shape
    acc = np.zeros((n, h, w, c), np.float64)
    for i, (r0, r1) in enumerate(_windows(rows, h, overlapping)):
        for j, (c0, c1) in enumerate(_windows(cols, w, overlapping)):
            acc[:, r0:r1, c0:c1, :] += (g[:, i, j, :] / float((r1 - r0) * (c1 - c0)))[:, None, None, :]
    return acc.astype(g.dtype)


FRACTIONAL_MAX_POOL_GRAD = defop("FractionalMaxPoolGrad", _max_grad_kernel, dtypes=_TYPES, grad=NO_GRADIENT,
                                 shape=lambda x, out, g, rows, cols, **a: shapes.Spec(x.shape, g.dtype),
                                 no_lowering=True, no_lowering_reason=_NO_XLA)
FRACTIONAL_AVG_POOL_GRAD = defop("FractionalAvgPoolGrad", _avg_grad_kernel, grad=NO_GRADIENT,
                                 shape=lambda g, rows, cols, orig_shape=(), **a: shapes.Spec(
                                     TensorShape(list(orig_shape)), g.dtype),
                                 no_lowering=True, no_lowering_reason=_NO_XLA)


def _fmp_grad(g, ans, x, pooling_ratio=(), overlapping=False, **a):
    out, rows, cols = ans
    return bind(FRACTIONAL_MAX_POOL_GRAD, x, out, g[0], rows, cols, overlapping=overlapping)


def _fap_grad(g, ans, x, pooling_ratio=(), overlapping=False, **a):
    _, rows, cols = ans
    return bind(FRACTIONAL_AVG_POOL_GRAD, g[0], rows, cols, orig_shape=tuple(x.shape.as_list()),
                overlapping=overlapping)


def _fmp_shape(x, pooling_ratio=(), **attrs):
    s = x.shape.as_list() if x.shape.rank == 4 else [None] * 4
    out = [None if d is None else _out_size(d, r) for d, r in zip(s, pooling_ratio)]
    i64 = D.int64
    return (shapes.Spec(TensorShape(out), x.dtype),
            shapes.Spec(TensorShape([None if out[1] is None else out[1] + 1]), i64),
            shapes.Spec(TensorShape([None if out[2] is None else out[2] + 1]), i64))


FRACTIONAL_MAX_POOL = defop("FractionalMaxPool", _fmp_kernel, n_out=3, dtypes=_TYPES, shape=_fmp_shape,
                            grad=_fmp_grad, no_lowering=True, no_lowering_reason=_NO_XLA, foldable=False)
FRACTIONAL_AVG_POOL = defop("FractionalAvgPool", lambda xp, x, **a: _fmp_kernel(xp, x, avg=True, **a), n_out=3,
                            dtypes=_TYPES, shape=_fmp_shape, grad=_fap_grad, no_lowering=True, foldable=False,
                            no_lowering_reason=_NO_XLA)

FractionalMaxPool = collections.namedtuple("FractionalMaxPool", ["output", "row_pooling_sequence",
                                                                 "col_pooling_sequence"])
FractionalAvgPool = collections.namedtuple("FractionalAvgPool", ["output", "row_pooling_sequence",
                                                                 "col_pooling_sequence"])


def _max_pool_ratio(pooling_ratio):
    """fractional_max_pool's Python checks and expansion (fractional_avg_pool passes its ratio to the op as is)."""
    if isinstance(pooling_ratio, (list, tuple)):
        if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
            raise ValueError("`pooling_ratio` should have first and last elements with value 1.0. Received: "
                             f"pooling_ratio={pooling_ratio}")
        if any(r < 1.0 for r in pooling_ratio):
            raise ValueError(f"`pooling_ratio` elements should be >= 1.0. Received: pooling_ratio={pooling_ratio}")
    elif isinstance(pooling_ratio, (int, float)):
        if pooling_ratio < 1.0:
            raise ValueError(f"`pooling_ratio` should be >= 1.0. Received: pooling_ratio={pooling_ratio}")
        return [1.0, float(pooling_ratio), float(pooling_ratio), 1.0]
    else:
        raise ValueError(f"`pooling_ratio` should be an int or a list of ints. Received: pooling_ratio="
                         f"{pooling_ratio}")
    r = list(pooling_ratio)
    if len(r) == 1:
        return [1.0, r[0], r[0], 1.0]
    if len(r) == 2:
        return [1.0, r[0], r[1], 1.0]
    if len(r) != 4:
        raise ValueError(f"pooling_ratio should be of length 1, 2 or 4 but was {len(r)}")
    return r


def _fractional(op, result, what, value, pooling_ratio, pseudo_random, overlapping, seed, seeds=None):
    py_name = f"fractional_{what}_pool"
    if what == "max" and seeds is None:
        pooling_ratio = _max_pool_ratio(pooling_ratio)
    if not isinstance(pooling_ratio, (list, tuple)):
        raise TypeError(f"Expected list for 'pooling_ratio' argument to '{py_name}' Op, not {pooling_ratio!r}.")
    ratio = tuple(float(r) for r in pooling_ratio)
    if len(ratio) < 4:
        raise errors.invalid_argument(op.name, f"Length for attr 'pooling_ratio' of {len(ratio)} must be at least "
                                               "minimum 4")
    x = t(value)
    word = "max" if what == "max" else "average"
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise errors.op_error(errors.UnimplementedError, op.name, f"Fractional {word} pooling is not yet supported "
                                                                  "on the batch nor channel dimension.")
    if x.shape.rank is not None and x.shape.rank != 4:
        raise errors.invalid_argument(op.name, "tensor_in must be 4-dimensional")
    for i in range(4):
        if ratio[i] < 1.0:
            raise errors.invalid_argument(op.name, f"pooling_ratio cannot be smaller than 1, got: {ratio[i]:g}")
        d = x.shape[i] if x.shape.rank == 4 else None
        if d is not None and _out_size(d, ratio[i]) <= 0:
            raise errors.invalid_argument(op.name, f"Pooling ratio is higher than input dimension size for dimension "
                                                   f"{i}. Input dim size: {d} pooling ratio: {ratio[i]:g}")
    if seeds is not None:
        pass
    elif int(seed) == 0:
        seeds = (0, 0)
    else:
        from tensorlet._src.ops.random_gen import get_seed

        seeds = get_seed(int(seed))
    out = bind(op, x, pooling_ratio=ratio, pseudo_random=bool(pseudo_random), overlapping=bool(overlapping),
               seed=int(seeds[0]), seed2=int(seeds[1]))
    return result(*out)


@tf_export("nn.fractional_max_pool")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """Fractional max pooling of NHWC ``value`` by ``pooling_ratio`` ``[1.0, rows, cols, 1.0]`` (each >= 1):
    ``(output, row_pooling_sequence, col_pooling_sequence)``.

    >>> r = tf.nn.fractional_max_pool(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), [1.0, 2.0, 2.0, 1.0], seed=1)
    >>> r.output[0, ..., 0].numpy(), r.row_pooling_sequence.numpy()
    (array([[ 5.,  7.],
           [13., 15.]], dtype=float32), array([0, 2, 4]))
    """
    return _fractional(FRACTIONAL_MAX_POOL, FractionalMaxPool, "max", value, pooling_ratio, pseudo_random,
                       overlapping, seed)


@tf_export("nn.fractional_avg_pool")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """Fractional average pooling (integer inputs: the truncated mean), as ``fractional_max_pool``.

    >>> r = tf.nn.fractional_avg_pool(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), [1.0, 2.0, 2.0, 1.0], seed=1)
    >>> r.output[0, ..., 0].numpy()
    array([[ 2.5,  4.5],
           [10.5, 12.5]], dtype=float32)
    """
    return _fractional(FRACTIONAL_AVG_POOL, FractionalAvgPool, "avg", value, pooling_ratio, pseudo_random,
                       overlapping, seed)


def _v1(op, result, what, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2):
    if not deterministic and (int(seed) or int(seed2)):
        raise errors.invalid_argument(op.name, "Both seed and seed2 should be 0 if deterministic is false.")
    return _fractional(op, result, what, value, pooling_ratio, pseudo_random, overlapping, 0,
                       seeds=(int(seed), int(seed2)))


@tf_export("compat.v1.nn.fractional_max_pool")
def fractional_max_pool_v1(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                           seed2=0, name=None):
    """TF1's fractional max pooling: the op's own ``seed``/``seed2`` (both 0: random) and ``pooling_ratio`` as given."""
    return _v1(FRACTIONAL_MAX_POOL, FractionalMaxPool, "max", value, pooling_ratio, pseudo_random, overlapping,
               deterministic, seed, seed2)


@tf_export("compat.v1.nn.fractional_avg_pool")
def fractional_avg_pool_v1(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                           seed2=0, name=None):
    """TF1's fractional average pooling (see ``compat.v1.nn.fractional_max_pool``)."""
    return _v1(FRACTIONAL_AVG_POOL, FractionalAvgPool, "avg", value, pooling_ratio, pseudo_random, overlapping,
               deterministic, seed, seed2)
