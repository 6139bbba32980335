"""``keras.saving.save_model`` / ``load_model`` / ``save_weights`` / ``load_weights`` (Keras 3's file formats).

>>> model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
>>> model.save("/tmp/m.keras")
>>> tf.keras.models.load_model("/tmp/m.keras").layers[0].units
2

Formats: ``.keras`` (zip of ``config.json``, ``metadata.json``, ``model.weights.h5``), ``.weights.h5`` (Keras 3's
weights layout), ``.h5``/``.hdf5`` (legacy HDF5, as Keras 3 and tf.keras 2.x wrote it) and, with ``zipped=False``,
a directory holding the three ``.keras`` members. Every file is written to a temporary name in the target
directory and renamed into place, so a crash never leaves a half-written file. Loading never runs code from the
file with ``safe_mode=True`` (see ``safe_mode.py``) and never writes outside memory.
"""

from __future__ import annotations

import io
import os
import tempfile
import threading
import warnings
import zipfile

from tensorlet._src.keras.saving import keras_zip as _zip
from tensorlet._src.keras.saving import legacy_h5 as _legacy
from tensorlet._src.keras.saving import safe_mode as _safe
from tensorlet._src.keras.saving import serialization as _ser
from tensorlet._src.keras.saving import weights_h5 as _w
from tensorlet._src.ops.registry import tf_export

KERAS_VERSION = "3.15.1"  # the Keras release whose file formats tensorlet writes


def _logger():
    from tensorlet._src.framework.context import get_logger

    return get_logger()


# --- atomic writes ----------------------------------------------------------------------------------------------------
_UMASK = []
_UMASK_LOCK = threading.Lock()


def _file_mode():
    """The mode ``open()`` would give a new file (0o666 less the umask), so saved files look like Keras's."""
    with _UMASK_LOCK:
        if not _UMASK:
            mask = None
            try:
                with open("/proc/self/status") as f:  # read without changing it (Linux)
                    for line in f:
                        if line.startswith("Umask:"):
                            mask = int(line.split()[1], 8)
            except (OSError, ValueError):
                pass
            if mask is None:
                mask = os.umask(0o022)
                os.umask(mask)
            _UMASK.append(mask)
    return 0o666 & ~_UMASK[0]


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, write, binary_file=True):
    """Runs ``write(f)`` on a temporary file next to ``path`` (``write(tmp_path)`` when ``binary_file`` is False),
    then renames it onto ``path``: readers see the old file or the complete new one, never a partial one."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        if binary_file:
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        else:
            os.close(fd)
            write(tmp)
            sync = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(sync)
            finally:
                os.close(sync)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def _ask_to_proceed_with_overwrite(filepath):
    overwrite = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while overwrite not in ("y", "n"):
        overwrite = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if overwrite == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


# --- save -------------------------------------------------------------------------------------------------------------
def _config_json(model):
    import json

    from tensorlet._src.keras.models import _default

    return json.dumps(keras_compatible(_ser.serialize_keras_object(model)), default=_default)


def keras_compatible(config):
    """The serialized config in the form Keras writes: a functional model is ``{"module":
    "keras.src.models.functional", "class_name": "Functional"}`` and a Python lambda ``{"code", "defaults",
    "closure"}`` in Keras's files."""
    if isinstance(config, list):
        return [keras_compatible(v) for v in config]
    if not isinstance(config, dict):
        return config
    out = {k: keras_compatible(v) for k, v in config.items()}
    if out.get("class_name") == "__lambda__" and isinstance(out.get("config"), dict) and \
            "value" in out["config"] and "code" not in out["config"]:
        out["config"] = {"code": out["config"]["value"], "defaults": None, "closure": None}  # Keras's Lambda form
    module = out.get("module")
    if isinstance(module, str) and module.startswith("tensorlet._src.keras.engine.functional") and \
            out.get("class_name") == "Functional":
        out["module"] = "keras.src.models.functional"
        out["registered_name"] = "Functional"
    return out


