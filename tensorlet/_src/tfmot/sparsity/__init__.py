"""``tfmot.sparsity``."""

from tensorlet._src.tfmot.sparsity import keras

__all__ = ["keras"]
