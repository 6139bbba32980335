"""``tf.image``: resizing, flips and rotations, crops and pads, dtype conversion, color and contrast
adjustments, random flips/brightness/contrast, gradients, total variation and patch extraction.

Images are ``[height, width, channels]`` or batches ``[batch, height, width, channels]``.  Almost
everything is a composite of other families' public ops (looked up when called, since families load
in any order); the resize kernels live in ``image_resize.py``; ``AdjustContrastv2`` and
``ExtractImagePatches`` are primitives here.
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.ops import image_resize as R
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop, tf_export

D = _dt



def _at_least_3d(image, name="image", nonzero=False):
    x = t(image)
    if x.ndim < 3:
        raise ValueError(f"'{name}' (shape {x.shape}) must be at least three-dimensional.")
    if nonzero and any(d == 0 for d in x.shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of '{name}.shape' must be > 0: {x.shape}")
    return x


def _rank_3_or_4(image, name="image"):
    x = t(image)
    if x.ndim not in (3, 4):
        raise ValueError(f"'{name}' (shape {x.shape}) must have either 3 or 4 dimensions.")
    return x


def _int(v):
    return int(static(v))


# --- flips, rotations, transpose ---------------------------------------------------------------

def _flip(image, axis_from_end):
    x = _at_least_3d(image, nonzero=True)
    if x.ndim > 4:
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    return array_select.reverse(x, [x.ndim - axis_from_end])


@tf_export("image.flip_left_right")
def flip_left_right(image):
    """Mirrors the width axis.  ``tf.image.flip_left_right(tf.zeros([2, 3, 1]))``."""
    return _flip(image, 2)


@tf_export("image.flip_up_down")
def flip_up_down(image):
    """Mirrors the height axis.  ``tf.image.flip_up_down(tf.zeros([2, 3, 1]))``."""
    return _flip(image, 3)


def _swap_hw(x):
    perm = [1, 0, 2] if x.ndim == 3 else [0, 2, 1, 3]
    return array_shape.transpose(x, perm)


@tf_export("image.rot90")
def rot90(image, k=1, name=None):
    """Rotates by ``k`` quarter turns counter-clockwise (like ``np.rot90`` on the height/width axes)."""
    x = _at_least_3d(image)
    if x.ndim > 4:
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    k = _int(k) % 4
    h, w = x.ndim - 3, x.ndim - 2
    reverse = array_select.reverse
    if k == 0:
        return x
    if k == 1:
        return _swap_hw(reverse(x, [w]))
    if k == 2:
        return reverse(x, [h, w])
    return reverse(_swap_hw(x), [w])


@tf_export("image.transpose")
def transpose(image, name=None):
    """Swaps the height and width axes.  ``tf.image.transpose(tf.zeros([2, 3, 1])).shape`` -> ``(3, 2, 1)``."""
    x = _at_least_3d(image)
    if x.ndim > 4:
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    return _swap_hw(x)


# --- crops and pads -------------------------------------------------------------------------------

def _hw(x):
    return x.shape[-3], x.shape[-2]


@tf_export("image.central_crop")
def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of each image.  ``central_crop(img, 0.5)``."""
    x = t(image)
    fraction = float(static(central_fraction))
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if x.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {x.shape}) must be at least three-dimensional.")
    if fraction == 1.0:
        return x
    h, w = _hw(x)
    top = int((h - h * fraction) / 2)
    left = int((w - w * fraction) / 2)
    return x[..., top:h - top, left:w - left, :]


def _box_args(*vals):
    return [_int(v) for v in vals]


