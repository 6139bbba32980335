"""The table of public names: ``@tf_export("math.add", "add")`` and ``export_value``.

It is the bottom of the package (it imports nothing of tensorlet), so every layer can mark its public names.
``tools/gen_api.py`` writes the public modules under ``tensorlet/`` from :data:`EXPORTS`.
``tensorlet._src.ops.registry`` re-exports these three names.
"""

from __future__ import annotations

__all__ = ["EXPORTS", "tf_export", "export_value"]

# "math.add" -> (source module, attribute)
EXPORTS: dict[str, tuple[str, str]] = {}


def tf_export(*names):
    """Record the public TF names of a function or class (``"math.add", "add"``)."""

    def deco(obj):
        for n in names:
            export_value(n, obj.__module__, obj.__name__)
        return obj

    return deco


def export_value(name: str, module: str, attr: str) -> None:
    """Record a public name for a module attribute that is not a def/class (``tf.float32``)."""
    src = (module, attr)
    if EXPORTS.get(name, src) != src:
        raise ValueError(f"tf.{name} exported twice: {EXPORTS[name]} and {src}")
    EXPORTS[name] = src
