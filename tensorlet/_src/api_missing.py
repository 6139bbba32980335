"""The error for TF names tensorlet does not have yet: clear, and still an AttributeError."""

from __future__ import annotations


class NotImplementedInTensorlet(AttributeError):
    """``tf.xyz`` exists in TensorFlow but not (yet) in tensorlet."""


def missing(module: str, name: str) -> AttributeError:
    if name.startswith("__") and name.endswith("__"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    public = module.replace("tensorlet", "tf", 1)
    return NotImplementedInTensorlet(
        f"tensorlet does not implement {public}.{name} yet (module {module!r} has no attribute {name!r})")
