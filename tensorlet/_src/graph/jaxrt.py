"""The jax runtime, imported on first use (``import tensorlet`` never imports jax).

``from tensorlet._src.graph.jaxrt import jax, jnp`` inside a function loads jax once and enables 64-bit types
(TF has int64/float64 tensors; jax would silently narrow them otherwise).
"""

from __future__ import annotations

import sys

from tensorlet._src.framework.jax_runtime import load as _load


def __getattr__(name):
    if name in ("jax", "jnp", "lax"):
        jax_mod, jnp_mod, lax_mod = _load()
        value = {"jax": jax_mod, "jnp": jnp_mod, "lax": lax_mod}[name]
        setattr(sys.modules[__name__], name, value)
        return value
    raise AttributeError(name)
