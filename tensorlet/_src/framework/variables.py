"""``tf.Variable``: mutable state holding one value.

The value is an immutable array that assignment *replaces* (never writes in place),
so tensors read from the variable earlier keep their values, as in TF.
"""

from __future__ import annotations

import contextlib
import enum
import threading

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import CPU_DEVICE, EagerTensor, Reference, Tensor, _new, \
    convert_to_tensor, numpy_text
from tensorlet._src.framework.tensor_shape import TensorShape

# Set by the autodiff package: called as read_hook(variable, tensor) when a tape is active.
read_hook = None
# Set by tf.function: called as creation_hook(variable) for each new variable (variables may be created only
# while a function traces for the first time).
creation_hook = None
# Set by the ops layer (math_binary): cast_hook(tensor, dtype) -> tensor, for ``Variable(t, dtype=...)``.
cast_hook = None
# Set by the graph package (tracing): graph_value_hook(graph_tensor) -> np.ndarray, the value of a traced initial
# value that depends only on constants and variables (variables created inside tf.function).
graph_value_hook = None


def _wrap_array(a):
    r = _new(EagerTensor)
    r._v = a
    return r


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


_uid = [0]

# XLA:CPU aliases a host buffer aligned to 64 bytes and copies any other into every compiled call that reads it
# (a variable of 400 KB: +16 us a call).  NumPy's allocator aligns to 16, so a variable's own copy of a value of
# this size or more is made 64-byte aligned, once, where the copy is made anyway (creation, assign, restore).
_ALIGN = 64
_ALIGN_MIN_BYTES = 1 << 14


def _owned_copy(a):
    """A C-contiguous copy of array ``a`` that the variable owns; large numeric ones 64-byte aligned."""
    n = a.nbytes
    if n < _ALIGN_MIN_BYTES or a.dtype.kind not in "biufc":
        return np.array(a)
    buf = np.empty(n + _ALIGN, np.uint8)
    out = np.ndarray(a.shape, a.dtype, buf, -buf.__array_interface__["data"][0] % _ALIGN)
    np.copyto(out, a)
    return out


_creators = threading.local()  # .stack: [(priority, creator)] of the enclosing tf.variable_creator_scope blocks
_CREATOR_ARGS = ("initial_value", "trainable", "validate_shape", "caching_device", "name", "variable_def", "dtype",
                 "import_scope", "constraint", "synchronization", "aggregation", "shape",
                 "experimental_enable_variable_lifting")


class _VariableMeta(type):
    """``tf.Variable(...)`` goes through the creators of ``tf.variable_creator_scope`` (TF's creator chain)."""

    def __call__(cls, *args, **kwargs):
        stack = getattr(_creators, "stack", None)
        if not stack or cls is not Variable:
            return super().__call__(*args, **kwargs)
        if len(args) > len(_CREATOR_ARGS):
            raise TypeError(f"Variable() takes at most {len(_CREATOR_ARGS)} positional arguments")
        for k, a in zip(_CREATOR_ARGS, args):
            if k in kwargs:
                raise TypeError(f"Variable() got multiple values for argument '{k}'")
            kwargs[k] = a
        full = {"initial_value": None, "trainable": None, "validate_shape": True, "caching_device": None,
                "name": None, "variable_def": None, "dtype": None, "import_scope": None, "constraint": None,
                "synchronization": VariableSynchronization.AUTO, "aggregation": VariableAggregation.NONE,
                "shape": None, "experimental_enable_variable_lifting": None}
        full.update(kwargs)
        if full["aggregation"] is None:
            full["aggregation"] = VariableAggregation.NONE
        chain = lambda **kw: type.__call__(Variable, **kw)  # noqa: E731 - the default creator
        for _, creator in stack:  # sorted by priority, inner scopes last: the innermost is called first
            chain = (lambda c, nxt: lambda **kw: c(nxt, **kw))(creator, chain)
        return chain(**full)


@contextlib.contextmanager
def variable_creator_scope(variable_creator, priority=100):
    """Within the block, ``tf.Variable(...)`` calls ``variable_creator(next_creator, **kwargs)`` (innermost scope
    first; ``next_creator(**kwargs)`` continues the chain down to the default creator)."""
    old = getattr(_creators, "stack", None) or []
    new = sorted(old + [(priority, variable_creator)], key=lambda item: item[0])
    _creators.stack = new
    try:
        yield
    finally:
        if getattr(_creators, "stack", None) is not new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        _creators.stack = old


