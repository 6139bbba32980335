"""Lowering a graph to XLA: each node's jax lowering (``op.lowering()`` with ``xp = jax.numpy``) composed into
one Python function that ``jax.jit`` traces once per input signature.

Variables are functionalized: the compiled function takes the values of the variables the graph reads and
returns the final values of those it assigns (the caller writes them back), so a step never copies weights it
did not change.  Large constants are passed as arguments instead of being baked into the executable.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph

BAKE_MAX_ELEMENTS = 4096  # constants up to this size are compiled in; larger ones are arguments


class NotLowerable(Exception):
    """The graph has an op XLA cannot run (``self.op``: its name)."""

    def __init__(self, op_name, reason):
        super().__init__(f"op {op_name} {reason}")
        self.op_name = op_name
        self.reason = reason


def check_lowerable(graph: Graph):
    for node in graph.nodes:
        op = node.op
        if op in (PLACEHOLDER, CONST, READ_VAR):
            if op is CONST and node.attrs["value"].dtype == object:
                raise NotLowerable("Const", "holds strings (XLA has no string type)")
            continue
        if getattr(op, "no_lowering", False):
            raise NotLowerable(op.name, getattr(op, "no_lowering_reason", "has no XLA lowering"))
        if op.name in ("If", "While", "VJP"):
            from tensorlet._src.graph.control_ops import lowerable_reason

            reason = lowerable_reason(node)
            if reason:
                raise NotLowerable(op.name, reason)
        for t in list(node.inputs) + list(node.outputs):
            if t.dtype is _dt.string:
                raise NotLowerable(op.name, "works on strings (XLA has no string type)")
            if t.shape.rank is None or any(d is None for d in t.shape.as_list()) and _value_dependent(node):
                raise NotLowerable(op.name, "has an output shape that depends on input values")
        for v in node.attrs.values():
            if isinstance(v, Graph):
                check_lowerable(v)


def _value_dependent(node):
    return node.op.name in VALUE_DEPENDENT


# ops whose output shape depends on input values: XLA needs static shapes
VALUE_DEPENDENT = frozenset(("Where", "Unique", "UniqueWithCounts", "DynamicPartition", "Bincount",
                             "DenseBincount", "ListDiff", "BooleanMask"))


def build_fn(graph: Graph):
    """A pure function ``f(var_values, args, big_consts) -> (outputs, assigned_var_values)`` over jax arrays.

    Returns ``(f, big_consts)``.
    """
    from tensorlet._src.graph.jaxrt import jnp

    slots = {}

    def slot(t):
        s = slots.get(id(t))
        if s is None:
            s = slots[id(t)] = len(slots)
        return s

    steps, baked, big, var_read_slots, arg_slots = [], [], [], [], []
    var_index = {id(v): i for i, v in enumerate(graph.variables)}
    for node in graph.nodes:
        op = node.op
        if op is PLACEHOLDER:
            arg_slots.append(slot(node.outputs[0]))
        elif op is CONST:
            value = node.attrs["value"]
            if value.size <= BAKE_MAX_ELEMENTS:
                baked.append((slot(node.outputs[0]), value))
            else:
                big.append((slot(node.outputs[0]), value))
        elif op is READ_VAR:
            var_read_slots.append((slot(node.outputs[0]), var_index[id(node.attrs["var"])]))
        else:
            steps.append((op.lowering(), tuple(slot(t) for t in node.inputs), node.attrs,
                          tuple(slot(t) for t in node.outputs), op.n_out != 1))
    in_graph = {id(t) for t in graph.inputs}
    arg_slots = [slots[id(t)] for t in graph.inputs if id(t) in in_graph]
    out_slots = [slot(t) for t in graph.outputs]
    write_slots = [slot(graph.var_final[id(v)]) for v in graph.variables if id(v) in graph.var_final]
    n = len(slots)

    def f(var_values, args, big_values):
        env = [None] * n
        for s, v in baked:
            env[s] = jnp.asarray(v)
        for (s, _), v in zip(big, big_values):
            env[s] = v
        for s, i in var_read_slots:
            env[s] = var_values[i]
        for s, a in zip(arg_slots, args):
            env[s] = a
        for fn, ins, attrs, outs, multi in steps:
            r = fn(jnp, *[env[i] for i in ins], **attrs)
            if multi:
                for s, v in zip(outs, r):
                    env[s] = v
            else:
                env[outs[0]] = r
        return [_as_array(env[s]) for s in out_slots], [_as_array(env[s]) for s in write_slots]

    return f, [np.asarray(v) for _, v in big]


def _as_array(v):
    from tensorlet._src.graph.jaxrt import jnp

    return jnp.asarray(v)


class Compiled:
    """A graph compiled with ``jax.jit``; call with arrays, returns NumPy outputs and writes variables back."""

    def __init__(self, graph: Graph):
        from tensorlet._src.graph.jaxrt import jax

        check_lowerable(graph)
        fn, self.big = build_fn(graph)
        self.graph = graph
        self.read_vars = list(graph.variables)
        self.written = [v for v in graph.variables if id(v) in graph.var_final]
        self.jitted = jax.jit(fn)

    def lower_and_compile(self, args):
        """Compile now (ahead of the first call) for these argument arrays."""
        vals = [v._v for v in self.read_vars]
        return self.jitted.lower(vals, list(args), self.big).compile()

    def __call__(self, args):
        vals = [v._v for v in self.read_vars]
        outs, finals = self.jitted(vals, list(args), self.big)
        for var, value in zip(self.written, finals):
            var._v = np.asarray(value)
        return [np.asarray(o) for o in outs]
