"""Loading jax, once, the way every layer needs it (``import tensorlet`` never imports jax).

``load()`` imports jax, enables 64-bit types (TF has int64/float64 tensors; jax would silently narrow them
otherwise), splits the CPU into the logical devices ``tf.config`` asked for, and marks the runtime started.
``graph.jaxrt`` exposes the loaded modules as attributes; eager kernels below the graph layer call ``load()``.
"""

from __future__ import annotations

import importlib
import logging

from tensorlet._src.framework import device

_loaded = None


def load():
    """``(jax, jax.numpy, jax.lax)``, imported and configured on the first call."""
    global _loaded
    if _loaded is None:
        import numpy as np

        state = np.random.get_state()  # importing jax draws from NumPy's global generator (its cluster detection):
        try:  # a seed the user set (keras.utils.set_random_seed) must give the same stream whenever jax loads
            jax_mod = importlib.import_module("jax")
        finally:
            np.random.set_state(state)
        jax_mod.config.update("jax_enable_x64", True)
        n_cpu = device.num_cpu_devices()
        if n_cpu > 1:
            try:  # the CPU split into logical devices (tf.config.set_logical_device_configuration)
                jax_mod.config.update("jax_num_cpu_devices", n_cpu)
            except RuntimeError:  # jax's backend already started by other code: its device count stands
                pass
        device.mark_runtime_started()
        # tensorlet re-raises errors of host callbacks (tf.debugging.assert_* in compiled code) as TF errors
        logging.getLogger("jax._src.debugging").setLevel(logging.CRITICAL)
        _loaded = (jax_mod, importlib.import_module("jax.numpy"), importlib.import_module("jax.lax"))
    return _loaded
