"""Safe-mode checks of a model config, run on the whole JSON tree before anything in it is built.

Loading a model from an untrusted file must never run code from the file. With ``safe_mode=True`` (the default of
``keras.models.load_model``) ``check_config`` refuses, with a ``ValueError`` naming the object and ``safe_mode``:

* Python bytecode: ``__lambda__`` objects and ``Lambda`` layers whose function is marshalled code (the Keras 3
  ``{"code", "defaults", "closure"}`` form and the tf.keras 2.x ``[code, defaults, closure]`` list of legacy HDF5
  files, CVE-2025-9905);
* objects from modules outside the modelling families: a class must resolve to a Keras layer, model, optimizer,
  learning-rate schedule, loss, metric, initializer, regularizer, constraint or dtype policy; a function to a Keras
  activation, loss or metric (or a tensorlet math/nn op). Arbitrary module functions (``os.system``,
  ``builtins.exec``, CVE-2025-1550), file downloads (``keras.utils.get_file``, CVE-2025-8747) and the safe-mode
  switch itself (``keras.config.enable_unsafe_deserialization``, CVE-2025-9906) are therefore never reachable;
* layers that read files named by the config (``TFSMLayer``, lookup layers with a vocabulary file path).

Objects registered with ``register_keras_serializable`` or passed in ``custom_objects`` are trusted (the user's own
code). ``check_config`` also returns a *canonical* copy of the config in which every built-in class or function
names the public module it was resolved from, so the deserializer finds exactly the object that was checked.
"""

from __future__ import annotations

import types

from tensorlet._src.keras.saving import serialization as _ser

MAX_CONFIG_DEPTH = 256  # nesting levels of the JSON tree
MAX_CONFIG_NODES = 2_000_000  # dicts + lists + values
MAX_DIMENSION = 2 ** 31 - 1  # largest integer accepted for a size-like layer argument

CLASS_FAMILIES = ("layers", "models", "optimizers", "losses", "metrics", "initializers", "regularizers",
                  "constraints", "dtype_policies", "mixed_precision", "activations")
FUNCTION_FAMILIES = ("activations", "losses", "metrics")
# public ops a Lambda layer may name (tensorlet functions resolved through a ``tensorlet.*`` module)
OP_FAMILIES = ("math", "nn", "linalg", "signal", "bitwise")
# family functions that deserialize or look up further objects: never a model's function
_META_FUNCTIONS = frozenset(("get", "serialize", "deserialize"))
# Keras's own list of non-modelling APIs (refused by name even if a family would otherwise allow them)
NON_MODELING_APIS = frozenset((
    "keras.backend.clear_session", "keras.config.enable_unsafe_deserialization", "keras.models.load_model",
    "keras.models.model_from_json", "keras.models.save_model", "keras.preprocessing.image_dataset_from_directory",
    "keras.preprocessing.image.load_img", "keras.preprocessing.image.save_img",
    "keras.preprocessing.text_dataset_from_directory", "keras.saving.deserialize_keras_object",
    "keras.saving.load_model", "keras.saving.load_weights", "keras.saving.register_keras_serializable",
    "keras.saving.save_model", "keras.saving.save_weights", "keras.saving.serialize_keras_object",
    "keras.utils.audio_dataset_from_directory", "keras.utils.clear_session", "keras.utils.deserialize_keras_object",
    "keras.utils.get_file", "keras.utils.image_dataset_from_directory", "keras.utils.load_img",
    "keras.utils.register_keras_serializable", "keras.utils.save_img", "keras.utils.serialize_keras_object",
    "keras.utils.text_dataset_from_directory", "keras.utils.timeseries_dataset_from_array",
))
# modelling classes Keras exports outside the modelling families (``keras.utils.FeatureSpace`` is a layer)
_UTILS_CLASSES = frozenset(("FeatureSpace",))
# plain data holders nested in a FeatureSpace config (FeatureSpace.from_config rebuilds them itself, from their
# checked fields only)
_FEATURE_SPACE_PARTS = frozenset((("keras.src.layers.preprocessing.feature_space", "Feature"),
                                  ("keras.src.layers.preprocessing.feature_space", "Cross")))
