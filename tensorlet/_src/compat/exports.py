"""Registers the ``tf.compat.v1`` names (run by tools/gen_api.py; nothing imports this module at run time).

* every v1 name that is the very same object as a TF 2 name (recorded from TF in ``_v1_names.SAME``) is
  exported as the tensorlet object of that TF 2 name;
* the TF1 signatures of ``v1_ops`` (``reduce_sum(keep_dims=...)``, ...), v1 optimizers, losses and ``contrib``
  come from their own modules;
* ``tf.compat.v1.keras`` holds the same names as ``tf.keras``;
* ``tf.enable_tensorflow_alias`` (``tensorlet._src.dropin``).

A name already exported elsewhere (TF1 graph mode's ``Session``, ``placeholder``, ...) is left to its owner.
Names implemented in lazily loaded packages are not put into a public module that ``import tensorlet`` loads
(that would load more of the package at import) unless their module is loaded anyway; ``dropped()`` lists them.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

from tensorlet._src.compat._v1_names import SAME
from tensorlet._src.framework.api_export import EXPORTS, export_value

V1 = "compat.v1."
_OPS = "tensorlet._src.compat.v1_ops"
# light modules of this package that may be imported by the eager public module tensorlet.compat.v1
LIGHT = {_OPS, "tensorlet._src.dropin"}
LAZY_IMPL = ("tensorlet._src.keras", "tensorlet._src.data", "tensorlet._src.train", "tensorlet._src.summary",
             "tensorlet._src.saved_model", "tensorlet._src.io", "tensorlet._src.compat", "tensorlet._src.distribute",
             "tensorlet._src.lite", "tensorlet._src.tfjs")

# v1 names whose TF 2 object lives in a module `import tensorlet` loads, under a public module that is otherwise
# all lazy (tf.compat.v1.data): exporting them would make that module eager and drop its lazy names (Dataset, ...)
KEEP_LAZY = {"data.experimental.Structure"}

# v1-only names that are the TF 2 object in eager code (TF1 graph mode may claim them first)
MANUAL = {
    "newaxis": "newaxis", "Variable": "Variable", "VariableAggregation": "VariableAggregation",
    "DeviceSpec": "DeviceSpec", "data.Dataset": "data.Dataset", "data.TFRecordDataset": "data.TFRecordDataset",
    "data.TextLineDataset": "data.TextLineDataset", "data.FixedLengthRecordDataset": "data.FixedLengthRecordDataset",
    "data.AUTOTUNE": "data.AUTOTUNE", "data.INFINITE_CARDINALITY": "data.INFINITE_CARDINALITY",
    "data.UNKNOWN_CARDINALITY": "data.UNKNOWN_CARDINALITY", "data.experimental.AUTOTUNE": "data.AUTOTUNE",
    "train.Checkpoint": "train.Checkpoint", "Print": "print", "dimension_value": "compat.v1.dimension_value",
    "math.softmax": "nn.softmax", "math.log_softmax": "nn.log_softmax",
}

# TF1 signatures in v1_ops: v1 path -> (function in v1_ops, TF 2 name it needs)
OWN_OPS = {}
for _n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all", "reduce_any",
           "reduce_logsumexp"):
    OWN_OPS[_n] = OWN_OPS["math." + _n] = (_n, _n)
for _n, _need in {
    "count_nonzero": "math.count_nonzero", "argmax": "math.argmax", "argmin": "math.argmin",
    "arg_max": "math.argmax", "arg_min": "math.argmin", "expand_dims": "expand_dims", "squeeze": "squeeze",
    "constant": "constant", "convert_to_tensor": "convert_to_tensor", "to_float": "cast", "to_double": "cast",
    "to_int32": "cast", "to_int64": "cast", "to_bfloat16": "cast", "to_complex64": "cast", "to_complex128": "cast",
    "div": "math.floordiv", "floor_div": "math.floordiv", "gather": "gather", "shape": "shape", "size": "size",
    "norm": "norm", "zeros_like": "zeros_like", "ones_like": "ones_like", "pad": "pad", "transpose": "transpose",
    "boolean_mask": "boolean_mask", "reverse_sequence": "reverse_sequence", "where": "where", "cond": "cond",
    "while_loop": "while_loop", "device": "device", "name_scope": "name_scope",
    "multinomial": "random.categorical", "random.multinomial": "random.categorical",
    "set_random_seed": "random.set_seed", "random.set_random_seed": "random.set_seed", "assign": "Variable",
    "assign_add": "Variable", "assign_sub": "Variable", "executing_eagerly_outside_functions": "executing_eagerly",
    "executing_eagerly": "executing_eagerly",
    "math.count_nonzero": "math.count_nonzero", "math.argmax": "math.argmax", "math.argmin": "math.argmin",
    "math.in_top_k": "math.in_top_k", "linalg.norm": "norm", "linalg.transpose": "transpose",
    "test.is_gpu_available": "config.list_physical_devices", "test.gpu_device_name": "config.list_physical_devices",
    "nn.dropout": "nn.dropout", "nn.softmax": "nn.softmax", "nn.log_softmax": "nn.log_softmax",
    "nn.softmax_cross_entropy_with_logits": "nn.softmax_cross_entropy_with_logits",
    "nn.softmax_cross_entropy_with_logits_v2": "nn.softmax_cross_entropy_with_logits",
    "nn.sparse_softmax_cross_entropy_with_logits": "nn.sparse_softmax_cross_entropy_with_logits",
    "nn.moments": "nn.moments", "nn.conv2d": "nn.conv2d", "nn.max_pool": "nn.max_pool2d",
    "nn.avg_pool": "nn.avg_pool2d", "nn.xw_plus_b": "nn.bias_add", "nn.relu_layer": "nn.bias_add",
    "nn.in_top_k": "math.in_top_k",
}.items():
    OWN_OPS[_n] = (_n.rsplit(".", 1)[-1], _need)
OWN_OPS["math.softmax"] = ("softmax", "nn.softmax")
OWN_OPS["math.log_softmax"] = ("log_softmax", "nn.log_softmax")

_DROPPED: list[str] = []


def _load_lazy_packages():
    """Imports every implementation package so EXPORTS holds all names before choosing ours."""
    import tensorlet._src  # noqa: F401

    for pkg in LAZY_IMPL:
        if importlib.util.find_spec(pkg) is None:
            continue
        mod = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
            if info.name != __name__:
                importlib.import_module(info.name)


def _in_lazy_package(module: str) -> bool:
    """tools/gen_api.py's rule: public modules holding only such names are loaded on first use."""
    return any(module == p or module.startswith(p + ".") for p in LAZY_IMPL)


