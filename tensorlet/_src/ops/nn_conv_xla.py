"""Eager convolutions as cached XLA kernels: the NumPy engine's fast path for large float convolutions.

A convolution big enough that XLA's multi-threaded kernels beat NumPy's per-position matmuls (at least
``MIN_MACS`` multiply-adds, float32/float64, one group) runs as a ``jax.jit`` function compiled once per
geometry and shape, called with NumPy arrays; the result comes back as a NumPy view of XLA's buffer (zero-copy
on CPU).  Smaller ones keep the NumPy kernels' microsecond path, and nothing here imports jax until the first
large convolution.  Arrays are channels-last (``x [N, *S, C]``, ``w [*K, C, O]``); ``pads`` is one
``(before, after)`` pair per spatial dim, as the NumPy engine uses them.  The forward and dx with fewer than
``IM2COL_BELOW`` input channels stay on NumPy's im2col GEMM (col2im for dx) while the patch matrix is
small (see ``eligible``): XLA:CPU's kernels are 3-4x slower there.

The filter gradient is one GEMM per kernel position over the strided input window (``x_k^T @ dy``), which
XLA:CPU runs several times faster than the transposed convolution ``jax.linear_transpose`` produces; with few
input channels it is instead one convolution of x with dy as the kernel (``_filter_by_conv``), ~2x faster there.
Both choices were measured on the seed CNN (benchmarks/bench_eager_cnn.py).  These are the static rule's
choices; for hot shapes the autotuner (nn_conv_autotune) measures them against the NumPy formulations.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import jax_runtime

MIN_MACS = 1_000_000  # below this NumPy's kernels (no dispatch, no copy-in) win
FILTER_CONV_BELOW = 8  # input channels under which dw runs as one convolution (see conv_filter)
IM2COL_BELOW = 8  # input channels under which forward and dx stay on NumPy's im2col GEMM ...
IM2COL_MAX = 1 << 22  # ... while its patch matrix has at most this many elements
_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SPECS = {1: "W", 2: "HW", 3: "DHW"}
_fns: dict = {}


def eligible(x_dtype, out_positions, ks, c, o, groups, im2col=False) -> bool:
    """Whether a convolution of this size runs compiled (``out_positions`` = N * prod(output spatial)).

    ``im2col`` (the forward and dx): with few input channels and a moderate patch matrix they stay on NumPy, one
    GEMM with ``prod(ks) * c`` patch columns (then col2im for dx), 3-4x faster than XLA:CPU's convolution and
    transposed convolution there (the seed CNN's 1-channel first layer).
    """
    if im2col and c < IM2COL_BELOW and out_positions * math.prod(ks) * c <= IM2COL_MAX:
        return False
    return groups == 1 and x_dtype in _TYPES and out_positions * math.prod(ks) * c * o >= MIN_MACS


def _dn(nd):
    sp = _SPECS[nd]
    return "N" + sp + "C", sp + "IO", "N" + sp + "C"


def _forward(lax, x, w, s, d, pads):
    return lax.conv_general_dilated(x, w, s, pads, rhs_dilation=d, dimension_numbers=_dn(len(s)))


def _compiled(kind, key, build):
    f = _fns.get((kind,) + key)
    if f is None:
        jax, _, lax = jax_runtime.load()
        f = _fns[(kind,) + key] = jax.jit(build(jax, lax))
    return f


def conv(x, w, s, d, pads):
    f = _compiled("fwd", (s, d, pads), lambda jax, lax: lambda a, b: _forward(lax, a, b, s, d, pads))
    return np.asarray(f(x, w))


def conv_input(dy, w, in_sizes, s, d, pads):
    """dx of the convolution: the transpose of the forward map in x (XLA's transposed convolution)."""
    n, c = dy.shape[0], w.shape[-2]

    def build(jax, lax):
        def f(g, b):
            spec = jax.ShapeDtypeStruct((n,) + tuple(in_sizes) + (c,), g.dtype)
            return jax.linear_transpose(lambda a: _forward(lax, a, b, s, d, pads), spec)(g)[0]
        return f

    f = _compiled("input", (s, d, pads, tuple(in_sizes), n, c), build)
    return np.asarray(f(dy, w))


def _filter_by_conv(lax, a, g, ks, s, d, pads):
    """dw as one convolution of x (channels as the batch, batch as the features) with dy as the kernel.

    dw[k, c, o] = sum_{n, p} xpad[n, p*s + k*d, c] dy[n, p, o]: window stride ``d``, kernel dilation ``s``; the
    output is at least ``ks`` long per dim and is cut to it.
    """
    sp = _SPECS[len(s)]
    out = lax.conv_general_dilated(a, g, d, pads, rhs_dilation=s, dimension_numbers=("C" + sp + "N", "I" + sp + "O",
                                                                                     "N" + sp + "C"))
    out = out[(slice(None),) + tuple(slice(0, k) for k in ks)]  # [C, *ks, O]
    return out.transpose(tuple(range(1, len(s) + 1)) + (0, len(s) + 1))


def conv_filter(x, dy, ks, s, d, pads, by_conv=None):
    """dw of the convolution.

    ``by_conv`` (default: fewer than ``FILTER_CONV_BELOW`` input channels): one convolution
    (``_filter_by_conv``), ~2x faster there (the seed CNN's first layer).  Otherwise one GEMM per kernel position
    over the strided input window (``x_k^T @ dy``), batch and space summed.
    """
    nd = len(s)
    by_conv = x.shape[-1] < FILTER_CONV_BELOW if by_conv is None else bool(by_conv)

    def build(jax, lax):
        def f(a, g):
            if by_conv:
                return _filter_by_conv(lax, a, g, ks, s, d, pads)
            a = lax.pad(a, np.zeros((), a.dtype), ((0, 0, 0),) + tuple((lo, hi, 0) for lo, hi in pads) + ((0, 0, 0),))
            osz, c, o = g.shape[1:-1], a.shape[-1], g.shape[-1]
            g2 = g.reshape(-1, o)
            parts = []
            for k in np.ndindex(*ks):
                start = (0,) + tuple(ki * di for ki, di in zip(k, d)) + (0,)
                limit = (a.shape[0],) + tuple(ki * di + si * (oi - 1) + 1 for ki, di, si, oi in zip(k, d, s, osz)) \
                    + (c,)
                win = lax.slice(a, start, limit, (1,) + tuple(s) + (1,))
                parts.append(win.reshape(-1, c).T @ g2)
            return lax.concatenate([p[None] for p in parts], 0).reshape(tuple(ks) + (c, o))
        return f

    f = _compiled("filter", (tuple(ks), s, d, pads, nd, by_conv), build)
    return np.asarray(f(x, dy))