# layers that read a file or directory named in their config
_FILE_READING_LAYERS = frozenset(("TFSMLayer",))
_VOCABULARY_LAYERS = frozenset(("StringLookup", "IntegerLookup", "TextVectorization"))
_SIZE_KEYS = frozenset(("units", "filters", "input_dim", "output_dim", "num_heads", "key_dim", "value_dim", "n",
                        "num_tokens", "max_tokens", "output_sequence_length", "num_bins", "depth_multiplier",
                        "groups", "batch_size", "sequence_length"))
_SHAPE_KEYS = frozenset(("batch_shape", "batch_input_shape", "input_shape", "shape", "target_shape", "dims",
                         "kernel_size", "pool_size", "strides", "size", "cropping", "padding", "dilation_rate"))
# data markers of Keras 3 configs (no code behind them)
_DATA_MARKERS = frozenset(("__tensor__", "__numpy__", "__bytes__", "__ellipsis__", "__slice__", "__keras_tensor__"))
# Keras-2 ``Lambda`` keys Keras 3 drops
_LAMBDA_LEGACY_KEYS = ("function_type", "module", "output_shape_type", "output_shape_module")

_SUFFIX = ("Loading it could execute arbitrary code, so it is disallowed with `safe_mode=True` (the default). If "
           "you trust the source of the file, pass `safe_mode=False` to the loading function (or call "
           "`keras.config.enable_unsafe_deserialization()`), or register your own objects with "
           "`@keras.saving.register_keras_serializable()` / pass them in `custom_objects`.")


class UnsafeObjectError(ValueError, TypeError):
    """A config names an object that safe mode refuses to deserialize.

    A ``ValueError``; also a ``TypeError``, the class Keras raises for classes it cannot locate (Keras never imports
    the module a file names either), so code written against Keras's errors keeps working.
    """


def _refuse(what, why):
    raise UnsafeObjectError(f"Refusing to deserialize {what}: {why}. {_SUFFIX}")


def _refuse_unregistered(kind, name, module):
    raise UnsafeObjectError(
        f"Could not locate {kind} '{name}'. Make sure custom classes and functions are decorated with "
        "`@keras.saving.register_keras_serializable()` (or passed in `custom_objects`). With `safe_mode=True` (the "
        f"default) the module named in the file ({module!r}) is never imported: refusing to deserialize "
        f"`{module}.{name}`. If you trust the source of the file, you can pass `safe_mode=False` to the loading "
        "function.")


def is_safe_mode(safe_mode):
    """The effective flag: ``safe_mode`` unless ``keras.config.enable_unsafe_deserialization()`` was called."""
    return bool(safe_mode) and _ser._SAFE_MODE[0]


# --- object resolution ----------------------------------------------------------------------------------------------
def _bases():
    from tensorlet._src.keras import constraints, initializers, mixed_precision, regularizers
    from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
    from tensorlet._src.keras.losses.base import Loss
    from tensorlet._src.keras.metrics.base import Metric
    from tensorlet._src.keras.optimizers import legacy, schedules
    from tensorlet._src.keras.optimizers.base import Optimizer

    return (Layer, Optimizer, legacy.Optimizer, schedules.LearningRateSchedule, Loss, Metric,
            initializers.Initializer, regularizers.Regularizer, constraints.Constraint, mixed_precision.DTypePolicy,
            InputSpec)


_CACHE = {}


def _modelling_bases():
    if "bases" not in _CACHE:
        _CACHE["bases"] = _bases()
    return _CACHE["bases"]


def _exports():
    from tensorlet._src.ops.registry import EXPORTS

    if not _CACHE.get("loaded"):
        _ser._ensure_keras_loaded()
        _CACHE["loaded"] = True
    return EXPORTS


def _export_obj(public):
    src = _exports().get(public)
    if src is None:
        return None
    import importlib

    return getattr(importlib.import_module(src[0]), src[1], None)