class Variable(metaclass=_VariableMeta):
    """A mutable tensor-like value: ``v = tf.Variable(1.0); v.assign_add(2.0)``."""

    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE,
                 shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg (`None`) must be specified.")
        if creation_hook is not None:
            creation_hook(self)
        if callable(initial_value):
            if ctx.interp is not None:  # initializers run eagerly even inside tf.function (TF lifts them)
                from tensorlet._src.framework.context import init_scope

                with init_scope():
                    initial_value = initial_value()
            else:
                initial_value = initial_value()
        if isinstance(initial_value, Variable):
            initial_value = initial_value.value()
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if isinstance(initial_value, Tensor) and initial_value.dtype is not dtype:
                initial_value = cast_hook(initial_value, dtype)
        value = convert_to_tensor(initial_value, dtype=dtype)
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Argument `constraint` must be None or a callable. Received: {constraint!r}")
        synchronization = VariableSynchronization(synchronization) if not isinstance(
            synchronization, VariableSynchronization) else synchronization
        if trainable is None:
            trainable = synchronization is not VariableSynchronization.ON_READ
        elif trainable and synchronization is VariableSynchronization.ON_READ:
            raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only for "
                             "non-trainable variables. You have specified trainable=True and "
                             "synchronization=VariableSynchronization.ON_READ.")
        if value.__class__ is not EagerTensor:  # a graph value (a variable created inside tf.function)
            value = _wrap_array(graph_value_hook(value))
        self._v = _owned_copy(value._v)
        self._shape = TensorShape(shape) if shape is not None else (
            TensorShape(None) if not validate_shape else TensorShape._from_tuple(self._v.shape))
        if not self._shape.is_compatible_with(self._v.shape):
            raise ValueError(f"The initial value's shape ({TensorShape(self._v.shape)}) is not compatible with "
                             f"the explicitly supplied `shape` argument ({self._shape}).")
        self._dtype = value.dtype
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        base = name if name is not None else "Variable"
        scope = "/".join(s for s in ctx.name_scope if s)
        self._name = (scope + "/" if scope else "") + base + ":0"
        _uid[0] += 1
        self._unique_id = _uid[0]
        interp = ctx.interp
        if interp is not None and hasattr(interp, "variable_created"):
            interp.variable_created(self)

    # --- the value: a NumPy array, or a newer device array left by a compiled function -------------------
    _dev = None  # set by compiled functions (device-resident between steps); read back lazily

    @property
    def _v(self):
        d = self._dev
        if d is not None:
            # a value replicated over several processes' devices (multi-worker): this process's copy
            self._host = np.asarray(d if getattr(d, "is_fully_addressable", True) else d.addressable_data(0))
            self._dev = None
        return self._host

    @_v.setter
    def _v(self, value):
        self._host = value
        self._dev = None

    # --- attributes -----------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    trainable = property(lambda self: self._trainable)
    constraint = property(lambda self: self._constraint)
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)
    device = property(lambda self: CPU_DEVICE)

    @property
    def shape(self) -> TensorShape:
        return self._shape if self._shape.rank is None else TensorShape._from_tuple(self._v.shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self):
        return self._v.ndim

    @property
    def initial_value(self):
        raise RuntimeError("initial_value is not kept by tensorlet variables in eager mode")

    # --- reading --------------------------------------------------------------------
    def value(self) -> EagerTensor:
        """The current value as a tensor (watched by active gradient tapes if trainable)."""
        interp = ctx.interp
        if interp is not None and hasattr(interp, "read_variable"):
            return interp.read_variable(self)
        r = _new(EagerTensor)
        r._v = self._v
        if ctx.tapes and read_hook is not None:
            read_hook(self, r)
        return r

    read_value = value

    def __tf_tensor__(self, dtype=None, name=None):
        if dtype is not None and _dt.as_dtype(dtype) is not self._dtype:
            raise ValueError(f"Incompatible type conversion requested to type '{_dt.as_dtype(dtype).name}' for "
                             f"variable of type '{self._dtype.name}' (Variable: {self!r})")
        return self.value()

    def numpy(self):
        return self.value().numpy()

    def __array__(self, dtype=None, copy=None):
        return self.value().__array__(dtype, copy)

    # --- writing --------------------------------------------------------------------
    def _coerce(self, value, op):
        t = convert_to_tensor(value, dtype_hint=self._dtype)
        if t.dtype is not self._dtype:
            from tensorlet._src.framework.errors import invalid_argument

            raise invalid_argument(op, f"Cannot {op} a {t.dtype.name} value to variable '{self._name}' of dtype "
                                       f"{self._dtype.name}")
        v = t._v
        if self._shape.rank is not None and tuple(np.shape(v)) != self._v.shape:
            raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
                             f"{self.shape}, and the assigned value shape {TensorShape(np.shape(v))} are incompatible.")
        return v

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Sets the value; returns the variable (as TF does when ``read_value=True``)."""
        interp = ctx.interp
        if interp is not None and hasattr(interp, "assign_variable"):
            r = interp.assign_variable(self, value, "assign")
            return r if r is not self else (self if read_value else None)
        v = self._coerce(value, "assign")
        self._v = _owned_copy(np.asarray(v)) if v is not self._v else v
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        interp = ctx.interp
        if interp is not None and hasattr(interp, "assign_variable"):
            r = interp.assign_variable(self, delta, "assign_add")
            return r if r is not self else (self if read_value else None)
        self._v = np.add(self._v, self._coerce(delta, "assign_add")).astype(self._v.dtype, copy=False)
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        interp = ctx.interp
        if interp is not None and hasattr(interp, "assign_variable"):
            r = interp.assign_variable(self, delta, "assign_sub")
            return r if r is not self else (self if read_value else None)
        self._v = np.subtract(self._v, self._coerce(delta, "assign_sub")).astype(self._v.dtype, copy=False)
        return self if read_value else None

    # --- python protocol --------------------------------------------------------------
    def __repr__(self):
        return (f"<tf.Variable '{self._name}' shape={self.shape} dtype={self._dtype.name}, "
                f"numpy={numpy_text(self._v, True)}>")

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

    def ref(self):
        return Reference(self)

    experimental_ref = ref

    def __bool__(self):
        return bool(self._v)

    def __int__(self):
        return int(self.value())

    def __float__(self):
        return float(self.value())

    def __index__(self):
        return self.value().__index__()

    def __len__(self):
        return len(self.value())

    def __iter__(self):
        return iter(self.value())

    def __format__(self, spec):
        return format(self.value(), spec)

    def __deepcopy__(self, memo):
        v = Variable(self._v, trainable=self._trainable, name=self._name.rsplit(":", 1)[0], dtype=self._dtype,
                     constraint=self._constraint, synchronization=self._synchronization,
                     aggregation=self._aggregation)
        memo[id(self)] = v
        return v
