"""The layer classes the application builders use, gathered from their family modules (``layers.Conv2D``...)."""

# ruff: noqa: F401
from tensorlet._src.keras.engine.input_layer import Input
from tensorlet._src.keras.layers.activations_layers import ReLU
from tensorlet._src.keras.layers.convolutional import Conv2D, DepthwiseConv2D, SeparableConv2D
from tensorlet._src.keras.layers.core import Activation, Dense, Dropout, Flatten, Reshape
from tensorlet._src.keras.layers.merging import Add, Concatenate, Multiply
from tensorlet._src.keras.layers.normalization import BatchNormalization, LayerNormalization
from tensorlet._src.keras.layers.pooling import (AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D,
                                                 MaxPooling2D)
from tensorlet._src.keras.layers.preprocessing import Normalization, Rescaling
from tensorlet._src.keras.layers.reshaping import Cropping2D, ZeroPadding2D

