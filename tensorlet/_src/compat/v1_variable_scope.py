"""TF1 variable scopes: ``tf.compat.v1.variable_scope`` / ``get_variable_scope`` / ``get_variable`` and
``AUTO_REUSE``: ``get_variable`` creates ``scope/name`` on first use (in the default graph's store in a TF1 graph,
a process-wide one eagerly) and returns it again under ``reuse=True`` / ``AUTO_REUSE``."""

from __future__ import annotations

import threading

import numpy as np

from tensorlet._src.compat.v1_graph import _current_builder, get_default_graph
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops import registry
from tensorlet._src.ops.registry import tf_export

class _ReuseMode:
    def __repr__(self):
        return "AUTO_REUSE"


AUTO_REUSE = _ReuseMode()
_scopes = threading.local()
_eager_store: dict = {}


def _scope_stack():
    s = getattr(_scopes, "stack", None)
    if s is None:
        s = _scopes.stack = []
    return s


@tf_export("compat.v1.variable_scope")
class variable_scope:  # noqa: N801 - TF's name
    """``with tf.variable_scope("layer", reuse=...):`` -- prefixes ``get_variable`` names and controls reuse."""

    def __init__(self, name_or_scope=None, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        name = name_or_scope.name if isinstance(name_or_scope, variable_scope) else name_or_scope
        if name is None:
            if default_name is None:
                raise TypeError("If default_name is None then name_or_scope is required")
            name = default_name
        self._base = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtype
        self.name = name

    def __enter__(self):
        stack = _scope_stack()
        parent = stack[-1] if stack else None
        self.name = (parent.name + "/" if parent else "") + self._base
        if self.reuse is None and parent is not None:
            self.reuse = parent.reuse
        if self.initializer is None and parent is not None:
            self.initializer = parent.initializer
        stack.append(self)
        from tensorlet._src.framework.context import name_scope

        self._ns = name_scope(self._base)
        self._ns.__enter__()
        return self

    def __exit__(self, *exc):
        self._ns.__exit__(*exc)
        _scope_stack().pop()
        return False

    def reuse_variables(self):
        self.reuse = True


@tf_export("compat.v1.get_variable_scope")
def get_variable_scope():
    stack = _scope_stack()
    return stack[-1] if stack else variable_scope("")


@tf_export("compat.v1.get_variable")
def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None, aggregation=None):
    """The variable ``scope/name``: created on first use, returned again under ``reuse=True``/``AUTO_REUSE``."""
    scope = get_variable_scope()
    full = (scope.name + "/" if scope.name else "") + name
    builder = _current_builder()
    store = get_default_graph()._var_store if builder is not None else _eager_store
    reuse = scope.reuse
    if full in store:
        if reuse is True or reuse is AUTO_REUSE:
            return store[full]
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or "
                         "reuse=tf.AUTO_REUSE in VarScope?")
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean "
                         "to set reuse=tf.AUTO_REUSE in VarScope?")
    dtype = _dt.as_dtype(dtype or scope.dtype or _dt.float32)
    init = initializer if initializer is not None else scope.initializer
    if init is None:
        if dtype.is_floating:
            from tensorlet._src.ops.random_stateless import stateless_uniform  # glorot uniform, as TF1

            dims = TensorShape(shape).as_list()
            fan_in = dims[-2] if len(dims) > 1 else (dims[0] if dims else 1)
            fan_out = dims[-1] if dims else 1
            if len(dims) > 2:
                receptive = int(np.prod(dims[:-2]))
                fan_in, fan_out = fan_in * receptive, fan_out * receptive
            limit = float(np.sqrt(6.0 / max(1.0, fan_in + fan_out)))
            seed = [abs(hash(full)) % (2 ** 31), 0]
            value = lambda: stateless_uniform(dims, seed, -limit, limit, dtype)  # noqa: E731
        else:
            value = lambda: np.zeros(TensorShape(shape).as_list(), dtype._np)  # noqa: E731
    elif callable(init) and not isinstance(init, Tensor):
        try:
            value = lambda: init(TensorShape(shape).as_list(), dtype=dtype)  # noqa: E731
        except TypeError:
            value = lambda: init(TensorShape(shape).as_list())  # noqa: E731
    else:
        value = init
    var = Variable(value, trainable=True if trainable is None else trainable, name=name, dtype=dtype)
    store[full] = var
    return var


registry.export_value("compat.v1.AUTO_REUSE", __name__, "AUTO_REUSE")
