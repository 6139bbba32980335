"""Xception, as Keras 3 builds it."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export


def _sep_bn(x, filters, name):
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=iu.channel_axis(), name=f"{name}_bn")(x)


def _down_block(x, f1, f2, b, first_act=True):
    """Two separable convs and a strided max pool, plus a strided 1x1 conv shortcut."""
    residual = layers.Conv2D(f2, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=iu.channel_axis())(residual)
    if first_act:
        x = layers.Activation("relu", name=f"block{b}_sepconv1_act")(x)
    x = _sep_bn(x, f1, f"block{b}_sepconv1")
    x = layers.Activation("relu", name=f"block{b}_sepconv2_act")(x)
    x = _sep_bn(x, f2, f"block{b}_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{b}_pool")(x)
    return layers.Add()([x, residual])


@tf_export("keras.applications.Xception", "keras.applications.xception.Xception")
def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", name="xception"):
    """Xception (Chollet, 2016) as Keras builds it; ``weights`` is None or a local weights file."""
    files = iu.tf_kernels_files("xception")
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 299, 71)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(axis=iu.channel_axis(), name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=iu.channel_axis(), name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _down_block(x, 128, 128, 2, first_act=False)
    x = _down_block(x, 256, 256, 3)
    x = _down_block(x, 728, 728, 4)
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = layers.Activation("relu", name=f"{prefix}_sepconv{j}_act")(x)
            x = _sep_bn(x, 728, f"{prefix}_sepconv{j}")
        x = layers.Add()([x, residual])
    x = _down_block(x, 728, 1024, 13)
    x = _sep_bn(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sep_bn(x, 2048, "block14_sepconv2")
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, pooling=pooling,
                     classes=classes, classifier_activation=classifier_activation, pool_names=(None, None))


@tf_export("keras.applications.xception.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.xception.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
