"""Image codecs (``tf.io`` and ``tf.image``): ``decode_png``, ``decode_jpeg``, ``decode_gif``, ``decode_bmp``,
``decode_image``, ``decode_and_crop_jpeg``, ``encode_png``, ``encode_jpeg``, ``is_jpeg``, ``extract_jpeg_shape``.

Pillow does the decoding and encoding (imported on first use: ``tf.image`` is loaded with ``import
tensorlet``); channel conversions follow libpng/libjpeg as TF uses them (PNG RGB -> gray with TF's libpng
weights, 16 -> 8 bits keeps the high byte, JPEG gray = the Y channel).  JPEGs decode with the accurate
integer IDCT (TF's ``dct_method="INTEGER_ACCURATE"``, exactly); TF's default ``""`` is the fast IDCT, which
Pillow does not offer, so default decodes differ from TF's by a few levels (at most 4 in the tests).
16-bit PNGs (Pillow reduces colour ones to 8 bits) are written and read by a small PNG codec here.  Each
codec is an op with a NumPy kernel, so dataset ``map`` functions and ``tf.function`` graphs can use them.
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.ops.registry import bind, tf_export

__all__ = ["decode_png", "decode_jpeg", "decode_gif", "decode_bmp", "decode_image", "decode_and_crop_jpeg",
           "encode_png", "encode_jpeg", "is_jpeg", "extract_jpeg_shape"]


def _pil():
    from PIL import Image

    return Image


def _spec(shape, dtype):
    from tensorlet._src.ops.shapes import Spec

    return Spec(TensorShape(shape), dtype)


def _bytes(x) -> bytes:
    v = np.asarray(x)
    if v.ndim != 0:
        raise errors.invalid_argument("DecodeImage", f"contents must be scalar, got shape {list(v.shape)}")
    return v.item()


def _fmt(data: bytes):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _open(data: bytes, op: str):
    try:
        img = _pil().open(io.BytesIO(data))
        img.load()
        return img
    except Exception as e:  # noqa: BLE001 - Pillow raises many types for bad data
        raise errors.invalid_argument(op, f"Invalid {op[6:].upper()} data or crop window, data size {len(data)}: "
                                          f"{e}") from None


# --- channel conversions (as libpng / libjpeg do them for TF) ----------------------------------------------------

def _to_channels(a: np.ndarray, channels: int, maxval: int) -> np.ndarray:
    c = a.shape[-1]
    if channels in (0, c):
        return a
    if channels == 1:
        if c in (3, 4):  # libpng's rgb_to_gray as TF sets it up: weights (.299, .587, .114) in 1/32768, truncated
            rgb = a[..., :3].astype(np.int64)
            g = (9798 * rgb[..., 0] + 19234 * rgb[..., 1] + 3736 * rgb[..., 2]) >> 15
            return g[..., None].astype(a.dtype)
        return a[..., :1]
    if channels == 3:
        if c in (1, 2):
            return np.repeat(a[..., :1], 3, axis=-1)
        return a[..., :3]
    if channels == 4:
        if c == 1:
            a = np.repeat(a, 3, axis=-1)
        elif c == 2:
            return np.concatenate([np.repeat(a[..., :1], 3, axis=-1), a[..., 1:]], axis=-1)
        return np.concatenate([a[..., :3], np.full(a.shape[:-1] + (1,), maxval, a.dtype)], axis=-1)
    if channels == 2:
        g = _to_channels(a, 1, maxval) if c != 2 else a[..., :1]
        alpha = a[..., -1:] if c in (2, 4) else np.full(g.shape, maxval, a.dtype)
        return np.concatenate([g, alpha], axis=-1)
    raise errors.invalid_argument("DecodeImage", f"channels must be 0, 1, 3 or 4, got {channels}")


def _pil_array(img) -> np.ndarray:
    """Pixels of a Pillow image as ``[h, w, c]`` (uint8, or uint16 for 16-bit gray)."""
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L"):
        return np.asarray(img, np.uint16)[..., None]
    if mode == "I":
        return np.clip(np.asarray(img), 0, 65535).astype(np.uint16)[..., None]
    if mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    elif mode == "1":
        img = img.convert("L")
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA" if "A" in mode else "RGB")
    a = np.asarray(img, np.uint8)
    return a[..., None] if a.ndim == 2 else a


def _scale_depth(a: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "uint16" and a.dtype == np.uint8:
        return a.astype(np.uint16) * 257
    if dtype == "uint8" and a.dtype == np.uint16:  # libpng's strip_16: the high byte
        return (a >> 8).astype(np.uint8)
    if dtype == "float32":  # TF's decode_png(dtype=float32) does not exist; decode_image converts to [0, 1]
        return a.astype(np.float32) / np.float32(np.iinfo(a.dtype).max)
    return a


# --- a small PNG codec for 16-bit colour (Pillow keeps 8 bits of those) --------------------------------------------

_PNG_SIG = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png16_encode(a: np.ndarray, level: int) -> bytes:
    h, w, c = a.shape
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = a.astype(">u2").reshape(h, w * c * 2 // 2).view(np.uint8).reshape(h, -1)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter 0 on every row
    ihdr = struct.pack(">IIBBBBB", w, h, 16, color, 0, 0, 0)
    return _PNG_SIG + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw, level)) + _chunk(b"IEND", b"")


def _png_header(data: bytes):
    if data[:8] != _PNG_SIG or data[12:16] != b"IHDR":
        return None
    w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return w, h, depth, color, interlace


def _png16_decode(data: bytes) -> np.ndarray:
    """Decode a non-interlaced 16-bit gray/RGB/GA/RGBA PNG (all five row filters) to uint16 ``[h, w, c]``."""
    w, h, _, color, _ = _png_header(data)
    c = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, 1 + w * c * 2)
    bpp, stride = 2 * c, w * c * 2
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 0xFF
        elif f == 1:
            cur = line.copy()
            for x in range(bpp, stride):
                cur[x] = (cur[x] + cur[x - bpp]) & 0xFF
        else:
            cur = line.copy()
            for x in range(stride):
                left = cur[x - bpp] if x >= bpp else 0
                up = prev[x]
                if f == 3:
                    cur[x] = (cur[x] + ((left + up) >> 1)) & 0xFF
                else:
                    ul = prev[x - bpp] if x >= bpp else 0
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    pred = left if pa <= pb and pa <= pc else up if pb <= pc else ul
                    cur[x] = (cur[x] + pred) & 0xFF
        out[y] = cur
        prev = cur
    return out.view(">u2").astype(np.uint16).reshape(h, w, c)


# --- decode kernels -------------------------------------------------------------------------------------------------

def _decode_png_array(data: bytes, op="DecodePng") -> np.ndarray:
    head = _png_header(data)
    if head is not None and head[2] == 16 and head[3] in (0, 2, 4, 6) and head[4] == 0:
        try:
            return _png16_decode(data)
        except (zlib.error, ValueError, struct.error) as e:
            raise errors.invalid_argument(op, f"Invalid PNG data, size {len(data)}: {e}") from None
    return _pil_array(_open(data, op))


def _decode_png_kernel(xp, contents, channels=0, dtype="uint8"):
    data = _bytes(contents)
    if _fmt(data) != "png":
        raise errors.invalid_argument("DecodePng", "Invalid PNG header, data size " + str(len(data)))
    a = _decode_png_array(data)
    maxval = 65535 if a.dtype == np.uint16 else 255
    return np.ascontiguousarray(_scale_depth(_to_channels(a, channels, maxval), dtype))


def _channels_spec(dtype_key="dtype"):
    def rule(contents, channels=0, **attrs):
        dt = _dt.as_dtype(attrs.get(dtype_key, "uint8"))
        return _spec([None, None, channels or None], dt)
    return rule


DECODE_PNG = io_op("DecodePng", _decode_png_kernel, shape=_channels_spec())


def _check_channels(channels, allowed=(0, 1, 3, 4)):
    channels = int(channels or 0)
    if channels not in allowed:
        raise ValueError(f"channels must be in {list(allowed)}; got {channels}")
    return channels


@tf_export("io.decode_png", "image.decode_png")
def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
    """Decode a PNG to ``[height, width, channels]`` uint8 (or uint16).  ``channels``: 0 = as stored,
    1 = gray, 3 = RGB, 4 = RGBA."""
    d = _dt.as_dtype(dtype)
    if d not in (_dt.uint8, _dt.uint16):
        raise errors.invalid_argument("DecodePng", f"Value for attr 'dtype' of {d.name} is not in the list of "
                                                   "allowed values: uint8, uint16")
    return bind(DECODE_PNG, strings(contents), channels=_check_channels(channels),
               dtype=d.name)


def _jpeg_image(data: bytes, channels: int, ratio: int, op="DecodeJpeg"):
    img = _pil().open(io.BytesIO(data))
    if ratio > 1 or channels == 1:
        w, h = img.size
        img.draft("L" if channels == 1 else img.mode, (-(-w // ratio), -(-h // ratio)))
    try:
        img.load()
    except Exception as e:  # noqa: BLE001
        raise errors.invalid_argument(op, f"Invalid JPEG data or crop window, data size {len(data)}: {e}") from None
    if img.mode == "CMYK":
        img = img.convert("RGB")
    return _pil_array(img)


def _decode_jpeg_kernel(xp, contents, channels=0, ratio=1, crop=None):
    data = _bytes(contents)
    op = "DecodeAndCropJpeg" if crop is not None else "DecodeJpeg"
    if _fmt(data) != "jpeg":
        raise errors.invalid_argument(op, "Invalid JPEG data or crop window, data size " + str(len(data)))
    a = _to_channels(_jpeg_image(data, channels, ratio, op), channels, 255)
    if crop is not None:
        y, x, ch, cw = crop
        if y < 0 or x < 0 or ch <= 0 or cw <= 0 or y + ch > a.shape[0] or x + cw > a.shape[1]:
            raise errors.invalid_argument(op, f"Invalid JPEG data or crop window, data size {len(data)}")
        a = a[y:y + ch, x:x + cw]
    return np.ascontiguousarray(a)


DECODE_JPEG = io_op("DecodeJpeg", _decode_jpeg_kernel,
                    shape=lambda contents, channels=0, ratio=1, crop=None: _spec(
                        [crop[2] if crop else None, crop[3] if crop else None, channels or None], _dt.uint8))


@tf_export("io.decode_jpeg", "image.decode_jpeg")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """Decode a JPEG to uint8 ``[height, width, channels]`` (``ratio`` 1, 2, 4 or 8 downscales while
    decoding).  Decoding always uses fancy upscaling and the accurate integer IDCT (TF's
    ``dct_method="INTEGER_ACCURATE"``); TF's default fast IDCT can differ by a few levels."""
    if int(ratio) not in (1, 2, 4, 8):
        raise errors.invalid_argument("DecodeJpeg", f"ratio must be 1, 2, 4, or 8, got {ratio}")
    return bind(DECODE_JPEG, strings(contents), channels=_check_channels(channels, (0, 1, 3)),
               ratio=int(ratio), crop=None)


