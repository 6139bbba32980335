"""``tfmot.quantization``."""

from tensorlet._src.tfmot.quantization import keras

__all__ = ["keras"]
