"""The NumPy graph executor: runs a graph's nodes in order with each op's NumPy kernel.

A graph is turned once into a ``Plan`` (slot numbers instead of tensors, constants pre-filled), so a call is a
tight loop of kernel calls.  It runs every op, including those XLA cannot compile (strings, ``py_function``,
value-dependent shapes), and is the first tier of ``tf.function``: a function called once never waits for a
compile.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph
from tensorlet._src.ops import registry


class Plan:
    __slots__ = ("steps", "n_slots", "prefill", "var_reads", "arg_slots", "out_slots", "var_writes", "graph")

    def __init__(self, graph: Graph, targets=None):
        self.graph = graph
        slots = {}

        def slot(t):
            s = slots.get(id(t))
            if s is None:
                s = slots[id(t)] = len(slots)
            return s

        self.prefill, self.var_reads, self.steps = [], [], []
        nodes = graph.nodes if targets is None else _ancestors(graph, targets)
        for node in nodes:
            op = node.op
            if op is PLACEHOLDER:
                slot(node.outputs[0])
            elif op is CONST:
                self.prefill.append((slot(node.outputs[0]), node.attrs["value"]))
            elif op is READ_VAR:
                self.var_reads.append((slot(node.outputs[0]), node.attrs["var"]))
            else:
                ins = tuple(slot(t) for t in node.inputs)
                outs = tuple(slot(t) for t in node.outputs)
                self.steps.append((op, ins, node.attrs, outs, op.n_out != 1, node.loc))
        self.arg_slots = [slots[id(t)] for t in graph.inputs if id(t) in slots]
        outs = graph.outputs if targets is None else targets
        self.out_slots = [slot(t) for t in outs]
        self.var_writes = [] if targets is not None else [
            (v, slots[id(graph.var_final[id(v)])]) for v in graph.variables if id(v) in graph.var_final]
        self.n_slots = len(slots)

    def run(self, args, write_back=True):
        env = [None] * self.n_slots
        for s, v in self.prefill:
            env[s] = v
        for s, var in self.var_reads:
            env[s] = var._v
        for s, a in zip(self.arg_slots, args):
            env[s] = a
        for op, ins, attrs, outs, multi, loc in self.steps:
            r = run_kernel(op, [env[i] for i in ins], attrs, loc)
            if multi:
                for s, v in zip(outs, r):
                    env[s] = v
            else:
                env[outs[0]] = r
        if write_back:
            for var, s in self.var_writes:
                var._v = np.asarray(env[s])
            return [env[s] for s in self.out_slots]
        return [env[s] for s in self.out_slots], [env[s] for _, s in self.var_writes]


def run_kernel(op, vals, attrs, loc=""):
    """One node on its NumPy kernel, with the eager path's checks and error translation (errors name ``loc``,
    where the graph op was created, when given).  Returns what the kernel returns."""
    try:
        if op.check is not None:
            op.check(*[_eager(v) for v in vals], **attrs)
        return op.np_fn(*vals, **attrs)
    except errors.OpError as e:
        raise errors.relocate(e, loc) from None
    except registry._KERNEL_ERRORS as e:
        raise registry.translate(op, [_eager(v) for v in vals], attrs, e) from None


def _eager(a):
    r = object.__new__(EagerTensor)
    r._v = a
    return r


def _ancestors(graph: Graph, targets):
    need = {id(t.node) for t in targets}
    for node in reversed(graph.nodes):
        if id(node) in need:
            for t in node.inputs:
                need.add(id(t.node))
    return [n for n in graph.nodes if id(n) in need]


def plan_of(graph: Graph) -> Plan:
    p = getattr(graph, "_np_plan", None)
    if p is None:
        p = graph._np_plan = Plan(graph)
    return p


def run_graph(graph: Graph, args):
    """Run a (sub)graph on arrays; returns (outputs, final values of assigned variables) without writing back."""
    return plan_of(graph).run(args, write_back=False)


def evaluate_closed(t, feeds=None):
    """The value of graph tensor ``t`` (a variable's initial value) from constants, variables and, where the
    trace was started by a call, that call's arguments (``feeds``: id(placeholder) -> array)."""
    graph = t.graph
    nodes = _ancestors(graph, [t])
    feeds = feeds or {}
    if any(n.op is PLACEHOLDER and id(n.outputs[0]) not in feeds for n in nodes):
        raise ValueError(
            f"The value of {t.name} depends on a tf.function argument, so it cannot initialize a tf.Variable "
            "created inside the function. Create the variable outside the function (or in its first call from "
            "a value that does not depend on the arguments).")
    plan = Plan(graph, targets=[t])
    args = [feeds[id(ph)] for ph in graph.inputs if id(ph) in {id(n.outputs[0]) for n in nodes}]
    return np.asarray(plan.run(args, write_back=True)[0])