@tf_export("io.decode_and_crop_jpeg", "image.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """``decode_jpeg`` then the crop ``crop_window = [y, x, height, width]``."""
    cw = convert_to_tensor(crop_window, _dt.int32).numpy().tolist()
    if len(cw) != 4:
        raise errors.invalid_argument("DecodeAndCropJpeg", "crop_window must be a 1-D tensor of 4 elements")
    return bind(DECODE_JPEG, strings(contents), channels=_check_channels(channels, (0, 1, 3)),
               ratio=int(ratio), crop=tuple(int(v) for v in cw))


def _decode_gif_kernel(xp, contents):
    data = _bytes(contents)
    if _fmt(data) != "gif":
        raise errors.invalid_argument("DecodeGif", "Failed to decode gif: not a GIF file")
    img = _open(data, "DecodeGif")
    frames = []
    for i in range(getattr(img, "n_frames", 1)):
        img.seek(i)
        frames.append(np.asarray(img.convert("RGB"), np.uint8))
    return np.stack(frames)


DECODE_GIF = io_op("DecodeGif", _decode_gif_kernel, shape=lambda contents: _spec([None, None, None, 3], _dt.uint8))


@tf_export("io.decode_gif", "image.decode_gif")
def decode_gif(contents, name=None):
    """Decode every frame of a GIF: uint8 ``[frames, height, width, 3]``."""
    return bind(DECODE_GIF, strings(contents))


def _decode_bmp_kernel(xp, contents, channels=0):
    data = _bytes(contents)
    if _fmt(data) != "bmp":
        raise errors.invalid_argument("DecodeBmp", "Not a BMP file")
    return np.ascontiguousarray(_to_channels(_pil_array(_open(data, "DecodeBmp")), channels, 255))


DECODE_BMP = io_op("DecodeBmp", _decode_bmp_kernel,
                   shape=lambda contents, channels=0: _spec([None, None, channels or None], _dt.uint8))


@tf_export("io.decode_bmp", "image.decode_bmp")
def decode_bmp(contents, channels=0, name=None):
    """Decode a BMP to uint8 ``[height, width, channels]``."""
    return bind(DECODE_BMP, strings(contents), channels=_check_channels(channels, (0, 1, 3, 4)))


def _decode_image_kernel(xp, contents, channels=0, dtype="uint8", expand_animations=True):
    data = _bytes(contents)
    fmt = _fmt(data)
    if fmt == "png":
        a = _to_channels(_decode_png_array(data, "DecodeImage"), channels, 255)
        a = a if a.dtype == np.uint8 or dtype != "uint8" else _scale_depth(a, "uint8")
    elif fmt == "jpeg":
        a = _to_channels(_jpeg_image(data, channels, 1, "DecodeImage"), channels, 255)
    elif fmt == "bmp":
        a = _to_channels(_pil_array(_open(data, "DecodeImage")), channels, 255)
    elif fmt == "gif":
        a = _decode_gif_kernel(xp, contents)
        a = _to_channels(a, channels, 255) if channels else a
        if not expand_animations:
            a = a[0]
    else:
        raise errors.invalid_argument("DecodeImage", "Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    if dtype != "uint8" and dtype != "uint16":
        src_max = np.float32(np.iinfo(a.dtype).max)
        return (a.astype(np.float32) / src_max).astype(_dt.as_dtype(dtype)._np)
    if dtype == "uint16" and a.dtype == np.uint8:
        return a.astype(np.uint16) * 257
    return np.ascontiguousarray(a)


def decode_image_array(data: bytes, channels=0, expand_animations=True) -> np.ndarray:
    """``decode_image``'s uint8/uint16 result as a NumPy array, on the host directly (no op dispatch): for
    loaders that decode many small files, e.g. ``keras.utils.image_dataset_from_directory``."""
    contents = np.empty((), object)
    contents[()] = bytes(data)  # a 0-d object array: no copy into an "S" array (which would drop trailing NULs)
    return _decode_image_kernel(np, contents, channels=_check_channels(channels), expand_animations=expand_animations)


DECODE_IMAGE = io_op("DecodeImage", _decode_image_kernel,
                     shape=lambda contents, channels=0, dtype="uint8", expand_animations=True: _spec(
                         None if expand_animations else [None, None, channels or None], _dt.as_dtype(dtype)))


@tf_export("io.decode_image", "image.decode_image")
def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
    """Decode a JPEG, PNG, GIF or BMP (detected from the bytes).  GIFs give ``[frames, h, w, 3]`` unless
    ``expand_animations=False``; a float ``dtype`` rescales to [0, 1]."""
    d = _dt.as_dtype(dtype)
    if d not in (_dt.uint8, _dt.uint16, _dt.float16, _dt.float32, _dt.float64):
        raise ValueError(f"`dtype` must be one of uint8, uint16, float16, float32, float64; got {d.name}")
    return bind(DECODE_IMAGE, strings(contents), channels=_check_channels(channels),
               dtype=d.name, expand_animations=bool(expand_animations))


# --- encoders ---------------------------------------------------------------------------------------------------------

def _image3(a, op):
    if a.ndim != 3:
        raise errors.invalid_argument(op, f"image must be 3-dimensional{errors.shape_str(a.shape)}")
    if a.shape[-1] not in (1, 2, 3, 4) and op == "EncodePng":
        raise errors.invalid_argument(op, f"image must have 1, 2, 3, or 4 channels, got {a.shape[-1]}")
    return a


def _encode_png_kernel(xp, image, compression=-1):
    a = _image3(np.asarray(image), "EncodePng")
    level = 6 if compression is None or compression < 0 else int(compression)
    if a.dtype == np.uint16:
        return np.array(_png16_encode(a, level), dtype=object)
    buf = io.BytesIO()
    img = _pil().fromarray(np.ascontiguousarray(a[..., 0] if a.shape[-1] == 1 else a),
                           mode={1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[a.shape[-1]])
    img.save(buf, format="PNG", compress_level=level)
    return np.array(buf.getvalue(), dtype=object)


ENCODE_PNG = io_op("EncodePng", _encode_png_kernel, shape=lambda image, compression=-1: _spec([], _dt.string),
                   dtypes=(_dt.uint8, _dt.uint16))


@tf_export("io.encode_png", "image.encode_png")
def encode_png(image, compression=-1, name=None):
    """PNG bytes of a uint8/uint16 ``[height, width, channels]`` image (``compression`` 0-9, -1 = default)."""
    return bind(ENCODE_PNG, convert_to_tensor(image), compression=int(compression))


def _encode_jpeg_kernel(xp, image, fmt="", quality=95, progressive=False, optimize_size=False,
                        chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata=""):
    a = _image3(np.asarray(image), "EncodeJpeg")
    c = a.shape[-1]
    if (fmt == "grayscale" and c != 1) or (fmt == "rgb" and c != 3) or c not in (1, 3):
        raise errors.invalid_argument("EncodeJpeg", f"image must have 1 or 3 channels, got {errors.shape_str(a.shape)}")
    img = _pil().fromarray(np.ascontiguousarray(a[..., 0] if c == 1 else a), mode="L" if c == 1 else "RGB")
    buf = io.BytesIO()
    kw = {"quality": int(quality), "progressive": bool(progressive), "optimize": bool(optimize_size),
          "subsampling": 2 if chroma_downsampling else 0, "dpi": (x_density, y_density)}
    if xmp_metadata:
        kw["xmp"] = xmp_metadata.encode() if isinstance(xmp_metadata, str) else xmp_metadata
    img.save(buf, format="JPEG", **kw)
    return np.array(buf.getvalue(), dtype=object)


ENCODE_JPEG = io_op("EncodeJpeg", _encode_jpeg_kernel, shape=lambda image, **attrs: _spec([], _dt.string),
                    dtypes=(_dt.uint8,))


@tf_export("io.encode_jpeg", "image.encode_jpeg")
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 - TF's name
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    """JPEG bytes of a uint8 ``[height, width, 1 or 3]`` image."""
    return bind(ENCODE_JPEG, convert_to_tensor(image), fmt=format, quality=int(quality), progressive=bool(progressive),
               optimize_size=bool(optimize_size), chroma_downsampling=bool(chroma_downsampling),
               density_unit=density_unit, x_density=int(x_density), y_density=int(y_density),
               xmp_metadata=xmp_metadata)


def _is_jpeg_kernel(xp, contents):
    return np.array(_bytes(contents)[:3] == b"\xff\xd8\xff")


IS_JPEG = io_op("IsJpeg", _is_jpeg_kernel, shape=lambda contents: _spec([], _dt.bool))


@tf_export("io.is_jpeg", "image.is_jpeg")
def is_jpeg(contents, name=None):
    """Whether the bytes start like a JPEG (a bool scalar)."""
    return bind(IS_JPEG, strings(contents))


def _jpeg_shape_kernel(xp, contents, output_type="int32"):
    data = _bytes(contents)
    if _fmt(data) != "jpeg":
        raise errors.invalid_argument("ExtractJpegShape", "Invalid JPEG data or crop window, data size "
                                                          + str(len(data)))
    img = _pil().open(io.BytesIO(data))
    c = {"L": 1, "RGB": 3, "CMYK": 4, "YCbCr": 3}.get(img.mode, len(img.getbands()))
    return np.array([img.size[1], img.size[0], c], _dt.as_dtype(output_type)._np)


EXTRACT_JPEG_SHAPE = io_op("ExtractJpegShape", _jpeg_shape_kernel,
                           shape=lambda contents, output_type="int32": _spec([3], _dt.as_dtype(output_type)))


@tf_export("io.extract_jpeg_shape", "image.extract_jpeg_shape")
def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
    """``[height, width, channels]`` of a JPEG without decoding the pixels."""
    return bind(EXTRACT_JPEG_SHAPE, strings(contents),
               output_type=_dt.as_dtype(output_type).name)
