"""``tf.io.decode_webp`` / ``tf.image.decode_webp``: WebP files (still or animated) to uint8
``[frames, height, width, channels]``, decoded by Pillow's libwebp; the channels are the file's (3, or 4 with
alpha), and a ``channels`` request that differs is an error, as in TF."""

from __future__ import annotations

import io

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.ops.shapes import Spec


def _decode_kernel(xp, contents, channels=0):
    data = np.asarray(contents).item()
    if not (len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        raise errors.invalid_argument("DecodeWebP", "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, "
                                                    "WebP required.")
    from PIL import Image, ImageSequence

    try:
        img = Image.open(io.BytesIO(data))
        alpha = "A" in img.getbands() or img.info.get("transparency") is not None
        mode, native = ("RGBA", 4) if alpha else ("RGB", 3)
        frames = [np.asarray(f.convert(mode)) for f in ImageSequence.Iterator(img)]
    except (OSError, ValueError) as e:
        raise errors.invalid_argument("DecodeWebP", f"WebP decoding failed: {e}") from None
    if channels not in (0, native):
        raise errors.invalid_argument("DecodeWebP", "Number of channels requested does not match input")
    return np.stack(frames).astype(np.uint8)


DECODE_WEBP = io_op("DecodeWebP", _decode_kernel,
                    shape=lambda contents, channels=0: Spec(TensorShape([None, None, None, channels or None]),
                                                            D.uint8))


@tf_export("io.decode_webp", "image.decode_webp")
def decode_webp(contents, channels=0, dtype=D.uint8, name=None):
    """A WebP image as uint8 ``[frames, height, width, channels]`` (``channels`` 0 keeps the file's: 3 or 4).

    >>> import io, numpy as np, PIL.Image
    >>> buf = io.BytesIO(); PIL.Image.fromarray(np.zeros((2, 3, 3), np.uint8)).save(buf, "WEBP", lossless=True)
    >>> tf.io.decode_webp(buf.getvalue()).shape
    TensorShape([1, 2, 3, 3])
    """
    if D.as_dtype(dtype) is not D.uint8:
        raise errors.invalid_argument("DecodeWebP", f"Value for attr 'dtype' of {D.as_dtype(dtype).name} is not in "
                                                    "the list of allowed values: uint8")
    return bind(DECODE_WEBP, strings(contents), channels=int(channels))