@tf_export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` box at (``offset_height``, ``offset_width``)."""
    x = _rank_3_or_4(image)
    oh, ow, th, tw = _box_args(offset_height, offset_width, target_height, target_width)
    h, w = _hw(x)
    for ok, msg in ((ow >= 0, "offset_width must be >= 0."), (oh >= 0, "offset_height must be >= 0."),
                    (tw > 0, "target_width must be > 0."), (th > 0, "target_height must be > 0."),
                    (w >= tw + ow, "width must be >= target + offset."),
                    (h >= th + oh, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(msg)
    return x[..., oh:oh + th, ow:ow + tw, :]


@tf_export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pads to ``target_height x target_width`` with the image at (``offset_height``, ``offset_width``)."""
    x = _rank_3_or_4(image)
    oh, ow, th, tw = _box_args(offset_height, offset_width, target_height, target_width)
    h, w = _hw(x)
    after_h, after_w = th - oh - h, tw - ow - w
    for ok, msg in ((oh >= 0, "offset_height must be >= 0"), (ow >= 0, "offset_width must be >= 0"),
                    (after_w >= 0, "width must be <= target - offset"),
                    (after_h >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(msg)
    pads = [[oh, after_h], [ow, after_w], [0, 0]]
    if x.ndim == 4:
        pads = [[0, 0]] + pads
    return array_blocks.pad(x, pads)


@tf_export("image.resize_with_crop_or_pad")
def resize_with_crop_or_pad(image, target_height, target_width):
    """Center-crops and/or zero-pads each image to ``target_height x target_width``."""
    x = _rank_3_or_4(image)
    th, tw = _box_args(target_height, target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = _hw(x)
    dh, dw = th - h, tw - w
    cropped = crop_to_bounding_box(x, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h), min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


@tf_export("image.resize_with_pad")
def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """Resizes keeping the aspect ratio, then zero-pads to ``target_height x target_width``."""
    x = _rank_3_or_4(image)
    th, tw = _box_args(target_height, target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = _hw(x)
    ratio = max(w / tw, h / th)
    rh, rw = h / ratio, w / ratio
    resized = resize(x, [int(math.floor(rh)), int(math.floor(rw))], method=method, antialias=antialias)
    ph = max(0, int(math.floor((th - rh) / 2)))
    pw = max(0, int(math.floor((tw - rw) / 2)))
    return pad_to_bounding_box(resized, ph, pw, th, tw)


# --- resize ------------------------------------------------------------------------------------------

class ResizeMethod:
    """The resize methods of ``tf.image.resize``."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


tf_export("image.ResizeMethod")(ResizeMethod)

_METHODS = {"bilinear": (R.RESIZE_BILINEAR, "triangle"), "nearest": (R.RESIZE_NEAREST, None),
            "bicubic": (R.RESIZE_BICUBIC, "keyscubic"), "area": (R.RESIZE_AREA, None),
            "lanczos3": (None, "lanczos3"), "lanczos5": (None, "lanczos5"), "gaussian": (None, "gaussian"),
            "mitchellcubic": (None, "mitchellcubic")}


def _size_arg(size):
    v = static(size)
    if isinstance(v, Tensor):
        v = v.numpy().tolist()
    arr = np.asarray(v)
    if arr.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if arr.dtype.kind not in "iu":
        raise ValueError("'size' must be a 1-D int32 Tensor")
    return int(arr[0]), int(arr[1])


@tf_export("image.resize")
def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None):
    """Resizes images to ``size = [new_height, new_width]`` (TF 2 semantics: half-pixel centers).

    The result is float32, except with ``method="nearest"``, which keeps the input dtype.

    >>> tf.image.resize(tf.zeros([4, 4, 3]), [2, 2]).shape
    TensorShape([2, 2, 3])
    """
    x = t(images)
    if x.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    nh, nw = _size_arg(size)
    method = str(method)
    if method not in _METHODS:
        raise ValueError(f"Resize method is not implemented: {method}")
    h, w = _hw(x)
    if preserve_aspect_ratio:
        f = min(np.float32(nh) / np.float32(h), np.float32(nw) / np.float32(w))
        nh, nw = int(np.round(f * np.float32(h))), int(np.round(f * np.float32(w)))
    op, kernel = _METHODS[method]
    if op is None or (antialias and kernel is not None and method in ("bilinear", "bicubic")):
        op = R.SCALE_AND_TRANSLATE
        attrs = {"size": (nh, nw), "kernel_type": kernel, "antialias": bool(antialias)}
    else:
        attrs = {"size": (nh, nw)}
    if nh <= 0 or nw <= 0:
        raise errors.invalid_argument(op.name, "output dimensions must be positive")
    return bind(op, x, **attrs)


# --- dtype conversion ---------------------------------------------------------------------------------

def _saturating_cast(x, dtype):
    """Clamp to ``dtype``'s range (the largest in-range value of ``x``'s dtype), then cast."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    src = x.dtype._np
    lo, hi = dtype.min, dtype.max
    if x.dtype.is_floating:
        lo_v, hi_v = np.asarray(lo, src), np.asarray(hi, src)
        if float(hi_v) > hi:
            hi_v = np.nextafter(hi_v, np.asarray(0, src))
        if float(lo_v) < lo:
            lo_v = np.nextafter(lo_v, np.asarray(0, src))
    else:
        info = np.iinfo(src)
        lo_v = np.asarray(max(lo, info.min), src)
        hi_v = np.asarray(min(hi, info.max), src)
    x = mb.minimum(mb.maximum(x, t(lo_v)), t(hi_v))
    return mb.cast(x, dtype)


@tf_export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between image dtypes, rescaling: integers span [0, MAX], floats [0, 1].

    >>> tf.image.convert_image_dtype(tf.constant([0, 255], tf.uint8), tf.float32).numpy()
    array([0., 1.], dtype=float32)
    """
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = t(image)
    dtype = D.as_dtype(dtype)
    src = x.dtype
    if not (src.is_floating or src.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if src is dtype:
        return x
    if src.is_integer and dtype.is_integer:
        in_max, out_max = int(src.max), int(dtype.max)
        if in_max > out_max:
            scaled = mb.floordiv(x, t(np.asarray((in_max + 1) // (out_max + 1), src._np)))
            return _saturating_cast(scaled, dtype) if saturate else mb.cast(scaled, dtype)
        y = _saturating_cast(x, dtype) if saturate else mb.cast(x, dtype)
        return mb.multiply(y, t(np.asarray((out_max + 1) // (in_max + 1), dtype._np)))
    if src.is_floating and dtype.is_floating:
        return mb.cast(x, dtype)
    if src.is_integer:
        return mb.multiply(mb.cast(x, dtype), t(np.asarray(1.0 / src.max, dtype._np)))
    scaled = mb.multiply(x, t(np.asarray(dtype.max + 0.5, src._np)))
    return _saturating_cast(scaled, dtype) if saturate else mb.cast(scaled, dtype)


def _to_float(x):
    return x if x.dtype in (D.float16, D.float32) else convert_image_dtype(x, D.float32)


# --- color ---------------------------------------------------------------------------------------------

_GRAY = np.array([[0.2989], [0.5870], [0.1140]], np.float32)


@tf_export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B`` with a trailing channel of 1, in the input dtype."""
    x = t(images)
    flt = convert_image_dtype(x, D.float32)
    gray = matmul.matmul(flt[..., None, :], t(_GRAY))[..., 0]
    return convert_image_dtype(gray, x.dtype)


@tf_export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None):
    """Repeats the single channel three times.  ``[H, W, 1]`` -> ``[H, W, 3]``."""
    x = t(images)
    if x.ndim < 2:
        raise ValueError(f"A grayscale image (shape {x.shape}) must be at least two-dimensional.")
    if x.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return array_shape.tile(x, [1] * (x.ndim - 1) + [3])


@tf_export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """Adds ``delta`` in the [0, 1] float scale, saturating back to the input dtype."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = t(image)
    flt = _to_float(x)
    out = mb.add(flt, mb.cast(t(delta), flt.dtype))
    return convert_image_dtype(out, x.dtype, saturate=True)


def _contrast_kernel(xp, x, factor):
    f = factor.astype(x.dtype)
    mean = xp.mean(x.astype(np.float32), axis=(-3, -2), keepdims=True).astype(x.dtype)
    return (x - mean) * f + mean


# TF registers no gradient for AdjustContrastv2: tape.gradient raises LookupError (a TF guide relies on it)
ADJUST_CONTRAST = defop("AdjustContrastv2", _contrast_kernel, dtypes=(D.float16, D.float32), grad=NO_GRADIENT)


@tf_export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` with the mean per image and channel."""
    x = t(images)
    flt = _to_float(x)
    if flt.ndim < 3:
        raise errors.invalid_argument("AdjustContrastv2", f"input must be at least 3-D, got shape"
                                                          f"{errors.shape_str(flt.shape.as_list())}")
    out = bind(ADJUST_CONTRAST, flt, t(contrast_factor, D.float32))
    return convert_image_dtype(out, x.dtype, saturate=True)


@tf_export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` in the [0, 1] float scale.  ``gamma`` must be non-negative."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = t(image)
    flt = _to_float(x)
    g = static(gamma)
    if isinstance(g, (int, float)) and g < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    out = mb.multiply(t(gain, flt.dtype), mb.pow(flt, t(gamma, flt.dtype)))
    return convert_image_dtype(out, x.dtype, saturate=True)


@tf_export("image.per_image_standardization")
def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(num_pixels))`` per image, as float32."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = _at_least_3d(image)
    x = mb.cast(x, D.float32)
    n = int(np.prod(x.shape.as_list()[-3:]))
    axes = [-1, -2, -3]
    mean = reduce.reduce_mean(x, axis=axes, keepdims=True)
    std = reduce.reduce_std(x, axis=axes, keepdims=True)
    adjusted = mb.maximum(std, t(np.float32(1.0 / np.sqrt(np.float32(n))) if n else np.float32(np.inf)))
    return mb.divide(mb.subtract(x, mean), adjusted)


# --- random adjustments (tf.random underneath; statistical properties only) -------------------------------

def _uniform(shape, lo, hi, seed):
    return random_gen.uniform(shape, lo, hi, seed=seed)


def _random_flip(image, axis_from_end, seed):
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = _at_least_3d(image, nonzero=True)
    if x.ndim == 3:
        return _flip(x, axis_from_end) if bool(_uniform([], 0, 1.0, seed)._v < 0.5) else x
    if x.ndim != 4:
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    flips = mb.less(_uniform([x.shape[0]], 0, 1.0, seed), 0.5)
    return array_select.where(flips[:, None, None, None], _flip(x, axis_from_end), x)


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None):
    """Mirrors the width axis with probability 1/2 (each image of a batch independently)."""
    return _random_flip(image, 2, seed)


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None):
    """Mirrors the height axis with probability 1/2 (each image of a batch independently)."""
    return _random_flip(image, 3, seed)


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed))


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _uniform([], lower, upper, seed))


# --- gradients, total variation, PSNR ---------------------------------------------------------------------

@tf_export("image.image_gradients")
def image_gradients(image):
    """``(dy, dx)``: forward differences along height and width, zero in the last row/column."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = t(image)
    if x.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {x.shape}.")
    pad = array_blocks.pad
    dy = pad(mb.subtract(x[:, 1:], x[:, :-1]), [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = pad(mb.subtract(x[:, :, 1:], x[:, :, :-1]), [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


@tf_export("image.total_variation")
def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels: a scalar for one image, ``[batch]`` for a batch."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    x = t(images)
    if x.ndim == 3:
        d1, d2, axis = mb.subtract(x[1:], x[:-1]), mb.subtract(x[:, 1:], x[:, :-1]), None
    elif x.ndim == 4:
        d1, d2, axis = mb.subtract(x[:, 1:], x[:, :-1]), mb.subtract(x[:, :, 1:], x[:, :, :-1]), [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    absolute, total = math_unary.abs, reduce.reduce_sum
    return mb.add(total(absolute(d1), axis=axis), total(absolute(d2), axis=axis))


@tf_export("image.psnr")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB over the last three axes (float32)."""
    mb = importlib.import_module("tensorlet._src.ops.math_binary")
    a, b = t(a), t(b)
    max_val = convert_image_dtype(mb.cast(t(max_val), a.dtype), D.float32)
    a, b = convert_image_dtype(a, D.float32), convert_image_dtype(b, D.float32)
    mse = reduce.reduce_mean(mb.squared_difference(a, b), axis=[-3, -2, -1])
    log = math_unary.log
    head = mb.divide(mb.multiply(t(np.float32(20)), log(max_val)), log(t(np.float32(10))))
    return mb.subtract(head, mb.multiply(t(np.float32(10 / np.log(10))), log(mse)))


# --- extract_patches --------------------------------------------------------------------------------------

def _patch_index(n_in, k, stride, rate, padding):
    eff = (k - 1) * rate + 1
    if padding == "SAME":
        n_out = -(-n_in // stride)
        before = max((n_out - 1) * stride + eff - n_in, 0) // 2
    else:
        n_out = max(-(-(n_in - eff + 1) // stride), 0)
        before = 0
    idx = np.arange(n_out)[:, None] * stride + np.arange(k)[None, :] * rate - before
    return idx, before


def _patches_kernel(xp, x, sizes, strides, rates, padding):
    b, h, w, c = x.shape
    rows, top = _patch_index(h, sizes[0], strides[0], rates[0], padding)
    cols, left = _patch_index(w, sizes[1], strides[1], rates[1], padding)
    pad_h = (top, max(int(rows.max(initial=0)) + 1 - h, 0))
    pad_w = (left, max(int(cols.max(initial=0)) + 1 - w, 0))
    xp_ = xp.pad(x, ((0, 0), pad_h, pad_w, (0, 0)))
    r = rows + top
    q = cols + left
    p = xp_[:, r[:, None, :, None], q[None, :, None, :], :]  # [b, out_h, out_w, k_h, k_w, c]
    return p.reshape(b, rows.shape[0], cols.shape[0], sizes[0] * sizes[1] * c)


def _patches_grad(g, ans, x, sizes, strides, rates, padding):
    """Scatter-add of every patch entry back onto the input pixel it was copied from (TF's segment sum).

    The map from patch entries to input pixels is static: entries that read padding are dropped, the
    rest are summed per pixel with ``unsorted_segment_sum``, so the gradient is itself differentiable.
    """
    b, h, w, c = x.shape.as_list()
    rows, top = _patch_index(h, sizes[0], strides[0], rates[0], padding)
    cols, left = _patch_index(w, sizes[1], strides[1], rates[1], padding)
    r = rows[:, None, :, None]
    q = cols[None, :, None, :]  # entries are ordered [out_row, out_col, k_row, k_col]
    valid = ((r >= 0) & (r < h) & (q >= 0) & (q < w)).reshape(-1)
    pixel = (r * w + q).reshape(-1)
    keep = np.flatnonzero(valid)
    transpose, reshape = array_shape.transpose, array_shape.reshape
    entries = transpose(reshape(g, [b, valid.size, c]), [1, 0, 2])  # [entries, b, c]
    if keep.size < valid.size:
        entries = gather_scatter.gather(entries, t(keep.astype(np.int64)))
    summed = segment.unsorted_segment_sum(entries, t(pixel[keep].astype(np.int64)), h * w)
    return transpose(reshape(summed, [h, w, b, c]), [2, 0, 1, 3])


EXTRACT_PATCHES = defop("ExtractImagePatches", _patches_kernel,
                        dtypes=(D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64,
                                D.uint8, D.uint16, D.uint32, D.uint64, D.complex64, D.complex128, D.bool),
                        grad=_patches_grad)


@tf_export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``sizes = [1, k_h, k_w, 1]`` gathered into the depth axis (``[b, rows, cols, k_h * k_w * c]``)."""
    x = t(images)
    if padding not in ("SAME", "VALID"):
        raise errors.invalid_argument("ExtractImagePatches", f'Value for attr \'padding\' of "{padding}" is not in '
                                                             'the list of allowed values: "SAME", "VALID"')
    if x.ndim != 4:
        raise errors.invalid_argument("ExtractImagePatches", f"input must be 4-dimensional"
                                                             f"{errors.shape_str(x.shape.as_list())}")
    args = {}
    for what, v in (("ksizes", sizes), ("strides", strides), ("rates", rates)):
        v = [int(e) for e in static(v)]
        if len(v) != 4 or v[0] != 1 or v[3] != 1:
            raise errors.op_error(errors.UnimplementedError, "ExtractImagePatches",
                                  f"Only support {what} across space.")
        args[what] = (v[1], v[2])
    return bind(EXTRACT_PATCHES, x, sizes=args["ksizes"], strides=args["strides"], rates=args["rates"],
                padding=padding)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import (  # noqa: E402
    array_select,
    array_blocks,
    array_shape,
    gather_scatter,
    math_unary,
    matmul,
    random_gen,
    reduce,
    segment,
)
