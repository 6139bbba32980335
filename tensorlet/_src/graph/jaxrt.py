"""The jax runtime, imported on first use (``import tensorlet`` never imports jax).

``from tensorlet._src.graph.jaxrt import jax, jnp`` inside a function loads jax once and enables 64-bit types
(TF has int64/float64 tensors; jax would silently narrow them otherwise).
"""

from __future__ import annotations

import importlib
import sys

_loaded = None


def _load():
    global _loaded
    if _loaded is None:
        jax_mod = importlib.import_module("jax")
        jax_mod.config.update("jax_enable_x64", True)
        import logging

        # tensorlet re-raises errors of host callbacks (tf.debugging.assert_* in compiled code) as TF errors
        logging.getLogger("jax._src.debugging").setLevel(logging.CRITICAL)
        _loaded = (jax_mod, importlib.import_module("jax.numpy"), importlib.import_module("jax.lax"))
    return _loaded


def __getattr__(name):
    if name in ("jax", "jnp", "lax"):
        jax_mod, jnp_mod, lax_mod = _load()
        value = {"jax": jax_mod, "jnp": jnp_mod, "lax": lax_mod}[name]
        setattr(sys.modules[__name__], name, value)
        return value
    raise AttributeError(name)
