"""Tracing: the interpreter that turns op calls into graph nodes.

While a ``Tracer`` is the current interpreter (``ctx.interp``), every ``bind`` adds a node to its graph and
returns ``GraphTensor``s.  Eager tensors that flow in become constants; reads of variables become
``ReadVariableOp`` nodes (the value at function entry) and assignments are *functionalized*: the tracer keeps
each variable's current value as a graph tensor and the graph returns the final values, which the executor
writes back.  Constant inputs are folded at trace time when the result is small (so ``tf.shape(x)`` of a
known shape is a constant that ``tf.reshape`` can use as a static attr).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework import variables as _variables
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.graph import infer
from tensorlet._src.graph.ir import READ_VAR, Graph, GraphTensor, Spec
from tensorlet._src.ops import registry
from tensorlet._src.ops.math_binary import add, subtract

FOLD_MAX_ELEMENTS = 1024  # fold constant subexpressions at trace time when the result is at most this big


class Tracer:
    """Builds ``graph`` from the ops bound while it is ``ctx.interp``."""

    eager = False

    def __init__(self, graph: Graph, parent: Tracer | None = None):
        self.graph = graph
        self.parent = parent  # the tracer of the enclosing graph (control-flow bodies), or None
        self.outer_tapes = ()  # the tapes active where this nested graph is used (paused while tracing it)
        self.arg_values = {}  # id(placeholder) -> array of the call that started the trace (variable initializers)
        self.created_variables = []

    def outer_interp(self):
        """What ``tf.init_scope`` switches to: eager (the outermost context)."""
        return None

    # --- ops -----------------------------------------------------------------------
    def bind(self, op, inputs, attrs):
        ins = [self.capture(x) for x in inputs]
        if (op.np_dtypes is not None and ins and ins[0].dtype._np not in op.np_dtypes
                and not registry.late_dtype_allowed(op, ins[0].dtype._np)):
            raise registry._dtype_not_allowed(op, ins[0])
        folded = self._fold(op, ins, attrs)
        if folded is not None:
            r = folded
        else:
            try:
                specs = infer.specs(op, ins, attrs)
            except (ValueError, TypeError) as e:
                raise type(e)(f"{e} (while tracing op {op.name} on inputs "
                              f"{', '.join(repr(t.spec) for t in ins)})") from None
            node = self.graph.add(op, ins, attrs, specs)
            if op.located:
                node.loc = errors.user_location()  # run-time errors of effects name the line that made them
            r = node.outputs[0] if op.n_out == 1 else tuple(node.outputs)
        if ctx.tapes and registry.tape_hook is not None:
            registry.tape_hook(op, ins, attrs, r)
        if registry.trace_hook is not None and folded is None:  # tf.debugging.enable_check_numerics
            r = registry.trace_hook(self, op, ins, r)
        return r

    def capture(self, x) -> GraphTensor:
        cls = x.__class__
        if cls is GraphTensor:
            if x.graph is self.graph:
                return x
            return self.capture_outer(x)
        if cls is EagerTensor:
            return self.graph.constant(x._v, keep=x)
        if isinstance(x, Tensor):
            raise TypeError(f"tensorlet cannot use {type(x).__name__} in a graph")
        from tensorlet._src.framework.tensor import convert_to_tensor

        return self.capture(convert_to_tensor(x))

    def capture_outer(self, x: GraphTensor) -> GraphTensor:
        """A tensor of an enclosing graph used in this (nested) graph: becomes a placeholder of this graph."""
        for outer, inner in self.graph.captures:
            if outer is x:
                return inner
        if self.parent is None or not _encloses(x.graph, self.graph):
            raise ValueError(
                f"Tensor {x.name} belongs to another tf.function's graph and cannot be used here. Return it from "
                "that function instead of keeping a reference to it (e.g. in a Python variable or list).")
        if x._const is not None:
            return self.graph.constant(x._const)
        outer_t = self.parent.capture(x)
        inner = self.graph.placeholder(outer_t.spec, name=f"capture_{len(self.graph.captures)}")
        inner._const = outer_t._const
        self.graph.captures.append((outer_t, inner))
        return inner

    def _fold(self, op, ins, attrs):
        if op.shape_only and len(ins) >= 1 and all(t.shape.is_fully_defined() for t in ins):
            pass  # depends only on static shapes: fold even though the input value is unknown
        elif not ins or any(t._const is None for t in ins) or not op.foldable:
            return None
        elif sum(t._const.size for t in ins) > 4 * FOLD_MAX_ELEMENTS:
            return None
        if op.shape_only:
            arrays = [np.zeros(t.shape.as_list(), t.dtype._np) if t._const is None else t._const for t in ins]
        else:
            arrays = [t._const for t in ins]
        try:
            if op.check is not None:
                op.check(*[_eager(a) for a in arrays], **attrs)
            out = op.np_fn(*arrays, **attrs)
        except Exception:  # noqa: BLE001 - an op that fails on constants is left for run time, with its real error
            return None
        outs = (out,) if op.n_out == 1 else tuple(out)
        if any(np.size(o) > FOLD_MAX_ELEMENTS for o in outs):
            return None
        consts = tuple(self.graph.constant(np.asarray(o)) for o in outs)
        return consts[0] if op.n_out == 1 else consts

    # --- variables -------------------------------------------------------------------
    def _current(self, var):
        g = self.graph
        key = id(var)
        cur = g.var_final.get(key)
        if cur is None:
            cur = g.var_reads.get(key)
        if cur is None:
            if self.parent is not None:
                # read in the enclosing graph (seen by the tapes recording there), then capture
                saved = ctx.interp, ctx.tapes
                ctx.interp, ctx.tapes = self.parent, self.outer_tapes
                try:
                    outer = self.parent.read_variable(var)
                finally:
                    ctx.interp, ctx.tapes = saved
                cur = self.capture_outer(outer)
            else:
                cur = g.add(READ_VAR, (), {"var": var}, [Spec(var.shape, var.dtype)], name=_var_node_name(var))\
                    .outputs[0]
            g.var_reads[key] = cur
            g.variables.append(var)
        return cur

    def read_variable(self, var):
        """``var.value()`` while tracing: a fresh tensor per read (tapes count reads separately)."""
        r = registry.bind(_IDENTITY(), self._current(var))
        if ctx.tapes and _variables.read_hook is not None:
            _variables.read_hook(var, r)
        return r

    def assign_variable(self, var, value, kind="assign"):
        from tensorlet._src.framework.tensor import convert_to_tensor

        value = self.capture(convert_to_tensor(value, dtype_hint=var.dtype))
        if value.dtype is not var.dtype:
            from tensorlet._src.framework.errors import invalid_argument

            raise invalid_argument(kind, f"Cannot {kind} a {value.dtype.name} value to variable '{var._name}' of "
                                         f"dtype {var.dtype.name}")
        if var.shape.rank is not None and not var.shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {var._name}': Shape mismatch.The variable shape "
                             f"{var.shape}, and the assigned value shape {value.shape} are incompatible.")
        if kind != "assign":
            cur = self._current(var)
            with _no_tapes():
                value = add(cur, value) if kind == "assign_add" else subtract(cur, value)
        g = self.graph
        if id(var) not in g.var_reads and id(var) not in g.var_final:
            g.variables.append(var)
        g.var_final[id(var)] = value
        return var

    def variable_created(self, var):
        self.created_variables.append(var)


class _no_tapes:
    def __enter__(self):
        self.prev, ctx.tapes = ctx.tapes, ()

    def __exit__(self, *exc):
        ctx.tapes = self.prev


def _encloses(outer: Graph, inner: Graph) -> bool:
    g = inner.outer
    while g is not None:
        if g is outer:
            return True
        g = g.outer
    return False


def _var_node_name(var):
    return "read_" + var._name.split(":")[0].replace("/", "_")


def _IDENTITY():
    return registry.REGISTRY["Identity"]


def _eager(a):
    r = object.__new__(EagerTensor)
    r._v = a
    return r


def eager_value_of(t: GraphTensor):
    """The value of a graph tensor that depends only on constants and variables (for variable initializers)."""
    if t._const is not None:
        return t._const
    from tensorlet._src.graph.executor import evaluate_closed

    tracer = ctx.interp if isinstance(ctx.interp, Tracer) else None
    feeds = {}
    while tracer is not None:
        feeds.update(tracer.arg_values)
        tracer = tracer.parent
    return evaluate_closed(t, feeds)


_variables.graph_value_hook = eager_value_of
