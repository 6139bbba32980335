"""Variables passed as ``tf.function`` arguments.

TF's trace type of a variable argument is its spec -- shape, dtype, trainability and which other variable
arguments it aliases (``VariableSpec(shape=(2,), dtype=tf.float32, trainable=True, alias_id=0)``) -- not its
identity: one trace serves every variable of that spec, and the graph reads and writes the variable of the
current call.  While tracing, each distinct variable argument becomes an ``ArgVariable``: a stand-in whose value
is the variable it is bound to, so the executors, the XLA lowering and gradient recording see the call's variable
without a new trace.  A ``ConcreteFunction`` rebinds its stand-ins before each call (``bind``).
"""

from __future__ import annotations

import threading

from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable


class ArgVariable(Variable):
    """The variable parameter of a traced function, bound to the variable passed in the current call."""

    def __init__(self, var: Variable, alias_id: int):  # noqa: D107 - no Variable.__init__: nothing is created
        self._bound = var
        self._alias_id = alias_id
        self._shape = var._shape
        self._dtype = var._dtype
        self._trainable = var._trainable
        self._name = var._name
        self._constraint = var._constraint
        self._synchronization = var._synchronization
        self._aggregation = var._aggregation
        self._unique_id = var._unique_id

    # the value (host or device array) is the bound variable's
    _v = property(lambda self: self._bound._v, lambda self, v: setattr(self._bound, "_v", v))
    _dev = property(lambda self: self._bound._dev, lambda self, v: setattr(self._bound, "_dev", v))
    _host = property(lambda self: self._bound._host, lambda self, v: setattr(self._bound, "_host", v))
    _donatable = property(lambda self: getattr(self._bound, "_donatable", None),
                          lambda self, v: setattr(self._bound, "_donatable", v))

    def spec_text(self) -> str:
        return spec_text(self._shape, self._dtype, self._trainable, self._alias_id)


def spec_text(shape, dtype, trainable, alias_id) -> str:
    """TF's ``VariableSpec`` repr."""
    shape = TensorShape(shape)
    if shape.rank is None:
        s = "<unknown>"
    else:
        dims = shape.as_list()
        s = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
    return f"VariableSpec(shape={s}, dtype=tf.{dtype.name}, trainable={trainable}, alias_id={alias_id})"


def real(var):
    """The variable an ``ArgVariable`` stands for now (other variables: themselves)."""
    while var.__class__ is ArgVariable:
        var = var._bound
    return var


def variables_in(structure):
    """The distinct variables of a (nested) argument structure, in flattening order."""
    from tensorlet._src.util import nest

    seen, out = set(), []
    for x in nest.flatten(structure):
        if isinstance(x, Variable) and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


class Binding:
    """Binds a concrete function's ``ArgVariable``s to a call's variables (checked against their specs) for the
    duration of the call; calls with variable arguments are serialized (the stand-ins are shared)."""

    def __init__(self, slots):
        self.slots = slots
        self.lock = threading.RLock()

    def __call__(self, variables, name, check=True):
        """``check=False``: the caller matched the variables' specs already (the trace cache key)."""
        if len(variables) != len(self.slots):
            raise TypeError(f"{name}() was traced with {len(self.slots)} distinct variable arguments, got "
                            f"{len(variables)}")
        for slot, var in zip(self.slots if check else (), variables):
            if var.dtype is not slot._dtype or not slot._shape.is_compatible_with(var.shape) or \
                    var.trainable != slot._trainable:
                raise TypeError(f"{name}() was traced for {slot.spec_text()} but got {var!r}")
        return _Bound(self, variables)


class _Bound:
    def __init__(self, binding, variables):
        self.binding, self.variables = binding, variables

    def __enter__(self):
        self.binding.lock.acquire()
        for slot, var in zip(self.binding.slots, self.variables):
            slot._bound = var

    def __exit__(self, *exc):
        self.binding.lock.release()


class VariableSpec:
    """The trace type of a variable argument (``ConcreteFunction.structured_input_signature``), printed as TF's."""

    def __init__(self, shape, dtype, trainable=True, alias_id=None):
        self.shape, self.dtype, self.trainable, self.alias_id = TensorShape(shape), dtype, trainable, alias_id

    @classmethod
    def of(cls, slot: ArgVariable):
        return cls(slot._shape, slot._dtype, slot._trainable, slot._alias_id)

    def __eq__(self, other):
        return isinstance(other, VariableSpec) and (self.shape, self.dtype, self.trainable, self.alias_id) == (
            other.shape, other.dtype, other.trainable, other.alias_id)

    def __hash__(self):
        return hash((self.dtype, self.trainable, self.alias_id))

    def __repr__(self):
        return spec_text(self.shape, self.dtype, self.trainable, self.alias_id)
