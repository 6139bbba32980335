"""Convolutions: ``tf.nn.conv1d/2d/3d``, ``convolution`` and ``atrous_conv2d``, their ops and gradients.

The primitives are TF's ops (``Conv2D``, ``Conv3D``, ``DepthwiseConv2dNative`` and their
``Backprop{Input,Filter}`` ops, which are also the transposed convolutions and the
gradients).  Their attrs mirror TF's: full-rank ``strides``/``dilations``, ``padding`` of
``"SAME"``, ``"VALID"`` or ``"EXPLICIT"`` with ``explicit_paddings``, and ``data_format``;
``input_sizes``/``filter_sizes`` (tensors in TF) are static attrs here.  The kernels live in
``nn_conv_kernels``; the transposed, depthwise and separable convolutions' public functions
in ``nn_conv_transpose`` (imported at the bottom).
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.nn_conv_kernels import (  # noqa: F401  (geometry re-exported for nn_pool and tests)
    conv_filter_kernel,
    conv_input_kernel,
    conv_kernel,
    dw_filter_kernel,
    dw_input_kernel,
    dw_kernel,
    from_last,
    geom,
    jax_conv,
    jax_conv_filter,
    jax_conv_input,
    jax_dw,
    jax_dw_filter,
    jax_dw_input,
    jit_lowering,
    known,
    out_size,
    pad_spatial,
    pads_for,
    positions,
    same_pads,
    shape_of,
    spatial_axes,
    to_last,
    window_out_dims,
)
from tensorlet._src.ops import grad_utils
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

D = _dt
CONV_TYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32)
FLOAT_TYPES = (D.float16, D.bfloat16, D.float32, D.float64)


# --- checks (TF's errors) --------------------------------------------------------------------

def _bad_attr(op, attr, value, allowed):
    listed = ", ".join(f'"{a}"' for a in allowed)
    return errors.invalid_argument(op, f'Value for attr \'{attr}\' of "{value}" is not in the list of allowed '
                                       f"values: {listed}")


def check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, formats, paddings,
                what="strides"):
    """Validate TF's window attrs (shared with pooling); ``what`` names the stride-like attr."""
    if padding not in paddings:
        raise _bad_attr(op, "padding", padding, paddings)
    if data_format not in formats:
        raise _bad_attr(op, "data_format", data_format, formats)
    n = nd + 2
    cf = data_format.startswith("NC")
    c_ax = 1 if cf else n - 1
    for name, v in ((what, strides), ("dilations", dilations)):
        if v is None:
            continue
        if len(v) != n:
            raise errors.invalid_argument(op, f"Sliding window {name} field must specify {n} dimensions")
        if v[0] != 1 or v[c_ax] != 1:
            kind = "strides" if name == what else "dilations"
            raise errors.op_error(errors.UnimplementedError, op, f"Current implementation does not yet support "
                                                                 f"{kind} in the batch and depth dimensions.")
        if any(v[a] <= 0 for a in spatial_axes(nd, cf)):
            msg = "Row and column strides should be larger than 0." if name == what else \
                "Dilated rates should be larger than 0."
            raise errors.invalid_argument(op, msg)
    if padding == "EXPLICIT":
        check_explicit_paddings(op, explicit_paddings, n, c_ax)


def check_explicit_paddings(op, ep, n, c_ax):
    """TF's checks on ``explicit_paddings`` (shared by convolution and pooling)."""
    if len(ep) != 2 * n:
        raise errors.invalid_argument(op, f"explicit_paddings attribute must contain {2 * n} values, but "
                                          f"got: {len(ep)}")
    if any(p < 0 for p in ep):
        raise errors.invalid_argument(op, "All elements of explicit_paddings must be nonnegative")
    if ep[0] or ep[1] or ep[2 * c_ax] or ep[2 * c_ax + 1]:
        raise errors.invalid_argument(op, "Nonzero explicit padding in the batch or depth dimensions is not "
                                          "supported")


_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
_PAD2 = ("SAME", "VALID", "EXPLICIT")
_PAD3 = ("SAME", "VALID")


def _rank_error(op, nd, what, shape):
    n = nd + 2
    if nd == 2:
        return errors.invalid_argument(op, f"convolution {what} must be {n}-dimensional: {errors.shape_str(shape)}")
    return errors.invalid_argument(op, f"{what} must be {n}-dimensional: {errors.shape_str(shape)}")