@tf_export("keras.saving.save_model", "keras.models.save_model")
def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Saves ``model`` as a ``.keras`` archive (or a legacy ``.h5`` file when the path ends in ``.h5``).

    >>> tf.keras.saving.save_model(model, "/tmp/model.keras")
    """
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", False)
    if save_format:
        if str(filepath).endswith((".h5", ".hdf5", ".keras")):
            _logger().warning("The `save_format` argument is deprecated in Keras 3. We recommend removing this "
                              "argument as it can be inferred from the file path. Received: save_format=%s",
                              save_format)
        else:
            raise ValueError("The `save_format` argument is deprecated in Keras 3. Please remove this argument and "
                             "pass a file path with either `.keras` or `.h5` extension."
                             f"Received: save_format={save_format}")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    if isinstance(filepath, io.IOBase):
        _save_keras_fileobj(model, filepath)
        return
    filepath = os.fspath(filepath)
    if filepath.endswith((".h5", ".hdf5")):
        _logger().warning("You are saving your model as an HDF5 file via `model.save()` or "
                          "`keras.saving.save_model(model)`. This file format is considered legacy. We recommend "
                          "using instead the native Keras format, e.g. `model.save('my_model.keras')` or "
                          "`keras.saving.save_model(model, 'my_model.keras')`. ")
    if zipped is None:
        zipped = True
    if os.path.exists(filepath) and not overwrite:
        if not _ask_to_proceed_with_overwrite(filepath):
            return
    if zipped and filepath.endswith(".keras"):
        _warn_unbuilt(model)
        config = _config_json(model)
        weights = _zip.weights_bytes(model)
        atomic_write(filepath, lambda f: _zip.write_archive(f, config, weights))
        return
    if not zipped:
        if filepath.endswith(".keras"):
            raise ValueError("When using `zipped=False`, the `filepath` argument should not end in `.keras`. "
                             f"Received: filepath={filepath}")
        _warn_unbuilt(model)
        os.makedirs(filepath, exist_ok=True)
        config = _config_json(model)
        weights = _zip.weights_bytes(model)
        atomic_write(os.path.join(filepath, _zip.METADATA), lambda f: f.write(_zip.metadata_json().encode()))
        atomic_write(os.path.join(filepath, _zip.CONFIG), lambda f: f.write(config.encode()))
        atomic_write(os.path.join(filepath, _zip.WEIGHTS), lambda f: f.write(weights))
        return
    if filepath.endswith((".h5", ".hdf5")):
        directory = os.path.dirname(filepath)
        if directory and not os.path.exists(directory):
            os.makedirs(directory, exist_ok=True)

        def write(tmp):
            with _w.h5py().File(tmp, "w") as f:
                _legacy.save_model_to_h5(model, f, include_optimizer=include_optimizer)

        atomic_write(filepath, write, binary_file=False)
        return
    raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` extension for the native "
                     "Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to "
                     f"export a SavedModel for use with TFLite/TFServing/etc. Received: filepath={filepath}.")


def _warn_unbuilt(model):
    if not getattr(model, "built", True):
        warnings.warn("You are saving a model that has not yet been built. It might not contain any weights yet. "
                      "Consider building the model first by calling it on some data.", stacklevel=3)


def _save_keras_fileobj(model, fileobj):
    _warn_unbuilt(model)
    _zip.write_archive(fileobj, _config_json(model), _zip.weights_bytes(model))


@tf_export("keras.saving.save_weights")
def save_weights(model, filepath, overwrite=True, max_shard_size=None, **kwargs):
    """Writes the weights of ``model`` (and of its optimizer) to a ``.weights.h5`` file (Keras 3 layout)."""
    filepath_str = os.fspath(filepath) if not isinstance(filepath, str) else filepath
    if max_shard_size is not None:
        raise NotImplementedError("tensorlet does not write sharded weights files (`max_shard_size`).")
    if not filepath_str.endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath_str}")
    if kwargs:
        raise TypeError(f"save_weights() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if os.path.exists(filepath_str) and not overwrite:
        if not _ask_to_proceed_with_overwrite(filepath_str):
            return
    if not getattr(model, "built", True):
        raise ValueError("You are saving a model that has not yet been built. Try building the model first by "
                         "calling it on some data or by using `build()`.")

    def write(tmp):
        with _w.h5py().File(tmp, "w") as f:
            _w.save_weights_to_h5(model, f)

    atomic_write(filepath_str, write, binary_file=False)


# --- load -------------------------------------------------------------------------------------------------------------
def _is_clean(e):
    from tensorlet._src.framework import errors

    return isinstance(e, (ValueError, TypeError, errors.OpError))


class _CleanErrors:
    """Turns unexpected exceptions raised while reading a file into ``ValueError`` (with the original chained)."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or not isinstance(exc, Exception) or _is_clean(exc):
            return False
        if isinstance(exc, FileNotFoundError):
            return False
        raise ValueError(f"Could not load {self.what}: {type(exc).__name__}: {str(exc)[:1000]}") from exc


_DESERIALIZE_LOCK = threading.RLock()


