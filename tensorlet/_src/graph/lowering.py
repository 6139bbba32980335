"""Lowering a graph to XLA: each node's jax lowering (``op.lowering()`` with ``xp = jax.numpy``) composed into
one Python function that ``jax.jit`` traces once per input signature.

Variables are functionalized: the compiled function takes the values of the variables the graph reads and
returns the final values of those it assigns (the caller writes them back), so a step never copies weights it
did not change.  Large constants are passed as arguments instead of being baked into the executable.
"""

from __future__ import annotations

import threading

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph
from tensorlet._src.graph.py_func import HOST_CALL
from tensorlet._src.ops import registry

BAKE_MAX_ELEMENTS = 4096  # constants up to this size are compiled in; larger ones are arguments


class NotLowerable(Exception):
    """The graph has an op XLA cannot run (``self.op``: its name)."""

    def __init__(self, op_name, reason):
        super().__init__(f"op {op_name} {reason}")
        self.op_name = op_name
        self.reason = reason



def host_nodes(graph: Graph) -> set:
    """ids of nodes that run on the host inside a compiled function: printing/asserting and the string ops
    (formatting, string constants) that only feed them."""
    consumers = {}
    for node in graph.nodes:
        for t in node.inputs:
            consumers.setdefault(id(t.node), []).append(node)
    host = set()
    for node in reversed(graph.nodes):
        if node.op.host == "sink":  # effects XLA runs as host callbacks (jax.debug.callback)
            host.add(id(node))
        elif node.op.host == "source" or (node.op is CONST and node.attrs["value"].dtype == object):
            users = consumers.get(id(node), [])
            if users and all(id(u) in host for u in users):
                host.add(id(node))
    return host


def check_lowerable(graph: Graph):
    host = host_nodes(graph)
    for node in graph.nodes:
        op = node.op
        if id(node) in host:
            continue
        if op in (PLACEHOLDER, CONST, READ_VAR):
            if op is CONST and node.attrs["value"].dtype == object:
                raise NotLowerable("Const", "holds strings (XLA has no string type)")
            continue
        if getattr(op, "no_lowering", False):
            raise NotLowerable(op.name, getattr(op, "no_lowering_reason", None) or "has no XLA lowering")
        if op.lower_check is not None:
            reason = op.lower_check(node)
            if reason:
                raise NotLowerable(op.name, reason)
        for t in list(node.inputs) + list(node.outputs):
            if t.dtype is _dt.string:
                raise NotLowerable(op.name, "works on strings (XLA has no string type)")
        if all(t.shape.is_fully_defined() for t in node.inputs) and not all(
                t.shape.is_fully_defined() for t in node.outputs):
            raise NotLowerable(op.name, "has an output shape that depends on input values")
        for v in node.attrs.values():
            if isinstance(v, Graph):
                check_lowerable(v)


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
    host = host_nodes(graph)
    for node in graph.nodes:
        op = node.op
        if id(node) in host:
            if op.host == "sink":
                fn, ins = _host_callback(graph, node, host)
                steps.append((fn, tuple(slot(t) for t in ins), {}, (), True, None))
            continue
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
                          tuple(slot(t) for t in node.outputs), op.n_out != 1, op))
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
        for fn, ins, attrs, outs, multi, op in steps:
            try:
                r = fn(jnp, *[env[i] for i in ins], **attrs)
            except registry._KERNEL_ERRORS as e:  # (while tracing) inputs the op rejects at these shapes
                if op is None or type(e).__module__.startswith("jax"):  # jax's tracer errors: callers fall back
                    raise
                from tensorlet._src.graph.executor import _eager  # the inputs as translate describes them

                raise registry.translate(op, [_eager(env[i]) for i in ins], attrs, e) from None
            if multi:
                for s, v in zip(outs, r):
                    env[s] = v
            else:
                env[outs[0]] = r
        return [_as_array(env[s]) for s in out_slots], [_as_array(env[s]) for s in write_slots]

    return f, [np.asarray(v) for _, v in big]


