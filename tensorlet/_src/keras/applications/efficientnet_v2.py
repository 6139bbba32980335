"""EfficientNetV2 B0-B3, S, M, L, as Keras 3 builds them (preprocessing is part of the model)."""

import math

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.applications.efficientnet import CONV_INIT, DENSE_INIT
from tensorlet._src.ops.registry import tf_export

# Stages: (kernel, repeats, filters_in, filters_out, expand_ratio, se_ratio, strides, fused?).
_B = [(3, 1, 32, 16, 1, 0, 1, 1), (3, 2, 16, 32, 4, 0, 2, 1), (3, 2, 32, 48, 4, 0, 2, 1),
      (3, 3, 48, 96, 4, 0.25, 2, 0), (3, 5, 96, 112, 6, 0.25, 1, 0), (3, 8, 112, 192, 6, 0.25, 2, 0)]
_STAGES = {
    "s": [(3, 2, 24, 24, 1, 0, 1, 1), (3, 4, 24, 48, 4, 0, 2, 1), (3, 4, 48, 64, 4, 0, 2, 1),
          (3, 6, 64, 128, 4, 0.25, 2, 0), (3, 9, 128, 160, 6, 0.25, 1, 0), (3, 15, 160, 256, 6, 0.25, 2, 0)],
    "m": [(3, 3, 24, 24, 1, 0, 1, 1), (3, 5, 24, 48, 4, 0, 2, 1), (3, 5, 48, 80, 4, 0, 2, 1),
          (3, 7, 80, 160, 4, 0.25, 2, 0), (3, 14, 160, 176, 6, 0.25, 1, 0), (3, 18, 176, 304, 6, 0.25, 2, 0),
          (3, 5, 304, 512, 6, 0.25, 1, 0)],
    "l": [(3, 4, 32, 32, 1, 0, 1, 1), (3, 7, 32, 64, 4, 0, 2, 1), (3, 7, 64, 96, 4, 0, 2, 1),
          (3, 10, 96, 192, 4, 0.25, 2, 0), (3, 19, 192, 224, 6, 0.25, 1, 0), (3, 25, 224, 384, 6, 0.25, 2, 0),
          (3, 7, 384, 640, 6, 0.25, 1, 0)],
    "b0": _B, "b1": _B, "b2": _B, "b3": _B,
}
# variant: (width, depth, default size)
_VARIANTS = {"b0": (1.0, 1.0, 224), "b1": (1.0, 1.1, 240), "b2": (1.1, 1.2, 260), "b3": (1.2, 1.4, 300),
             "s": (1.0, 1.0, 384), "m": (1.0, 1.0, 480), "l": (1.0, 1.0, 480)}