def _public_names(obj):
    """All public names ``obj`` is exported under: the export table names a module and attribute, which may be a
    public wrapper of ``obj`` (``functools.wraps``: same ``__module__``/``__name__``, ``__wrapped__`` is ``obj``)."""
    exports = _exports()
    names = _CACHE.get("public_by_key")
    if names is None or _CACHE.get("public_size") != len(exports):
        names = {}
        for pub, src in exports.items():
            names.setdefault(tuple(src), []).append(pub)
            target = _export_obj(pub)
            wrapped = getattr(target, "__wrapped__", None)
            if wrapped is not None:
                key = (getattr(wrapped, "__module__", None), getattr(wrapped, "__name__", None))
                if key != tuple(src):
                    names.setdefault(key, []).append(pub)
        _CACHE["public_by_key"], _CACHE["public_size"] = names, len(exports)
    return list(names.get((getattr(obj, "__module__", None), getattr(obj, "__name__", None)), []))


def _keras_family(module):
    """``("keras.layers", "layers")`` for Keras module paths (``keras.src.layers.core.dense``, ``tf_keras...``,
    ``keras.src.engine.functional``); ``None`` for other modules."""
    if not isinstance(module, str):
        return None
    if module.startswith("tf.keras"):
        module = module[3:]
    elif module.startswith("tf_keras"):
        module = "keras" + module[len("tf_keras"):]
    elif module.startswith("tensorflow.keras"):
        module = module[len("tensorflow."):]
    parts = module.split(".")
    if parts[0] != "keras":
        return None
    rest = parts[1:]
    internal = bool(rest) and rest[0] == "src"
    if internal:
        rest = rest[1:]
    if not rest:
        return "", ""
    if internal and rest[0] in ("engine", "models"):
        return "", "models"  # keras.src.models.functional, keras.src.engine.sequential: Model/Sequential/Functional
    if rest[0] == "optimizers" and len(rest) > 1 and rest[1] == "schedules":
        return "optimizers.schedules", "optimizers"
    return rest[0], rest[0]


_ROOT_ALIASES = {"Functional": "Model"}


def _resolve_keras_class(family_path, family, name):
    """The class a Keras built-in config names, with the public module it was found under."""
    if family_path == "" or family == "models":
        target = _ROOT_ALIASES.get(name, name)
        for pub in (f"keras.{target}", f"keras.models.{target}"):
            obj = _export_obj(pub)
            if obj is not None:
                return obj, pub.rsplit(".", 1)[0], target
        family_path = family  # e.g. keras.src.models.<x> naming something else
    if family == "utils" and name in _UTILS_CLASSES:
        obj = _export_obj(f"keras.utils.{name}")
        return obj, ("keras.utils" if obj is not None else None), name
    if family not in CLASS_FAMILIES and family != "models":
        return None, None, name
    for pub in (f"keras.{family_path}.{name}", f"keras.{family}.{name}"):
        obj = _export_obj(pub)
        if obj is not None:
            return obj, pub.rsplit(".", 1)[0], name
    return None, None, name


def _resolve_legacy_class(name):
    """A Keras 2 config names a class without a module: look among the modelling families (layers first)."""
    target = _ROOT_ALIASES.get(name, name)
    for pub in (f"keras.{target}", f"keras.models.{target}"):
        obj = _export_obj(pub)
        if obj is not None:
            return obj, pub.rsplit(".", 1)[0], target
    for fam in CLASS_FAMILIES:
        obj = _export_obj(f"keras.{fam}.{name}")
        if obj is not None:
            return obj, f"keras.{fam}", name
    return None, None, name


def _tensorlet_class(module, name):
    import sys

    obj = getattr(sys.modules.get(module), name, None)  # an already-imported tensorlet module: nothing is imported
    return obj if _is_modelling_class(obj) else None


def _custom(name, custom_objects):
    if not isinstance(name, str):
        return None
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    scope = _ser._scope_objects()
    if name in scope:
        return scope[name]
    return _ser._GLOBAL_CUSTOM_OBJECTS.get(name)


