"""WebP decoding run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/webp.json) and by tensorlet
(tests/io/test_webp.py).  The files were written by Pillow (lossless, so every decoder gives the same pixels)."""

import base64

RGB = base64.b64decode("UklGRjAAAABXRUJQVlA4TCMAAAAvBMAAAM1lRP8Ditq2gXo9A2n8qY3C8CtI24BF2YnYAwAcHwA=")
RGBA = base64.b64decode("UklGRjIAAABXRUJQVlA4TCUAAAAvBMAAEM1lRP/DoKhtG6jHnoM0/tSGIcNPIGmLt/2THPMXgIMPAA==")
ANIMATED = base64.b64decode("UklGRogAAABXRUJQVlA4WAoAAAACAAAAAgAAAgAAQU5JTQYAAAAAAAAAAABBTk1GKgAAAAAAAAAAAAIAAAIAADIAAAJWUDhMEQAAAC8CgAAAB1CFKlSh/4GI6H8AAEFOTUYqAAAAAAAAAAAAAgAAAgAAMgAAAFZQOEwRAAAALwKAAAAHUOQiF7n/gYjofwAA")  # noqa: E501

CASES = {
    "rgb": lambda tf: tf.io.decode_webp(RGB),
    "rgb_channels3": lambda tf: tf.image.decode_webp(RGB, channels=3),
    "rgba": lambda tf: tf.image.decode_webp(RGBA),
    "channels_mismatch": lambda tf: tf.io.decode_webp(RGB, channels=4),
    "garbage": lambda tf: tf.io.decode_webp(b"garbage"),
    "same_function": lambda tf: tf.io.decode_webp is tf.image.decode_webp,
}
