"""The layer classes the application builders use, gathered from their family modules (``layers.Conv2D``...)."""

# ruff: noqa: F401
from tensorlet._src.keras.engine.input_layer import Input
from tensorlet._src.keras.layers.activations_layers import ReLU
from tensorlet._src.keras.layers.convolutional import Conv2D, DepthwiseConv2D, SeparableConv2D
from tensorlet._src.keras.layers.core import Activation, Dense, Dropout, Flatten, Reshape
from tensorlet._src.keras.layers.merging import Add, Multiply
from tensorlet._src.keras.layers.merging import Concatenate as _Concatenate
from tensorlet._src.keras.layers.normalization import BatchNormalization, LayerNormalization
from tensorlet._src.keras.layers.pooling import (AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D,
                                                 MaxPooling2D)
from tensorlet._src.keras.layers.preprocessing import Normalization, Rescaling
from tensorlet._src.keras.layers.reshaping import Cropping2D, ZeroPadding2D


class Concatenate(_Concatenate):
    """``keras.layers.Concatenate`` with its build-time shape check done directly on the non-axis dimensions.

    Workaround: the shared layer drops size-1 dimensions before removing the axis by its original index, so
    ``[(None, 1, 1, 512), (None, 1, 1, 32)]`` on axis 3 (DenseNet at a 32x32 input) is rejected; Keras accepts
    it.  Same class name, config and computation as the shared layer.
    """

    def build(self, input_shape):
        shapes = [list(s) for s in input_shape]
        if shapes and all(isinstance(s, list) for s in shapes):
            ranks = {len(s) for s in shapes}
            if len(ranks) == 1:
                rank = ranks.pop()
                ax = self.axis % rank
                for a in range(1, rank):
                    if a != ax and len({s[a] for s in shapes if s[a] is not None}) > 1:
                        raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for "
                                         f"the concatenation axis. Received: input_shape={input_shape}")
                self.built = True
                return
        super().build(input_shape)
