"""EfficientNetV2 B0-B3, S, M, L, as Keras 3 builds them (preprocessing is part of the model)."""

import math

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.applications.efficientnet import (CONV_INIT, DENSE_INIT, conv_bn_act,
                                                            project, residual, squeeze_excite, stack_blocks)
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


def _block(inputs, fused, f_in, f_out, expand, kernel, strides, se_ratio, momentum, activation, drop, name):
    """An MBConv block (``fused``: the expansion conv does the spatial work, no depthwise conv)."""
    filters = f_in * expand
    x = inputs
    if expand != 1:
        x = conv_bn_act(x, filters, kernel if fused else 1, f"{name}expand_", activation,
                        strides=strides if fused else 1, momentum=momentum)
    if not fused:
        x = layers.DepthwiseConv2D(kernel_size=kernel, strides=strides, depthwise_initializer=CONV_INIT,
                                   padding="same", use_bias=False, name=f"{name}dwconv2")(x)
        x = layers.BatchNormalization(axis=iu.bn_axis(), momentum=momentum, name=f"{name}bn")(x)
        x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = squeeze_excite(x, filters, f_in, se_ratio, activation, name)
    if fused and expand == 1:  # the projection is the block's only, spatial, conv
        x = conv_bn_act(x, f_out, kernel, f"{name}project_", activation, strides=strides, momentum=momentum)
    else:
        x = project(x, f_out, name, momentum)
    if strides == 1 and f_in == f_out:
        x = residual(x, inputs, drop, name)
    return x


def build_efficientnet_v2(variant, *, include_top, weights, input_tensor, input_shape, pooling, classes,
                          classifier_activation, include_preprocessing, name, dropout_rate=0.2,
                          drop_connect_rate=0.2, bn_momentum=0.9, activation="swish"):
    width, depth, default_size = _VARIANTS[variant]
    files = (f"{name}.h5", f"{name}_notop.h5")
    input_shape, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files,
                                              default_size)
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
    x = conv_bn_act(x, _round_filters(stages[0][2], width), 3, "stem_", activation, strides=2, momentum=bn_momentum)

    def make_block(x, stage, f_in, f_out, first, drop, name):
        k, _, _, _, expand, se_ratio, strides, fused = stage
        return _block(x, fused, f_in, f_out, expand, k, strides if first else 1, se_ratio, bn_momentum, activation,
                      drop, name)

    x = stack_blocks(x, stages, lambda f: _round_filters(f, width), lambda r: int(math.ceil(depth * r)),
                     drop_connect_rate, make_block, total=sum(s[1] for s in stages))
    x = conv_bn_act(x, _round_filters(1280, width), 1, "top_", activation, momentum=bn_momentum)

    def top(x):
        return iu.pooled_top(x, classes, classifier_activation, weights, dropout_rate, kernel_initializer=DENSE_INIT,
                             bias_initializer="zeros")

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling)


def _make(variant):
    cls = f"EfficientNetV2{variant.upper()}"

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", include_preprocessing=True,
                name=f"efficientnetv2-{variant}"):
        return build_efficientnet_v2(variant, include_top=include_top, weights=weights, input_tensor=input_tensor,
                                     input_shape=input_shape, pooling=pooling, classes=classes,
                                     classifier_activation=classifier_activation,
                                     include_preprocessing=include_preprocessing, name=name)

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
