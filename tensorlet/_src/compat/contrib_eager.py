"""``tf.contrib.eager`` (TF 1.x, as ``tf.compat.v1.contrib.eager``): function gradients, eager metrics, helpers.

>>> tfe = tf.compat.v1.contrib.eager
>>> grad = tfe.gradients_function(lambda x: x * x)
>>> grad(3.0)[0].numpy()
6.0
"""

from __future__ import annotations

import functools

from tensorlet._src.framework.api_export import export_value, tf_export
from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.graph.py_func import py_function

_NS = ("compat.v1.contrib.eager.",)


def _export(name, *, attr=None):
    for ns in _NS:
        export_value(ns + name, __name__, attr or name)


def _make_vjp(f, params, args):
    """Runs ``f(*args)`` recording gradients of the arguments at ``params`` (all by default)."""
    args = list(args)
    positions = range(len(args)) if params is None else params
    if params is not None and all(isinstance(p, str) for p in params):
        import inspect

        names = list(inspect.signature(f).parameters)
        positions = [names.index(p) for p in params]
    with GradientTape(persistent=False) as tape:
        sources = []
        for i in positions:
            args[i] = convert_to_tensor(args[i])
            tape.watch(args[i])
            sources.append(args[i])
        result = f(*args)
    return tape, result, sources


@tf_export("compat.v1.contrib.eager.value_and_gradients_function")
def value_and_gradients_function(f, params=None):
    """``f`` -> a function returning ``(f(*args), [d f / d arg for each argument])`` (None where unconnected).

    ``params`` picks the arguments (indices or names); ``dy=`` weights the output.
    """

    @functools.wraps(f)
    def decorated(*args, **kwds):
        dy = kwds.pop("dy", None)
        if kwds:
            raise ValueError("Functions to be differentiated cannot receive keyword arguments.")
        tape, result, sources = _make_vjp(f, params, args)
        if result is None:
            raise ValueError(f"Cannot differentiate a function that returns None; did you forget to return a "
                             f"value from {f.__name__}?")
        grads = tape.gradient(result, sources, output_gradients=dy)
        return result, list(grads)

    return decorated


@tf_export("compat.v1.contrib.eager.gradients_function")
def gradients_function(f, params=None):
    """``f`` -> a function returning the gradients of ``f`` with respect to its arguments (a list).

    >>> grad = tf.compat.v1.contrib.eager.gradients_function(lambda x, y: x * y)
    >>> [float(g) for g in grad(3.0, 2.0)]
    [2.0, 3.0]
    """
    vg = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def decorated(*args, **kwds):
        return vg(*args, **kwds)[1]

    return decorated


@tf_export("compat.v1.contrib.eager.implicit_value_and_gradients")
def implicit_value_and_gradients(f):
    """``f`` -> a function returning ``(f(*args), [(gradient, variable), ...])`` for the trainable variables
    ``f`` reads."""

    @functools.wraps(f)
    def decorated(*args, **kwds):
        with GradientTape() as tape:
            result = f(*args, **kwds)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        grads = tape.gradient(result, variables)
        return result, list(zip(grads, variables))

    return decorated


@tf_export("compat.v1.contrib.eager.implicit_gradients")
def implicit_gradients(f):
    """``f`` -> a function returning ``[(gradient, variable), ...]`` for the trainable variables ``f`` reads."""
    ivg = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def decorated(*args, **kwds):
        return ivg(*args, **kwds)[1]

    return decorated


@tf_export("compat.v1.contrib.eager.num_gpus")
def num_gpus():
    """How many GPUs are visible."""
    from tensorlet._src.framework.device import list_physical_devices

    return len(list_physical_devices("GPU"))


@tf_export("compat.v1.contrib.eager.py_func")
def py_func(func, inp, Tout, name=None):
    """Runs ``func`` eagerly on eager tensors, also inside graphs (``tf.py_function``)."""
    return py_function(func, inp, Tout, name=name)


@tf_export("compat.v1.contrib.eager.Iterator")
def Iterator(dataset):  # noqa: N802 - TF's class name
    """An iterator over a ``tf.data.Dataset`` (``iter(dataset)``)."""
    return iter(dataset)


@tf_export("compat.v1.contrib.eager.list_devices")
def list_devices():
    """The names of the logical devices."""
    from tensorlet._src.framework.device import list_logical_devices

    return [d.name for d in list_logical_devices()]


@tf_export("compat.v1.contrib.eager.async_wait", "compat.v1.contrib.eager.async_clear_error")
def async_wait():
    """Waits for pending ops (tensorlet runs ops synchronously: nothing to wait for)."""


@tf_export("compat.v1.contrib.eager.in_eager_mode")
def in_eager_mode():
    """Whether ops run eagerly."""
    from tensorlet._src.framework.context import executing_eagerly

    return executing_eagerly()


@tf_export("compat.v1.contrib.eager.in_graph_mode")
def in_graph_mode():
    """Whether ops build a graph."""
    return not in_eager_mode()


# TF 2 objects under their contrib.eager names: (implementation module, attribute), imported on first use.
_ALIASES = {
    "Variable": ("tensorlet._src.framework.variables", "Variable"),
    "GradientTape": ("tensorlet._src.autodiff.tape", "GradientTape"),
    "Checkpoint": ("tensorlet._src.train.checkpoint", "Checkpoint"),
    "defun": ("tensorlet._src.graph.function", "function"),
    "function": ("tensorlet._src.graph.function", "function"),
    "custom_gradient": ("tensorlet._src.autodiff.custom", "custom_gradient"),
    "executing_eagerly": ("tensorlet._src.framework.context", "executing_eagerly"),
    "enable_eager_execution": ("tensorlet._src.compat.v1_graph", "enable_eager_execution"),
    "TensorSpec": ("tensorlet._src.framework.tensor_spec", "TensorSpec"),
}


def _public(target):
    import importlib

    module, attr = target
    return getattr(importlib.import_module(module), attr)


def __getattr__(name):
    target = _ALIASES.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _public(target)
    globals()[name] = value
    return value


def _register():
    for n in _ALIASES:
        _export(n)


_register()