def _is_lambda_class(obj):
    from tensorlet._src.keras.layers.core import Lambda

    return isinstance(obj, type) and issubclass(obj, Lambda)


def _is_modelling_class(obj):
    return isinstance(obj, type) and issubclass(obj, _modelling_bases())


def _is_allowed_function(obj, public_module):
    if not callable(obj) or isinstance(obj, type):
        return False
    names = _public_names(obj)
    if any(n in NON_MODELING_APIS for n in names):
        return False
    if public_module is not None:
        return public_module.split(".")[1] in FUNCTION_FAMILIES
    return any(n.split(".")[0] in OP_FAMILIES for n in names)


# --- the walk -------------------------------------------------------------------------------------------------------
class _Checker:
    def __init__(self, custom_objects, safe, legacy):
        self.custom = dict(custom_objects or {})
        self.safe = safe
        self.legacy = legacy
        self.nodes = 0

    def check(self, node, depth=0, key=None):
        self.nodes += 1
        if self.nodes > MAX_CONFIG_NODES:
            raise ValueError(f"Invalid model config: more than {MAX_CONFIG_NODES} entries.")
        if depth > MAX_CONFIG_DEPTH:
            raise ValueError(f"Invalid model config: nested more than {MAX_CONFIG_DEPTH} levels deep.")
        if isinstance(node, dict):
            if "class_name" in node:
                return self.check_object(node, depth)
            return {self._key(k): self.check(v, depth + 1, k) for k, v in node.items()}
        if isinstance(node, list):
            return [self.check(v, depth + 1, key) for v in node]
        if isinstance(node, bool) or node is None or isinstance(node, (str, float)):
            return node
        if isinstance(node, int):
            if key in _SIZE_KEYS or key in _SHAPE_KEYS:
                if abs(node) > MAX_DIMENSION:
                    raise ValueError(f"Invalid model config: `{key}`={node} is out of range.")
            return node
        raise ValueError(f"Invalid model config: unexpected value of type {type(node).__name__}.")

    @staticmethod
    def _key(k):
        if not isinstance(k, str):
            raise ValueError(f"Invalid model config: key {k!r} is not a string.")
        return k

    def check_object(self, node, depth):
        class_name = node.get("class_name")
        if not isinstance(class_name, str):
            raise ValueError(f"Invalid model config: `class_name` must be a string, got {class_name!r}.")
        module = node.get("module")
        if module is not None and not isinstance(module, str):
            raise ValueError(f"Invalid model config: `module` must be a string or null, got {module!r}.")
        registered = node.get("registered_name")
        if registered is not None and not isinstance(registered, str):
            raise ValueError(f"Invalid model config: `registered_name` must be a string or null, got {registered!r}.")
        out = dict(node)
        if class_name == "__lambda__":
            if self.safe:
                _refuse("a Python lambda (`__lambda__`)", "it carries Python bytecode")
            return self._rest(out, depth)
        if class_name == "__typespec__":
            raise ValueError("Unsupported object in model config: `__typespec__` (TensorFlow type specs).")
        if class_name in _DATA_MARKERS:
            return self._rest(out, depth)
        if class_name == "function":
            return self.check_function(out, depth)
        return self.check_class(out, depth)

    def _rest(self, out, depth):
        for k, v in list(out.items()):
            if k not in ("class_name", "module", "registered_name"):
                out[k] = self.check(v, depth + 1, k)
        return out

    def _label(self, module, name):
        return f"`{module}.{name}`" if module else f"`{name}`"

    def check_function(self, out, depth):
        fname = out.get("config")
        if not isinstance(fname, str):
            raise TypeError("Expected 'config' to be a non-null str for a function classname,\n"
                            f"instead got {type(fname)}\nFull config: {out}")
        module = out.get("module")
        if _custom(fname, self.custom) is not None or _custom(out.get("registered_name"), self.custom) is not None:
            return out
        if not self.safe:
            return out
        label = self._label(module, fname)
        fam = _keras_family(module)
        if fam is not None:
            public = f"keras.{fam[0]}.{fname}" if fam[0] else f"keras.{fname}"
            if public in NON_MODELING_APIS or fname in _META_FUNCTIONS:
                _refuse(f"the function {label}", "it is not a modelling function")
            if fam[1] not in FUNCTION_FAMILIES:
                _refuse(f"the function {label}", f"functions from `keras.{fam[0]}` are not modelling functions "
                                                 f"(allowed: {', '.join('keras.' + f for f in FUNCTION_FAMILIES)})")
            obj = _export_obj(public) or _export_obj(f"keras.{fam[1]}.{fname}")
            if obj is None or not _is_allowed_function(obj, f"keras.{fam[1]}"):
                _refuse(f"the function {label}", "it is not a known Keras modelling function")
            out["module"] = f"keras.{fam[1]}"
            return out
        if module == "builtins":
            if fname in _META_FUNCTIONS:
                _refuse(f"the function {label}", "it is not a modelling function")
            for fam_name in FUNCTION_FAMILIES:
                obj = _export_obj(f"keras.{fam_name}.{fname}")
                if obj is not None and _is_allowed_function(obj, f"keras.{fam_name}"):
                    out["module"] = f"keras.{fam_name}"
                    return out
            _refuse(f"the function {label}", "it is not a Keras activation, loss or metric")
        if isinstance(module, str) and module.split(".")[0] == "tensorlet":
            obj = self._tensorlet_op(module, fname)
            if obj is not None:
                return out
            _refuse(f"the function {label}", f"only public ops of tf.{{{','.join(OP_FAMILIES)}}} are allowed")
        _refuse_unregistered("function", fname, module)

    @staticmethod
    def _tensorlet_op(module, fname):
        import sys

        mod = sys.modules.get(module)  # only modules tensorlet already imported: importing is not allowed
        obj = getattr(mod, fname, None) if mod is not None else None
        if obj is None or not isinstance(obj, types.FunctionType):
            return None
        return obj if _is_allowed_function(obj, None) else None

    def check_class(self, out, depth):
        class_name = out["class_name"]
        module = out.get("module")
        registered = out.get("registered_name")
        custom = _custom(registered, self.custom) or _custom(class_name, self.custom)
        if custom is not None:
            if _is_lambda_class(custom) and isinstance(out.get("config"), dict):
                out["config"] = self.check_lambda(out["config"], depth)
            return self._rest(out, depth)
        label = self._label(module, class_name)
        if (module, class_name) in _FEATURE_SPACE_PARTS and registered in (None, class_name):
            return self._rest(out, depth)
        fam = _keras_family(module)
        if fam is not None:
            obj, public_module, target = _resolve_keras_class(fam[0], fam[1], class_name)
        elif module is None and ("module" not in out or self.legacy):
            obj, public_module, target = _resolve_legacy_class(class_name)
        elif isinstance(module, str) and module.startswith("tensorlet._src.keras."):
            obj = _tensorlet_class(module, class_name)  # written by older tensorlet versions: internal class paths
            public_module, target = module, class_name
            if obj is None and self.safe:
                _refuse(f"the class {label}", "it is not a tensorlet Keras modelling class")
        else:
            obj = public_module = None
            target = class_name
            if self.safe:
                _refuse_unregistered("class", class_name, module)
        if self.safe:
            if fam is not None and fam[1] not in CLASS_FAMILIES and fam[0] != "" and \
                    not (fam[1] == "utils" and class_name in _UTILS_CLASSES):
                _refuse(f"the class {label}", f"`keras.{fam[0]}` is not a modelling module")
            if obj is None:  # fail closed: never let the deserializer search further
                raise TypeError(f"Could not locate class '{class_name}'. Make sure custom classes are decorated with "
                                "`@keras.saving.register_keras_serializable()`. If they are already decorated, make "
                                "sure they are all imported so that the decorator is run before trying to load them. "
                                f"Full object config: {_short(out, 2000)}")
            if public_module is not None and f"{public_module}.{target}" in NON_MODELING_APIS:
                _refuse(f"the class {label}", "it is not a modelling object")
            if obj is not None and not _is_modelling_class(obj):
                _refuse(f"the class {label}", "it is not a Keras layer, model, optimizer, loss, metric, initializer, "
                                              "regularizer, constraint or dtype policy")
            if class_name in _FILE_READING_LAYERS:
                _refuse(f"the layer {label}", "it loads a file named in the config")
        if obj is not None:
            out["module"] = public_module
            out["class_name"] = target
            out["registered_name"] = None  # a built-in: the deserializer must not look it up by another name
            inner = out.get("config")
            if isinstance(inner, dict):
                if _is_lambda_class(obj):
                    inner = self.check_lambda(inner, depth)
                elif self.safe and target in _VOCABULARY_LAYERS and isinstance(inner.get("vocabulary"), str):
                    _refuse(f"the layer {label} with vocabulary={inner['vocabulary']!r}",
                            "it reads the vocabulary from a file path")
                out["config"] = inner
        return self._rest(out, depth)

    def check_lambda(self, inner, depth):
        inner = dict(inner)
        name = inner.get("name", "lambda")
        legacy_module = inner.get("module")
        for key in ("function", "output_shape", "mask"):
            value = inner.get(key)
            marshalled = isinstance(value, (list, tuple)) and \
                (key == "function" or inner.get(f"{key}_type") == "lambda")
            if marshalled:  # tf.keras 2.x: [code, defaults, closure]
                if self.safe:
                    _refuse(f"the `Lambda` layer '{name}'",
                            f"its `{key}` is marshalled Python bytecode (legacy HDF5 format)")
                inner[key] = _lambda_from_legacy(value)
            elif isinstance(value, dict) and value.get("class_name") == "__lambda__":
                if self.safe:
                    _refuse(f"the `Lambda` layer '{name}'", f"its `{key}` is a Python lambda (bytecode)")
                inner[key] = _lambda_from_keras3(value)
            elif key == "function" and isinstance(value, str):
                # Keras 2: a function referenced by name (function_type "function") in the config's `module`
                inner[key] = {"module": legacy_module if legacy_module not in ("__main__",) else None,
                              "class_name": "function", "config": value, "registered_name": value}
        for k in _LAMBDA_LEGACY_KEYS:
            inner.pop(k, None)
        return inner


