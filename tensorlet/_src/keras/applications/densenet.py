"""DenseNet121 / 169 / 201, as Keras 3 builds them."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

EPS = 1.001e-5


def _bn_relu(x, name):
    x = layers.BatchNormalization(axis=iu.bn_axis(), epsilon=EPS, name=f"{name}_bn")(x)
    return layers.Activation("relu", name=f"{name}_relu")(x)


def conv_block(x, growth_rate, name):
    x1 = _bn_relu(x, f"{name}_0")
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = _bn_relu(x1, f"{name}_1")
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=iu.bn_axis(), name=f"{name}_concat")([x, x1])


def dense_block(x, blocks, name):
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape[iu.bn_axis()] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def build_densenet(blocks, wname, include_top, weights, input_tensor, input_shape, pooling, classes,
                   classifier_activation, name):
    files = iu.tf_kernels_files(wname)
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 224)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn_relu(x, "conv1")
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        x = dense_block(x, n, name=f"conv{i + 2}")
        if i < 3:
            x = transition_block(x, 0.5, name=f"pool{i + 2}")
    x = layers.BatchNormalization(axis=iu.bn_axis(), epsilon=EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, pooling=pooling,
                     classes=classes, classifier_activation=classifier_activation)


@tf_export("keras.applications.DenseNet121", "keras.applications.densenet.DenseNet121")
def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet121"):
    """DenseNet121 (Huang et al., 2016) as Keras builds it; ``weights`` is None or a local weights file."""
    return build_densenet((6, 12, 24, 16), "densenet121", include_top, weights, input_tensor, input_shape,
                          pooling, classes, classifier_activation, name)


@tf_export("keras.applications.DenseNet169", "keras.applications.densenet.DenseNet169")
def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet169"):
    """DenseNet169 as Keras builds it."""
    return build_densenet((6, 12, 32, 32), "densenet169", include_top, weights, input_tensor, input_shape,
                          pooling, classes, classifier_activation, name)


@tf_export("keras.applications.DenseNet201", "keras.applications.densenet.DenseNet201")
def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="densenet201"):
    """DenseNet201 as Keras builds it."""
    return build_densenet((6, 12, 48, 32), "densenet201", include_top, weights, input_tensor, input_shape,
                          pooling, classes, classifier_activation, name)


@tf_export("keras.applications.densenet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Torch-style preprocessing (scale to [0, 1], normalize with the ImageNet mean and std)."""
    return iu.preprocess_input(x, data_format=data_format, mode="torch")


@tf_export("keras.applications.densenet.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
