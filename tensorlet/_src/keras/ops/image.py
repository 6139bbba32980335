"""``keras.ops.image``: resizing, colour conversion, projective transforms, coordinate mapping, patches, padding and
cropping, blur, edges and SSIM — Keras 3's semantics on tensorlet ops.

>>> resize(np.ones((4, 4, 1), "float32"), (2, 2)).shape
TensorShape([2, 2, 1])
"""

from __future__ import annotations

import itertools

import numpy as np

from tensorlet._src.io import image_pipeline as ip
from tensorlet._src.keras.backend import standardize_data_format
from tensorlet._src.keras.layers.preprocessing import _crop_pad_resize, affine_transform as _affine
from tensorlet._src.keras.ops._dtypes import cast, convert, result_type
from tensorlet._src.keras.ops.nn import conv as _conv, depthwise_conv as _dwconv
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.math_einsum import tensordot
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import eye as _eye
from tensorlet._src.ops.gather_scatter import gather_nd
from tensorlet._src.ops.linalg_decomp import solve as _solve
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.registry import tf_export


def img_export(name):
    return tf_export(f"keras.ops.image.{name}")


def _batched(images, data_format):
    """NHWC images (and whether to squeeze back and transpose back)."""
    x = convert(images)
    if x.shape.rank not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). Received "
                         f"input with shape: images.shape={x.shape}")
    squeeze = x.shape.rank == 3
    if squeeze:
        x = array_shape.expand_dims(x, 0)
    cf = standardize_data_format(data_format) == "channels_first"
    if cf:
        x = array_shape.transpose(x, [0, 2, 3, 1])
    return x, squeeze, cf


def _unbatch(y, squeeze, cf):
    if cf:
        y = array_shape.transpose(y, [0, 3, 1, 2])
    return array_shape.squeeze(y, axis=[0]) if squeeze else y


@img_export("resize")
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """Resizes images to ``size`` (optionally cropping or padding to keep the aspect ratio)."""
    if fill_mode != "constant":
        raise ValueError("Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
                         f"Received: fill_mode={fill_mode}")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
    if len(size) != 2:
        raise ValueError(f"Argument `size` must be a tuple of two elements (height, width). Received: size={size}")
    x = convert(images)
    if x.shape.rank not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). Received "
                         f"input with shape: images.shape={x.shape}")
    y = _crop_pad_resize(x, int(size[0]), int(size[1]), interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio,
                         fill_value, antialias, standardize_data_format(data_format))
    return y


def _channels(x, data_format):
    return -1 if standardize_data_format(data_format) == "channels_last" else -3


@img_export("rgb_to_grayscale")
def rgb_to_grayscale(images, data_format=None):
    """ITU-R 601 luma (``[0.2989, 0.587, 0.114]``) with the channel axis kept (size 1)."""
    x = convert(images)
    ax = _channels(x, data_format)
    if x.shape[ax] == 1:
        return x
    if x.shape[ax] != 3:
        raise ValueError("Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received input with shape: "
                         f"images.shape={x.shape}")
    orig = x.dtype.name
    x = cast(x, result_type(orig, float))
    w = convert([0.2989, 0.5870, 0.1140], x.dtype)
    g = tensordot(x, w, [[ax % x.shape.rank], [0]])
    return cast(array_shape.expand_dims(g, ax), orig)


def _hsv(fn, images, data_format):
    x = convert(images)
    if not x.dtype.is_floating:
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype={x.dtype.name}")
    cf = standardize_data_format(data_format) == "channels_first"
    nd = x.shape.rank
    if cf:
        x = array_shape.transpose(x, list(range(nd - 3)) + [nd - 2, nd - 1, nd - 3])
    y = fn(x)
    if cf:
        y = array_shape.transpose(y, list(range(nd - 3)) + [nd - 1, nd - 3, nd - 2])
    return y


@img_export("rgb_to_hsv")
def rgb_to_hsv(images, data_format=None):
    """RGB to HSV (float images in [0, 1])."""
    return _hsv(ip.rgb_to_hsv, images, data_format)


