"""Tracing Python callables into nested graphs (control-flow branches and loop bodies), and running them.

A nested graph's placeholders are its explicit arguments followed by its *captures* (tensors of the enclosing
graph it uses).  Variables assigned inside become extra outputs, so the enclosing op returns their new values
and the enclosing tracer assigns them: control flow stays functional.
"""

from __future__ import annotations

from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.ir import Graph, Spec
from tensorlet._src.graph.tracing import Tracer
from tensorlet._src.util import nest


def is_tracing() -> bool:
    return isinstance(ctx.interp, Tracer)


class Traced:
    """A traced nested graph: ``graph``, the Python output ``structure`` (tensor leaves replaced by flat
    indices) and ``assigned`` (variables written inside, whose new values are the last outputs)."""

    def __init__(self, graph, structure, n_out, assigned, tracer):
        self.graph = graph
        self.structure = structure
        self.n_out = n_out
        self.assigned = assigned
        self.tracer = tracer

    @property
    def captured(self):
        """The enclosing graph's tensors this graph captured, in placeholder order."""
        return [outer for outer, _ in self.graph.captures]


class _Slot:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def trace(fn, arg_specs, name, *, carried_vars=(), flatten_out=None):
    """Trace ``fn(*placeholders)`` into a graph nested in the current one.

    ``arg_specs``: Specs of the flat explicit arguments; ``fn`` receives the placeholders (flat).
    ``carried_vars``: variables whose value is an explicit argument (loop-carried) rather than a capture:
    their placeholders follow ``arg_specs``.
    """
    parent = ctx.interp
    graph = Graph(name, outer=parent.graph)
    tracer = Tracer(graph, parent=parent)
    tracer.outer_tapes = ctx.tapes
    phs = [graph.placeholder(s) for s in arg_specs]
    for var in carried_vars:
        ph = graph.placeholder(Spec(var.shape, var.dtype), name=f"var_{len(graph.inputs)}")
        graph.var_reads[id(var)] = ph
        graph.variables.append(var)
    prev_tapes = ctx.tapes
    ctx.interp, ctx.tapes = tracer, ()
    try:
        out = fn(*phs)
    finally:
        ctx.interp, ctx.tapes = parent, prev_tapes
    flat = (flatten_out or nest.flatten)(out)
    leaves, outputs = [], []
    ctx.interp = tracer
    try:
        for x in flat:
            if isinstance(x, Variable):
                x = x.value()
            if x is None:
                leaves.append(None)
                continue
            t = tracer.capture(x if isinstance(x, Tensor) else convert_to_tensor(x))
            leaves.append(_Slot(len(outputs)))
            outputs.append(t)
    finally:
        ctx.interp = parent
    assigned = [v for v in graph.variables if id(v) in graph.var_final]
    graph.outputs = outputs
    return Traced(graph, (out, leaves), len(outputs), assigned, tracer)


def add_outputs(traced: Traced, tensors_fn):
    """Append outputs computed inside ``traced``'s graph by ``tensors_fn(tracer)`` (returns graph tensors)."""
    parent = ctx.interp
    ctx.interp = traced.tracer
    try:
        extra = [traced.tracer.capture(t) for t in tensors_fn(traced.tracer)]
    finally:
        ctx.interp = parent
    traced.graph.outputs = list(traced.graph.outputs) + extra
