"""``tf.types.experimental.FunctionType``: the type of a ``tf.function`` (an ``inspect.Signature`` whose
parameters carry trace types), what ``Function.function_type`` / ``ConcreteFunction.function_type`` return, and
the atomic function behind a concrete function (``ConcreteFunction._inference_function``: called with every
parameter, as TF's ``AtomicFunction``).

A parameter's ``type_constraint`` (also its annotation, so ``str()`` is TF's short form) is the argument's
``TensorSpec`` / ``TypeSpec``, a ``Literal[...]`` for Python values, or a container of those; ``repr()`` is TF's
verbose form (input parameters, output type, captures), the text of ``pretty_printed_signature()``.
"""

from __future__ import annotations

import collections
import inspect

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.tensor_spec import TensorSpec
from tensorlet._src.framework.type_spec import TraceType
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.registry import export_value

__all__ = ["FunctionType", "Parameter", "Literal", "InferenceFunction", "of_concrete", "of_function"]


class Literal(TraceType):
    """The trace type of a Python value (``Literal[2]``): traces are keyed by the value itself."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def is_subtype_of(self, other) -> bool:
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.value

    def __eq__(self, other):
        return type(other) is Literal and type(other.value) is type(self.value) and other.value == self.value

    def __hash__(self):
        return hash((Literal, type(self.value), self.value)) if _hashable(self.value) else id(self)

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class _Container(TraceType):
    """The trace type of a list / tuple / dict of values: TF's ``List[...]``, ``Tuple[...]``, ``Dict[...]``."""

    __slots__ = ("kind", "items")

    def __init__(self, kind, items):
        self.kind, self.items = kind, items

    def is_subtype_of(self, other) -> bool:
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError("a container's placeholders are its items'")

    def __eq__(self, other):
        return type(other) is _Container and (self.kind, self.items) == (other.kind, other.items)

    def __hash__(self):
        return hash((self.kind, tuple(self.items)))

    def __repr__(self):
        if self.kind == "Dict":
            return "Dict[" + ", ".join(f"[{k!r}, {v!r}]" for k, v in self.items) + "]"
        return f"{self.kind}[{', '.join(repr(v) for v in self.items)}]"


