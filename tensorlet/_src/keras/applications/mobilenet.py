"""MobileNet (v1), as Keras 3 builds it."""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

# (pointwise filters, stride) of the 13 depthwise blocks.
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


def _dw_block(x, filters, alpha, depth_multiplier, stride, block_id):
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid", depth_multiplier=depth_multiplier,
                               strides=(stride, stride), use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=iu.channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False, strides=(1, 1),
                      name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=iu.channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


_SIZES = (128, 160, 192, 224)


def _alpha_text(alpha):
    return {1.0: "1_0", 0.75: "7_5", 0.5: "5_0"}.get(alpha, "2_5")


@tf_export("keras.applications.MobileNet", "keras.applications.mobilenet.MobileNet")
def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True, weights="imagenet",
              input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax", name=None):
    """MobileNet (Howard et al., 2017) as Keras builds it; ``weights`` is None or a local weights file."""
    iu.check_weights(weights, include_top, classes, file_names=False)
    input_shape = iu.obtain_input_shape(input_shape, default_size=iu.square_rows(input_shape, None, _SIZES),
                                        min_size=32, data_format=iu.backend.image_data_format(),
                                        require_flatten=include_top, weights=weights)
    rows = iu.rows_cols(input_shape)[0]
    files = None
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  "
                             f"Received depth_multiplier={depth_multiplier}")
        if alpha not in [0.25, 0.50, 0.75, 1.0]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or "
                             f"`1.0` only.  Received alpha={alpha}")
        rows = iu.pretrained_rows(input_shape, _SIZES)
        files = (f"mobilenet_{_alpha_text(alpha)}_{rows}_tf.h5", f"mobilenet_{_alpha_text(alpha)}_{rows}_tf_no_top.h5")
        iu.check_weights(weights, include_top, classes, files)
    img_input = iu.make_input(input_shape, input_tensor)
    x = layers.Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2), name="conv1")(img_input)
    x = layers.BatchNormalization(axis=iu.channel_axis(), name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for i, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _dw_block(x, filters, alpha, depth_multiplier, stride, i)

    def top(x):
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        iu.validate_activation(classifier_activation, weights)
        return layers.Activation(activation=classifier_activation, name="predictions")(x)

    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling,
                     pool_names=(None, None))


@tf_export("keras.applications.mobilenet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.mobilenet.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