def candidates() -> dict:
    """{public name: (module, attr)} this module would add."""
    out = {}
    for v1path, (fn, need) in OWN_OPS.items():
        if need in EXPORTS:
            out[V1 + v1path] = (_OPS, fn)
    for v1path, v2path in {**SAME, **MANUAL}.items():
        if v1path in KEEP_LAZY:
            continue
        src = EXPORTS.get(v2path)
        if src is not None and V1 + v1path not in out:
            out[V1 + v1path] = src
    for name, src in list(EXPORTS.items()):
        if name.startswith("keras."):
            out[V1 + name] = src
    out["enable_tensorflow_alias"] = ("tensorlet._src.dropin", "enable_tensorflow_alias")
    return {k: v for k, v in out.items() if k not in EXPORTS}


def register() -> None:
    _load_lazy_packages()
    cands = candidates()
    # public modules that `import tensorlet` loads: prefixes of names implemented outside lazy packages
    eager = set()
    for name, (mod, _) in list(EXPORTS.items()) + list(cands.items()):
        if not _in_lazy_package(mod):
            parts = name.split(".")[:-1]
            eager.update(".".join(parts[:i + 1]) for i in range(len(parts)))
    # implementation modules `import tensorlet` loads anyway (sources of names in eager public modules)
    loaded = {mod for name, (mod, _) in EXPORTS.items() if name.rpartition(".")[0] in eager or "." not in name}
    for name, (mod, attr) in sorted(cands.items()):
        parent = name.rpartition(".")[0]
        if _in_lazy_package(mod) and mod not in LIGHT | loaded and parent in eager:
            _DROPPED.append(name)
            continue
        export_value(name, mod, attr)


def dropped() -> list:
    """Names left out because their public module is loaded by ``import tensorlet`` but they live in a lazy
    package."""
    return list(_DROPPED)


register()
