"""Eager convolutions as cached XLA kernels: the NumPy engine's fast path for large float convolutions.

A convolution big enough that XLA's multi-threaded kernels beat NumPy's per-position matmuls (at least
``MIN_MACS`` multiply-adds, float32/float64, one group) runs as a ``jax.jit`` function compiled once per
geometry and shape, called with NumPy arrays; the result comes back as a NumPy view of XLA's buffer (zero-copy
on CPU).  Smaller ones keep the NumPy kernels' microsecond path, and nothing here imports jax until the first
large convolution.  Arrays are channels-last (``x [N, *S, C]``, ``w [*K, C, O]``); ``pads`` is one
``(before, after)`` pair per spatial dim, as the NumPy engine uses them.

The filter gradient is one GEMM per kernel position over the strided input window (``x_k^T @ dy``), which
XLA:CPU runs several times faster than the transposed convolution ``jax.linear_transpose`` produces.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import jax_runtime

MIN_MACS = 1_000_000  # below this NumPy's kernels (no dispatch, no copy-in) win
_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SPECS = {1: "W", 2: "HW", 3: "DHW"}
_fns: dict = {}


def eligible(x_dtype, out_positions, ks, c, o, groups) -> bool:
    """Whether a convolution of this size runs compiled (``out_positions`` = N * prod(output spatial))."""
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


def conv_filter(x, dy, ks, s, d, pads):
    """dw of the convolution: for each kernel position, (strided window of x)^T @ dy, batch and space summed."""
    nd = len(s)

    def build(jax, lax):
        def f(a, g):
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

    f = _compiled("filter", (tuple(ks), s, d, pads, nd), build)
    return np.asarray(f(x, dy))
