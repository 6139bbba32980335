"""Automatic differentiation: GradientTape (reverse mode), ForwardAccumulator, custom gradients."""

from tensorlet._src.autodiff import custom, forward, tape  # noqa: F401  (installs the tape hooks)
