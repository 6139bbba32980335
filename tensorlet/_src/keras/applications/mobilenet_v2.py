"""MobileNetV2, as Keras 3 builds it."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

# (filters, stride, expansion) of the 17 inverted residual blocks.
_BLOCKS = ([(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6)] + [(64, 1, 6)] * 3
           + [(96, 1, 6)] * 3 + [(160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)])
_SIZES = (96, 128, 160, 192, 224)


def make_divisible(v, divisor=8, min_value=None):
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.channel_axis(), epsilon=1e-3, momentum=0.999, name=name)(x)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape[iu.channel_axis()]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False, activation=None,
                          name=f"{prefix}expand")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(_bn(x, f"{prefix}expand_BN"))
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid", name=f"{prefix}depthwise")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(_bn(x, f"{prefix}depthwise_BN"))
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None,
                      name=f"{prefix}project")(x)
    x = _bn(x, f"{prefix}project_BN")
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


@tf_export("keras.applications.MobileNetV2", "keras.applications.mobilenet_v2.MobileNetV2")
def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=None):
    """MobileNetV2 (Sandler et al., 2018) as Keras builds it; ``weights`` is None or a local weights file."""
    iu.check_weights(weights, include_top, classes, file_names=False)
    if input_shape is not None and input_tensor is not None and iu.backend.is_keras_tensor(input_tensor):
        axis = 1 if iu.channel_axis() == 1 else 2
        if input_tensor.shape[axis] != input_shape[1]:
            raise ValueError(f"input_shape[1] must equal shape(input_tensor)[{axis}] when input_shape and "
                             f"input_tensor are both provided. Received: input_shape={input_shape}, "
                             f"input_tensor.shape={input_tensor.shape}")
    input_shape = iu.obtain_input_shape(input_shape, default_size=iu.square_rows(input_shape, input_tensor, _SIZES),
                                        min_size=32, data_format=iu.backend.image_data_format(),
                                        require_flatten=include_top, weights=weights)
    rows = iu.rows_cols(input_shape)[0]
    files = None
    if weights == "imagenet":
        if alpha not in [0.35, 0.50, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, "
                             f"`1.0`, `1.3` or `1.4` only. Received `alpha={alpha}`")
        rows = iu.pretrained_rows(input_shape, _SIZES)
        stem = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
        files = (f"{stem}.h5", f"{stem}_no_top.h5")
        iu.check_weights(weights, include_top, classes, files)
    img_input = iu.make_input(input_shape, input_tensor)
    x = layers.Conv2D(make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="Conv1")(img_input)
    x = layers.ReLU(6.0, name="Conv1_relu")(_bn(x, "bn_Conv1"))
    for i, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride, expansion=expansion, block_id=i)
    last = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.ReLU(6.0, name="out_relu")(_bn(x, "Conv_1_bn"))

    def top(x):
        return iu.classifier(layers.GlobalAveragePooling2D()(x), classes, classifier_activation, weights)

    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling,
                     pool_names=(None, None))


@tf_export("keras.applications.mobilenet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.mobilenet_v2.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