@img_export("hsv_to_rgb")
def hsv_to_rgb(images, data_format=None):
    """HSV to RGB."""
    return _hsv(ip.hsv_to_rgb, images, data_format)


_FILL = ("constant", "nearest", "wrap", "reflect")


@img_export("affine_transform")
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                     data_format=None):
    """Projective transforms ``[a0, a1, a2, b0, b1, b2, c0, c1]`` mapping output to input pixels."""
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError("Invalid value for argument `interpolation`. Expected of one {'nearest', 'bilinear'}. "
                         f"Received: interpolation={interpolation}")
    if fill_mode not in _FILL:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected of one {set(_FILL)}. "
                         f"Received: fill_mode={fill_mode}")
    x, squeeze, cf = _batched(images, data_format)
    t = convert(transform)
    if t.shape.rank == 1:
        t = array_shape.expand_dims(t, 0)
    y = _affine(x, cast(t, "float32"), interpolation=interpolation, fill_mode=fill_mode, fill_value=fill_value)
    return _unbatch(y, squeeze, cf)


def compute_homography_matrix(start_points, end_points):
    """The 8 projective coefficients mapping ``end_points`` (output) to ``start_points`` (input), per batch."""
    s, e = cast(start_points, "float32"), cast(end_points, "float32")
    rows, rhs = [], []
    zero = mb.multiply(e[:, 0, 0], 0.0)
    one = mb.add(zero, 1.0)
    for i in range(4):
        x, y = s[:, i, 0], s[:, i, 1]
        u, v = e[:, i, 0], e[:, i, 1]
        rows.append(array_blocks.stack([u, v, one, zero, zero, zero, mu.negative(mb.multiply(u, x)),
                                        mu.negative(mb.multiply(v, x))], -1))
        rows.append(array_blocks.stack([zero, zero, zero, u, v, one, mu.negative(mb.multiply(u, y)),
                                        mu.negative(mb.multiply(v, y))], -1))
        rhs += [x, y]
    a = array_blocks.stack(rows, 1)
    b = array_shape.expand_dims(array_blocks.stack(rhs, 1), -1)
    return array_shape.squeeze(_solve(a, b), axis=[-1])


@img_export("perspective_transform")
def perspective_transform(images, start_points, end_points, interpolation="bilinear", fill_value=0,
                          data_format=None):
    """Warps images so ``start_points`` move to ``end_points`` (4 corners each)."""
    x, squeeze, cf = _batched(images, data_format)
    sp, ep = convert(start_points, "float32"), convert(end_points, "float32")
    if sp.shape.rank == 2:
        sp = array_shape.expand_dims(sp, 0)
    if ep.shape.rank == 2:
        ep = array_shape.expand_dims(ep, 0)
    t = compute_homography_matrix(sp, ep)
    y = _affine(x, t, interpolation=interpolation, fill_mode="constant", fill_value=fill_value)
    return _unbatch(y, squeeze, cf)


def _fix_coords(c, size, mode):
    n = mb.cast(size, c.dtype)
    if mode == "constant":
        valid = mb.logical_and(mb.greater_equal(c, mb.cast(0, c.dtype)), mb.less(c, n))
        return clip_by_value(c, mb.cast(0, c.dtype), mb.subtract(n, mb.cast(1, c.dtype))), valid
    if mode == "nearest":
        return clip_by_value(c, mb.cast(0, c.dtype), mb.subtract(n, mb.cast(1, c.dtype))), None
    if mode in ("mirror", "reflect"):
        c = mu.abs(c)
        n2 = mb.multiply(n, mb.cast(2, c.dtype))
        m = mb.floormod(c, n2)
        under = mb.less(m, n)
        c = where(under, m, mb.subtract(n2, m))
        if mode == "reflect":
            c = where(under, c, mb.subtract(c, mb.cast(1, c.dtype)))
        return c, None
    if mode == "wrap":
        return mb.floormod(c, n), None
    raise ValueError(f"Unknown fill_mode: {mode}")


