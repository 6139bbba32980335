"""Convolutions against direct-loop NumPy references (one output position and kernel tap at a time)."""

import itertools

import ml_dtypes
import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import nn_conv
from tensorlet._src.ops.registry import bind

# --- references ------------------------------------------------------------------------------


def _same(n, k, s, d):
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return (total // 2, total - total // 2)


def _pads(padding, sizes, ks, s, d):
    if padding == "VALID":
        return [(0, 0)] * len(sizes)
    if padding == "SAME":
        return [_same(n, k, si, di) for n, k, si, di in zip(sizes, ks, s, d)]
    return [tuple(p) for p in padding]  # explicit spatial pairs


def _acc_dtype(dt):
    return np.int64 if np.dtype(dt).kind == "i" else np.float64


def ref_conv(x, w, s, d, padding, cf=False):
    """out[n, o, :] = sum_k x[n, o*s + k*d - pad, :] @ w[k] (per group); channels-last inside."""
    dt = x.dtype
    if cf:
        x = np.moveaxis(x, 1, -1)
    nd = w.ndim - 2
    sizes, ks = x.shape[1:-1], w.shape[:nd]
    pads = _pads(padding, sizes, ks, s, d)
    xp = np.pad(x.astype(_acc_dtype(dt)), [(0, 0)] + pads + [(0, 0)])
    w = w.astype(_acc_dtype(dt))
    cg, o_ch = w.shape[-2:]
    groups = x.shape[-1] // cg
    og = o_ch // groups
    osz = [max((xp.shape[1 + i] - (ks[i] - 1) * d[i] - 1) // s[i] + 1, 0) for i in range(nd)]
    out = np.zeros([x.shape[0]] + osz + [o_ch], xp.dtype)
    for o in itertools.product(*[range(n) for n in osz]):
        for k in itertools.product(*[range(n) for n in ks]):
            patch = xp[(slice(None),) + tuple(oi * si + ki * di for oi, si, ki, di in zip(o, s, k, d))]
            for g in range(groups):
                out[(slice(None),) + o + (slice(g * og, (g + 1) * og),)] += \
                    patch[:, g * cg:(g + 1) * cg] @ w[k][:, g * og:(g + 1) * og]
    if cf:
        out = np.moveaxis(out, -1, 1)
    return out.astype(dt)


def ref_conv_input(dy, w, in_shape, s, d, padding, cf=False):
    """dx: scatter each dy[n, o] @ w[k].T to input position o*s + k*d - pad (the definition)."""
    dt = dy.dtype
    if cf:
        dy = np.moveaxis(dy, 1, -1)
        in_shape = (in_shape[0],) + tuple(in_shape[2:]) + (in_shape[1],)
    nd = w.ndim - 2
    sizes, ks = in_shape[1:-1], w.shape[:nd]
    pads = _pads(padding, sizes, ks, s, d)
    cg, o_ch = w.shape[-2:]
    groups = in_shape[-1] // cg
    og = o_ch // groups
    dxp = np.zeros((in_shape[0],) + tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads)) + (in_shape[-1],))
    dy, w = dy.astype(np.float64), w.astype(np.float64)
    for o in itertools.product(*[range(n) for n in dy.shape[1:-1]]):
        for k in itertools.product(*[range(n) for n in ks]):
            idx = (slice(None),) + tuple(oi * si + ki * di for oi, si, ki, di in zip(o, s, k, d))
            for g in range(groups):
                dxp[idx + (slice(g * cg, (g + 1) * cg),)] += \
                    dy[(slice(None),) + o + (slice(g * og, (g + 1) * og),)] @ w[k][:, g * og:(g + 1) * og].T
    dx = dxp[(slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))]
    if cf:
        dx = np.moveaxis(dx, -1, 1)
    return dx.astype(dt)