def _host_callback(graph, sink, host):
    """A step running ``sink`` and its host-only ancestors (string formatting) in a ``jax.debug.callback``."""
    from tensorlet._src.graph.executor import run_kernel

    chain, boundary, seen = [], [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for t in node.inputs:
            if id(t.node) in host:
                visit(t.node)
            elif all(b is not t for b in boundary):
                boundary.append(t)
        chain.append(node)

    visit(sink)

    def run_on_host(*arrays):
        env = {id(t): np.asarray(a) for t, a in zip(boundary, arrays)}
        _in_host.active = True
        try:
            for node in chain:
                if node.op is CONST:
                    env[id(node.outputs[0])] = node.attrs["value"]
                    continue
                out = run_kernel(node.op, [env[id(t)] for t in node.inputs], node.attrs, sink.loc)
                outs = (out,) if node.op.n_out == 1 else tuple(out)
                for t, v in zip(node.outputs, outs):
                    env[id(t)] = v
        except Exception as e:
            _host_errors.append(e)
            raise
        finally:
            _in_host.active = False

    def step(jnp_, *arrays):
        from tensorlet._src.graph.jaxrt import jax

        jax.debug.callback(run_on_host, *arrays, ordered=True)
        return ()

    return step, boundary


# The errors host callbacks raised, for the program calling Python that runs now: such programs run one at a time
# (``_host_lock``; jax runs ordered effects one after another anyway) and wait for their callbacks before
# returning, so the list belongs to the one running.  Programs that do not call Python never look at it.
_host_errors: list = []
_host_lock = threading.Lock()
_in_host = threading.local()  # ``active`` while a callback runs: a program it runs does not wait for the lock


def _as_array(v):
    from tensorlet._src.graph.jaxrt import jnp

    return jnp.asarray(v)


class Compiled:
    """A graph compiled with ``jax.jit``; call with arrays, returns NumPy outputs and writes variables back.

    The buffers of the variables the graph assigns are donated to the call (XLA writes their new values in
    place) when the variable still holds the device array an earlier compiled call left it and nothing else can
    see that array (reading a variable eagerly moves its value to the host first); otherwise the host value is
    passed, which jax copies.  A graph that calls back into Python donates nothing (``_calls_python``).
    """

    def __init__(self, graph: Graph):
        from tensorlet._src.graph.jaxrt import jax

        check_lowerable(graph)
        fn, self.big = build_fn(graph)
        self.graph = graph
        self.read_vars = list(graph.variables)
        self.written = [v for v in graph.variables if id(v) in graph.var_final]
        written = {id(v) for v in self.written}
        self._w_pos = [i for i, v in enumerate(self.read_vars) if id(v) in written]
        self._r_pos = [i for i, v in enumerate(self.read_vars) if id(v) not in written]
        self._others = [v for v in self.read_vars if id(v) not in written]
        n_vars = len(self.read_vars)
        w_pos, r_pos = self._w_pos, self._r_pos

        def split_fn(written_values, other_values, args, big_values):
            values = [None] * n_vars
            for i, v in zip(w_pos, written_values):
                values[i] = v
            for i, v in zip(r_pos, other_values):
                values[i] = v
            return fn(values, args, big_values)

        self._calls_python = _calls_python(graph)
        self._donate = bool(self.written) and not self._calls_python
        self.jitted = jax.jit(split_fn, donate_argnums=(0,) if self._donate else ())
        self._kept = jax.jit(split_fn) if self._donate else self.jitted  # another thread's call donates nothing

    def lower_and_compile(self, args):
        """Compile now (ahead of the first call) for these argument arrays."""
        return self.jitted.lower([v._v for v in self.written], [v._v for v in self._others], list(args),
                                 self.big).compile()

    def _written_values(self):
        out = []
        for v in self.written:
            d = v._dev
            # ``_donatable``: the device array a compiled call left the variable (another owner's is read back)
            out.append(d if d is not None and getattr(v, "_donatable", None) is d else v._v)
        return out

    def __call__(self, args):
        """Only the main thread donates.  Another thread (a dataset map's worker) reads the variables' values under
        ``_write_lock`` and marks them not donatable (it may still be using those buffers while the main thread
        runs its next step), runs without the lock, and writes its results back under it."""
        if threading.current_thread() is not _MAIN:
            with _write_lock:
                written_vals = [v._host if v._dev is None else v._dev for v in self.written]
                other_vals = [v._host if v._dev is None else v._dev for v in self._others]
                for v in self.read_vars:
                    v._donatable = None
            outs, finals = self._dispatch(written_vals, other_vals, args)
            if finals:
                with _write_lock:
                    for var, value in zip(self.written, finals):
                        var._dev = value
            return [np.asarray(o) for o in outs]
        if self._donate:
            with _write_lock:  # the values read, the call dispatched and the new values written: one step
                outs, finals = self._dispatch(self._written_values(), self._other_values(), args, True)
                for var, value in zip(self.written, finals):
                    var._dev = value  # stays a device array until eager code reads the variable
                    var._donatable = value
        else:
            outs, finals = self._dispatch([v._host if v._dev is None else v._dev for v in self.written],
                                          self._other_values(), args)
            for var, value in zip(self.written, finals):
                var._dev = value
        return [np.asarray(o) for o in outs]

    def _other_values(self):
        return [v._host if v._dev is None else v._dev for v in self._others]

    def _dispatch(self, written_vals, other_vals, args, donate=False):
        fn = self.jitted if donate else self._kept
        if not self._calls_python:
            return fn(written_vals, other_vals, list(args), self.big)
        if getattr(_in_host, "active", False):  # run by a callback of the program holding the lock
            return self._dispatch_calling_python(fn, written_vals, other_vals, args)
        with _host_lock:
            return self._dispatch_calling_python(fn, written_vals, other_vals, args)

    def _dispatch_calling_python(self, fn, written_vals, other_vals, args):
        from tensorlet._src.graph.jaxrt import jax

        del _host_errors[:]
        try:
            outs, finals = fn(written_vals, other_vals, list(args), self.big)
            jax.effects_barrier()  # its callbacks have run (and raised, if they did) before the lock is let go
        except Exception:
            if _host_errors:
                raise _host_errors[-1] from None
            raise
        if _host_errors:
            raise _host_errors[-1]
        return outs, finals


_write_lock = threading.Lock()
_MAIN = threading.main_thread()


def _calls_python(graph: Graph) -> bool:
    """Whether running the graph calls back into Python (printing, asserting, ``HostCall``), in a nested graph
    too: such a graph donates nothing (the callback could read the variables, or raise and leave them without
    their values)."""
    for node in graph.nodes:
        if node.op.host == "sink" or node.op is HOST_CALL:
            return True
        for v in node.attrs.values():
            if isinstance(v, Graph) and _calls_python(v):
                return True
    return False
