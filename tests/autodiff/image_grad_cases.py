"""The tf.image composites whose gradients are compared with real TF, shared by
tests/autodiff/test_grad_image.py and tools/record_tf_goldens/image_grad.py."""


def composites(tf):
    """name -> fn(image) for ``tf`` = tensorflow (the recorder) or tensorlet."""
    return {
        "per_image_standardization": tf.image.per_image_standardization,
        "adjust_brightness": lambda v: tf.image.adjust_brightness(v, 0.2),
        "adjust_gamma": lambda v: tf.image.adjust_gamma(v, 1.7, 0.8),
        "rgb_to_grayscale": tf.image.rgb_to_grayscale,
        "psnr": lambda v: tf.image.psnr(v, v * 0.5 + 0.1, 1.0),
        "total_variation": tf.image.total_variation,
        "image_gradients": tf.image.image_gradients,
        "convert_to_float16": lambda v: tf.image.convert_image_dtype(v, tf.float16),
        "resize_with_pad": lambda v: tf.image.resize_with_pad(v, 5, 9),
        "rot90_flip_crop": lambda v: tf.image.central_crop(tf.image.flip_up_down(tf.image.rot90(v, 3)), 0.5),
    }
