"""Graph passes run once after tracing: identity forwarding, common-subexpression elimination, dead-code
elimination.  (Constant folding happens while tracing, in ``tracing.Tracer._fold``.)"""

from __future__ import annotations

from tensorlet._src.graph.infer import _freeze
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph
from tensorlet._src.ops.array_identity import IDENTITY


def has_effects(node) -> bool:
    """The node prints, asserts or calls Python (itself, or inside its control-flow sub-graphs)."""
    op = node.op
    if op.stateful:  # prints, asserts, Python calls: never removed or merged
        return True
    for v in node.attrs.values():
        if isinstance(v, Graph):
            eff = getattr(v, "_has_effects", None)
            if eff is None:
                eff = v._has_effects = any(has_effects(n) for n in v.nodes)
            if eff:
                return True
    return False


def optimize(graph: Graph) -> Graph:
    forward_identities(graph)
    cse(graph)
    dce(graph)
    return graph


def _rewire(graph: Graph, mapping: dict):
    if not mapping:
        return

    def m(t):
        while id(t) in mapping:
            t = mapping[id(t)]
        return t

    for node in graph.nodes:
        node.inputs = [m(t) for t in node.inputs]
    graph.outputs = [m(t) for t in graph.outputs]
    graph.var_final = {k: m(t) for k, t in graph.var_final.items()}


def forward_identities(graph: Graph):
    """Uses of ``Identity(x)`` read ``x`` directly (the Identity nodes then die in DCE)."""
    mapping = {}
    for node in graph.nodes:
        if node.op is IDENTITY and len(node.inputs) == 1:
            mapping[id(node.outputs[0])] = node.inputs[0]
    _rewire(graph, mapping)


def cse(graph: Graph):
    """Nodes with the same op, inputs and attrs compute the same value: keep the first."""
    seen, mapping = {}, {}
    for node in graph.nodes:
        op = node.op
        if op is PLACEHOLDER or op is READ_VAR or has_effects(node):
            continue
        try:
            if op is CONST:
                v = node.attrs["value"]
                if v.size > 64:
                    continue
            ins = tuple(id(mapping.get(id(t), t)) for t in node.inputs)
            key = (op.name, ins, _freeze(node.attrs))
        except TypeError:
            continue
        prev = seen.get(key)
        if prev is None:
            seen[key] = node
        else:
            for a, b in zip(node.outputs, prev.outputs):
                mapping[id(a)] = b
    _rewire(graph, mapping)


def dce(graph: Graph):
    """Remove nodes whose outputs nothing needs (keeping placeholders and stateful ops)."""
    live = set()
    for t in graph.outputs:
        live.add(id(t.node))
    for t in graph.var_final.values():
        live.add(id(t.node))
    for node in graph.nodes:
        if node.op is PLACEHOLDER or has_effects(node):
            live.add(id(node))
    for node in reversed(graph.nodes):
        if id(node) in live:
            for t in node.inputs:
                live.add(id(t.node))
    graph.nodes = [n for n in graph.nodes if id(n) in live]
    used_vars = {id(n.attrs["var"]) for n in graph.nodes if n.op is READ_VAR}
    graph.var_reads = {k: t for k, t in graph.var_reads.items() if k in used_vars}
    graph.variables = [v for v in graph.variables if id(v) in used_vars or id(v) in graph.var_final]
