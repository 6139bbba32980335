"""``tf.compat.v1.wrap_function``: a TF1-style function (placeholders, ``import_graph_def``, ``get_variable``) as a
callable, and ``prune(feeds, fetches)`` to cut a sub-function out of its graph.

``fn`` is built once in a fresh compat.v1 ``Graph`` (one placeholder per ``signature`` spec).  Calling the
wrapped function replays the nodes its outputs need, op by op, under the current interpreter: eagerly that runs
them, inside ``tf.function`` it inlines them into the trace (so the function compiles with XLA when its ops do).
Variable reads and assignments act on the graph's variables.  The TF 2 migration guide's frozen-graph recipe
(``wrap_function(lambda: tf.compat.v1.import_graph_def(gd, name=""), [])`` then ``.prune("x:0", "y:0")``) works.
"""

from __future__ import annotations

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, constant, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, GraphTensor, Spec
from tensorlet._src.ops.registry import bind
from tensorlet._src.util import nest


class WrappedFunction:
    """A function over a compat.v1 graph: ``inputs`` (placeholders) -> ``structured_outputs``."""

    def __init__(self, graph, inputs, outputs, name="wrapped_function"):
        self.graph = graph
        self.inputs = list(inputs)
        self.structured_outputs = outputs
        self.name = name

    @property
    def outputs(self):
        return [x for x in nest.flatten(self.structured_outputs) if isinstance(x, GraphTensor)]

    @property
    def variables(self):
        return list(self.graph.get_collection("variables")) + [
            v for v in self.graph._ir.variables if all(v is not x for x in self.graph.get_collection("variables"))]

    trainable_variables = property(lambda self: [v for v in self.variables if v.trainable])

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{self.name}: a wrapped function takes its inputs positionally")
        flat = nest.flatten(list(args))
        if len(flat) != len(self.inputs):
            raise TypeError(f"{self.name}: takes {len(self.inputs)} inputs, got {len(flat)}")
        feeds = {}
        for ph, a in zip(self.inputs, flat):
            t = convert_to_tensor(a, dtype=ph.dtype)
            if not ph.shape.is_compatible_with(t.shape):
                raise ValueError(f"{self.name}: input {ph.name} of shape {ph.shape} was given a value of shape "
                                 f"{t.shape}")
            feeds[id(ph)] = t
        flat_out = nest.flatten(self.structured_outputs)
        values = _replay(self.graph, feeds, flat_out)
        return nest.pack_sequence_as(self.structured_outputs, values)

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """The function from ``feeds`` (tensors of this graph, or their names) to ``fetches``."""
        g = self.graph
        feed_list = [g.as_graph_element(f) for f in nest.flatten(feeds)]
        for f in feed_list:
            if not isinstance(f, GraphTensor) or f.graph is not g._ir:
                raise ValueError(f"Can only prune function whose feeds are Tensors of its graph, got {f!r}")
        out = nest.map_structure(lambda f: g.as_graph_element(f) if isinstance(f, str) else f, fetches)
        return WrappedFunction(g, feed_list, out, name or f"pruned_{self.name}")

    def __repr__(self):
        return f"<WrappedFunction {self.name!r}: {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def _replay(v1graph, feeds, fetches):
    from tensorlet._src.compat.v1_graph import ASSIGN_VAR, NO_OP, Operation

    targets = []
    for f in fetches:
        if isinstance(f, GraphTensor):
            targets.append(f.node)
        elif isinstance(f, Operation):
            targets.append(f._node)
    need, todo = set(), list(targets)
    while todo:
        n = todo.pop()
        if id(n) in need:
            continue
        need.add(id(n))
        todo.extend(t.node for t in n.inputs if id(t) not in feeds)
        todo.extend(n.control)
        if n.op is NO_OP:
            todo.extend(n.attrs.get("deps", ()))
    env = dict(feeds)
    for n in v1graph._ir.nodes:
        if id(n) not in need:
            continue
        op = n.op
        if op is PLACEHOLDER:
            if id(n.outputs[0]) not in env:
                raise errors.InvalidArgumentError(None, n.name, f"You must feed a value for placeholder tensor "
                                                                f"'{n.name}' (prune the function with it as a feed)")
            continue
        if op is CONST:
            env[id(n.outputs[0])] = constant(n.attrs["value"])
        elif op is READ_VAR:
            env[id(n.outputs[0])] = n.attrs["var"].value()
        elif op is ASSIGN_VAR:
            v = n.attrs["var"]
            getattr(v, n.attrs["kind"])(env[id(n.inputs[0])])
            env[id(n.outputs[0])] = v.value()
        elif op is NO_OP:
            continue
        else:
            r = bind(op, *[env[id(t)] for t in n.inputs], **n.attrs)
            for o, x in zip(n.outputs, r if op.n_out != 1 else (r,)):
                env[id(o)] = x
    out = []
    for f in fetches:
        out.append(env[id(f)] if isinstance(f, GraphTensor) else None)
    return out


def wrap_function(fn, signature, name=None):
    """Builds ``fn(*placeholders)`` once in a TF1 graph (``signature``: TensorSpecs, one placeholder each) and
    returns it as a callable ``WrappedFunction``."""
    from tensorlet._src.compat import v1_graph as v1

    if not callable(fn):
        raise TypeError(f"wrap_function needs a callable, got {type(fn).__name__}")
    g = v1.Graph()
    placeholders = []
    with g.as_default():
        for k, spec in enumerate(nest.flatten(list(signature or []))):
            shape = TensorShape(getattr(spec, "shape", None))
            dtype = getattr(spec, "dtype", None)
            if dtype is None:
                raise TypeError(f"wrap_function: signature entries are tf.TensorSpec, got {spec!r}")
            ph = g._ir.placeholder(Spec(shape, dtype), name=v1._unique(g._ir, getattr(spec, "name", None) or
                                                                         f"args_{k}"))
            placeholders.append(ph)
        outputs = fn(*nest.pack_sequence_as(list(signature or []), placeholders)) if signature else fn()
    outputs = nest.map_structure(lambda x: x.value() if hasattr(x, "assign") and not isinstance(x, Tensor)
                                 else x, outputs) if outputs is not None else None
    return WrappedFunction(g, placeholders, outputs, name or getattr(fn, "__name__", "wrapped_function"))