def _lambda_from_legacy(value):
    code = value[0] if value else ""
    defaults = value[1] if len(value) > 1 else None
    closure = value[2] if len(value) > 2 else None
    return _lambda_from_keras3({"class_name": "__lambda__",
                                "config": {"code": code, "defaults": defaults, "closure": closure}})


def _lambda_from_keras3(value):
    """Keras 3's ``{"code", "defaults", "closure"}`` lambda as tensorlet's ``{"value"}`` form (unsafe mode only)."""
    inner = value.get("config") or {}
    if "value" in inner:
        return value
    if inner.get("defaults") or inner.get("closure"):
        raise ValueError("Lambda functions with default arguments or closures cannot be loaded.")
    code = inner.get("code")
    if not isinstance(code, str):
        raise ValueError("Invalid `__lambda__` config: missing `code`.")
    return {"class_name": "__lambda__", "config": {"value": "".join(code.split())}}


def check_config(config, custom_objects=None, safe_mode=True, legacy=False):
    """Checks a model config and returns its canonical copy (see the module docstring).

    Raises ``ValueError`` (``UnsafeObjectError``) for objects safe mode refuses and ``ValueError`` for configs
    that are not Keras configs (too deep, non-string keys, out-of-range sizes).
    """
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError("The provided configuration is not a valid Keras configuration. Expected a dictionary "
                         f"containing a 'class_name' and a 'config' key. Received: config={_short(config)}")
    try:
        return _Checker(custom_objects, is_safe_mode(safe_mode), legacy).check(config)
    except RecursionError as e:
        raise ValueError("Invalid model config: nested too deeply.") from e


def _short(obj, n=300):
    s = repr(obj)
    return s if len(s) <= n else s[:n] + "..."
