"""Loading jax, once, the way every layer needs it (``import tensorlet`` never imports jax).

``load()`` imports jax, enables 64-bit types (TF has int64/float64 tensors; jax would silently narrow them
otherwise), splits the CPU into the logical devices ``tf.config`` asked for, and marks the runtime started.
``graph.jaxrt`` exposes the loaded modules as attributes; eager kernels below the graph layer call ``load()``.
Any thread may be the one that loads jax (saved_model's background compiler is one): the import is done once,
under a lock, and leaves ``np.random``'s global stream as it finds it for every other thread.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading

from tensorlet._src.framework import device

_loaded = None
_lock = threading.Lock()
# jax's import sets TF_CPP_MIN_LOG_LEVEL to "1" when unset (``os.environ.setdefault``), whoever imports it (this
# module, other code, before or after tensorlet): what the variable held when tensorlet was imported, and whether
# jax was already there
_LOG_LEVEL_AT_IMPORT = os.environ.get("TF_CPP_MIN_LOG_LEVEL")
_JAX_BEFORE = "jax" in sys.modules


def load():
    """``(jax, jax.numpy, jax.lax)``, imported and configured on the first call (by whichever thread: saved_model's
    background compiler loads jax off the caller's thread; a second thread waits for the first one's import)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _import()
    return _loaded


def _import():
    with _private_numpy_random():
        jax_mod = importlib.import_module("jax")
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
    return jax_mod, importlib.import_module("jax.numpy"), importlib.import_module("jax.lax")


def user_min_log_level() -> str:
    """``TF_CPP_MIN_LOG_LEVEL`` as the user set it ("0" when only jax's import set it)."""
    v = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0")
    if v == "1" and "jax" in sys.modules and (_LOG_LEVEL_AT_IMPORT is None or _JAX_BEFORE):
        return "0"  # jax's default, left in the environment for XLA's C++ logs, which read it later
    return v


@contextlib.contextmanager
def _private_numpy_random():
    """Importing jax draws from NumPy's global generator (``np.random.rand`` in its cluster detection).  While it
    imports, ``np.random``'s module functions give the importing thread a private generator and every other
    thread the global one, so a user's stream (``np.random.seed``, ``keras.utils.set_random_seed``) is the same
    whenever and on whichever thread jax loads, even while another thread draws from it meanwhile.  (Saving and
    restoring the global state around the import would undo those other threads' draws.)"""
    import numpy.random as npr

    shared = npr.mtrand._rand
    me = threading.get_ident()
    own = []

    def private():
        if not own:
            own.append(npr.RandomState(0))
        return own[0]

    def redirect(name, f):
        def draw(*args, **kwargs):
            if threading.get_ident() == me:
                return getattr(private(), name)(*args, **kwargs)
            return f(*args, **kwargs)

        draw.__name__ = draw.__qualname__ = name
        draw.__doc__ = f.__doc__
        return draw

    originals = {k: f for k, f in list(vars(npr).items()) if getattr(f, "__self__", None) is shared}
    wrappers = {k: redirect(k, f) for k, f in originals.items()}
    for k, w in wrappers.items():
        setattr(npr, k, w)
    try:
        yield
    finally:
        for k, w in wrappers.items():
            if vars(npr).get(k) is w:
                setattr(npr, k, originals[k])