def ref_conv_filter(x, dy, kshape, s, d, padding, cf=False):
    """dw[k] = sum_{n, o} outer(x[n, o*s + k*d - pad], dy[n, o]) (per group)."""
    dt = x.dtype
    if cf:
        x, dy = np.moveaxis(x, 1, -1), np.moveaxis(dy, 1, -1)
    nd = len(kshape) - 2
    ks = tuple(kshape[:nd])
    pads = _pads(padding, x.shape[1:-1], ks, s, d)
    xp = np.pad(x.astype(np.float64), [(0, 0)] + pads + [(0, 0)])
    dy = dy.astype(np.float64)
    cg, o_ch = kshape[-2:]
    groups = x.shape[-1] // cg
    og = o_ch // groups
    dw = np.zeros(kshape)
    for o in itertools.product(*[range(n) for n in dy.shape[1:-1]]):
        for k in itertools.product(*[range(n) for n in ks]):
            patch = xp[(slice(None),) + tuple(oi * si + ki * di for oi, si, ki, di in zip(o, s, k, d))]
            for g in range(groups):
                dw[k + (slice(None), slice(g * og, (g + 1) * og))] += \
                    patch[:, g * cg:(g + 1) * cg].T @ dy[(slice(None),) + o + (slice(g * og, (g + 1) * og),)]
    return dw.astype(dt)


def dw_filter(w):
    """Depthwise filter [H, W, C, M] as the grouped filter [H, W, 1, C*M] the references understand."""
    return w.reshape(w.shape[:-2] + (1, w.shape[-2] * w.shape[-1]))


def _spatial(pairs):  # [[0,0],[1,2],[0,1],[0,0]] -> [(1,2),(0,1)]
    return [tuple(p) for p in pairs[1:-1]]


# --- cases -----------------------------------------------------------------------------------

FL = ("float32",)
FL2 = ("float32", "float64")
F32 = dict(rtol=1e-5, atol=1e-4)


def c2d(x_shape, w_shape, strides, padding, dil=1, fmt="NHWC", dtypes=FL, id_="", small=None, **kw):
    """A Conv2D case; ``small`` (x, w shapes) goes first, so the finite-difference gradient check uses it."""
    s = (strides,) * 2 if isinstance(strides, int) else tuple(strides)
    if len(s) == 4:
        s = s[2:] if fmt == "NCHW" else s[1:3]
    d = (dil,) * 2 if isinstance(dil, int) else tuple(dil)
    pad_ref = _spatial(padding) if isinstance(padding, list) else padding
    return Case(lambda x, w: tf.nn.conv2d(x, w, strides, padding, fmt, dil),
                lambda x, w: ref_conv(x, w, s, d, pad_ref, fmt == "NCHW"),
                ([small] if small else []) + [(x_shape, w_shape)], dtypes, ops=("Conv2D",),
                id=id_ or f"conv2d_{fmt}_{padding}", **{**F32, **kw})