class _Text(TraceType):
    """A trace type known by its text (a variable argument's ``VariableSpec``)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def is_subtype_of(self, other) -> bool:
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError(self.text)

    def __eq__(self, other):
        return type(other) is _Text and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return self.text


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


class Parameter(inspect.Parameter):
    """A parameter of a ``FunctionType``: name, kind, whether it is optional, and its trace type."""

    __slots__ = ("_optional", "_type_constraint")

    def __init__(self, name, kind, optional, type_constraint):
        super().__init__(name, kind, default=inspect.Parameter.empty,
                         annotation=inspect.Parameter.empty if type_constraint is None else type_constraint)
        self._optional, self._type_constraint = optional, type_constraint

    optional = property(lambda self: self._optional)
    type_constraint = property(lambda self: self._type_constraint)

    def __eq__(self, other):
        return isinstance(other, Parameter) and (self.name, self.kind, self._optional, self._type_constraint) == \
            (other.name, other.kind, other._optional, other._type_constraint)

    def __hash__(self):
        return hash((self.name, self.kind, self._optional, self._type_constraint))

    def __repr__(self):
        return (f"Parameter(name={self.name}, kind={self.kind.name}, optional={self._optional}, "
                f"type_constraint={self._type_constraint!r})")


class FunctionType(inspect.Signature):
    """The type of a polymorphic or concrete function: its parameters (with trace types), output and captures.

    >>> f = tf.function(lambda x: x * 2)
    >>> print(f.get_concrete_function(tf.TensorSpec([2], tf.int32)).function_type)
    (x: TensorSpec(shape=(2,), dtype=tf.int32, name=None)) -> TensorSpec(shape=(2,), dtype=tf.int32, name=None)
    """

    __slots__ = ("_captures", "_output")

    def __init__(self, parameters=None, captures=None, output=None, **kwargs):
        super().__init__(parameters, return_annotation=inspect.Signature.empty if output is None else output,
                         **kwargs)
        self._captures = collections.OrderedDict(captures or ())
        self._output = output

    @property
    def captures(self):
        return self._captures

    @property
    def output(self):
        return self._output

    def __eq__(self, other):
        return isinstance(other, FunctionType) and list(self.parameters.values()) == \
            list(other.parameters.values()) and self._output == other._output and \
            list(self._captures.items()) == list(other._captures.items())

    def __hash__(self):
        return hash((tuple(self.parameters.values()), self._output, tuple(self._captures)))

    def __repr__(self):
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind.name}): {p.type_constraint!r}" for p in self.parameters.values()]
        lines += ["Output Type:", f"  {self._output!r}", "Captures:"]
        lines += [f"  {k}: {v!r}" for k, v in self._captures.items()] or ["  None"]
        return "\n".join(lines)


export_value("types.experimental.FunctionType", __name__, "FunctionType")


# --- building the types of traced functions ---------------------------------------------------------

def _container(x, item):
    if isinstance(x, dict):
        return _Container("Dict", [(k, item(v)) for k, v in x.items()])
    return _Container("List" if isinstance(x, list) else "Tuple", [item(v) for v in x])


def _is_container(x):
    return isinstance(x, dict) or (isinstance(x, (list, tuple)) and not hasattr(x, "_fields"))


def input_type(x):
    """The trace type of one traced argument (as the trace saw it: placeholders, stand-ins, Python values)."""
    from tensorlet._src.graph.signatures import _DEFAULT_NAME as DEFAULT_NAME
    from tensorlet._src.graph.var_args import ArgVariable

    if isinstance(x, ArgVariable):
        return _Text(x.spec_text())
    if isinstance(x, Tensor) and hasattr(x, "node"):
        name = x.node.name
        return TensorSpec(x.shape, x.dtype, None if DEFAULT_NAME.match(name or "") else name)
    if getattr(getattr(x, "_type_spec", None), "_to_components", None) is not None:
        return x._type_spec
    if _is_container(x):
        return _container(x, input_type)
    return Literal(x)


def output_type(x):
    if isinstance(x, Variable):
        x = x.value()
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype)
    if hasattr(x, "_type_spec"):
        return x._type_spec
    if _is_container(x):
        return _container(x, output_type)
    return Literal(x)


def of_concrete(cf) -> FunctionType:
    """``ConcreteFunction.function_type``."""
    from tensorlet._src.graph.signatures import _parameters as parameters
    from tensorlet._src.graph.var_args import ArgVariable

    params = [Parameter(n, getattr(inspect.Parameter, k), False, input_type(v)) for n, k, v in parameters(cf)]
    caps = [(id(v), TensorSpec(TensorShape([]), _dt.resource)) for v in cf.graph.variables
            if not isinstance(v, ArgVariable)]
    return FunctionType(params, caps, output_type(cf.structured_outputs), __validate_parameters__=False)


def of_function(fn) -> FunctionType:
    """``Function.function_type``: the Python signature's parameters, without trace types (TF's ``None``)."""
    sig = fn._signature
    if sig is None:
        return FunctionType([], __validate_parameters__=False)
    specs = list(fn.input_signature or ())
    params = []
    for i, p in enumerate(sig.parameters.values()):
        if fn.input_signature is None:
            constraint = None
        elif i < len(specs):  # an input_signature fixes the types: its specs, the defaults' values after them
            constraint = specs[i]
        else:
            constraint = Literal(p.default) if p.default is not inspect.Parameter.empty else None
        params.append(Parameter(p.name, p.kind, p.default is not inspect.Parameter.empty, constraint))
    return FunctionType(params, __validate_parameters__=False)


class InferenceFunction:
    """The atomic function of a concrete function (TF's ``AtomicFunction``): its graph, called with a value for
    every parameter of its ``function_type`` (``tf.types.experimental.AtomicFunction``)."""

    def __init__(self, concrete):
        self._concrete = concrete

    @property
    def function_type(self):
        return self._concrete.function_type

    @property
    def name(self):
        return f"__inference_{self._concrete._name}".encode()

    @property
    def graph(self):
        return self._concrete.graph

    def call_with_captures(self, args, kwargs, captures):
        bound = self.function_type.bind(*args, **kwargs)
        cf = self._concrete
        n_pos = len(cf._structured_inputs[0])
        values = list(bound.arguments.values())
        names = list(bound.arguments)
        return cf(*values[:n_pos], **dict(zip(names[n_pos:], values[n_pos:])))

    def __call__(self, *args, **kwargs):
        return self.call_with_captures(args, kwargs, [])

    def __repr__(self):
        return f"<AtomicFunction> {self.name.decode()}{self.function_type}"
