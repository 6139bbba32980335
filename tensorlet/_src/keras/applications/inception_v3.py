"""InceptionV3, as Keras 3 builds it (its conv/BN/activation layers carry Keras's automatic names)."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export


def conv_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False,
            names=(None, None, None)):
    """The Inception unit: Conv2D, then (without a bias) a scale-free BatchNormalization, then the activation.

    ``names`` is ``(conv, bn, activation)``; ``None`` entries take Keras's automatic names.
    """
    conv_name, bn_name, act_name = names
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=conv_name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=iu.bn_axis(), scale=False, name=bn_name)(x)
    if activation is not None:
        x = layers.Activation(activation, name=act_name)(x)
    return x


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    names = (None, None, None) if name is None else (f"{name}_conv", f"{name}_bn", name)
    return conv_bn(x, filters, (num_row, num_col), strides=strides, padding=padding, names=names)


def _chain(x, specs):
    """Apply ``conv2d_bn`` for each ``(filters, rows, cols[, strides, padding])`` in turn."""
    for s in specs:
        x = conv2d_bn(x, s[0], s[1], s[2], **({"strides": s[3], "padding": s[4]} if len(s) > 3 else {}))
    return x


def _avg_branch(x, filters):
    return conv2d_bn(layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), filters, 1, 1)


def _concat(xs, name=None):
    return layers.Concatenate(axis=iu.bn_axis(), name=name)(xs)


@tf_export("keras.applications.InceptionV3", "keras.applications.inception_v3.InceptionV3")
def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="inception_v3"):
    """InceptionV3 (Szegedy et al., 2015) as Keras builds it; ``weights`` is None or a local weights file."""
    files = iu.tf_kernels_files("inception_v3")
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 299, 75)
    v2 = ((2, 2), "valid")
    x = _chain(img_input, [(32, 3, 3) + v2, (32, 3, 3, (1, 1), "valid"), (64, 3, 3)])
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _chain(x, [(80, 1, 1, (1, 1), "valid"), (192, 3, 3, (1, 1), "valid")])
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):  # mixed0-2: 35x35
        b1 = conv2d_bn(x, 64, 1, 1)
        b5 = _chain(x, [(48, 1, 1), (64, 5, 5)])
        b3 = _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3)])
        x = _concat([b1, b5, b3, _avg_branch(x, pool_filters)], name=f"mixed{i}")
    b3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")  # mixed3: to 17x17
    b3d = _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3) + v2])
    x = _concat([b3, b3d, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], name="mixed3")
    for i, f in enumerate((128, 160, 160, 192)):  # mixed4-7
        b1 = conv2d_bn(x, 192, 1, 1)
        b7 = _chain(x, [(f, 1, 1), (f, 1, 7), (192, 7, 1)])
        b7d = _chain(x, [(f, 1, 1), (f, 7, 1), (f, 1, 7), (f, 7, 1), (192, 1, 7)])
        x = _concat([b1, b7, b7d, _avg_branch(x, 192)], name=f"mixed{4 + i}")
    b3 = _chain(x, [(192, 1, 1), (320, 3, 3) + v2])  # mixed8: to 8x8
    b7 = _chain(x, [(192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3) + v2])
    x = _concat([b3, b7, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], name="mixed8")
    for i in range(2):  # mixed9-10
        b1 = conv2d_bn(x, 320, 1, 1)
        b3 = conv2d_bn(x, 384, 1, 1)
        b3 = _concat([conv2d_bn(b3, 384, 1, 3), conv2d_bn(b3, 384, 3, 1)], name=f"mixed9_{i}")
        b3d = _chain(x, [(448, 1, 1), (384, 3, 3)])
        b3d = _concat([conv2d_bn(b3d, 384, 1, 3), conv2d_bn(b3d, 384, 3, 1)])
        x = _concat([b1, b3, b3d, _avg_branch(x, 192)], name=f"mixed{9 + i}")
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, pooling=pooling,
                     classes=classes, classifier_activation=classifier_activation, pool_names=(None, None))


@tf_export("keras.applications.inception_v3.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.inception_v3.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
