"""The ``tf.image`` functions input pipelines use that the core image family does not have: HSV/YIQ/YUV
conversions, hue and saturation, random and stateless-random crops/flips/brightness/contrast/hue/saturation,
JPEG-quality augmentation and Sobel edges.

All are composites of tensorlet ops (so they trace into ``tf.function`` / ``Dataset.map`` graphs); the
stateful ``random_*`` draw from ``tf.random.uniform`` with TF's seed rules and the ``stateless_random_*``
from ``tf.random.stateless_uniform(seed=[a, b])``, the same draws TF makes.  ``tf.image`` is loaded with
``import tensorlet``, so this module imports only what the core already loaded.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.image_ops import adjust_brightness, adjust_contrast, convert_image_dtype
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops import array_shape, array_select, creation, math_unary
from tensorlet._src.ops.array_shape import get_static_value, reshape
from tensorlet._src.ops.array_identity import stop_gradient
from tensorlet._src.ops.math_einsum import tensordot
from tensorlet._src.ops.array_select import where, reverse
from tensorlet._src.ops.array_blocks import concat, pad, stack
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import cast, divide_no_nan, equal, floormod, maximum, minimum
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import floor
from tensorlet._src.ops.nn_conv_transpose import depthwise_conv2d
from tensorlet._src.ops.random_gen import uniform
from tensorlet._src.ops.random_stateless import stateless_uniform
from tensorlet._src.ops.gradient_marks import no_gradient_mark

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "adjust_hue",
           "adjust_saturation", "random_hue", "random_saturation", "random_crop", "stateless_random_crop",
           "stateless_random_brightness", "stateless_random_contrast", "stateless_random_flip_left_right",
           "stateless_random_flip_up_down", "stateless_random_hue", "stateless_random_saturation",
           "adjust_jpeg_quality", "random_jpeg_quality", "stateless_random_jpeg_quality", "sobel_edges"]


def _image(x, name="image"):
    x = convert_to_tensor(x)
    if x.shape.rank is not None and x.shape.rank < 3:
        raise ValueError(f"'{name}' (shape {x.shape}) must be at least three-dimensional.")
    return x


def _float(x):
    return x if x.dtype in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)


def _channel3(x):
    if x.shape.rank is not None and x.shape[-1] is not None and x.shape[-1] != 3:
        raise ValueError(f"Dimensions must be equal, but are {x.shape[-1]} and 3 for the last dimension of the image")


# --- colour spaces ------------------------------------------------------------------------------------------------

@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV (hue in [0, 1)); float images, last dimension 3.

    >>> tf.image.rgb_to_hsv(tf.constant([[[1.0, 0.0, 0.0]]])).numpy().tolist()
    [[[0.0, 1.0, 1.0]]]
    """
    x = convert_to_tensor(images)
    _channel3(x)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    value = maximum(maximum(r, g), b)
    rng = value - minimum(minimum(r, g), b)
    zero = zeros_like(value)
    sat = where(value > 0, divide_no_nan(rng, value), zero)
    norm = divide_no_nan(ones_like(rng), 6.0 * rng)
    hue = where(equal(r, value), norm * (g - b),
                  where(equal(g, value), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    hue = where(rng > 0, hue, zero)
    hue = where(hue < 0, hue + 1.0, hue)
    return stack([hue, sat, value], axis=-1)


def _hsv_rgb(h, s, v):
    c = s * v
    m = v - c
    dh = h * 6.0
    cat = floor(dh)
    fmodu = floormod(dh, 2.0)
    x = c * (1.0 - math_unary.abs(fmodu - 1.0))
    zero = zeros_like(c)
    table = ((c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c), (c, zero, x))
    out = []
    for ch in range(3):
        val = zero
        for k in range(6):
            val = where(equal(cat, float(k)), table[k][ch], val)
        out.append(val + m)
    return out


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """HSV (all in [0, 1]) to RGB; the inverse of ``rgb_to_hsv``."""
    x = convert_to_tensor(images)
    _channel3(x)
    return stop_gradient(stack(_hsv_rgb(x[..., 0], x[..., 1], x[..., 2]), axis=-1))  # TF: HSVToRGB not differentiable


_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images, m):
    x = convert_to_tensor(images)
    _channel3(x)
    k = convert_to_tensor(np.asarray(m, x.dtype._np if x.dtype.is_floating else np.float32), dtype=x.dtype)
    return tensordot(x, k, axes=[[x.shape.rank - 1], [0]])


@tf_export("image.rgb_to_yiq")
def rgb_to_yiq(images):
    """RGB to YIQ (a 3x3 matrix on the last axis)."""
    return _color_matrix(images, _RGB_TO_YIQ)


@tf_export("image.yiq_to_rgb")
def yiq_to_rgb(images):
    """YIQ to RGB."""
    return _color_matrix(images, _YIQ_TO_RGB)


@tf_export("image.rgb_to_yuv")
def rgb_to_yuv(images):
    """RGB to YUV (a 3x3 matrix on the last axis)."""
    return _color_matrix(images, _RGB_TO_YUV)


@tf_export("image.yuv_to_rgb")
def yuv_to_rgb(images):
    """YUV to RGB."""
    return _color_matrix(images, _YUV_TO_RGB)


# --- hue and saturation -------------------------------------------------------------------------------------------

def _hsv_adjust(image, hue_delta=None, sat_factor=None):
    x = convert_to_tensor(image)
    orig = x.dtype
    flt = _float(x)
    _channel3(flt)
    hsv = rgb_to_hsv(flt)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    if hue_delta is not None:
        h = floormod(h + cast(hue_delta, flt.dtype), 1.0)
    if sat_factor is not None:
        s = clip_by_value(s * cast(sat_factor, flt.dtype), 0.0, 1.0)
    out = stack(_hsv_rgb(h, s, v), axis=-1)
    # TF's AdjustHue/AdjustSaturation kernels have no gradient: LookupError, as in TF
    out = no_gradient_mark(out, "AdjustHue" if hue_delta is not None else "AdjustSaturation")
    return convert_image_dtype(out, orig)


@tf_export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """Rotate the hue by ``delta`` (in [-1, 1], a fraction of the colour wheel).

    >>> tf.image.adjust_hue(tf.constant([[[1.0, 0.0, 0.0]]]), 1 / 3).numpy().round(3).tolist()
    [[[0.0, 1.0, 0.0]]]
    """
    d = _static(delta)
    if d is not None and not -1 <= d <= 1:
        raise ValueError(f"delta must be in the interval [-1, 1], got {d}")
    return _hsv_adjust(image, hue_delta=delta)


@tf_export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """Scale the saturation (in HSV) by ``saturation_factor``, clipped to [0, 1]."""
    f = _static(saturation_factor)
    if f is not None and f < 0:
        raise ValueError("saturation_factor must be non-negative.")
    return _hsv_adjust(image, sat_factor=saturation_factor)


def _static(v):
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    return None


# --- random (stateful: tf.random seeds) and stateless (seed=[a, b]) draws -------------------------------------------

def _uniform(shape, lo, hi, seed, stateless, dtype=_dt.float32):
    if stateless:
        return stateless_uniform(shape, seed=seed, minval=lo, maxval=hi, dtype=dtype)
    return uniform(shape, lo, hi, dtype=dtype, seed=seed)


def _check_range(lower, upper, upper_word="upper", lower_word="lower"):
    if upper <= lower:
        raise ValueError(f"{upper_word} must be > {lower_word}.")
    if lower < 0:
        raise ValueError(f"{lower_word} must be non-negative.")


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn uniformly from [-max_delta, max_delta); ``max_delta`` <= 0.5."""
    _check_hue(max_delta)
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed, False))


@tf_export("image.stateless_random_hue")
def stateless_random_hue(image, max_delta, seed):
    """``random_hue`` with a stateless ``seed=[a, b]`` (same seed, same result)."""
    _check_hue(max_delta)
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed, True))


def _check_hue(max_delta):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn uniformly from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform([], lower, upper, seed, False))


@tf_export("image.stateless_random_saturation")
def stateless_random_saturation(image, lower, upper, seed=None):
    """``random_saturation`` with a stateless ``seed=[a, b]``."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform([], lower, upper, seed, True))


@tf_export("image.stateless_random_brightness")
def stateless_random_brightness(image, max_delta, seed):
    """``adjust_brightness`` by a delta drawn from [-max_delta, max_delta) with a stateless ``seed=[a, b]``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed, True))


@tf_export("image.stateless_random_contrast")
def stateless_random_contrast(image, lower, upper, seed):
    """``adjust_contrast`` by a factor drawn from [lower, upper) with a stateless ``seed=[a, b]``."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform([], lower, upper, seed, True))


def _stateless_flip(image, axis_from_end, seed):
    x = _image(image)
    rank = x.shape.rank
    if rank == 3:
        u = _uniform([], 0.0, 1.0, seed, True)
        return where(u < 0.5, reverse(x, [3 - axis_from_end]), x)
    if rank == 4:  # TF blends with round(u) per image
        n = array_shape.shape(x)[0]
        flips = cast(math_unary.round(reshape(_uniform(reshape(n, [1]), 0.0, 1.0, seed, True), [-1, 1, 1, 1])), x.dtype)
        return flips * reverse(x, [4 - axis_from_end]) + (1 - flips) * x
    raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")


@tf_export("image.stateless_random_flip_left_right")
def stateless_random_flip_left_right(image, seed):
    """Mirror the width axis with probability 1/2, decided by a stateless ``seed=[a, b]``."""
    return _stateless_flip(image, 2, seed)


@tf_export("image.stateless_random_flip_up_down")
def stateless_random_flip_up_down(image, seed):
    """Mirror the height axis with probability 1/2, decided by a stateless ``seed=[a, b]``."""
    return _stateless_flip(image, 3, seed)


# --- random crop -----------------------------------------------------------------------------------------------------

def _crop(value, size, seed, stateless):
    x = convert_to_tensor(value)
    size = convert_to_tensor(size, dtype=_dt.int32)
    s_static = get_static_value(size)
    if s_static is not None and x.shape.is_fully_defined():
        have = np.asarray(x.shape.as_list())
        if have.shape != np.shape(s_static) or (have < np.asarray(s_static)).any():
            raise ValueError(f"Need value.shape >= size, got shape={x.shape.as_list()} size={list(s_static)}"
                             if have.shape == np.shape(s_static) else
                             f"Shapes {x.shape} and {list(s_static)} must have the same rank")
    shape = array_shape.shape(x)
    limit = shape - size + 1
    draw = _uniform(array_shape.shape(shape), 0, _dt.int32.max, seed, stateless, dtype=_dt.int32)
    offset = floormod(draw, limit)
    if s_static is None:
        return array_select.slice(x, offset, size)
    # one gather per axis: tf.slice wants a static begin, and the offset is drawn at run time
    out = x
    for axis, n in enumerate(np.asarray(s_static).reshape(-1).tolist()):
        if x.shape[axis] is not None and n == x.shape[axis]:
            continue
        out = gather(out, offset[axis] + creation.range(n), axis=axis)
    return out


@tf_export("image.random_crop")
def random_crop(value, size, seed=None, name=None):
    """A crop of ``size`` (same rank as ``value``) at a uniformly random offset.

    >>> tf.image.random_crop(tf.zeros([32, 32, 3]), [24, 24, 3], seed=1).shape
    TensorShape([24, 24, 3])
    """
    return _crop(value, size, seed, False)


@tf_export("image.stateless_random_crop")
def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` with a stateless ``seed=[a, b]``."""
    return _crop(value, size, seed, True)


# --- JPEG quality ----------------------------------------------------------------------------------------------------

@tf_export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """Re-encode a ``[height, width, 1 or 3]`` image as JPEG at ``jpeg_quality`` (0-100) and decode it."""
    from tensorlet._src.io import image_codecs as codecs

    x = convert_to_tensor(image)
    orig = x.dtype
    q = _static(jpeg_quality)
    if q is not None and not 0 <= q <= 100:
        raise ValueError("jpeg_quality must be in range [0, 100].")
    u8 = convert_image_dtype(x, _dt.uint8, saturate=True)
    out = codecs.decode_jpeg(codecs.encode_jpeg(u8, quality=int(get_static_value(jpeg_quality)
                                                                 if not isinstance(jpeg_quality, (int, float))
                                                                 else jpeg_quality)),
                             channels=int(u8.shape[-1]) if u8.shape[-1] is not None else 0)
    return convert_image_dtype(out, orig, saturate=True)


def _check_jpeg_range(lo, hi):
    if lo < 0 or hi < 0 or lo > 100 or hi > 100:
        raise ValueError("jpeg_quality must be in range [0, 100].")
    if lo >= hi:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@tf_export("image.random_jpeg_quality")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """``adjust_jpeg_quality`` at a quality drawn uniformly from [min, max) (eager: the quality is static)."""
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = _uniform([], min_jpeg_quality, max_jpeg_quality, seed, False, dtype=_dt.int32)
    return adjust_jpeg_quality(image, q)


@tf_export("image.stateless_random_jpeg_quality")
def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """``random_jpeg_quality`` with a stateless ``seed=[a, b]``."""
    _check_jpeg_range(min_jpeg_quality, max_jpeg_quality)
    q = _uniform([], min_jpeg_quality, max_jpeg_quality, seed, True, dtype=_dt.int32)
    return adjust_jpeg_quality(image, q)


# --- Sobel -----------------------------------------------------------------------------------------------------------

@tf_export("image.sobel_edges")
def sobel_edges(image):
    """Sobel responses ``[batch, h, w, d, 2]`` (dy, dx) of a ``[batch, h, w, d]`` float image, reflect-padded."""
    x = convert_to_tensor(image)
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float32)
    k = np.stack([ky, ky.T], axis=-1)  # [3, 3, 2]
    d = x.shape[-1]
    kern = np.tile(k[:, :, None, :], (1, 1, d, 1)).astype(x.dtype._np)  # [3, 3, d, 2]
    padded = pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, convert_to_tensor(kern), strides=[1, 1, 1, 1], padding="VALID")
    shape = array_shape.shape(out)
    return reshape(out, concat([shape[:3], [d, 2]], axis=0))
