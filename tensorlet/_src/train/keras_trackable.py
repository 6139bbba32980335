"""The checkpoint dependencies of Keras objects, named as TF 2.21 + Keras 3 name them.

What a Keras 3 layer or model (TF backend) exposes to ``tf.train.Checkpoint``:

* its attributes, in the order they were first given a trackable value, whose values are variables, layers
  (not metrics, seed generators or losses), optimizers and other TF trackables, or tuples holding some of
  those (children ``"0"``, ``"1"``, ...).  Lists and dicts a layer's code assigns are *not* dependencies
  (Keras wraps them in its own tracked collections, which TF does not see): the layers of
  ``self.blocks = [Dense(4), Dense(2)]`` are saved only through the optimizer (``optimizer/_trainable_variables/N``),
  as in TF;
* a few weights under Keras 3's attribute names: ``Dense``/``EinsumDense``/``Conv1D-3D`` ``_kernel``,
  ``Embedding`` ``_embeddings``;
* Keras-internal collections TF does see: a ``Sequential``'s ``_functional`` model, a functional model's
  ``_operations`` (input layers included, so the first real layer is ``_operations/1``), a stateful RNN's
  ``states``; ``Model.optimizer`` once compiled.

An optimizer exposes its attributes in assignment order: ``_variables`` (iteration, learning rate, slots...),
``_trainable_variables``, ``_iterations``, ``_learning_rate``, then the slot lists (``_momentums``,
``_velocities``, SGD's ``momentums``, ...).
"""

from __future__ import annotations

import sys

from tensorlet._src.framework.module import Module
from tensorlet._src.framework.variables import Variable
from tensorlet._src.train import trackable as _tr

# Keras 3 keeps these weights under a private attribute (a property gives the public name)
_RENAMED = {"Dense": {"kernel": "_kernel"}, "EinsumDense": {"kernel": "_kernel"}, "BaseConv": {"kernel": "_kernel"},
            "Embedding": {"embeddings": "_embeddings"}}
# Keras-internal collections that TF tracks (they are assigned with Keras's own tracking switched off)
_TRACKED_COLLECTIONS = frozenset(("_operations", "states"))
_KERAS_SEES = _TRACKED_COLLECTIONS | {"_functional"}
# tensorlet-internal attributes that may hold layers or variables but are no dependencies in Keras
_INTERNAL = frozenset(("_parent_model", "_keras_history", "_loss_tracker", "_compile_loss", "_compile_metrics",
                       "_tracked_cache", "_checkpoint_order", "train_function", "test_function",
                       "predict_function", "_functional_layers", "_stack",
                       "_self_unconditional_checkpoint_dependencies"))


def _class(module: str, name: str):
    mod = sys.modules.get(module)
    return getattr(mod, name, None) if mod is not None else None


def _not_trackable_types() -> tuple:
    """Keras objects that are no TF trackables (metrics, seed generators), where their modules are loaded."""
    out = []
    for module, name in (("tensorlet._src.keras.metrics.base", "Metric"),
                         ("tensorlet._src.keras.random", "SeedGenerator")):
        cls = _class(module, name)
        if cls is not None:
            out.append(cls)
    return tuple(out)


def is_dependency(value, excluded=None) -> bool:
    """True for what a Keras attribute may depend on: variables, layers/modules, optimizers and other
    trackables with hooks, and tuples holding any of them."""
    if isinstance(value, (Variable, Module)):
        return True
    if isinstance(value, tuple):
        if excluded is None:
            excluded = _not_trackable_types()
        return any(is_dependency(v, excluded) for v in value)
    if isinstance(value, (list, dict, str, int, float, bool, type(None))):
        return False
    if excluded is None:
        excluded = _not_trackable_types()
    if excluded and isinstance(value, excluded):
        return False
    return (_tr._has_hook(value, "_checkpoint_dependencies") or _tr._has_hook(value, "_serialize_to_tensors")
            or _tr.is_variable(value))


def note_assignment(layer, name: str, value) -> None:
    """Records the first time ``layer.<name>`` gets a trackable value (TF orders dependencies that way)."""
    if isinstance(value, (Variable, Module, tuple, list)) or _tr._has_hook(value, "_checkpoint_dependencies"):
        order = layer.__dict__.get("_checkpoint_order")
        if order is None:
            object.__setattr__(layer, "_checkpoint_order", {name: None})
        elif name not in order:
            order[name] = None


def _renames(layer) -> dict:
    out = {}
    for cls in reversed(type(layer).__mro__):
        r = _RENAMED.get(cls.__name__)
        if r is not None and cls.__module__.startswith("tensorlet."):
            out.update(r)
    return out


def layer_children(layer) -> list:
    """``(name, child)`` checkpoint dependencies of a Keras layer or model, in TF's order."""
    attrs = vars(layer)
    order = attrs.get("_checkpoint_order") or {}
    names = [n for n in order if n in attrs] + [n for n in attrs if n not in order]
    skip = _INTERNAL | (frozenset(getattr(type(layer), "_KERAS_NOT_TRACKED", ())) - _KERAS_SEES)
    excluded = _not_trackable_types()
    renames = _renames(layer)
    out = []
    for name in names:
        if name in skip or name.startswith("__"):
            continue
        value = attrs[name]
        if name in _TRACKED_COLLECTIONS and isinstance(value, (list, tuple)):
            if any(is_dependency(v, excluded) for v in value):
                out.append((name, value))
            continue
        if value is layer or not is_dependency(value, excluded):
            continue
        out.append((renames.get(name, name), value))
    return out


def optimizer_children(optimizer) -> list:
    """``(name, child)`` checkpoint dependencies of a Keras 3 optimizer: its attributes in assignment order
    whose values are variables, inner optimizers, or lists/tuples/dicts holding variables."""
    out = []
    for name, value in vars(optimizer).items():
        if name.startswith("__") or name in _INTERNAL:
            continue
        if isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            if any(_tr.is_variable(v) for v in items):
                out.append((name, value))
        elif value is not optimizer and is_dependency(value):
            out.append((name, value))
    return out