def _channels(op, data_format, x_shape, k_shape, depthwise=False):
    cf = data_format.startswith("NC")
    c = x_shape[1 if cf else -1]
    ci, co = k_shape[-2], k_shape[-1]
    if None in (c, ci, co):
        return
    if depthwise:
        if c != ci:
            raise errors.invalid_argument(op, f"input and filter must have the same depth: {c} vs {ci}")
        return
    word = "Input" if op.startswith("Conv3D") else "input"
    if ci == 0 or c % ci:
        raise errors.invalid_argument(op, f"{word} depth must be evenly divisible by filter depth: {c} vs {ci}")
    groups = c // ci
    if co % groups:
        raise errors.invalid_argument(op, f"output depth must be evenly divisible by number of groups: "
                                          f"{co} vs {groups}")


def _conv_check(op, nd, depthwise=False):
    pads = _PAD2 if nd == 2 else _PAD3

    def check(x, w, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        xs, ws = shape_of(x), shape_of(w)
        if len(xs) != nd + 2:
            raise _rank_error(op, nd, "input", xs)
        if len(ws) != nd + 2:
            raise _rank_error(op, nd, "filter", ws)
        check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, _FORMATS[nd], pads)
        _channels(op, data_format, xs, ws, depthwise)
    return check


def _conv_shape(op, nd, depthwise=False):
    """The traced output shape: the checks above, then the window arithmetic (None where a size is unknown)."""
    check = _conv_check(op, nd, depthwise)

    def rule(x, w, **attrs):
        if x.shape.rank is None or w.shape.rank is None:
            return Spec(TensorShape(None), x.dtype)
        check(x, w, **attrs)
        ws = w.shape.as_list()
        co = (None if None in ws[-2:] else ws[-2] * ws[-1]) if depthwise else ws[-1]
        dims = window_out_dims(x.shape.as_list(), ws[:nd], co, attrs["strides"], attrs["padding"],
                               attrs.get("explicit_paddings", ()), attrs.get("data_format") or "NHWC",
                               attrs.get("dilations"))
        return Spec(TensorShape(dims), x.dtype)
    return rule


def _mismatch(op, prefix, dim, actual, computed, n, k, o, s, d):
    return errors.invalid_argument(op, f"{prefix}Size of out_backprop doesn't match computed: actual = {actual}, "
                                       f"computed = {computed} spatial_dim: {dim} input: {n} filter: {k} "
                                       f"output: {o} stride: {s} dilation: {d}")