def _round_filters(filters, width, min_depth=8, divisor=8):
    filters *= width
    return int(max(min_depth or divisor, int(filters + divisor / 2) // divisor * divisor))


def _bn(x, name, momentum):
    return layers.BatchNormalization(axis=iu.bn_axis(), momentum=momentum, name=name)(x)


def _se(x, filters, input_filters, se_ratio, activation, name):
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((filters, 1, 1) if iu.bn_axis() == 1 else (1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(max(1, int(input_filters * se_ratio)), 1, padding="same", activation=activation,
                       kernel_initializer=CONV_INIT, name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid", kernel_initializer=CONV_INIT,
                       name=f"{name}se_expand")(se)
    return layers.Multiply(name=f"{name}se_excite")([x, se])


def _block(inputs, fused, f_in, f_out, expand, kernel, strides, se_ratio, momentum, activation, drop, name):
    filters = f_in * expand
    x = inputs
    if expand != 1:
        x = layers.Conv2D(filters, kernel_size=kernel if fused else 1, strides=strides if fused else 1,
                          kernel_initializer=CONV_INIT, padding="same", use_bias=False, name=f"{name}expand_conv")(x)
        x = layers.Activation(activation, name=f"{name}expand_activation")(_bn(x, f"{name}expand_bn", momentum))
    if not fused:
        x = layers.DepthwiseConv2D(kernel_size=kernel, strides=strides, depthwise_initializer=CONV_INIT,
                                   padding="same", use_bias=False, name=f"{name}dwconv2")(x)
        x = layers.Activation(activation, name=f"{name}activation")(_bn(x, f"{name}bn", momentum))
    if 0 < se_ratio <= 1:
        x = _se(x, filters, f_in, se_ratio, activation, name)
    one = not fused or expand != 1
    x = layers.Conv2D(f_out, kernel_size=1 if one else kernel, strides=1 if one else strides,
                      kernel_initializer=CONV_INIT, padding="same", use_bias=False, name=f"{name}project_conv")(x)
    x = _bn(x, f"{name}project_bn", momentum)
    if fused and expand == 1:
        x = layers.Activation(activation, name=f"{name}project_activation")(x)
    if strides == 1 and f_in == f_out:
        if drop:
            x = layers.Dropout(drop, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = layers.Add(name=f"{name}add")([x, inputs])
    return x


def build_efficientnet_v2(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                          classifier_activation, include_preprocessing, name, dropout_rate=0.2,
                          drop_connect_rate=0.2, bn_momentum=0.9, activation="swish"):
    width, depth, default_size = _VARIANTS[variant]
    files = (f"{name}.h5", f"{name}_notop.h5")
    iu.check_weights(weights, include_top, classes, files)
    input_shape = iu.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                        data_format=iu.backend.image_data_format(), require_flatten=include_top,
                                        weights=weights)
    img_input = iu.make_input(input_shape, input_tensor)
    axis = iu.bn_axis()
    x = img_input
    if include_preprocessing:
        if variant.startswith("b") and input_shape[axis - 1] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(mean=[0.485, 0.456, 0.406], variance=[0.229**2, 0.224**2, 0.225**2],
                                     axis=axis)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    stages = _STAGES[variant]
    x = layers.Conv2D(filters=_round_filters(stages[0][2], width), kernel_size=3, strides=2,
                      kernel_initializer=CONV_INIT, padding="same", use_bias=False, name="stem_conv")(x)
    x = layers.Activation(activation, name="stem_activation")(_bn(x, "stem_bn", bn_momentum))
    total = float(sum(s[1] for s in stages))
    b = 0
    for i, (k, repeats, f_in, f_out, expand, se_ratio, strides, fused) in enumerate(stages):
        f_in, f_out = _round_filters(f_in, width), _round_filters(f_out, width)
        for j in range(int(math.ceil(depth * repeats))):
            x = _block(x, fused, f_in if j == 0 else f_out, f_out, expand, k, strides if j == 0 else 1, se_ratio,
                       bn_momentum, activation, drop_connect_rate * b / total, f"block{i + 1}{chr(j + 97)}_")
            b += 1
    x = layers.Conv2D(filters=_round_filters(1280, width), kernel_size=1, strides=1, kernel_initializer=CONV_INIT,
                      padding="same", use_bias=False, name="top_conv")(x)
    x = layers.Activation(activation=activation, name="top_activation")(_bn(x, "top_bn", bn_momentum))

    def top(x):
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        iu.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, kernel_initializer=DENSE_INIT,
                            bias_initializer="zeros", name="predictions")(x)

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling)


def _make(variant):
    cls = f"EfficientNetV2{variant.upper()}"

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", include_preprocessing=True,
                name=f"efficientnetv2-{variant}"):
        return build_efficientnet_v2(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                                     classifier_activation, include_preprocessing, name)

    builder.__name__ = builder.__qualname__ = cls
    builder.__doc__ = f"{cls} (Tan & Le, 2021) as Keras builds it; inputs are raw [0, 255] pixels."
    return tf_export(f"keras.applications.{cls}", f"keras.applications.efficientnet_v2.{cls}")(builder)


EfficientNetV2B0 = _make("b0")
EfficientNetV2B1 = _make("b1")
EfficientNetV2B2 = _make("b2")
EfficientNetV2B3 = _make("b3")
EfficientNetV2S = _make("s")
EfficientNetV2M = _make("m")
EfficientNetV2L = _make("l")


@tf_export("keras.applications.efficientnet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged: EfficientNetV2 models rescale their inputs themselves."""
    return x


@tf_export("keras.applications.efficientnet_v2.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
