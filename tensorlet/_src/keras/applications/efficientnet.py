"""EfficientNet B0-B7, as Keras 3 builds them (rescaling and normalization are part of the model)."""

import math

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

# Stages: (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides); all with id_skip, se_ratio 0.25.
_STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
           (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1)]
CONV_INIT = {"class_name": "VarianceScaling",
             "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
DENSE_INIT = {"class_name": "VarianceScaling", "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                                          "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]
# name: (width, depth, default size, dropout)
_VARIANTS = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
             "b3": (1.2, 1.4, 300, 0.3), "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
             "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}


def conv_bn_act(x, filters, kernel_size, prefix, activation, strides=1, padding="same", momentum=0.99):
    """``{prefix}conv`` (no bias, He-style init) -> ``{prefix}bn`` -> ``{prefix}activation``."""
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=False,
                      kernel_initializer=CONV_INIT, name=f"{prefix}conv")(x)
    x = layers.BatchNormalization(axis=iu.bn_axis(), momentum=momentum, name=f"{prefix}bn")(x)
    return layers.Activation(activation, name=f"{prefix}activation")(x)


def squeeze_excite(x, filters, filters_in, se_ratio, activation, name):
    """The squeeze-and-excitation branch of an MBConv block (``{name}se_squeeze`` ... ``{name}se_excite``)."""
    se = layers.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = layers.Reshape((filters, 1, 1) if iu.bn_axis() == 1 else (1, 1, filters), name=f"{name}se_reshape")(se)
    se = layers.Conv2D(max(1, int(filters_in * se_ratio)), 1, padding="same", activation=activation,
                       kernel_initializer=CONV_INIT, name=f"{name}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid", kernel_initializer=CONV_INIT,
                       name=f"{name}se_expand")(se)
    return layers.Multiply(name=f"{name}se_excite")([x, se])


def residual(x, inputs, drop_rate, name):
    """``{name}drop`` (per-example stochastic depth, when ``drop_rate``) then ``{name}add`` with the block input."""
    if drop_rate > 0:
        x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
    return layers.Add(name=f"{name}add")([x, inputs])


def project(x, filters, name, momentum=0.99):
    """The linear 1x1 ``{name}project_conv`` + ``{name}project_bn`` that ends an MBConv block."""
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, kernel_initializer=CONV_INIT,
                      name=f"{name}project_conv")(x)
    return layers.BatchNormalization(axis=iu.bn_axis(), momentum=momentum, name=f"{name}project_bn")(x)


def block(inputs, activation, drop_rate, name, filters_in, filters_out, kernel_size, strides, expand_ratio,
          se_ratio=0.25, id_skip=True):
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = conv_bn_act(x, filters, 1, f"{name}expand_", activation)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, kernel_size), name=f"{name}dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding="valid" if strides == 2 else "same",
                               use_bias=False, depthwise_initializer=CONV_INIT, name=f"{name}dwconv")(x)
    x = layers.BatchNormalization(axis=iu.bn_axis(), name=f"{name}bn")(x)
    x = layers.Activation(activation, name=f"{name}activation")(x)
    if 0 < se_ratio <= 1:
        x = squeeze_excite(x, filters, filters_in, se_ratio, activation, name)
    x = project(x, filters_out, name)
    if id_skip and strides == 1 and filters_in == filters_out:
        x = residual(x, inputs, drop_rate, name)
    return x


def stack_blocks(x, stages, round_filters, round_repeats, drop_connect_rate, make_block, total=None):
    """Every stage's blocks, named ``block{stage}{a, b, ...}_``, with the drop rate rising linearly over them.

    ``stages`` rows start ``(kernel, repeats, filters_in, filters_out, ...)``;
    ``make_block(x, stage, filters_in, filters_out, first, drop_rate, name)`` builds one block; ``total`` (the
    drop-rate denominator) defaults to the rounded block count.
    """
    total = float(sum(round_repeats(s[1]) for s in stages) if total is None else total)
    b = 0
    for i, stage in enumerate(stages):
        f_in, f_out = round_filters(stage[2]), round_filters(stage[3])
        for j in range(round_repeats(stage[1])):
            x = make_block(x, stage, f_in if j == 0 else f_out, f_out, j == 0, drop_connect_rate * b / total,
                           f"block{i + 1}{chr(j + 97)}_")
            b += 1
    return x


def build_efficientnet(variant, *, include_top, weights, input_tensor, input_shape, pooling, classes,
                       classifier_activation, name, drop_connect_rate=0.2, depth_divisor=8, activation="swish"):
    width, depth, default_size, dropout_rate = _VARIANTS[variant]
    files = (f"{name}.h5", f"{name}_notop.h5")
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, default_size)
    axis = iu.bn_axis()

    def round_filters(filters):
        filters *= width
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor)
        return int(new + depth_divisor if new < 0.9 * filters else new)

    def round_repeats(repeats):
        return int(math.ceil(depth * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=axis)(x)
    if weights == "imagenet":
        x = layers.Rescaling([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=iu.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = conv_bn_act(x, round_filters(32), 3, "stem_", activation, strides=2, padding="valid")

    def make_block(x, stage, f_in, f_out, first, drop, name):
        k, _, _, _, expand, strides = stage
        return block(x, activation, drop, name, f_in, f_out, k, strides if first else 1, expand)

    x = stack_blocks(x, _STAGES, round_filters, round_repeats, drop_connect_rate, make_block)
    x = conv_bn_act(x, round_filters(1280), 1, "top_", activation)

    def top(x):
        return iu.pooled_top(x, classes, classifier_activation, weights, dropout_rate, kernel_initializer=DENSE_INIT)

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling)


def _make(variant):
    cls = f"EfficientNet{variant.upper()}"

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=f"efficientnet{variant}"):
        return build_efficientnet(variant, include_top=include_top, weights=weights, input_tensor=input_tensor,
                                  input_shape=input_shape, pooling=pooling, classes=classes,
                                  classifier_activation=classifier_activation, name=name)

    builder.__name__ = builder.__qualname__ = cls
    builder.__doc__ = f"{cls} (Tan & Le, 2019) as Keras builds it; inputs are raw [0, 255] pixels."
    return tf_export(f"keras.applications.{cls}", f"keras.applications.efficientnet.{cls}")(builder)


EfficientNetB0 = _make("b0")
EfficientNetB1 = _make("b1")
EfficientNetB2 = _make("b2")
EfficientNetB3 = _make("b3")
EfficientNetB4 = _make("b4")
EfficientNetB5 = _make("b5")
EfficientNetB6 = _make("b6")
EfficientNetB7 = _make("b7")


@tf_export("keras.applications.efficientnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged: EfficientNet models rescale and normalize their inputs themselves."""
    return x


@tf_export("keras.applications.efficientnet.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
