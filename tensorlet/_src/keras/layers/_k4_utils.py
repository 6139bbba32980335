"""Argument validation and shape arithmetic shared by the convolution, pooling, reshaping and normalization layers
(Keras 3's wording for the errors).
"""

from __future__ import annotations


from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops import array_shape
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_shape import transpose
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast, greater_equal
from tensorlet._src.ops.random_stateless import stateless_normal, stateless_uniform
from tensorlet._src.keras import backend


def standardize_tuple(value, n, name, allow_zero=False):
    """An int or an iterable of n ints -> a tuple of n ints (Keras's errors)."""
    msg = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(msg) from None
        if len(values) != n:
            raise ValueError(msg)
        for v in values:
            try:
                int(v)
            except (ValueError, TypeError):
                raise ValueError(msg + f"including element {v} of type {type(v)}") from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        req = ">= 0" if allow_zero else "> 0"
        raise ValueError(msg + f", including values {bad} that do not satisfy `value {req}`")
    return values


def standardize_padding(value, allow_causal=False):
    if isinstance(value, (list, tuple)):
        return value
    padding = str(value).lower()
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {allowed}. Received: {padding}")
    return padding


def standardize_data_format(data_format):
    return backend.standardize_data_format(data_format)


def tf_format(data_format, rank):
    """TF's data format string for a channels_first/last tensor of ``rank`` spatial dims."""
    cl = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[rank]
    return cl if data_format == "channels_last" else "NC" + cl[1:-1]


def conv_output_shape(input_shape, filters, kernel_size, strides, padding, data_format, dilation_rate):
    """Keras's output shape of a convolution (None spatial dims stay None); errors as Keras's."""
    input_shape = tuple(input_shape)
    cl = data_format == "channels_last"
    spatial = input_shape[1:-1] if cl else input_shape[2:]
    kernel_shape = tuple(kernel_size) + ((input_shape[-1] if cl else input_shape[1]), filters)
    if len(kernel_shape) != len(input_shape):
        raise ValueError(f"Kernel shape must have the same length as input, but received kernel of shape "
                         f"{kernel_shape} and input of shape {input_shape}.")
    out = []
    for n, k, s, d in zip(spatial, kernel_size, strides, dilation_rate):
        if n is None:
            out.append(None)
        elif padding == "valid":
            o = (n - d * (k - 1) - 1) // s + 1
            if o <= 0:
                raise ValueError(
                    f"Computed output size would be zero or negative. Received `inputs shape={input_shape}`, "
                    f"`kernel shape={kernel_shape}`, `dilation_rate=[{' '.join(str(v) for v in dilation_rate)}]`, "
                    f"`strides={tuple(strides)}`, `padding={padding}`.")
            out.append(o)
        else:
            out.append((n - 1) // s + 1)
    out = tuple(out)
    if filters is None:  # pooling / depthwise callers fill channels themselves
        return out
    return (input_shape[0],) + out + (filters,) if cl else (input_shape[0], filters) + out


def deconv_length(n, k, s, padding, output_padding, d):
    """Keras's transposed-convolution output length along one dim."""
    if n is None:
        return None
    k = (k - 1) * d + 1
    if padding == "valid":
        op = max(k, s) - k if output_padding is None else output_padding
        return (n - 1) * s + k + op
    if output_padding is None:
        return n * s
    return (n - 1) * s + k % 2 + output_padding


def to_channels_last(x, rank):
    return transpose(x, [0] + list(range(2, rank + 2)) + [1])


def to_channels_first(x, rank):
    return transpose(x, [0, rank + 1] + list(range(1, rank + 1)))


def static_or_dynamic_shape(x):
    """x's shape as a list: Python ints where known, scalar tensors where not."""
    shape = list(x.shape)
    if None in shape:
        dyn = array_shape.shape(x)
        shape = [dyn[i] if v is None else v for i, v in enumerate(shape)]
    return shape


def shape(x):
    """x's shape as a tuple of ints when fully known (so ops get static shapes while tracing), else tf.shape(x)."""
    s = tuple(x.shape)
    return s if None not in s else array_shape.shape(x)


def dim(x, axis):
    """x.shape[axis] when known, else the scalar tensor tf.shape(x)[axis]."""
    d = x.shape[axis]
    return d if d is not None else array_shape.shape(x)[axis]


def cast_like(v, x):
    """A weight read as a tensor in the computation dtype of x (mixed precision casts)."""
    v = convert_to_tensor(v)
    return v if v.dtype == x.dtype else cast(v, x.dtype)


def normalize_axes(axis, rank):
    axes = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a + rank if a < 0 else a for a in axes)


def check_axes(axis, input_shape):
    for a in ([axis] if isinstance(axis, int) else axis):
        if a >= len(input_shape) or a < -len(input_shape):
            raise ValueError(f"Axis {a} is out of bounds for input shape {tuple(input_shape)}. Received: axis={axis}")


def dropout(x, rate, seed_generator, noise_shape=None):
    """Inverted dropout with a stateless draw seeded by a keras SeedGenerator (graph-ready)."""
    u = stateless_uniform(shape(x) if noise_shape is None else noise_shape, seed=seed_generator.next(),
                                   dtype=x.dtype)
    keep = greater_equal(u, cast(rate, x.dtype))
    return where(keep, x / cast(1.0 - rate, x.dtype), zeros_like(x))


def normal(shape, seed_generator, dtype, mean=0.0, stddev=1.0):
    return stateless_normal(shape, seed=seed_generator.next(), mean=mean, stddev=stddev, dtype=dtype)


def uniform(shape, seed_generator, dtype, minval=0.0, maxval=1.0):
    return stateless_uniform(shape, seed=seed_generator.next(), minval=minval, maxval=maxval, dtype=dtype)


def seed_generator(layer, seed):
    """A keras SeedGenerator registered on the layer (so ``layer.variables`` holds its state)."""
    from tensorlet._src.keras.random import SeedGenerator

    gen = SeedGenerator(seed=seed)
    layer._seed_generators.append(gen)
    return gen