CASES = [
    c2d((2, 6, 5, 3), (3, 3, 3, 4), 1, "SAME", dtypes=FL2, id_="conv2d_same_im2col"),
    c2d((2, 7, 6, 8), (2, 3, 8, 5), [2, 1], "VALID", id_="conv2d_valid_strided_nonsquare",
        small=((1, 5, 4, 8), (2, 3, 8, 3))),
    c2d((1, 7, 7, 4), (3, 2, 4, 2), 1, "SAME", dil=[2, 1], id_="conv2d_dilated"),
    c2d((2, 6, 6, 9), (3, 3, 9, 3), 2, "SAME", dil=2, id_="conv2d_stride_and_dilation",
        small=((1, 5, 4, 9), (3, 2, 9, 2))),
    c2d((2, 5, 6, 3), (3, 3, 3, 2), 2, [[0, 0], [1, 2], [0, 1], [0, 0]], id_="conv2d_explicit"),
    c2d((2, 3, 6, 5), (3, 3, 3, 4), [1, 1, 2, 2], "SAME", fmt="NCHW", id_="conv2d_nchw"),
    c2d((2, 3, 8, 6), (3, 3, 3, 2), 1, "VALID", dil=2, fmt="NCHW", id_="conv2d_nchw_dilated"),
    c2d((2, 5, 5, 4), (3, 3, 2, 6), 1, "SAME", id_="conv2d_groups", small=((1, 4, 4, 4), (3, 3, 2, 6))),
    c2d((1, 5, 5, 12), (3, 3, 3, 8), 2, "VALID", id_="conv2d_groups4", small=((1, 4, 4, 12), (2, 2, 3, 8))),
    c2d((2, 5, 5, 3), (3, 3, 3, 4), 1, "SAME", dtypes=("float16", "bfloat16"), id_="conv2d_low_precision"),
    c2d((2, 5, 5, 10), (2, 2, 10, 3), 1, "VALID", dtypes=("int32",), id_="conv2d_int32"),
    c2d((0, 5, 5, 3), (3, 3, 3, 4), 1, "SAME", id_="conv2d_empty_batch"),
    c2d((1, 2, 2, 3), (3, 3, 3, 4), 1, "VALID", id_="conv2d_kernel_larger_than_input"),
    c2d((1, 4, 4, 3), (1, 1, 3, 0), 1, "SAME", id_="conv2d_zero_out_channels"),
    # conv1d: Conv2D over a unit height
    Case(lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"), lambda x, w: ref_conv(x, w, (2,), (1,), "SAME"),
         [((2, 9, 3), (3, 3, 4)), ((1, 4, 10), (2, 10, 3))], FL, ops=("Conv2D", "StridedSlice"), id="conv1d", **F32),
    Case(lambda x, w: tf.nn.conv1d(x, w, 1, "VALID", "NCW", 2), lambda x, w: ref_conv(x, w, (1,), (2,), "VALID", True),
         [((2, 3, 9), (3, 3, 4))], FL, ops=("Conv2D",), id="conv1d_ncw_dilated", **F32),
    # conv3d
    Case(lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"),
         lambda x, w: ref_conv(x, w, (2, 1, 2), (1, 1, 1), "SAME"),
         [((1, 3, 4, 3, 2), (2, 3, 2, 2, 2)), ((2, 4, 5, 4, 3), (2, 3, 2, 3, 2)), ((1, 3, 3, 3, 9), (3, 1, 2, 9, 4))],
         FL, ops=("Conv3D",), id="conv3d",
         **F32),
    Case(lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID", "NCDHW", [1, 1, 2, 1, 1]),
         lambda x, w: ref_conv(x, w, (1, 1, 1), (2, 1, 1), "VALID", True),
         [((1, 2, 5, 4, 4), (2, 2, 2, 2, 3))], ("float32",), ops=("Conv3D",), id="conv3d_ncdhw", **F32),
    # convolution: rank from the filter
    Case(lambda x, w: tf.nn.convolution(x, w, padding="SAME"), lambda x, w: ref_conv(x, w, (1,), (1,), "SAME"),
         [((2, 6, 3), (3, 3, 2))], FL, ops=("Conv2D",), id="convolution_1d", **F32),
    Case(lambda x, w: tf.nn.convolution(x, w, [2, 1], "VALID"), lambda x, w: ref_conv(x, w, (2, 1), (1, 1), "VALID"),
         [((2, 6, 5, 3), (3, 2, 3, 2))], FL, ops=("Conv2D",), id="convolution_2d", **F32),
    Case(lambda x, w: tf.nn.convolution(x, w, padding="SAME", data_format="NCHW", dilations=2),
         lambda x, w: ref_conv(x, w, (1, 1), (2, 2), "SAME", True),
         [((1, 3, 6, 5), (3, 3, 3, 2))], ("float32",), ops=("Conv2D",), id="convolution_2d_nchw", **F32),
    Case(lambda x, w: tf.nn.convolution(x, w, 2, "SAME"), lambda x, w: ref_conv(x, w, (2,) * 3, (1,) * 3, "SAME"),
         [((1, 4, 3, 5, 2), (2, 2, 3, 2, 3))], ("float32",), ops=("Conv3D",), id="convolution_3d", **F32),
    Case(lambda x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"), lambda x, w: ref_conv(x, w, (1, 1), (2, 2), "SAME"),
         [((1, 7, 6, 3), (3, 3, 3, 2))], ("float32",), ops=("Conv2D",), **F32),
    # transposed convolutions = Conv*BackpropInput
    Case(lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 9, 4], 2, "SAME"),
         lambda x, w: ref_conv_input(x, w, (2, 10, 9, 4), (2, 2), (1, 1), "SAME"),
         [((2, 5, 5, 3), (3, 3, 4, 3))], FL2, ops=("Conv2DBackpropInput",), id="conv2d_transpose_same", **F32),
    Case(lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 12, 7, 2], [2, 1], "VALID"),
         lambda x, w: ref_conv_input(x, w, (1, 12, 7, 2), (2, 1), (1, 1), "VALID"),
         [((1, 5, 5, 9), (4, 3, 2, 9))], FL, ops=("Conv2DBackpropInput",), id="conv2d_transpose_valid_extra", **F32),
    Case(lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 7, 6, 2], 1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
         lambda x, w: ref_conv_input(x, w, (1, 7, 6, 2), (1, 1), (1, 1), [(1, 0), (0, 2)]),
         [((1, 7, 6, 3), (2, 3, 2, 3))], FL, ops=("Conv2DBackpropInput",), id="conv2d_transpose_explicit", **F32),
    Case(lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 3, 8, 7], 1, "SAME", "NCHW", 2),
         lambda x, w: ref_conv_input(x, w, (1, 3, 8, 7), (1, 1), (2, 2), "SAME", True),
         [((1, 4, 8, 7), (3, 3, 3, 4))], ("float32",), ops=("Conv2DBackpropInput",), id="conv2d_transpose_nchw_dil",
         **F32),
    Case(lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 6, 6, 3], 1, "SAME"),
         lambda x, w: ref_conv_input(x, w, (2, 6, 6, 3), (1, 1), (1, 1), "SAME"),
         [((2, 6, 6, 4), (3, 3, 3, 4))], ("int32", "float16"), ops=("Conv2DBackpropInput",),
         id="conv2d_transpose_int_f16", **F32),
    Case(lambda x, w: tf.nn.conv1d_transpose(x, w, [2, 11, 4], 2, "VALID"),
         lambda x, w: ref_conv_input(x, w, (2, 11, 4), (2,), (1,), "VALID"),
         [((2, 5, 3), (3, 4, 3))], FL, ops=("Conv2DBackpropInput",), id="conv1d_transpose", **F32),
    Case(lambda x, w: tf.nn.conv3d_transpose(x, w, [1, 6, 5, 4, 2], [1, 2, 1, 2, 1], "SAME"),
         lambda x, w: ref_conv_input(x, w, (1, 6, 5, 4, 2), (2, 1, 2), (1, 1, 1), "SAME"),
         [((1, 3, 5, 2, 3), (2, 3, 2, 2, 3))], FL, ops=("Conv3DBackpropInputV2",), id="conv3d_transpose", **F32),
    Case(lambda x, w: tf.nn.conv_transpose(x, w, [1, 4, 3, 5, 2], 1, "VALID", "NCDHW"),
         lambda x, w: ref_conv_input(x, w, (1, 4, 3, 5, 2), (1, 1, 1), (1, 1, 1), "VALID", True),
         [((1, 3, 2, 4, 1), (2, 2, 2, 4, 3))], ("float32",), ops=("Conv3DBackpropInputV2",),
         id="conv_transpose_3d_ncdhw", **F32),
    Case(lambda x, w: tf.nn.atrous_conv2d_transpose(x, w, [1, 6, 6, 2], 2, "SAME"),
         lambda x, w: ref_conv_input(x, w, (1, 6, 6, 2), (1, 1), (2, 2), "SAME"),
         [((1, 6, 6, 3), (3, 3, 2, 3))], ("float32",), ops=("Conv2DBackpropInput",), **F32),
    # the input gradient of grouped convolutions (Conv2DBackpropInput with groups)
    Case(lambda w, dy: bind(nn_conv.CONV2D_INPUT, w, dy, input_sizes=(2, 5, 5, 6), strides=(1, 2, 2, 1),
                            padding="SAME", explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)),
         lambda w, dy: ref_conv_input(dy, w, (2, 5, 5, 6), (2, 2), (1, 1), "SAME"),
         [((3, 3, 2, 9), (2, 3, 3, 9))], FL, ops=("Conv2DBackpropInput",), id="backprop_input_groups", **F32),
    # filter gradients
    *[Case(lambda x, dy, _s=s, _p=p, _f=f, _d=dil, _k=k: bind(
        nn_conv.CONV2D_FILTER, x, dy, filter_sizes=_k, strides=(1, 1) + _s if _f == "NCHW" else (1,) + _s + (1,),
        padding=_p if isinstance(_p, str) else "EXPLICIT",
        explicit_paddings=() if isinstance(_p, str) else (0, 0) + sum(_p, ()) + (0, 0),
        data_format=_f, dilations=(1, 1) + _d if _f == "NCHW" else (1,) + _d + (1,)),
        lambda x, dy, _s=s, _p=p, _f=f, _d=dil, _k=k: ref_conv_filter(x, dy, _k, _s, _d, _p, _f == "NCHW"),
        [(xs, ys)], FL2 if i == 0 else FL, ops=("Conv2DBackpropFilter",), id=f"conv2d_backprop_filter_{i}", **F32)
      for i, (xs, ys, k, s, p, f, dil) in enumerate([
          ((2, 6, 5, 3), (2, 6, 5, 4), (3, 3, 3, 4), (1, 1), "SAME", "NHWC", (1, 1)),
          ((1, 5, 6, 10), (1, 2, 4, 5), (2, 3, 10, 5), (2, 1), "VALID", "NHWC", (1, 1)),
          ((1, 6, 6, 9), (1, 3, 3, 2), (3, 3, 9, 2), (2, 2), "SAME", "NHWC", (2, 2)),
          ((2, 5, 6, 3), (2, 3, 3, 2), (3, 3, 3, 2), (2, 2), ((1, 2), (0, 1)), "NHWC", (1, 1)),
          ((1, 3, 6, 5), (1, 4, 6, 5), (3, 3, 3, 4), (1, 1), "SAME", "NCHW", (1, 1)),
          ((1, 4, 5, 4), (1, 4, 5, 6), (3, 3, 2, 6), (1, 1), "SAME", "NHWC", (1, 1)),  # grouped
      ])],
    Case(lambda x, dy: bind(nn_conv.CONV3D_FILTER, x, dy, filter_sizes=(2, 3, 2, 3, 2), strides=(1, 2, 1, 2, 1),
                            padding="SAME", explicit_paddings=(), data_format="NDHWC", dilations=(1, 1, 1, 1, 1)),
         lambda x, dy: ref_conv_filter(x, dy, (2, 3, 2, 3, 2), (2, 1, 2), (1, 1, 1), "SAME"),
         [((1, 4, 5, 4, 3), (1, 2, 5, 2, 2))], FL, ops=("Conv3DBackpropFilterV2",), id="conv3d_backprop_filter",
         **F32),
    Case(lambda x, dy: bind(nn_conv.CONV2D_FILTER, x, dy, filter_sizes=(3, 3, 3, 4), strides=(1, 1, 1, 1),
                            padding="SAME", explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)),
         lambda x, dy: ref_conv_filter(x, dy, (3, 3, 3, 4), (1, 1), (1, 1), "SAME"),
         [((2, 5, 5, 3), (2, 5, 5, 4))], ("float16", "bfloat16"), ops=("Conv2DBackpropFilter",),
         id="conv2d_backprop_filter_low_precision"),
    # depthwise and separable
    Case(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
         lambda x, w: ref_conv(x, dw_filter(w), (1, 1), (1, 1), "SAME"),
         [((2, 5, 6, 3), (3, 3, 3, 2)), ((1, 4, 4, 2), (2, 3, 2, 1))], FL, ops=("DepthwiseConv2dNative",),
         id="depthwise", **F32),
    Case(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 1], [0, 2], [0, 0]]),
         lambda x, w: ref_conv(x, dw_filter(w), (2, 2), (1, 1), [(1, 1), (0, 2)]),
         [((2, 5, 6, 3), (3, 2, 3, 3))], FL2, ops=("DepthwiseConv2dNative",), id="depthwise_strided_explicit", **F32),
    Case(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", "NCHW", [2, 1]),
         lambda x, w: ref_conv(x, dw_filter(w), (1, 1), (2, 1), "VALID", True),
         [((2, 3, 7, 6), (3, 3, 3, 2))], ("float32", "float16"), ops=("DepthwiseConv2dNative",),
         id="depthwise_nchw_dilated", **F32),
    Case(lambda x, w, p: tf.nn.separable_conv2d(x, w, p, [1, 2, 2, 1], "SAME"),
         lambda x, w, p: ref_conv(ref_conv(x, dw_filter(w), (2, 2), (1, 1), "SAME"), p, (1, 1), (1, 1), "VALID"),
         [((2, 6, 5, 3), (3, 3, 3, 2), (1, 1, 6, 4))], FL, ops=("DepthwiseConv2dNative", "Conv2D"), id="separable",
         **F32),
    Case(lambda w, dy: tf.nn.depthwise_conv2d_backprop_input([2, 5, 6, 3], w, dy, [1, 2, 2, 1], "SAME"),
         lambda w, dy: ref_conv_input(dy, dw_filter(w), (2, 5, 6, 3), (2, 2), (1, 1), "SAME"),
         [((3, 3, 3, 2), (2, 3, 3, 6)), ((2, 2, 3, 1), (2, 3, 3, 3))], FL,
         ops=("DepthwiseConv2dNativeBackpropInput",), id="depthwise_backprop_input", **F32),
    Case(lambda x, dy: tf.nn.depthwise_conv2d_backprop_filter(x, [3, 2, 3, 2], dy, [1, 1, 1, 1], "VALID",
                                                              dilations=[1, 2, 1, 1]),
         lambda x, dy: ref_conv_filter(x, dy, (3, 2, 1, 6), (1, 1), (2, 1), "VALID").reshape(3, 2, 3, 2),
         [((2, 7, 5, 3), (2, 3, 4, 6))], FL, ops=("DepthwiseConv2dNativeBackpropFilter",),
         id="depthwise_backprop_filter", **F32),
]