def deserialize_model(config, custom_objects, safe_mode):
    """The object a (checked) config describes, deserialized with the safe-mode flag pinned for the duration."""
    from tensorlet._src.keras.engine.base_layer import Layer

    effective = _safe.is_safe_mode(safe_mode)
    with _DESERIALIZE_LOCK:  # the flag is process-wide: one load at a time pins it
        previous = _ser._SAFE_MODE[0]
        _ser._SAFE_MODE[0] = effective
        try:
            obj = _ser.deserialize_keras_object(config, custom_objects=custom_objects, safe_mode=effective)
            if _ser._SAFE_MODE[0] != effective:
                raise _safe.UnsafeObjectError("Refusing to load the model: deserializing its config changed the "
                                              "safe-mode setting (`keras.config.enable_unsafe_deserialization`).")
        finally:
            _ser._SAFE_MODE[0] = previous
    if not isinstance(obj, Layer):
        raise ValueError(f"The file does not describe a Keras model: its config deserializes to {type(obj).__name__}.")
    return obj


def _finish_build(model, config):
    """Builds a subclassed model that deserialization left without weights by calling it on zeros of its recorded
    input shape (what Keras's ``build_from_config`` does for models without a ``build`` method)."""
    from tensorlet._src.keras.engine.functional import Functional
    from tensorlet._src.keras.engine.sequential import Sequential
    from tensorlet._src.keras.engine.training import Model

    if not isinstance(model, Model) or isinstance(model, (Sequential, Functional)) or model.weights:
        return
    build = config.get("build_config") if isinstance(config, dict) else None
    shape = build.get("input_shape") if isinstance(build, dict) else None
    if not isinstance(shape, list) or not all(d is None or (isinstance(d, int) and 0 <= d <= 1 << 20)
                                              for d in shape):
        return
    import numpy as np

    try:
        model(np.zeros([1 if d is None else d for d in shape], np.float32), training=False)
    except Exception as e:  # noqa: BLE001  (Keras warns and loads no weights)
        warnings.warn(f"Model '{model.name}' could not be built from its build config ({type(e).__name__}: {e}); "
                      "its weights will not be loaded.", stacklevel=3)


def _build_optimizer(model, h5file):
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or getattr(optimizer, "built", True) or not getattr(model, "built", False):
        return
    if _w.saved_optimizer_size(h5file) > len(optimizer.variables):
        optimizer.build(model.trainable_variables)


def _load_keras_archive(source, custom_objects, do_compile, safe_mode, what):
    config_b, meta_b, weights_b, assets = _zip.read_archive_with_assets(source, what)
    if meta_b is not None:
        _zip.parse_json(meta_b, "metadata.json")
    config = _zip.parse_json(config_b, "config.json")
    return _model_with_weights(config, weights_b, custom_objects, do_compile, safe_mode, assets)


def _model_with_weights(config, weights_b, custom_objects, do_compile, safe_mode, assets=None):
    if not do_compile:
        config = dict(config)
        config["compile_config"] = None
    checked = _safe.check_config(config, custom_objects, safe_mode=safe_mode)
    model = deserialize_model(checked, custom_objects, safe_mode)
    _finish_build(model, checked)
    with _w.open_h5_bytes(weights_b, "model.weights.h5") as h5file:
        _build_optimizer(model, h5file)
        _w.load_weights_from_h5(model, h5file)
    if assets:
        _w.load_keras_assets(model, assets)
    return model


def _read_file(path, limit):
    size = os.path.getsize(path)
    if size > limit:
        raise ValueError(f"Not allowed: {path} is larger than {limit} bytes")
    with open(path, "rb") as f:
        data = f.read(size + 1)
    if len(data) > limit:
        raise ValueError(f"Not allowed: {path} is larger than {limit} bytes")
    return data


def _open_h5_path(path):
    with open(path, "rb") as f:
        head = f.read(8)
    if head != _w._H5_SIGNATURE:
        raise ValueError(f"Invalid HDF5 file {path}: bad signature (not an HDF5 file)")
    try:
        return _w.h5py().File(path, "r")
    except (OSError, RuntimeError) as e:
        raise ValueError(f"Invalid HDF5 file {path}: {e}") from e


