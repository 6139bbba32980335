"""ResNet50 / 101 / 152 (v1) and the residual blocks shared with ResNetV2, as Keras 3 builds them."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

EPS = 1.001e-5


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.bn_axis(), epsilon=EPS, name=name)(x)


def block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    if conv_shortcut:
        shortcut = _bn(layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x), f"{name}_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(x, f"{name}_1_bn"))
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(x, f"{name}_2_bn"))
    x = _bn(layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x), f"{name}_3_bn")
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_v1(x, filters, blocks, stride1=2, name=None):
    x = block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(_bn(x, f"{name}_preact_bn"))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(x, f"{name}_1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(x, f"{name}_2_bn"))
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_v2(x, filters, blocks, stride1=2, name=None):
    x = block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = block_v2(x, filters, name=f"{name}_block{i}")
    return block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def build_resnet(depths, preact, use_bias, weights_name, include_top, weights, input_tensor, input_shape, pooling,
                 classes, classifier_activation, name):
    """The ResNet skeleton: stem, four stacks of ``depths`` blocks (v1 or, with ``preact``, v2), top."""
    files = iu.tf_kernels_files(weights_name)
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 224)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = layers.Activation("relu", name="conv1_relu")(_bn(x, "conv1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for i, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths)):
        if preact:
            x = stack_v2(x, filters, blocks, stride1=1 if i == 3 else 2, name=f"conv{i + 2}")
        else:
            x = stack_v1(x, filters, blocks, stride1=1 if i == 0 else 2, name=f"conv{i + 2}")
    if preact:
        x = layers.Activation("relu", name="post_relu")(_bn(x, "post_bn"))
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, pooling=pooling,
                     classes=classes, classifier_activation=classifier_activation)


@tf_export("keras.applications.ResNet50", "keras.applications.resnet.ResNet50",
           "keras.applications.resnet50.ResNet50")
def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", name="resnet50"):
    """ResNet50 (He et al., 2015) as Keras builds it; ``weights`` is None or a local weights file."""
    return build_resnet((3, 4, 6, 3), False, True, "resnet50", include_top, weights, input_tensor, input_shape,
                        pooling, classes, classifier_activation, name)


@tf_export("keras.applications.ResNet101", "keras.applications.resnet.ResNet101")
def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, classifier_activation="softmax", name="resnet101"):
    """ResNet101 as Keras builds it."""
    return build_resnet((3, 4, 23, 3), False, True, "resnet101", include_top, weights, input_tensor, input_shape,
                        pooling, classes, classifier_activation, name)


@tf_export("keras.applications.ResNet152", "keras.applications.resnet.ResNet152")
def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, classifier_activation="softmax", name="resnet152"):
    """ResNet152 as Keras builds it."""
    return build_resnet((3, 8, 36, 3), False, True, "resnet152", include_top, weights, input_tensor, input_shape,
                        pooling, classes, classifier_activation, name)


@tf_export("keras.applications.resnet.preprocess_input", "keras.applications.resnet50.preprocess_input")
def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing (BGR, ImageNet means subtracted, no scaling)."""
    return iu.preprocess_input(x, data_format=data_format, mode="caffe")


@tf_export("keras.applications.resnet.decode_predictions", "keras.applications.resnet50.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