# --- errors ----------------------------------------------------------------------------------

X = lambda *s: tf.ones(s)  # noqa: E731
IAE = tf.errors.InvalidArgumentError

ERRORS = [
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 2, 4), 1, "SAME"), IAE,
        r"input depth must be evenly divisible by filter depth: 3 vs 2 \[Op:Conv2D\]"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 4), X(3, 3, 2, 3), 1, "SAME"), IAE,
        "output depth must be evenly divisible by number of groups: 3 vs 2"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, "FOO"), IAE,
        "Value for attr 'padding' of \"FOO\" is not in the list of allowed values"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, "same"), IAE, "attr 'padding'"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, "EXPLICIT"), ValueError,
        "'EXPLICIT' is not a valid value for `padding`"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, [[1, 2], [0, 1]]), ValueError,
        "When padding is a list, it must be of size 4"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, [[1, 0], [1, 2], [0, 1], [0, 0]]), IAE,
        "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, [[0, 0], [-1, 2], [0, 1], [0, 0]]), IAE,
        "All elements of explicit_paddings must be nonnegative"),
    Err(lambda: tf.nn.conv2d(X(5, 5, 3), X(3, 3, 3, 4), 1, "SAME"), IAE,
        r"convolution input must be 4-dimensional: \[5,5,3\]"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3), 1, "SAME"), IAE,
        r"convolution filter must be 4-dimensional: \[3,3,3\]"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), [1, 1, 1], "SAME"), ValueError,
        r"strides should be of length 1, 2 or 4. Received: strides=\[1, 1, 1\] of length 3"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), [2, 1, 1, 1], "SAME"), tf.errors.UnimplementedError,
        "does not yet support strides in the batch and depth dimensions"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), [1, 0, 1, 1], "SAME"), IAE,
        "strides should be larger than 0"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, "SAME", dilations=0), IAE,
        "Dilated rates should be larger than 0"),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), X(3, 3, 3, 4), 1, "SAME", data_format="NHCW"), IAE,
        "Value for attr 'data_format' of \"NHCW\""),
    Err(lambda: tf.nn.conv2d(X(2, 5, 5, 3), tf.ones([3, 3, 3, 4], tf.float64), 1, "SAME"), IAE,
        "cannot compute Conv2D as input #1"),
    Err(lambda: tf.nn.conv2d(tf.ones([2, 5, 5, 3], tf.int64), tf.ones([3, 3, 3, 4], tf.int64), 1, "SAME"), IAE,
        "Value for attr 'T' of int64 is not in the list of allowed values"),
    Err(lambda: tf.nn.conv1d(X(2, 7, 3), X(3, 2, 4), 1, "SAME"), IAE,
        "input depth must be evenly divisible by filter depth: 3 vs 2"),
    Err(lambda: tf.nn.conv1d(X(2, 7, 3), X(3, 3, 4), [1, 2], "SAME"), ValueError,
        "stride should be of length 1, 1 or 3"),
    Err(lambda: tf.nn.conv1d(X(2, 7, 3), X(3, 3, 4), 1, [[0, 0], [1, 1], [0, 0]]), TypeError,
        "Expected string for argument 'padding'"),
    Err(lambda: tf.nn.conv1d(X(2, 7, 3), X(3, 3, 4), 1, "SAME", data_format="NCHWX"), ValueError,
        "`data_format` must be 'NWC' or 'NCW'"),
    Err(lambda: tf.nn.conv3d(X(2, 5, 5, 5, 3), X(3, 3, 3, 2, 4), [1, 1, 1, 1, 1], "SAME"), IAE,
        r"Input depth must be evenly divisible by filter depth: 3 vs 2 \[Op:Conv3D\]"),
    Err(lambda: tf.nn.conv3d(X(2, 5, 5, 5, 3), X(3, 3, 3, 3, 4), 1, "SAME"), TypeError,
        "Expected list for 'strides' argument to 'conv3d' Op"),
    Err(lambda: tf.nn.conv3d(X(2, 5, 5, 5, 3), X(3, 3, 3, 3, 4), [1, 2, 2], "SAME"), IAE,
        "Length for attr 'strides' of 3 must be at least minimum 5"),
    Err(lambda: tf.nn.conv3d(X(5, 5, 5, 3), X(3, 3, 3, 3, 4), [1, 1, 1, 1, 1], "SAME"), IAE,
        "input must be 5-dimensional"),
    Err(lambda: tf.nn.convolution(X(1, 4, 4, 4, 4, 1), X(2, 2, 2, 2, 1, 1), padding="SAME"), ValueError,
        "`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims=4."),
    Err(lambda: tf.nn.convolution(X(2, 7, 7, 3), X(3, 3, 3, 4), strides=2, padding="SAME", dilations=2), ValueError,
        "`strides > 1` not supported in conjunction with `dilation_rate > 1`"),
    Err(lambda: tf.nn.convolution(X(2, 7, 7, 3), X(3, 3, 2, 4), padding="SAME"), IAE,
        "input depth must be evenly divisible by filter depth: 3 vs 2"),
    Err(lambda: tf.nn.conv2d_transpose(X(2, 5, 5, 3), X(3, 3, 4, 3), [2, 7, 7, 4], 2, "SAME"), IAE,
        "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 5, computed = 4 "
        r"spatial_dim: 1 input: 7 filter: 3 output: 5 stride: 2 dilation: 1 \[Op:Conv2DBackpropInput\]"),
    Err(lambda: tf.nn.conv2d_transpose(X(2, 5, 5, 3), X(3, 3, 4, 2), [2, 10, 10, 4], 2, "SAME"), IAE,
        "filter and out_backprop must have the same out_depth"),
    Err(lambda: tf.nn.conv2d_transpose(X(2, 5, 5, 3), X(3, 3, 4, 3), [3, 10, 10, 4], 2, "SAME"), IAE,
        "input and out_backprop must have the same batch size. Input batch: 3, outbackprop batch: 2"),
    Err(lambda: tf.nn.conv2d_transpose(X(2, 5, 5, 3), X(3, 3, 4, 3), [10, 10, 4], 2, "SAME"), IAE,
        "requires input_sizes to contain 4 values or 2 values, but got: 3"),
    Err(lambda: tf.nn.conv3d_transpose(X(2, 5, 5, 5, 3), X(3, 3, 3, 4, 3), [2, 7, 10, 10, 4], 2, "SAME"), IAE,
        "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed"),
    Err(lambda: tf.nn.conv_transpose(X(2, 5, 5, 5, 5, 3), X(3, 3, 3, 3, 4, 3), [2, 5, 5, 5, 5, 4], 1, "SAME"),
        ValueError, "`output_shape` must be of length 3, 4 or 5"),
    Err(lambda: bind(nn_conv.CONV2D_FILTER, X(2, 5, 5, 3), X(2, 4, 5, 4), filter_sizes=(3, 3, 3, 4),
                     strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                     dilations=(1, 1, 1, 1)), IAE,
        "Conv2DCustomBackpropFilter: Size of out_backprop doesn't match computed: actual = 4, computed = 5"),
    Err(lambda: bind(nn_conv.CONV2D_FILTER, tf.ones([2, 5, 5, 3], tf.int32), tf.ones([2, 5, 5, 4], tf.int32),
                     filter_sizes=(3, 3, 3, 4), strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(),
                     data_format="NHWC", dilations=(1, 1, 1, 1)), IAE, "Value for attr 'T' of int32"),
    Err(lambda: tf.nn.depthwise_conv2d(X(2, 5, 5, 3), X(3, 3, 2, 2), [1, 1, 1, 1], "SAME"), IAE,
        r"input and filter must have the same depth: 3 vs 2 \[Op:DepthwiseConv2dNative\]"),
    Err(lambda: tf.nn.depthwise_conv2d(X(2, 5, 5, 3), X(3, 3, 3, 2), 1, "SAME"), TypeError,
        "Expected list for 'strides' argument to 'depthwise_conv2d_native' Op"),
    Err(lambda: tf.nn.depthwise_conv2d(X(2, 5, 5, 3), X(3, 3, 3, 2), [2, 2], "SAME"), IAE,
        "Sliding window strides field must specify 4 dimensions"),
    Err(lambda: tf.nn.depthwise_conv2d(tf.ones([2, 5, 5, 3], tf.int32), tf.ones([3, 3, 3, 2], tf.int32),
                                       [1, 1, 1, 1], "SAME"), IAE, "Value for attr 'T' of int32"),
    Err(lambda: tf.nn.separable_conv2d(X(2, 5, 5, 3), X(3, 3, 3, 2), X(1, 1, 5, 7), [1, 1, 1, 1], "SAME"), IAE,
        "input depth must be evenly divisible by filter depth: 6 vs 5"),
    Err(lambda: tf.nn.separable_conv2d(X(2, 5, 5, 3), X(3, 3, 3, 2), X(2, 2, 6, 7), [1, 1, 1, 1], "SAME"),
        ValueError, "Dimensions 2 and 1 are not compatible"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# --- focused checks --------------------------------------------------------------------------

def test_gradient_ops_are_adjoints_of_conv2d():
    """<conv(x, w), dy> == <x, input_grad(w, dy)> == <w, filter_grad(x, dy)>, independently of the references."""
    rng = np.random.default_rng(1)
    for fmt, s, pad, dil, groups in [("NHWC", 2, "SAME", 1, 1), ("NCHW", 1, "VALID", 2, 1), ("NHWC", 1, "SAME", 1, 2),
                                     ("NHWC", 3, [[0, 0], [2, 1], [1, 0], [0, 0]], 1, 1)]:
        x = rng.standard_normal((2, 9, 8, 4) if fmt == "NHWC" else (2, 4, 9, 8))
        w = rng.standard_normal((3, 2, 4 // groups, 6))
        y = tf.nn.conv2d(x, w, s, pad, fmt, dil)
        dy = rng.standard_normal(y.shape)
        cf = fmt == "NCHW"
        pad_attr, ep = nn_conv.padding_arg(pad, 2)
        attrs = dict(strides=nn_conv.full_seq(s, 2, "strides", cf), padding=pad_attr, explicit_paddings=ep,
                     data_format=fmt, dilations=nn_conv.full_seq(dil, 2, "dilations", cf))
        dx = bind(nn_conv.CONV2D_INPUT, tf.constant(w), tf.constant(dy), input_sizes=x.shape, **attrs).numpy()
        dw = bind(nn_conv.CONV2D_FILTER, tf.constant(x), tf.constant(dy), filter_sizes=w.shape, **attrs).numpy()
        lhs = np.sum(y.numpy() * dy)
        np.testing.assert_allclose(np.sum(x * dx), lhs, rtol=1e-10)
        np.testing.assert_allclose(np.sum(w * dw), lhs, rtol=1e-10)


def test_conv2d_extra_batch_dims():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 5, 5, 2)).astype(np.float32)
    w = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    got = tf.nn.conv2d(x, w, 1, "SAME").numpy()
    want = ref_conv(x.reshape(6, 5, 5, 2), w, (1, 1), (1, 1), "SAME").reshape(2, 3, 5, 5, 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_low_precision_dtypes_preserved():
    x = tf.ones([1, 4, 4, 2], tf.bfloat16)
    assert tf.nn.conv2d(x, tf.ones([3, 3, 2, 2], tf.bfloat16), 1, "SAME").dtype == tf.bfloat16
    assert tf.nn.conv2d(tf.ones([1, 4, 4, 2], tf.float16), tf.ones([3, 3, 2, 2], tf.float16), 1, "SAME").numpy(
    ).dtype == np.float16
    assert ml_dtypes.bfloat16 == tf.bfloat16.as_numpy_dtype
test_compiled = compiled_tests(CASES)
