"""``tensorflow_model_optimization`` on tensorlet: ``sparsity.keras`` (magnitude pruning) and
``quantization.keras`` (quantization-aware training).  ``tensorlet run`` makes ``import
tensorflow_model_optimization as tfmot`` import this package."""

from tensorlet._src.tfmot import quantization, sparsity

__all__ = ["quantization", "sparsity"]
