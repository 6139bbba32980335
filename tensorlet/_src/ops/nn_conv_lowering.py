"""2-D convolutions lowered to one GEMM each (im2col), for the compiled (jax) path.

XLA:CPU runs ``conv_general_dilated`` and the transposed convolutions autodiff produces (the input gradient: a
padded convolution with the flipped filter; the filter gradient: a convolution with the batch as the feature dim
and the output as an 11x11 or 26x26 "window") well below GEMM speed at the small shapes of Keras CNNs.  Here, for
a channels-last 2-D convolution of one group:

* forward: the ``kh*kw`` strided windows of the padded input are concatenated along channels (the patches,
  ``[N, OH, OW, kh*kw*C]``, ordered like an ``HWIO`` filter flattened) and multiplied by the filter as a
  ``[kh*kw*C, O]`` matrix;
* filter gradient: ``patches^T @ dy`` (XLA shares the patches with the forward's when both are in one program);
* input gradient: ``dy @ W^T`` gives each window's ``[kh*kw, C]`` contributions, which are added back into the
  padded input (``lax.pad`` with interior padding for the stride, then summed: one fused loop) and cropped.

Measured by ``benchmarks/bench_conv.py`` (the seed CNN's train step and each layer's forward/backward): inside a
while loop (a fused ``steps_per_execution`` group, ``tf.while_loop``) XLA:CPU's own convolutions run 6-7x slower
than in a straight-line program, and these GEMMs don't; in a straight-line step XLA's convolution is faster
(``benchmarks/bench_graph.py`` seed step: 3.6-4.1 ms with XLA's, 5.3 ms with these).  So the lowerings in
``nn_conv_kernels`` call these in loop bodies only (:func:`chosen`: :func:`applies` and :func:`inside_loop`).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
MAX_WINDOW = 49  # kernel positions (7x7): one slice each in the patches' concatenation
MAX_PATCH_ELEMENTS = 1 << 22  # 16 MiB of float32 patches; larger convolutions keep XLA's


_LOOP_DEPTH = [0]


@contextlib.contextmanager
def inside_loop():
    """Marks the lowering of a loop body (``graph.control_ops``' While): convolutions traced meanwhile are GEMMs."""
    _LOOP_DEPTH[0] += 1
    try:
        yield
    finally:
        _LOOP_DEPTH[0] -= 1


def in_loop_body() -> bool:
    return _LOOP_DEPTH[0] > 0


def chosen(nd, cf, groups, dtype, n, osz, ks, c, o) -> bool:
    """Whether a convolution being lowered now takes the GEMM form: inside a loop body, and :func:`applies`."""
    return _LOOP_DEPTH[0] > 0 and applies(nd, cf, groups, dtype, n, osz, ks, c, o)


def applies(nd, cf, groups, dtype, n, osz, ks, c, o) -> bool:
    """Whether a convolution of this geometry runs as GEMMs: 2-D, channels-last, one group, float32/64, small."""
    if nd != 2 or cf or groups != 1 or o <= 0 or np.dtype(dtype) not in _TYPES:
        return False
    positions = math.prod(ks)
    return 0 < positions <= MAX_WINDOW and 0 < n * math.prod(osz) * positions * c <= MAX_PATCH_ELEMENTS


def _padded(lax, x, pads):
    cfg = ((0, 0, 0),) + tuple((lo, hi, 0) for lo, hi in pads) + ((0, 0, 0),)
    return lax.pad(x, np.zeros((), x.dtype), cfg)


def patches(x, ks, s, d, pads, osz):
    """[N, H, W, C] -> [N, OH, OW, kh*kw*C]: the input under each kernel position, position-major."""
    from jax import lax

    xp = _padded(lax, x, pads)
    n, c = x.shape[0], x.shape[-1]
    cols = []
    for i in range(ks[0]):
        for j in range(ks[1]):
            start = (0, i * d[0], j * d[1], 0)
            limit = (n, start[1] + s[0] * (osz[0] - 1) + 1, start[2] + s[1] * (osz[1] - 1) + 1, c)
            cols.append(lax.slice(xp, start, limit, (1, s[0], s[1], 1)))
    return cols[0] if len(cols) == 1 else lax.concatenate(cols, 3)


def conv(x, w, s, d, pads, osz):
    """The forward convolution: patches @ W."""
    ks, c, o = w.shape[:2], w.shape[2], w.shape[3]
    p = patches(x, ks, s, d, pads, osz)
    y = p.reshape(-1, ks[0] * ks[1] * c) @ w.reshape(-1, o)
    return y.reshape(p.shape[:3] + (o,))


def conv_filter(x, dy, ks, s, d, pads):
    """dW = patches^T @ dy, batch and output positions summed."""
    c, o = x.shape[-1], dy.shape[-1]
    p = patches(x, ks, s, d, pads, dy.shape[1:3])
    return (p.reshape(-1, ks[0] * ks[1] * c).T @ dy.reshape(-1, o)).reshape(tuple(ks) + (c, o))


def conv_input(w, dy, input_sizes, s, d, pads):
    """dX: each window's contributions dy @ W^T, added back where the window read them, the padding cropped."""
    from jax import lax

    ks, c, o = w.shape[:2], w.shape[2], w.shape[3]
    n, oh, ow = dy.shape[:3]
    h, wd = input_sizes[1], input_sizes[2]
    hp, wp = h + pads[0][0] + pads[0][1], wd + pads[1][0] + pads[1][1]
    dp = (dy.reshape(-1, o) @ w.reshape(-1, o).T).reshape(n, oh, ow, ks[0] * ks[1], c)
    zero = np.zeros((), dy.dtype)
    total = None
    for i in range(ks[0]):
        for j in range(ks[1]):
            r0, c0 = i * d[0], j * d[1]
            cfg = ((0, 0, 0), (r0, hp - r0 - s[0] * (oh - 1) - 1, s[0] - 1),
                   (c0, wp - c0 - s[1] * (ow - 1) - 1, s[1] - 1), (0, 0, 0))
            part = lax.pad(dp[:, :, :, i * ks[1] + j, :], zero, cfg)
            total = part if total is None else total + part
    lo_h, lo_w = pads[0][0], pads[1][0]
    return lax.slice(total, (0, lo_h, lo_w, 0), (n, lo_h + h, lo_w + wd, c))
