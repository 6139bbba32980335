"""``tf.saved_model.Asset``, ``SaveOptions``/``LoadOptions`` and the ``tf.saved_model`` constants."""

from __future__ import annotations

import os

from tensorlet._src.ops.registry import export_value, tf_export


@tf_export("saved_model.Asset")
class Asset:
    """A file a SavedModel carries along (a vocabulary, ...): copied into ``assets/`` on save.

    ``asset_path`` is a string tensor; functions that use it read the file's location in the loaded
    SavedModel after ``tf.saved_model.load``.

    >>> asset = tf.saved_model.Asset("vocab.txt")
    >>> asset.asset_path
    <tf.Tensor: shape=(), dtype=string, numpy=b'vocab.txt'>
    """

    def __init__(self, path):
        from tensorlet._src.framework.tensor import EagerTensor, convert_to_tensor

        if isinstance(path, Asset):
            path = path._path
        elif isinstance(path, EagerTensor):
            path = path.numpy()
        if isinstance(path, bytes):
            path = path.decode()
        self._path = os.fspath(path)
        self._tensor = convert_to_tensor(self._path.encode())

    @property
    def asset_path(self):
        """The file's path as a scalar string tensor."""
        return self._tensor

    def __repr__(self):
        return f"<tensorlet.saved_model.Asset {self._path!r}>"


@tf_export("saved_model.SaveOptions")
class SaveOptions:
    """Options for ``tf.saved_model.save`` (accepted for compatibility; tensorlet's format has no variants)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


@tf_export("saved_model.LoadOptions")
class LoadOptions:
    """Options for ``tf.saved_model.load`` (accepted for compatibility)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


# --- constants (TF's values) ---------------------------------------------------------------------------------------
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
GPU = "gpu"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
SERVING = "serve"
TPU = "tpu"
TRAINING = "train"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"

for _name in ("ASSETS_DIRECTORY", "ASSETS_KEY", "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
              "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
              "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "GPU", "PREDICT_INPUTS", "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS",
              "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS", "SAVED_MODEL_FILENAME_PB",
              "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "SERVING", "TPU", "TRAINING",
              "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"):
    export_value(f"saved_model.{_name}", __name__, _name)
