"""InceptionResNetV2, as Keras 3 builds it."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.applications.inception_v3 import conv_bn
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.ops.registry import tf_export


class CustomScaleLayer(Layer):
    """``inputs[0] + inputs[1] * scale`` (Keras's residual scaling layer of this model)."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None):
    names = (None, None, None) if name is None else (name, f"{name}_bn", f"{name}_ac")
    return conv_bn(x, filters, kernel_size, strides=strides, padding=padding, activation=activation,
                   use_bias=use_bias, names=names)


def _chain(x, specs):
    for filters, k in specs:
        x = conv2d_bn(x, filters, k)
    return x


_BRANCHES = {"block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
             "block17": [[(192, 1)], [(128, 1), (160, [1, 7]), (192, [7, 1])]],
             "block8": [[(192, 1)], [(192, 1), (224, [1, 3]), (256, [3, 1])]]}


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    if block_type not in _BRANCHES:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", '
                         f"but got: {block_type}")
    branches = [_chain(x, spec) for spec in _BRANCHES[block_type]]
    block_name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=iu.bn_axis(), name=f"{block_name}_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[iu.bn_axis()], 1, activation=None, use_bias=True, name=f"{block_name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{block_name}_ac")(x)
    return x


@tf_export("keras.applications.InceptionResNetV2", "keras.applications.inception_resnet_v2.InceptionResNetV2")
def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                      classes=1000, classifier_activation="softmax", name="inception_resnet_v2"):
    """InceptionResNetV2 (Szegedy et al., 2016) as Keras builds it; ``weights`` is None or a local weights file."""
    files = iu.tf_kernels_files("inception_resnet_v2")
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 299, 75)
    axis = iu.bn_axis()
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    b0 = conv2d_bn(x, 96, 1)
    b1 = _chain(x, [(48, 1), (64, 5)])
    b2 = _chain(x, [(64, 1), (96, 3), (96, 3)])
    bp = conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = layers.Concatenate(axis=axis, name="mixed_5b")([b0, b1, b2, bp])
    for i in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=i)
    b0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    b1 = conv2d_bn(_chain(x, [(256, 1), (256, 3)]), 384, 3, strides=2, padding="valid")
    bp = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_6a")([b0, b1, bp])
    for i in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=i)
    b0 = conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid")
    b1 = conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid")
    b2 = conv2d_bn(_chain(x, [(256, 1), (288, 3)]), 320, 3, strides=2, padding="valid")
    bp = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_7a")([b0, b1, b2, bp])
    for i in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=i)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, pooling=pooling,
                     classes=classes, classifier_activation=classifier_activation, pool_names=(None, None))


@tf_export("keras.applications.inception_resnet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.inception_resnet_v2.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
