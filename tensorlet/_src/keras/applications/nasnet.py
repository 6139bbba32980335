"""NASNetMobile and NASNetLarge (NASNet-A), as Keras 3 builds them.

Layers are created in Keras's order, so the unnamed ones (the ReLU ``Activation``s, the ``ZeroPadding2D`` /
``Cropping2D`` of the reduction adjustments, some ``Add``/``Concatenate``) get the same automatic names and Keras's
weight files load.
"""

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.ops.registry import tf_export

_BN = {"momentum": 0.9997, "epsilon": 1e-3}


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.channel_axis(), name=name, **_BN)(x)


def _conv1x1(x, filters, name):
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False, name=name,
                         kernel_initializer="he_normal")(x)


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """ReLU -> SeparableConv2D (strided: after Keras's correcting pad) -> BN -> ReLU -> SeparableConv2D -> BN."""
    x = layers.Activation("relu")(ip)
    padding = "same"
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, kernel_size), name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides, name=f"separable_conv_1_{block_id}",
                               padding=padding, use_bias=False)(x)
    x = _bn(x, f"separable_conv_1_bn_{block_id}")
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}", padding="same",
                               use_bias=False)(x)
    return _bn(x, f"separable_conv_2_bn_{block_id}")


def _adjust_block(p, ip, filters, block_id=None):
    """Brings the previous cell's output ``p`` to the spatial size and width of ``ip``."""
    axis = iu.channel_axis()
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:  # a reduction happened in between: two offset strided 1x1 paths
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = layers.Concatenate(axis=axis)([p1, p2])
        return _bn(p, f"adjust_bn_{block_id}")
    if p.shape[axis] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return _bn(p, f"adjust_bn_{block_id}")
    return p


def _cell_input(ip, p, filters, kind, block_id):
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv1x1(h, filters, f"{kind}_conv_1_{block_id}")
    return p, _bn(h, f"{kind}_bn_1_{block_id}")


def _avg3(x, strides, padding, name):
    return layers.AveragePooling2D((3, 3), strides=strides, padding=padding, name=name)(x)


def _normal_a_cell(ip, p, filters, block_id=None):
    p, h = _cell_input(ip, p, filters, "normal", block_id)
    b = f"_{block_id}"
    x1 = layers.Add(name=f"normal_add_1{b}")([_separable_conv_block(h, filters, (5, 5), block_id=f"normal_left1{b}"),
                                              _separable_conv_block(p, filters, block_id=f"normal_right1{b}")])
    x2 = layers.Add(name=f"normal_add_2{b}")([_separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2{b}"),
                                              _separable_conv_block(p, filters, (3, 3),
                                                                    block_id=f"normal_right2{b}")])
    x3 = layers.Add(name=f"normal_add_3{b}")([_avg3(h, (1, 1), "same", f"normal_left3{b}"), p])
    x4 = layers.Add(name=f"normal_add_4{b}")([_avg3(p, (1, 1), "same", f"normal_left4{b}"),
                                              _avg3(p, (1, 1), "same", f"normal_right4{b}")])
    x5 = layers.Add(name=f"normal_add_5{b}")([_separable_conv_block(h, filters, block_id=f"normal_left5{b}"), h])
    x = layers.Concatenate(axis=iu.channel_axis(), name=f"normal_concat{b}")([p, x1, x2, x3, x4, x5])
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    p, h = _cell_input(ip, p, filters, "reduction", block_id)
    b = f"_{block_id}"
    h3 = layers.ZeroPadding2D(padding=iu.correct_pad(h, 3), name=f"reduction_pad_1{b}")(h)
    s2 = (2, 2)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=s2, block_id=f"reduction_left1{b}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=s2, block_id=f"reduction_right1{b}")
    x1 = layers.Add(name=f"reduction_add_1{b}")([x1_1, x1_2])
    x2_1 = layers.MaxPooling2D((3, 3), strides=s2, padding="valid", name=f"reduction_left2{b}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=s2, block_id=f"reduction_right2{b}")
    x2 = layers.Add(name=f"reduction_add_2{b}")([x2_1, x2_2])
    x3_1 = _avg3(h3, s2, "valid", f"reduction_left3{b}")
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=s2, block_id=f"reduction_right3{b}")
    x3 = layers.Add(name=f"reduction_add3{b}")([x3_1, x3_2])
    x4 = layers.Add()([x2, _avg3(x1, (1, 1), "same", f"reduction_left4{b}")])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4{b}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=s2, padding="valid", name=f"reduction_right5{b}")(h3)
    x5 = layers.Add(name=f"reduction_add4{b}")([x5_1, x5_2])
    x = layers.Concatenate(axis=iu.channel_axis(), name=f"reduction_concat{b}")([x2, x3, x4, x5])
    return x, ip


def NASNet(input_shape=None, penultimate_filters=4032, num_blocks=6, stem_block_filters=96, skip_reduction=True,
           filter_multiplier=2, include_top=True, weights="imagenet", input_tensor=None, pooling=None, classes=1000,
           default_size=None, classifier_activation="softmax", name="NASNet"):
    """The NASNet-A skeleton: a strided stem, two stem reduction cells, then three stacks of ``num_blocks``
    normal cells separated by reduction cells."""
    if iu.backend.image_data_format() == "channels_first":
        raise ValueError("NASNet does not support the `channels_first` image data format. Switch to "
                         "`channels_last` by editing your local config file at ~/.keras/keras.json")
    default_size = 331 if default_size is None else default_size
    files = {224: ("nasnet_mobile.h5", "nasnet_mobile_no_top.h5"),
             331: ("nasnet_large.h5", "nasnet_large_no_top.h5")}.get(default_size)
    if weights == "imagenet" and files is None:
        raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
                         f"input_shape argument must be static (no None entries). Got: `input_shape={input_shape}`.")
    _, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, default_size)
    if penultimate_filters % (24 * (filter_multiplier ** 2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
                         f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}")
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False, name="stem_conv1",
                      kernel_initializer="he_normal")(img_input)
    x = _bn(x, "stem_bn1")
    p = None
    x, p = _reduction_a_cell(x, p, filters // (filter_multiplier ** 2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stack in range(3):
        width = filters * filter_multiplier ** stack
        if stack:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{stack * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, width, block_id=f"{stack * num_blocks + (stack > 0) + i}")
    x = layers.Activation("relu")(x)

    def top(x):
        return iu.classifier(layers.GlobalAveragePooling2D()(x), classes, classifier_activation, weights)

    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=pooling,
                     pool_names=(None, None))


@tf_export("keras.applications.NASNetMobile", "keras.applications.nasnet.NASNetMobile")
def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                 classes=1000, classifier_activation="softmax", name="nasnet_mobile"):
    """NASNet-A Mobile (Zoph et al., 2017) as Keras builds it; ``weights`` is None or a local weights file."""
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32, skip_reduction=False,
                  filter_multiplier=2, include_top=include_top, weights=weights, input_tensor=input_tensor,
                  pooling=pooling, classes=classes, default_size=224, classifier_activation=classifier_activation,
                  name=name)


@tf_export("keras.applications.NASNetLarge", "keras.applications.nasnet.NASNetLarge")
def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="nasnet_large"):
    """NASNet-A Large as Keras builds it."""
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96, skip_reduction=True,
                  filter_multiplier=2, include_top=include_top, weights=weights, input_tensor=input_tensor,
                  pooling=pooling, classes=classes, default_size=331, classifier_activation=classifier_activation,
                  name=name)


@tf_export("keras.applications.nasnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return iu.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.nasnet.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