@tf_export("keras.saving.load_model", "keras.models.load_model")
def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """Loads a model saved with ``model.save()`` (``.keras``, legacy ``.h5``, or a ``zipped=False`` directory).

    ``safe_mode=True`` refuses objects that could run code (Python lambdas, functions or classes from outside the
    modelling modules) with a ``ValueError``; ``custom_objects`` maps names to your own classes and functions.

    >>> model = tf.keras.models.load_model("/tmp/model.keras")
    """
    if isinstance(filepath, io.IOBase) or (hasattr(filepath, "read") and hasattr(filepath, "seek")):
        with _CleanErrors("the model"):
            return _load_keras_archive(filepath, custom_objects, compile, safe_mode, "the file object")
    filepath = os.fspath(filepath)
    is_dir = os.path.isdir(filepath) and os.path.exists(os.path.join(filepath, _zip.CONFIG))
    if filepath.endswith(".keras") and os.path.isfile(filepath):
        if not zipfile.is_zipfile(filepath):
            raise ValueError(f"Invalid .keras archive: {filepath} is not a zip file.")
        with _CleanErrors(filepath):
            return _load_keras_archive(filepath, custom_objects, compile, safe_mode, filepath)
    if is_dir:
        with _CleanErrors(filepath):
            names = set(os.listdir(filepath))
            if _zip.WEIGHTS not in names:
                raise ValueError(f"Expected a {_zip.WEIGHTS} file.")
            config = _zip.parse_json(_read_file(os.path.join(filepath, _zip.CONFIG), _zip.MAX_JSON_BYTES),
                                     "config.json")
            weights = _read_file(os.path.join(filepath, _zip.WEIGHTS), _zip.MAX_TOTAL_BYTES)
            return _model_with_weights(config, weights, custom_objects, compile, safe_mode)
    if filepath.endswith((".h5", ".hdf5")):
        if not os.path.exists(filepath):
            raise FileNotFoundError(f"[Errno 2] Unable to synchronously open file (unable to open file: name = "
                                    f"'{filepath}', errno = 2, error message = 'No such file or directory')")
        with _CleanErrors(filepath):
            with _open_h5_path(filepath) as f:
                return _legacy.model_from_h5(f, custom_objects=custom_objects, do_compile=compile,
                                             safe_mode=safe_mode)
    if filepath.endswith(".keras"):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         "zip file.")
    raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files and "
                     "legacy H5 format files (`.h5` extension). Note that the legacy SavedModel format is not "
                     "supported by `load_model()` in Keras 3. In order to reload a TensorFlow SavedModel as an "
                     f"inference-only layer in Keras 3, use `keras.layers.TFSMLayer({filepath}, "
                     "call_endpoint='serving_default')` (note that your `call_endpoint` might have a different name).")


@tf_export("keras.saving.load_weights")
def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """Loads weights into ``model`` from a ``.weights.h5``, ``.keras`` or legacy ``.h5`` file."""
    filepath_str = os.fspath(filepath)
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    by_name = kwargs.pop("by_name", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    if filepath_str.endswith((".keras", ".weights.h5")):
        if filepath_str.endswith(".keras") and objects_to_skip is not None:
            raise ValueError(f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}")
        if by_name is not None:
            raise ValueError(f"`by_name` only supports loading legacy '.h5' or '.hdf5' files. Received: {filepath}")
        if not getattr(model, "built", True):
            raise ValueError("You are loading weights into a model that has not yet been built. Try building the "
                             "model first by calling it on some data or by using `build()`.")
        with _CleanErrors(filepath_str):
            if filepath_str.endswith(".keras"):
                if not os.path.isfile(filepath_str):
                    raise FileNotFoundError(f"No such file: '{filepath_str}'")
                _, _, weights_b = _zip.read_archive(filepath_str, filepath_str)
                with _w.open_h5_bytes(weights_b, "model.weights.h5") as f:
                    _build_optimizer(model, f)
                    _w.load_weights_from_h5(model, f, skip_mismatch=skip_mismatch)
            else:
                with _open_h5_path(filepath_str) as f:
                    _build_optimizer(model, f)
                    _w.load_weights_from_h5(model, f, skip_mismatch=skip_mismatch, objects_to_skip=objects_to_skip)
        return
    if filepath_str.endswith((".h5", ".hdf5")):
        if objects_to_skip is not None:
            raise ValueError(f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}")
        with _CleanErrors(filepath_str):
            with _open_h5_path(filepath_str) as f:
                root = _legacy.weights_root(f)
                if by_name:
                    _legacy.load_weights_from_group_by_name(root, model, skip_mismatch)
                else:
                    _legacy.load_weights_from_group(root, model, skip_mismatch)
        return
    raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files, "
                     "`.weights.h5` files, legacy H5 format files (`.h5` extension), or Orbax checkpoints.")
