"""Transposed, depthwise and separable convolutions: ``tf.nn.conv{1,2,3}d_transpose``, ``conv_transpose``,
``atrous_conv2d_transpose``, ``depthwise_conv2d`` (and its backprops) and ``separable_conv2d``.

They bind the ops declared in ``nn_conv`` (the transposed convolutions are TF's ``Conv*BackpropInput`` ops).
"""

from __future__ import annotations

from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.nn_conv_kernels import shape_of, spatial_axes
from tensorlet._src.ops.registry import bind, tf_export


# --- public: transposed convolutions ------------------------------------------------------------

def _output_shape(output_shape):
    from tensorlet._src.ops._helpers import to_shape_tuple

    return to_shape_tuple(output_shape)


def _transpose_nd(op, x, w, nd, output_shape, strides, padding, data_format, dilations, allow_explicit):
    cf = data_format.startswith("NC")
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    pad, ep = padding_arg(padding, nd, allow_explicit)
    sizes = _output_shape(output_shape)
    if len(sizes) == nd:  # spatial sizes only (TF accepts 2 values for Conv2DBackpropInput)
        full = [shape_of(x)[0]] + [None] * (nd + 1)
        for a, n in zip(spatial_axes(nd, cf), sizes):
            full[a] = n
        full[1 if cf else -1] = shape_of(w)[-2]
        sizes = tuple(full)
    elif len(sizes) != nd + 2:
        raise errors.invalid_argument(op.name, f"{op.name} requires input_sizes to contain {nd + 2} values or "
                                               f"{nd} values, but got: {len(sizes)}")
    return bind(op, w, x, input_sizes=sizes, strides=s, padding=pad, explicit_paddings=ep, data_format=data_format,
                dilations=d)


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (input gradient) of conv2d; filters are [height, width, out_channels, in_channels].

    >>> conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 4, 1]), [1, 4, 4, 4], 2).shape
    TensorShape([1, 4, 4, 4])
    """
    w, x = same_dtype("Conv2DBackpropInput", filters, input)
    return _transpose_nd(CONV2D_INPUT, x, w, 2, output_shape, strides, padding, data_format or "NHWC", dilations,
                         True)


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv3d; filters are [depth, height, width, out_channels, in_channels]."""
    w, x = same_dtype("Conv3DBackpropInputV2", filters, input)
    return _transpose_nd(CONV3D_INPUT, x, w, 3, output_shape, strides, padding, data_format or "NDHWC", dilations,
                         False)


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d; filters are [width, out_channels, in_channels]."""
    from tensorlet._src.ops.indexing import getitem

    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    cf = data_format == "NCW"
    w, x = same_dtype("Conv2DBackpropInput", filters, input)
    s, d = _seq1(strides, "strides", cf), _seq1(dilations, "dilations", cf)
    sizes = list(_output_shape(output_shape))
    if len(sizes) != 3:
        raise ValueError(f"`output_shape` must be of length 3. Received: output_shape={sizes}")
    sizes.insert(2 if cf else 1, 1)
    x2 = getitem(x, (Ellipsis, None, slice(None)) if cf else (Ellipsis, None, slice(None), slice(None)))
    out = _transpose_nd(CONV2D_INPUT, x2, getitem(w, (None,)), 2, sizes, [1, s], padding,
                        "NCHW" if cf else "NHWC", [1, d], False)
    return getitem(out, (Ellipsis, 0, slice(None)) if cf else (Ellipsis, 0, slice(None), slice(None)))


@tf_export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """N-D transposed convolution (N from the length of ``output_shape``: 3, 4 or 5)."""
    sizes = _output_shape(output_shape)
    n = len(sizes)
    if n not in (3, 4, 5):
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={list(sizes)} of "
                         f"length {n}.")
    fn = {3: conv1d_transpose, 4: conv2d_transpose, 5: conv3d_transpose}[n]
    fmt = data_format or {3: "NWC", 4: "NHWC", 5: "NDHWC"}[n]
    return fn(input, filters, sizes, 1 if strides is None else strides, padding, fmt, dilations)


@tf_export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d (NHWC)."""
    if int(static(rate)) < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    return conv2d_transpose(value, filters, output_shape, 1, padding, dilations=int(static(rate)))


# --- public: depthwise and separable -----------------------------------------------------------

def _depthwise_attrs(strides, padding, data_format, dilations):
    v = static(strides)
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.")
    s = tuple(_as_list(v))
    fmt = data_format or "NHWC"
    cf = fmt.startswith("NC")
    d = full_seq(dilations, 2, "dilations", cf)
    pad, ep = padding_arg(padding, 2)
    return dict(strides=s, padding=pad, explicit_paddings=ep, data_format=fmt, dilations=d)


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: filter [height, width, in_channels, multiplier] -> in_channels * multiplier outputs.

    >>> depthwise_conv2d(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 2, 3]), [1, 1, 1, 1], "SAME").shape
    TensorShape([1, 4, 4, 6])
    """
    x, w = same_dtype("DepthwiseConv2dNative", input, filter)
    return bind(DEPTHWISE, x, w, **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.depthwise_conv2d_backprop_input")
def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d with respect to its input."""
    w, dy = same_dtype("DepthwiseConv2dNativeBackpropInput", filter, out_backprop)
    sizes = _output_shape(input_sizes)
    return bind(DEPTHWISE_INPUT, w, dy, input_sizes=sizes,
                **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.depthwise_conv2d_backprop_filter")
def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d with respect to its filter."""
    x, dy = same_dtype("DepthwiseConv2dNativeBackpropFilter", input, out_backprop)
    return bind(DEPTHWISE_FILTER, x, dy, filter_sizes=_output_shape(filter_sizes),
                **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """depthwise_conv2d followed by a 1x1 conv2d with pointwise_filter [1, 1, in*multiplier, out]."""
    pw = t(pointwise_filter)
    ps = shape_of(pw)
    if len(ps) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(ps)}")
    for i in (0, 1):
        if ps[i] != 1:
            raise ValueError(f"Dimensions {ps[i]} and 1 are not compatible")
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(y, pw, 1, "VALID", data_format or "NHWC")


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops.nn_conv import (  # noqa: E402
    CONV2D_INPUT,
    CONV3D_INPUT,
    DEPTHWISE,
    DEPTHWISE_FILTER,
    DEPTHWISE_INPUT,
    _as_list,
    _seq1,
    conv2d,
    full_seq,
    padding_arg,
)
