"""Record real TF's outputs of the tf.image pipeline functions and image codecs on small inputs into
tests/goldens/image_pipeline.json.

    /work/tfenv/bin/python tools/record_tf_goldens/image_pipeline.py      (a Python that has TensorFlow)

Inputs are built from a fixed NumPy seed (the tests rebuild them with ``inputs()``); random functions use
stateless seeds, or ``tf.random.set_seed`` plus an op seed for the stateful ones.
"""

import base64
import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def inputs():
    """Deterministic test images: float RGB [5, 6, 3] in [0, 1], its uint8 version, and a batch of 2."""
    rng = np.random.default_rng(1234)
    f = rng.random((5, 6, 3)).astype(np.float32)
    f[0, 0] = [0.5, 0.5, 0.5]  # gray: zero saturation
    f[0, 1] = [1.0, 0.0, 0.0]  # pure colours and ties between channels
    f[0, 2] = [0.2, 0.7, 0.7]
    f[0, 3] = [0.0, 0.0, 0.0]
    u = (f * 255).round().astype(np.uint8)
    batch = rng.random((2, 4, 5, 3)).astype(np.float32)
    return f, u, batch


def enc(t):
    v = t.numpy() if hasattr(t, "numpy") else t
    a = np.asarray(v, object) if isinstance(v, bytes) else np.asarray(v)
    if a.dtype == object:
        return {"dtype": "string", "shape": list(a.shape), "values": [base64.b64encode(v).decode() for v in a.ravel()]}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.astype(np.float64).ravel().tolist()}


def main():
    import tensorflow as tf

    f, u, batch = inputs()
    img = tf.constant(f)
    img_u8 = tf.constant(u)
    out = {}

    def rec(name, fn):
        out[name] = enc(fn())

    rec("rgb_to_hsv", lambda: tf.image.rgb_to_hsv(img))
    rec("hsv_to_rgb", lambda: tf.image.hsv_to_rgb(img))
    rec("rgb_to_yiq", lambda: tf.image.rgb_to_yiq(img))
    rec("yiq_to_rgb", lambda: tf.image.yiq_to_rgb(img))
    rec("rgb_to_yuv", lambda: tf.image.rgb_to_yuv(img))
    rec("yuv_to_rgb", lambda: tf.image.yuv_to_rgb(img))
    for d in (0.1, -0.35, 0.5):
        rec(f"adjust_hue_{d}", lambda d=d: tf.image.adjust_hue(img, d))
        rec(f"adjust_hue_u8_{d}", lambda d=d: tf.image.adjust_hue(img_u8, d))
    for s in (0.0, 0.4, 2.5):
        rec(f"adjust_saturation_{s}", lambda s=s: tf.image.adjust_saturation(img, s))
        rec(f"adjust_saturation_u8_{s}", lambda s=s: tf.image.adjust_saturation(img_u8, s))
    seed = (7, 11)
    rec("stateless_random_brightness", lambda: tf.image.stateless_random_brightness(img, 0.3, seed))
    rec("stateless_random_contrast", lambda: tf.image.stateless_random_contrast(img, 0.2, 1.8, seed))
    rec("stateless_random_hue", lambda: tf.image.stateless_random_hue(img, 0.4, seed))
    rec("stateless_random_saturation", lambda: tf.image.stateless_random_saturation(img, 0.3, 1.7, seed))
    for s in ((1, 2), (3, 4), (5, 6)):
        rec(f"stateless_random_flip_left_right_{s[0]}", lambda s=s: tf.image.stateless_random_flip_left_right(img, s))
        rec(f"stateless_random_flip_up_down_{s[0]}", lambda s=s: tf.image.stateless_random_flip_up_down(img, s))
        rec(f"stateless_random_flip_left_right_batch_{s[0]}",
            lambda s=s: tf.image.stateless_random_flip_left_right(tf.constant(batch), s))
        rec(f"stateless_random_crop_{s[0]}", lambda s=s: tf.image.stateless_random_crop(img, [3, 4, 3], s))
    tf.random.set_seed(99)
    rec("random_crop_set_seed_99_op_5", lambda: tf.image.random_crop(img, [2, 3, 3], seed=5))
    tf.random.set_seed(99)
    rec("random_hue_set_seed_99_op_5", lambda: tf.image.random_hue(img, 0.3, seed=5))
    tf.random.set_seed(99)
    rec("random_saturation_set_seed_99_op_5", lambda: tf.image.random_saturation(img, 0.5, 1.5, seed=5))
    rec("sobel_edges", lambda: tf.image.sobel_edges(tf.constant(batch)))
    rec("adjust_jpeg_quality_u8_75", lambda: tf.image.adjust_jpeg_quality(img_u8, 75))
    rec("stateless_random_jpeg_quality", lambda: tf.image.stateless_random_jpeg_quality(img_u8, 20, 90, seed))

    # codecs: TF's PNG / JPEG bytes and TF's decodes of them
    rgba = np.concatenate([u, (u[..., :1] // 2 + 100)], axis=-1)
    codecs = {}
    png_rgb = tf.io.encode_png(img_u8)
    png_rgba = tf.io.encode_png(tf.constant(rgba))
    png_gray = tf.io.encode_png(tf.constant(u[..., :1]))
    png16 = tf.io.encode_png(tf.constant((f * 65535).astype(np.uint16)))
    jpg = tf.io.encode_jpeg(img_u8, quality=90)
    jpg_gray = tf.io.encode_jpeg(tf.constant(u[..., :1]), quality=90)
    def pngs(data, channels):
        return {"bytes": enc(data), **{f"decode_{c}": enc(tf.io.decode_png(data, c)) for c in channels}}

    codecs["png_rgb"] = dict(pngs(png_rgb, (0, 1, 3, 4)), decode_u16=enc(tf.io.decode_png(png_rgb, dtype=tf.uint16)))
    codecs["png_rgba"] = pngs(png_rgba, (0, 1, 3))
    codecs["png_gray"] = pngs(png_gray, (0, 3, 4))
    codecs["png16"] = {"bytes": enc(png16), "decode_u16": enc(tf.io.decode_png(png16, dtype=tf.uint16)),
                       "decode_u8": enc(tf.io.decode_png(png16)),
                       "decode_image_f32": enc(tf.io.decode_image(png16, dtype=tf.float32))}
    codecs["jpeg"] = {"bytes": enc(jpg), "decode_0": enc(tf.io.decode_jpeg(jpg)),
                      "decode_accurate": enc(tf.io.decode_jpeg(jpg, dct_method="INTEGER_ACCURATE")),
                      "decode_1_accurate": enc(tf.io.decode_jpeg(jpg, channels=1, dct_method="INTEGER_ACCURATE")),
                      "decode_1": enc(tf.io.decode_jpeg(jpg, channels=1)),
                      "shape": enc(tf.io.extract_jpeg_shape(jpg)),
                      "crop": enc(tf.io.decode_and_crop_jpeg(jpg, [1, 2, 3, 3]))}
    codecs["jpeg_gray"] = {"bytes": enc(jpg_gray), "decode_0": enc(tf.io.decode_jpeg(jpg_gray)),
                           "decode_3": enc(tf.io.decode_jpeg(jpg_gray, channels=3))}
    out["codecs"] = codecs
    path = os.path.join(ROOT, "tests", "goldens", "image_pipeline.json")
    with open(path + ".tmp", "w") as fh:
        json.dump(out, fh, indent=0, sort_keys=True)
        fh.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
