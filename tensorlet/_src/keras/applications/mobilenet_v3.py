"""MobileNetV3Small and MobileNetV3Large, as Keras 3 builds them (preprocessing included in the model)."""

import warnings

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.applications.mobilenet_v2 import make_divisible as _depth
from tensorlet._src.ops.registry import tf_export

# Blocks: (expansion, filters, kernel ("k": the model's kernel), stride, squeeze-excite?, activation ("a": the
# model's activation, "relu": always ReLU)).
_SMALL = [(1, 16, 3, 2, True, "relu"), (72.0 / 16, 24, 3, 2, False, "relu"), (88.0 / 24, 24, 3, 1, False, "relu"),
          (4, 40, "k", 2, True, "a"), (6, 40, "k", 1, True, "a"), (6, 40, "k", 1, True, "a"),
          (3, 48, "k", 1, True, "a"), (3, 48, "k", 1, True, "a"), (6, 96, "k", 2, True, "a"),
          (6, 96, "k", 1, True, "a"), (6, 96, "k", 1, True, "a")]
_LARGE = [(1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"), (3, 24, 3, 1, False, "relu"),
          (3, 40, "k", 2, True, "relu"), (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
          (6, 80, 3, 2, False, "a"), (2.5, 80, 3, 1, False, "a"), (2.3, 80, 3, 1, False, "a"),
          (2.3, 80, 3, 1, False, "a"), (6, 112, 3, 1, True, "a"), (6, 112, 3, 1, True, "a"),
          (6, 160, "k", 2, True, "a"), (6, 160, "k", 1, True, "a"), (6, 160, "k", 1, True, "a")]


def relu(x):
    return layers.ReLU()(x)


def hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.channel_axis(), epsilon=1e-3, momentum=0.999, name=name)(x)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut = x
    infilters = x.shape[iu.channel_axis()]
    prefix = "expanded_conv_"
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same", use_bias=False,
                          name=f"{prefix}expand")(x)
        x = activation(_bn(x, f"{prefix}expand_bn"))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, kernel_size), name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride, padding="same" if stride == 1 else "valid",
                               use_bias=False, name=f"{prefix}depthwise")(x)
    x = activation(_bn(x, f"{prefix}depthwise_bn"))
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _bn(x, f"{prefix}project_bn")
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


def _input_shape(input_shape, input_tensor):
    if input_shape is not None and input_tensor is not None:
        if not iu.backend.is_keras_tensor(input_tensor):
            raise ValueError(f"input_tensor specified: {input_tensor} is not a keras tensor")
        axis = 1 if iu.channel_axis() == 1 else 2
        if input_tensor.shape[axis] != input_shape[1]:
            raise ValueError(f"input_shape[1] must equal input_tensor.shape[{axis}].  Received "
                             f"input_shape={input_shape}, input_tensor.shape={input_tensor.shape}")
    if input_shape is None and input_tensor is not None and iu.backend.is_keras_tensor(input_tensor):
        if iu.channel_axis() == 1:
            input_shape = (3, input_tensor.shape[3], input_tensor.shape[2])
        else:
            input_shape = (input_tensor.shape[2], input_tensor.shape[1], 3)
    if input_shape is None:
        input_shape = (3, None, None) if iu.channel_axis() == 1 else (None, None, 3)
    return tuple(input_shape)


def build_mobilenet_v3(blocks, last_point_ch, input_shape, alpha, model_type, minimalistic, include_top, weights,
                       input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing,
                       name):
    iu.check_weights(weights, include_top, classes, file_names=False)
    input_shape = _input_shape(input_shape, input_tensor)
    rows, cols = iu.rows_cols(input_shape)
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    files = None
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for "
                             f"non minimalistic or `1.0` for minimalistic only. Received alpha={alpha}")
        if rows != cols or rows != 224:
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not 224. Weights for input "
                          "shape (224, 224) will be loaded as the default.", stacklevel=3)
        stem = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
        files = (f"weights_mobilenet_v3_{stem}.h5", f"weights_mobilenet_v3_{stem}_no_top_v2.h5")
        iu.check_weights(weights, include_top, classes, files)
    img_input = iu.make_input(input_shape, input_tensor)
    if minimalistic:
        kernel, activation, se_ratio = 3, relu, None
    else:
        kernel, activation, se_ratio = 5, hard_swish, 0.25
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = activation(_bn(x, "conv_bn"))
    for i, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha), kernel if k == "k" else k, stride,
                                se_ratio if se else None, relu if act == "relu" else activation, i)
    last_conv_ch = _depth(x.shape[iu.channel_axis()] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="conv_1")(x)
    x = activation(_bn(x, "conv_1_bn"))

    def top(x):
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        iu.validate_activation(classifier_activation, weights)
        return layers.Activation(activation=classifier_activation, name="predictions")(x)

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling)


@tf_export("keras.applications.MobileNetV3Small")
def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Small"):
    """MobileNetV3Small (Howard et al., 2019) as Keras builds it; inputs are raw [0, 255] pixels."""
    return build_mobilenet_v3(_SMALL, 1024, input_shape, alpha, "small", minimalistic, include_top, weights,
                              input_tensor, classes, pooling, dropout_rate, classifier_activation,
                              include_preprocessing, name)


@tf_export("keras.applications.MobileNetV3Large")
def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Large"):
    """MobileNetV3Large as Keras builds it; inputs are raw [0, 255] pixels."""
    return build_mobilenet_v3(_LARGE, 1280, input_shape, alpha, "large", minimalistic, include_top, weights,
                              input_tensor, classes, pooling, dropout_rate, classifier_activation,
                              include_preprocessing, name)


@tf_export("keras.applications.mobilenet_v3.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged: MobileNetV3 models rescale their inputs themselves."""
    return x


@tf_export("keras.applications.mobilenet_v3.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