@img_export("map_coordinates")
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Samples ``inputs`` at ``coordinates`` (one array per input axis) with order 0 or 1 interpolation."""
    x = convert(inputs)
    coords = convert(coordinates)
    if coords.shape[0] != x.shape.rank:
        raise ValueError("First dim of `coordinates` must be the same as the rank of `inputs`. Received inputs with "
                         f"shape: {x.shape} and coordinate leading dim of {coords.shape[0]}")
    if fill_mode not in ("constant", "nearest", "wrap", "mirror", "reflect"):
        raise ValueError("Invalid value for argument `fill_mode`. Expected one of {'constant', 'nearest', 'wrap', "
                         f"'mirror', 'reflect'}}. Received: fill_mode={fill_mode}")
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    cs = array_blocks.unstack(coords, axis=0)
    per_axis = []
    for c, size in zip(cs, x.shape):
        if not c.dtype.is_floating:
            c = cast(c, "float32")
        if order == 0:
            nodes = [(mu.round(c), mb.cast(1, c.dtype))]
        else:
            lo = mu.floor(c)
            up_w = mb.subtract(c, lo)
            nodes = [(lo, mb.subtract(mb.cast(1, c.dtype), up_w)), (mb.add(lo, mb.cast(1, c.dtype)), up_w)]
        per_axis.append([(*_fix_coords(idx, size, fill_mode), w) for idx, w in nodes])
    out = None
    for combo in itertools.product(*per_axis):
        idx = array_blocks.stack([cast(i, "int32") for i, _, _ in combo], -1)
        g = gather_nd(x, idx)
        wdt = combo[0][2].dtype
        g = cast(g, wdt.name)
        if fill_mode == "constant":
            ok = combo[0][1]
            for _, v, _ in combo[1:]:
                ok = mb.logical_and(ok, v)
            g = where(ok, g, mb.add(mb.multiply(g, mb.cast(0, g.dtype)), mb.cast(fill_value, g.dtype)))
        w = combo[0][2]
        for _, _, wi in combo[1:]:
            w = mb.multiply(w, wi)
        term = mb.multiply(w, g)
        out = term if out is None else mb.add(out, term)
    if x.dtype.is_integer:
        out = mu.round(out)
    return cast(out, x.dtype.name)


def _patch_kernel(size, channels, dtype):
    n = int(np.prod(size)) * channels
    return array_shape.reshape(_eye(n, dtype=dtype), list(size) + [channels, n])


@img_export("extract_patches")
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches as the last axis: ``(..., out_h, out_w, size_h * size_w * channels)``."""
    size = (size, size) if isinstance(size, int) else tuple(size)
    strides = size if strides is None else strides
    x, squeeze, cf = _batched(images, data_format)
    k = _patch_kernel(size, x.shape[-1], x.dtype)
    y = _conv(x, k, strides=strides, padding=padding, data_format="channels_last", dilation_rate=dilation_rate)
    return _unbatch(y, squeeze, cf)


@img_export("extract_patches_3d")
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """3-D patches as the last axis."""
    size = (size,) * 3 if isinstance(size, int) else tuple(size)
    strides = size if strides is None else strides
    x = convert(volumes)
    squeeze = x.shape.rank == 4
    if squeeze:
        x = array_shape.expand_dims(x, 0)
    cf = standardize_data_format(data_format) == "channels_first"
    if cf:
        x = array_shape.transpose(x, [0, 2, 3, 4, 1])
    y = _conv(x, _patch_kernel(size, x.shape[-1], x.dtype), strides=strides, padding=padding,
              data_format="channels_last", dilation_rate=dilation_rate)
    if cf:
        y = array_shape.transpose(y, [0, 4, 1, 2, 3])
    return array_shape.squeeze(y, axis=[0]) if squeeze else y


