"""ConvNeXt Tiny / Small / Base / Large / XLarge, as Keras 3 builds them (channels_last only)."""

import numpy as np

from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.applications import imagenet_utils as iu
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.engine.sequential import Sequential
from tensorlet._src.keras.ops.core import shape as _shape
from tensorlet._src.keras.ops.numpy_elementwise import floor
from tensorlet._src.keras.random_functions import uniform
from tensorlet._src.ops.registry import tf_export

MODEL_CONFIGS = {"tiny": ([3, 3, 9, 3], [96, 192, 384, 768]), "small": ([3, 3, 27, 3], [96, 192, 384, 768]),
                 "base": ([3, 3, 27, 3], [128, 256, 512, 1024]), "large": ([3, 3, 27, 3], [192, 384, 768, 1536]),
                 "xlarge": ([3, 3, 27, 3], [256, 512, 1024, 2048])}


class StochasticDepth(Layer):
    """Drops the whole residual branch of a batch with probability ``drop_path_rate`` while training."""

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if not training:
            return x
        keep = 1 - self.drop_path_rate
        mask = floor(keep + uniform((_shape(x)[0],) + (1,) * (len(x.shape) - 1), 0, 1))
        return (x / keep) * mask

    def get_config(self):
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


class LayerScale(Layer):
    """Multiplies by a learned per-channel ``gamma`` initialised to ``init_values``."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, _):
        self.gamma = self.add_weight(shape=(self.projection_dim,), initializer={
            "class_name": "Constant", "config": {"value": self.init_values}}, trainable=True)

    def call(self, x):
        return x * self.gamma

    def get_config(self):
        return {**super().get_config(), "init_values": self.init_values, "projection_dim": self.projection_dim}


def convnext_block(x, projection_dim, drop_path_rate, layer_scale_init_value, name):
    inputs = x
    x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same", groups=projection_dim,
                      name=f"{name}_depthwise_conv")(x)
    x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
    x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=f"{name}_gelu")(x)
    x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, projection_dim, name=f"{name}_layer_scale")(x)
    if drop_path_rate:
        last = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
    else:
        last = layers.Activation("linear", name=f"{name}_identity")
    return inputs + last(x)


def build_convnext(variant, include_top, include_preprocessing, weights, input_tensor, input_shape, pooling,
                   classes, classifier_activation, name, drop_path_rate=0.0, layer_scale_init_value=1e-6):
    if iu.backend.image_data_format() == "channels_first":
        raise ValueError("ConvNeXt does not support the `channels_first` image data format. Switch to "
                         "`channels_last` by editing your local config file at ~/.keras/keras.json")
    depths, dims = MODEL_CONFIGS[variant]
    files = (f"{name}.h5", f"{name}_notop.h5")
    if weights == "imagenet" and f"convnext_{variant}" not in name:
        raise ValueError(f'Model name "{name}" does not match weights variant "convnext_{variant}". When using '
                         f'imagenet weights, model name must contain the weights variant (e.g., "convnext_{variant}").')
    input_shape, img_input = iu.prepare_input(input_shape, input_tensor, weights, include_top, classes, files, 224)
    x = img_input
    if include_preprocessing and input_shape[-1] == 3:
        x = layers.Normalization(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                 variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
                                 name=f"{name}_prestem_normalization")(x)
    downsample = [Sequential([layers.Conv2D(dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
                              layers.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm")],
                             name=f"{name}_stem")]
    for i in range(3):
        downsample.append(Sequential(
            [layers.LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
             layers.Conv2D(dims[i + 1], kernel_size=2, strides=2, name=f"{name}_downsampling_conv_{i}")],
            name=f"{name}_downsampling_block_{i}"))
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        x = downsample[i](x)
        for j in range(depths[i]):
            x = convnext_block(x, dims[i], rates[cur + j], layer_scale_init_value, f"{name}_stage_{i}_block_{j}")
        cur += depths[i]

    def top(x):
        iu.validate_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        return layers.Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)

    if not include_top:
        if pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    return iu.finish(img_input, input_tensor, x, name, weights, files, include_top, top=top, pooling=None)


def _make(variant):
    cls = f"ConvNeXt{ {'xlarge': 'XLarge'}.get(variant, variant.capitalize()) }"

    def builder(include_top=True, include_preprocessing=True, weights="imagenet", input_tensor=None,
                input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
                name=f"convnext_{variant}"):
        return build_convnext(variant, include_top, include_preprocessing, weights, input_tensor, input_shape,
                              pooling, classes, classifier_activation, name)

    builder.__name__ = builder.__qualname__ = cls
    builder.__doc__ = f"{cls} (Liu et al., 2022) as Keras builds it; inputs are raw [0, 255] pixels."
    return tf_export(f"keras.applications.{cls}", f"keras.applications.convnext.{cls}")(builder)


ConvNeXtTiny = _make("tiny")
ConvNeXtSmall = _make("small")
ConvNeXtBase = _make("base")
ConvNeXtLarge = _make("large")
ConvNeXtXLarge = _make("xlarge")


@tf_export("keras.applications.convnext.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns ``x`` unchanged: ConvNeXt models normalize their inputs themselves."""
    return x


@tf_export("keras.applications.convnext.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """See ``keras.applications.imagenet_utils.decode_predictions``."""
    return iu.decode_predictions(preds, top=top, class_index=class_index)
