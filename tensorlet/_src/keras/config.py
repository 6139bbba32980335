"""``keras.config`` / ``keras.backend`` switches beyond floatx/epsilon/image format: the backend name, flash
attention, traceback filtering, epoch/step caps (``KERAS_MAX_EPOCHS``, ``KERAS_MAX_STEPS_PER_EPOCH``).

>>> backend()
'tensorflow'
"""

from __future__ import annotations

import os

from tensorlet._src.keras.backend import standardize_dtype
from tensorlet._src.ops.registry import export_value, tf_export

_STATE = {"flash_attention": None, "traceback_filtering": True}


@tf_export("keras.config.backend", "keras.backend.backend")
def backend():
    """The backend name: tensorlet stands in for Keras's TensorFlow backend."""
    return "tensorflow"


@tf_export("keras.config.set_backend")
def set_backend(backend):
    """Only ``"tensorflow"`` (tensorlet itself) is available."""
    if backend != "tensorflow":
        raise ValueError(f"tensorlet implements Keras's 'tensorflow' backend only. Received: backend={backend}")


@tf_export("keras.config.enable_flash_attention")
def enable_flash_attention():
    """Flash attention is not available on this backend; ``dot_product_attention`` raises when it is asked for."""
    _STATE["flash_attention"] = True


@tf_export("keras.config.disable_flash_attention")
def disable_flash_attention():
    _STATE["flash_attention"] = False


@tf_export("keras.config.is_flash_attention_enabled")
def is_flash_attention_enabled():
    """None (auto), True or False."""
    return _STATE["flash_attention"]


@tf_export("keras.config.enable_traceback_filtering")
def enable_traceback_filtering():
    _STATE["traceback_filtering"] = True


@tf_export("keras.config.disable_traceback_filtering")
def disable_traceback_filtering():
    _STATE["traceback_filtering"] = False


@tf_export("keras.config.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled():
    return _STATE["traceback_filtering"]


@tf_export("keras.config.is_nnx_enabled")
def is_nnx_enabled():
    """Flax NNX integration is a JAX-backend feature: always False here."""
    return False


def _env_int(name):
    v = os.environ.get(name)
    return int(v) if v else None


_STATE["max_epochs"] = _env_int("KERAS_MAX_EPOCHS")
_STATE["max_steps_per_epoch"] = _env_int("KERAS_MAX_STEPS_PER_EPOCH")


@tf_export("keras.config.set_max_epochs")
def set_max_epochs(max_epochs):
    """Caps the epochs of every ``fit`` (None removes the cap)."""
    _STATE["max_epochs"] = max_epochs


@tf_export("keras.config.max_epochs")
def max_epochs():
    return _STATE["max_epochs"]


@tf_export("keras.config.set_max_steps_per_epoch")
def set_max_steps_per_epoch(max_steps_per_epoch):
    """Caps the steps of every epoch (None removes the cap)."""
    _STATE["max_steps_per_epoch"] = max_steps_per_epoch


@tf_export("keras.config.max_steps_per_epoch")
def max_steps_per_epoch():
    return _STATE["max_steps_per_epoch"]


@tf_export("keras.backend.is_float_dtype")
def is_float_dtype(dtype):
    """True for float dtypes (float16/bfloat16/float32/float64, float8)."""
    d = standardize_dtype(dtype)
    return d.startswith("float") or d == "bfloat16"


KERAS_VERSION = "3.15.1"  # the Keras release whose behaviour tensorlet.keras follows (the one TF 2.21 installs)
export_value("keras.__version__", __name__, "KERAS_VERSION")