@img_export("pad_images")
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
               target_height=None, target_width=None, data_format=None):
    """Zero-pads images to ``target_height`` x ``target_width`` (or by the given paddings)."""
    x, squeeze, cf = _batched(images, data_format)
    h, w = x.shape[1], x.shape[2]
    if target_height is None:
        target_height = h + (top_padding or 0) + (bottom_padding or 0)
    if target_width is None:
        target_width = w + (left_padding or 0) + (right_padding or 0)
    top = top_padding if top_padding is not None else target_height - h - (bottom_padding or 0)
    left = left_padding if left_padding is not None else target_width - w - (right_padding or 0)
    bottom, right = target_height - h - top, target_width - w - left
    if min(top, left, bottom, right) < 0:
        raise ValueError("The padding must be non-negative: the target size is smaller than the image.")
    y = array_blocks.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]])
    return _unbatch(y, squeeze, cf)


@img_export("crop_images")
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
                target_height=None, target_width=None, data_format=None):
    """Crops images to ``target_height`` x ``target_width`` from ``(top_cropping, left_cropping)``."""
    x, squeeze, cf = _batched(images, data_format)
    h, w = x.shape[1], x.shape[2]
    top = top_cropping if top_cropping is not None else h - target_height - (bottom_cropping or 0)
    left = left_cropping if left_cropping is not None else w - target_width - (right_cropping or 0)
    th = target_height if target_height is not None else h - top - (bottom_cropping or 0)
    tw = target_width if target_width is not None else w - left - (right_cropping or 0)
    y = x[:, top:top + th, left:left + tw, :]
    return _unbatch(y, squeeze, cf)


def _gauss1d(size, sigma):
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