def _check_backprop(op, prefix, nd, x_shape, k_shape, dy_shape, strides, padding, explicit_paddings, data_format,
                    dilations, depthwise):
    pads = _PAD2 if nd == 2 else _PAD3
    if len(x_shape) != nd + 2:
        raise errors.invalid_argument(op, f"input_sizes must be {nd + 2}-dimensional, got: {len(x_shape)}")
    if len(k_shape) != nd + 2:
        raise errors.invalid_argument(op, f"{prefix}filter must be {nd + 2}-dimensional")
    if len(dy_shape) != nd + 2:
        raise errors.invalid_argument(op, f"{prefix}out_backprop must be {nd + 2}-dimensional")
    check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, _FORMATS[nd], pads)
    if not known(x_shape, k_shape, dy_shape):
        return
    cf = data_format.startswith("NC")
    c_ax = 1 if cf else nd + 1
    if x_shape[0] != dy_shape[0]:
        raise errors.invalid_argument(op, f"{prefix}input and out_backprop must have the same batch size. Input "
                                          f"batch: {x_shape[0]}, outbackprop batch: {dy_shape[0]}, batch_dim: 0")
    co = k_shape[-1] * (k_shape[-2] if depthwise else 1)
    if co != dy_shape[c_ax]:
        raise errors.invalid_argument(op, f"{prefix}filter and out_backprop must have the same out_depth")
    c, ci = x_shape[c_ax], k_shape[-2]
    if depthwise and c != ci:
        raise errors.invalid_argument(op, f"{prefix}input and filter must have the same depth: {c} vs {ci}")
    if not depthwise and (ci == 0 or c % ci or co % (c // ci)):
        raise errors.invalid_argument(op, f"{prefix}input depth must be evenly divisible by filter depth")
    _, sizes, s, d, pd = geom(x_shape, tuple(k_shape[:nd]), strides, padding, explicit_paddings, data_format,
                               dilations)
    for i, a in enumerate(spatial_axes(nd, cf)):
        o = out_size(sizes[i], k_shape[i], s[i], d[i], *pd[i])
        if o != dy_shape[a]:
            raise _mismatch(op, prefix, a, dy_shape[a], o, sizes[i], k_shape[i], dy_shape[a], s[i], d[i])


def _input_check(op, prefix, nd, depthwise=False):
    def check(w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        _check_backprop(op, prefix, nd, tuple(input_sizes), shape_of(w), shape_of(dy), strides, padding,
                        explicit_paddings, data_format, dilations, depthwise)
    return check


def _filter_check(op, prefix, nd, depthwise=False):
    def check(x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        xs = shape_of(x)
        if len(xs) != nd + 2:
            raise errors.invalid_argument(op, f"{prefix}input must be {nd + 2}-dimensional")
        _check_backprop(op, prefix, nd, xs, tuple(filter_sizes), shape_of(dy), strides, padding,
                        explicit_paddings, data_format, dilations, depthwise)
    return check


# --- the primitives and their gradients -------------------------------------------------------------
# TF's nn_grad.py: a convolution y = conv(x, w) is bilinear and its two backprop ops are its adjoints in x and in
# w, so each op of a (forward, input backprop, filter backprop) triple is differentiated with the other two, under
# the same window attrs.  The shapes passed as input_sizes/filter_sizes are the static shapes of the inputs.

def _fwd_grad(inp_op, flt_op, g, x, w, attrs):
    """d conv(x, w) -> (input backprop of g, filter backprop of g); a backprop the tape does not want (a model's
    input image, a frozen filter: ``grad_utils.wanted``) is not computed."""
    return (bind(inp_op, w, g, input_sizes=shape_of(x), **attrs) if grad_utils.wanted(0) else None,
            bind(flt_op, x, g, filter_sizes=shape_of(w), **attrs) if grad_utils.wanted(1) else None)


def _input_grad(conv_op, flt_op, g, w, dy, attrs):
    """d input_backprop(w, dy) -> (filter: filter backprop of (g, dy), out_backprop: conv(g, w))."""
    return bind(flt_op, g, dy, filter_sizes=shape_of(w), **attrs), bind(conv_op, g, w, **attrs)


def _filter_grad(conv_op, inp_op, g, x, dy, attrs):
    """d filter_backprop(x, dy) -> (input: input backprop of (g, dy), out_backprop: conv(x, g))."""
    return bind(inp_op, g, dy, input_sizes=shape_of(x), **attrs), bind(conv_op, x, g, **attrs)


J = jit_lowering

CONV2D = defop("Conv2D", conv_kernel, jax_impl=jax_conv, dtypes=CONV_TYPES, check=_conv_check("Conv2D", 2), heavy=True,
               shape=_conv_shape("Conv2D", 2),
               grad=lambda g, ans, x, w, **a: _fwd_grad(CONV2D_INPUT, CONV2D_FILTER, g, x, w, a))
CONV2D_INPUT = defop("Conv2DBackpropInput", conv_input_kernel, jax_impl=J(jax_conv_input), dtypes=CONV_TYPES,
                     heavy=True,
                     check=_input_check("Conv2DBackpropInput", "Conv2DCustomBackpropInput: ", 2),
                     grad=lambda g, ans, w, dy, input_sizes, **a: _input_grad(CONV2D, CONV2D_FILTER, g, w, dy, a))
CONV2D_FILTER = defop("Conv2DBackpropFilter", conv_filter_kernel, jax_impl=J(jax_conv_filter), dtypes=FLOAT_TYPES,
                      heavy=True,
                      check=_filter_check("Conv2DBackpropFilter", "Conv2DCustomBackpropFilter: ", 2),
                      grad=lambda g, ans, x, dy, filter_sizes, **a: _filter_grad(CONV2D, CONV2D_INPUT, g, x, dy, a))
CONV3D = defop("Conv3D", conv_kernel, jax_impl=jax_conv, dtypes=FLOAT_TYPES, check=_conv_check("Conv3D", 3), heavy=True,
               shape=_conv_shape("Conv3D", 3),
               grad=lambda g, ans, x, w, **a: _fwd_grad(CONV3D_INPUT, CONV3D_FILTER, g, x, w, a))
CONV3D_INPUT = defop("Conv3DBackpropInputV2", conv_input_kernel, jax_impl=J(jax_conv_input), dtypes=FLOAT_TYPES,
                     check=_input_check("Conv3DBackpropInputV2", "Conv3DBackpropInputOp: ", 3),
                     grad=lambda g, ans, w, dy, input_sizes, **a: _input_grad(CONV3D, CONV3D_FILTER, g, w, dy, a))
CONV3D_FILTER = defop("Conv3DBackpropFilterV2", conv_filter_kernel, jax_impl=J(jax_conv_filter), dtypes=FLOAT_TYPES,
                      check=_filter_check("Conv3DBackpropFilterV2", "Conv3DBackpropFilterOp: ", 3),
                      grad=lambda g, ans, x, dy, filter_sizes, **a: _filter_grad(CONV3D, CONV3D_INPUT, g, x, dy, a))
DEPTHWISE = defop("DepthwiseConv2dNative", dw_kernel, heavy=True, jax_impl=J(jax_dw), dtypes=FLOAT_TYPES,
                  check=_conv_check("DepthwiseConv2dNative", 2, depthwise=True),
                  shape=_conv_shape("DepthwiseConv2dNative", 2, depthwise=True),
                  grad=lambda g, ans, x, w, **a: _fwd_grad(DEPTHWISE_INPUT, DEPTHWISE_FILTER, g, x, w, a))
DEPTHWISE_INPUT = defop("DepthwiseConv2dNativeBackpropInput", dw_input_kernel, jax_impl=J(jax_dw_input),
                        dtypes=FLOAT_TYPES,
                        check=_input_check("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2DBackpropInput: ",
                                           2, depthwise=True),
                        grad=lambda g, ans, w, dy, input_sizes, **a: _input_grad(DEPTHWISE, DEPTHWISE_FILTER, g, w,
                                                                                 dy, a))
DEPTHWISE_FILTER = defop("DepthwiseConv2dNativeBackpropFilter", dw_filter_kernel, jax_impl=J(jax_dw_filter),
                         dtypes=FLOAT_TYPES,
                         check=_filter_check("DepthwiseConv2dNativeBackpropFilter",
                                             "DepthwiseConv2DBackpropFilter: ", 2, depthwise=True),
                         grad=lambda g, ans, x, dy, filter_sizes, **a: _filter_grad(DEPTHWISE, DEPTHWISE_INPUT, g, x,
                                                                                    dy, a))
SKIPS = (CONV2D, CONV3D, DEPTHWISE)  # forward convolutions: their gradients skip what the tape does not want
grad_utils.SKIPS_UNWANTED.update(SKIPS)


# --- argument normalization (TF's python layer) -------------------------------------------------

def _as_list(v):
    v = static(v)
    if isinstance(v, (list, tuple)):
        return [int(static(e)) for e in v]
    return [int(v)]


def full_seq(v, nd, name, channels_first, default=1):
    """TF's _get_sequence: an int or a list of 1, nd or nd+2 values -> a list of nd+2 values."""
    if v is None:
        v = default
    vals = _as_list(v)
    n = len(vals)
    if n == nd + 2:
        return tuple(vals)
    if n == 1:
        vals = vals * nd
    elif n != nd:
        raise ValueError(f"{name} should be of length 1, {nd} or {nd + 2}. Received: {name}={static(v)} of "
                         f"length {n}")
    out = [1] * (nd + 2)
    for a, e in zip(spatial_axes(nd, channels_first), vals):
        out[a] = e
    return tuple(out)


def padding_arg(padding, nd, allow_explicit=True):
    """(padding string, explicit_paddings) from TF's ``padding`` argument (a string or a list of pairs)."""
    if isinstance(padding, str):
        if padding == "EXPLICIT":
            raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` "
                             "must be a list.")
        return padding, ()
    if isinstance(padding, bytes):
        return padding_arg(padding.decode(), nd, allow_explicit)
    if not allow_explicit:
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    pairs = static(padding)
    if len(pairs) != nd + 2:
        raise ValueError(f"When padding is a list, it must be of size {nd + 2}. Received: padding={pairs} of size "
                         f"{len(pairs)}")
    flat = []
    for p in pairs:
        p = _as_list(p)
        if len(p) != 2:
            raise ValueError(f"Each element of padding must be a list/tuple of size 2. Received: padding={pairs}")
        flat += p
    return "EXPLICIT", tuple(flat)


def _reshape(x, shape):
    from tensorlet._src.ops import array_shape

    return array_shape.reshape(x, shape)


def _conv_nd(op, x, w, nd, strides, padding, data_format, dilations):
    """Bind a forward conv op; input ranks above nd+2 fold the extra leading dims into the batch (TF)."""
    cf = data_format.startswith("NC") if isinstance(data_format, str) else False
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    pad, ep = padding_arg(padding, nd, allow_explicit=nd == 2)
    attrs = dict(strides=s, padding=pad, explicit_paddings=ep, data_format=data_format, dilations=d)
    xs = shape_of(x)
    if len(xs) > nd + 2 and None not in xs:
        inner = xs[-(nd + 1):]
        out = bind(op, _reshape(x, (-1,) + inner), w, **attrs)
        return _reshape(out, xs[:-(nd + 1)] + shape_of(out)[1:])
    return bind(op, x, w, **attrs)


# --- public: forward convolutions ------------------------------------------------------------

@tf_export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution with filters [height, width, in_channels, out_channels].

    >>> conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    x, w = same_dtype("Conv2D", input, filters)
    return _conv_nd(CONV2D, x, w, 2, strides, padding, data_format or "NHWC", dilations)


@tf_export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution with filters [depth, height, width, in_channels, out_channels] (strides: a list of 5).

    >>> conv3d(tf.ones([1, 3, 3, 3, 1]), tf.ones([2, 2, 2, 1, 1]), [1, 1, 1, 1, 1], "VALID").shape
    TensorShape([1, 2, 2, 2, 1])
    """
    x, w = same_dtype("Conv3D", input, filters)
    for name_, v in (("strides", strides), ("dilations", dilations)):
        if v is not None and not isinstance(static(v), (list, tuple)):
            raise TypeError(f"Expected list for '{name_}' argument to 'conv3d' Op, not {v!r}.")
    s = _as_list(strides)
    if len(s) < 5:
        raise errors.invalid_argument("Conv3D", f"Length for attr 'strides' of {len(s)} must be at least minimum 5")
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return _conv_nd(CONV3D, x, w, 3, s, padding, data_format or "NDHWC", dilations)


def _conv1d_format(data_format):
    if data_format is None or data_format in ("NWC", "NHWC"):
        return "NWC"
    if data_format in ("NCW", "NCHW"):
        return "NCW"
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")


def _seq1(v, name, cf):
    vals = _as_list(1 if v is None else v)
    if len(vals) == 3:
        return vals[2] if cf else vals[1]
    if len(vals) != 1:
        raise ValueError(f"{name} should be of length 1, 1 or 3. Received: {name}={static(v)} of length "
                         f"{len(vals)}")
    return vals[0]


@tf_export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution with filters [width, in_channels, out_channels]; runs as Conv2D over a unit height.

    >>> conv1d(tf.ones([1, 5, 1]), tf.ones([3, 1, 2]), 1, "SAME").shape
    TensorShape([1, 5, 2])
    """
    from tensorlet._src.ops.indexing import getitem

    fmt = _conv1d_format(data_format)
    cf = fmt == "NCW"
    x, w = same_dtype("Conv2D", input, filters)
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    s, d = _seq1(stride, "stride", cf), _seq1(dilations, "dilations", cf)
    # [..., W, C] -> [..., 1, W, C] (NWC) or [..., C, W] -> [..., C, 1, W] (NCW); filter [1, K, C, O]
    x2 = getitem(x, (Ellipsis, None, slice(None)) if cf else (Ellipsis, None, slice(None), slice(None)))
    w2 = getitem(w, (None,))
    out = _conv_nd(CONV2D, x2, w2, 2, [1, s], padding, "NCHW" if cf else "NHWC", [1, d])
    return getitem(out, (Ellipsis, 0, slice(None)) if cf else (Ellipsis, 0, slice(None), slice(None)))


@tf_export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """N-D convolution (N = rank(filters) - 2, 1 to 3): conv1d, conv2d or conv3d.

    >>> convolution(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 2]), padding="SAME").shape
    TensorShape([1, 5, 5, 2])
    """
    x, w = t(input), t(filters)
    nd = w.ndim - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={nd}.")
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    cf = data_format is not None and data_format.startswith("NC")
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    sp = spatial_axes(nd, cf)
    if any(s[a] > 1 for a in sp) and any(d[a] > 1 for a in sp):
        ss = " ".join(str(s[a]) for a in sp)
        ds = " ".join(str(d[a]) for a in sp)
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides=[{ss}] and dilation_rate=[{ds}]")
    fmt = data_format or {1: "NWC", 2: "NHWC", 3: "NDHWC"}[nd]
    if nd == 1:
        return conv1d(x, w, s, padding, fmt, d)
    if nd == 2:
        return conv2d(x, w, s, padding, fmt, d)
    return conv3d(x, w, list(s), padding, fmt, list(d))


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with dilation ``rate`` (NHWC)."""
    if int(static(rate)) < 1:
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate=[{rate} {rate}]")
    return conv2d(value, filters, 1, padding, dilations=int(static(rate)))
