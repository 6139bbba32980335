"""Image codecs: TF's PNG/JPEG bytes decoded as TF decodes them (tests/goldens/image_pipeline.json), round trips,
channel conversions and errors."""

import numpy as np
import pytest
from _goldens import array, assert_value, load

import tensorlet as tf

C = load("image_pipeline.json")["codecs"]


def _bytes(entry):
    return tf.constant(array(entry["bytes"]).reshape(()).item())


@pytest.mark.parametrize("name,channels", [("png_rgb", 0), ("png_rgb", 1), ("png_rgb", 3), ("png_rgb", 4),
                                           ("png_rgba", 0), ("png_rgba", 1), ("png_rgba", 3),
                                           ("png_gray", 0), ("png_gray", 3), ("png_gray", 4)])
def test_decode_png_like_tf(name, channels):
    assert_value(tf.io.decode_png(_bytes(C[name]), channels=channels), C[name][f"decode_{channels}"],
                 f"{name}/{channels}")


def test_decode_png_16_bit_like_tf():
    e = C["png16"]
    assert_value(tf.io.decode_png(_bytes(e), dtype=tf.uint16), e["decode_u16"], "u16")
    assert_value(tf.io.decode_png(_bytes(e)), e["decode_u8"], "u8")
    assert_value(tf.io.decode_image(_bytes(e), dtype=tf.float32), e["decode_image_f32"], "f32", atol=1e-7)
    assert_value(tf.io.decode_png(_bytes(C["png_rgb"]), dtype=tf.uint16), C["png_rgb"]["decode_u16"], "8->16")


def test_decode_jpeg_like_tf():
    e = C["jpeg"]
    # exactly TF's accurate integer IDCT; TF's default is its fast IDCT, a few levels away
    assert_value(tf.io.decode_jpeg(_bytes(e)), e["decode_accurate"], "jpeg")
    assert_value(tf.io.decode_jpeg(_bytes(e), channels=1), e["decode_1_accurate"], "jpeg/1")
    assert_value(tf.io.decode_jpeg(_bytes(e)), e["decode_0"], "jpeg/fast", atol=4)
    assert_value(tf.io.decode_jpeg(_bytes(e), channels=1), e["decode_1"], "jpeg/1/fast", atol=4)
    assert_value(tf.io.extract_jpeg_shape(_bytes(e)), e["shape"], "shape")
    assert_value(tf.io.decode_and_crop_jpeg(_bytes(e), [1, 2, 3, 3]), e["crop"], "crop", atol=4)
    g = C["jpeg_gray"]
    assert_value(tf.io.decode_jpeg(_bytes(g)), g["decode_0"], "gray", atol=4)
    assert_value(tf.io.decode_jpeg(_bytes(g), channels=3), g["decode_3"], "gray/3", atol=4)
    assert bool(tf.io.is_jpeg(_bytes(e))) and not bool(tf.io.is_jpeg(_bytes(C["png_rgb"])))


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_png_round_trip(channels, dtype):
    img = np.random.default_rng(channels).integers(0, np.iinfo(dtype).max + 1, (7, 9, channels)).astype(dtype)
    png = tf.io.encode_png(img)
    assert png.dtype == tf.string and png.shape == ()
    back = tf.io.decode_png(png, dtype=tf.as_dtype(dtype))
    np.testing.assert_array_equal(back.numpy(), img)
    np.testing.assert_array_equal(tf.image.decode_image(png, dtype=tf.as_dtype(dtype)).numpy(), img)


def test_jpeg_round_trip_and_decode_image():
    img = np.tile(np.linspace(0, 255, 16, dtype=np.uint8)[None, :, None], (16, 1, 3))
    jpg = tf.io.encode_jpeg(img, quality=95)
    back = tf.io.decode_jpeg(jpg).numpy()
    assert back.shape == (16, 16, 3) and np.abs(back.astype(int) - img).max() <= 3
    f = tf.image.decode_image(jpg, dtype=tf.float32)
    assert f.dtype == tf.float32 and float(tf.reduce_max(f)) <= 1.0
    assert tf.io.decode_jpeg(jpg, ratio=2).shape == (8, 8, 3)


def test_decode_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
        tf.io.decode_image(b"not an image")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG header"):
        tf.io.decode_png(b"not a png")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
        tf.io.decode_jpeg(b"not a jpeg")
    with pytest.raises(tf.errors.InvalidArgumentError, match="3-dimensional"):
        tf.io.encode_png(np.zeros((4, 4), np.uint8))


def test_decode_in_a_graph():
    png = tf.io.encode_png(np.arange(24, dtype=np.uint8).reshape(2, 4, 3))

    @tf.function
    def f(b):
        return tf.cast(tf.io.decode_png(b, channels=3), tf.float32) / 255.0

    np.testing.assert_allclose(f(png).numpy(), np.arange(24).reshape(2, 4, 3) / 255.0, rtol=1e-6)