@img_export("gaussian_blur")
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Gaussian blur (depthwise, ``same`` zero padding)."""
    x, squeeze, cf = _batched(images, data_format)
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    sh, sw = (sigma, sigma) if isinstance(sigma, (int, float)) else sigma
    k2 = np.outer(_gauss1d(int(kw), float(sw)), _gauss1d(int(kh), float(sh))).reshape(int(kh), int(kw))
    c = x.shape[-1]
    k = np.tile(k2.reshape(k2.shape[0], k2.shape[1], 1, 1), (1, 1, c, 1)).astype(x.dtype.as_numpy_dtype)
    y = _dwconv(x, convert(k), padding="same", data_format="channels_last")
    return _unbatch(y, squeeze, cf)


@img_export("sobel_edges")
def sobel_edges(images, data_format=None):
    """Sobel edge maps ``(..., channels, 2)`` (dy, dx)."""
    x, squeeze, cf = _batched(images, data_format)
    y = ip.sobel_edges(x)
    if cf:
        y = array_shape.transpose(y, [0, 3, 1, 2, 4])
    return array_shape.squeeze(y, axis=[0]) if squeeze else y


@img_export("ssim")
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, data_format=None):
    """Structural similarity per image (Gaussian window, ``valid`` filtering)."""
    a, b = convert(image1), convert(image2)
    orig = a.dtype.name
    dt = result_type(orig, float)
    a, b = cast(a, dt), cast(b, dt)
    unbatched = a.shape.rank == 3
    if unbatched:
        a, b = array_shape.expand_dims(a, 0), array_shape.expand_dims(b, 0)
    if standardize_data_format(data_format) == "channels_first":
        a, b = array_shape.transpose(a, [0, 2, 3, 1]), array_shape.transpose(b, [0, 2, 3, 1])
    n, h, w, c = a.shape
    g = _gauss1d(filter_size, filter_sigma)
    k = convert(np.outer(g, g).reshape(filter_size, filter_size, 1, 1).astype(a.dtype.as_numpy_dtype))
    a1 = array_shape.reshape(array_shape.transpose(a, [0, 3, 1, 2]), [-1, h, w, 1])
    b1 = array_shape.reshape(array_shape.transpose(b, [0, 3, 1, 2]), [-1, h, w, 1])

    def f(v):
        return _conv(v, k, padding="valid", data_format="channels_last")

    m1, m2 = f(a1), f(b1)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    s1 = mb.subtract(f(mb.multiply(a1, a1)), mb.multiply(m1, m1))
    s2 = mb.subtract(f(mb.multiply(b1, b1)), mb.multiply(m2, m2))
    s12 = mb.subtract(f(mb.multiply(a1, b1)), mb.multiply(m1, m2))
    num = mb.multiply(mb.add(mb.multiply(mb.cast(2.0, dt), mb.multiply(m1, m2)), mb.cast(c1, dt)),
                      mb.add(mb.multiply(mb.cast(2.0, dt), s12), mb.cast(c2, dt)))
    den = mb.multiply(mb.add(mb.add(mb.multiply(m1, m1), mb.multiply(m2, m2)), mb.cast(c1, dt)),
                      mb.add(mb.add(s1, s2), mb.cast(c2, dt)))
    per = rd.reduce_mean(mb.divide(num, den), axis=[1, 2, 3])
    r = rd.reduce_mean(array_shape.reshape(per, [-1 if n is None else n, c]), axis=-1)
    if unbatched:
        r = array_shape.squeeze(r, axis=[0])
    return cast(r, orig)


@img_export("elastic_transform")
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                      seed=None, data_format=None):
    """Random elastic deformation: Gaussian-smoothed random displacement fields scaled by ``alpha``."""
    from tensorlet._src.keras.random_functions import uniform

    x, squeeze, cf = _batched(images, data_format)
    n, h, w, c = x.shape
    dt = x.dtype if x.dtype.is_floating else None
    xf = x if dt is not None else cast(x, "float32")
    ks = int(2 * round(3 * sigma) + 1)
    dx = uniform((n, h, w, 1), -1.0, 1.0, dtype="float32", seed=seed)
    dy = uniform((n, h, w, 1), -1.0, 1.0, dtype="float32", seed=seed)
    dx = mb.multiply(gaussian_blur(dx, (ks, ks), (sigma, sigma)), alpha)
    dy = mb.multiply(gaussian_blur(dy, (ks, ks), (sigma, sigma)), alpha)
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
    cy = mb.add(convert(ys), dy[..., 0])
    cx = mb.add(convert(xs), dx[..., 0])
    outs = []
    for bi in range(n):
        chans = []
        for ci in range(c):
            chans.append(map_coordinates(xf[bi, :, :, ci], array_blocks.stack([cy[bi], cx[bi]], 0),
                                         1 if interpolation == "bilinear" else 0, fill_mode=fill_mode,
                                         fill_value=fill_value))
        outs.append(array_blocks.stack(chans, -1))
    y = cast(array_blocks.stack(outs, 0), x.dtype.name)
    return _unbatch(y, squeeze, cf)


@img_export("scale_and_translate")
def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method, antialias=True):
    """JAX's ``scale_and_translate`` for ``linear`` / ``triangle`` kernels (separable, one spatial dim at a time)."""
    x = convert(images)
    x = cast(x, result_type(x.dtype.name, float))
    scale, translation = np.asarray(convert(scale)), np.asarray(convert(translation))
    for j, d in enumerate(spatial_dims):
        in_size, out_size = x.shape[d], int(output_shape[d])
        s, t = float(scale[j]), float(translation[j])
        sample = (np.arange(out_size) + 0.5 - t) / s
        inv = 1.0 / s if (antialias and s < 1.0) else 1.0
        xs = (np.arange(in_size) + 0.5)[:, None]
        if method not in ("linear", "bilinear", "triangle"):
            raise NotImplementedError(f"scale_and_translate(method={method!r}) is not supported by tensorlet yet")
        wts = np.maximum(0.0, 1.0 - np.abs((xs - sample[None, :]) * inv))
        tot = wts.sum(0, keepdims=True)
        wts = np.where(np.abs(tot) > 1000 * np.finfo(np.float32).eps, wts / np.where(tot == 0, 1, tot), 0)
        valid = (sample >= 0) & (sample <= in_size)
        wts = wts * valid[None, :]
        nd = x.shape.rank
        perm = [i for i in range(nd) if i != d] + [d]
        xt = array_shape.transpose(x, perm)
        y = tensordot(xt, convert(wts.astype(x.dtype.as_numpy_dtype)), [[nd - 1], [0]])
        x = array_shape.transpose(y, [perm.index(i) for i in range(nd)])
    return x

