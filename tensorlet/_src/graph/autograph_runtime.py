"""The run-time helpers AutoGraph-converted code calls (``ag__.if_stmt`` ...).

Each helper uses plain Python when its condition/iterable is a Python (or eager) value, and graph control
flow (``tf.cond``, ``tf.while_loop``) when it is a tensor being traced.  Only values that are tensors (or Python
numbers, which become tensors) are carried through graph control flow; other Python objects must be the same
in every branch.
"""

from __future__ import annotations

import builtins

import numpy as np

from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.ops.array_shape import reshape, shape
from tensorlet._src.ops.dynamic_shape import DYNAMIC_RANGE
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import logical_and, logical_not, logical_or


class _Undefined:
    """The value of a variable a branch or loop did not define."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "<undefined: the variable is defined only in some branches of a tensor-dependent if/loop>"

    def __bool__(self):
        raise ValueError(repr(self))


UNDEFINED = _Undefined()


def _symbolic(x) -> bool:
    if isinstance(x, Variable):
        return False
    return isinstance(x, GraphTensor) and x._const is None


def _truthy(x) -> bool:
    if isinstance(x, GraphTensor):
        return bool(x._const)
    return bool(x)


def _carried(v) -> bool:
    from tensorlet._src.graph.tensor_array import TensorArray

    return isinstance(v, (Tensor, TensorArray, np.ndarray, np.generic)) or (
        isinstance(v, (int, float)) and not isinstance(v, bool)) or isinstance(v, bool)


# --- if ----------------------------------------------------------------------------------------------------

def if_stmt(test, true_fn, false_fn, vals, names, returns):
    if not _symbolic(test):
        return true_fn(*vals) if _truthy(test) else false_fn(*vals)
    from tensorlet._src.graph.control_flow import cond

    if returns:
        return cond(test, lambda: true_fn(*vals), lambda: false_fn(*vals))
    kinds, side = {}, {}

    def branch(fn, key):
        def run():
            out = fn(*vals)
            flat = []
            for n, v in zip(names, out):
                if v is UNDEFINED or not _carried(v):
                    side[(key, n)] = v
                    kinds[(key, n)] = "py"
                    flat.append(None)
                else:
                    kinds[(key, n)] = "t"
                    flat.append(v)
            return tuple(flat)

        return run

    t_run, f_run = branch(true_fn, "t"), branch(false_fn, "f")
    try:
        res = cond(test, t_run, f_run)
    except ValueError as e:
        bad = [n for n in names if kinds.get(("t", n)) != kinds.get(("f", n))]
        if bad:
            n = bad[0]
            where = "else" if kinds.get(("t", n)) == "t" else "if"
            raise ValueError(f"'{n}' must also be initialized in the {where} branch (it is a tensor in one branch "
                             f"of a tensor-dependent `if` and undefined or a non-tensor in the other)") from None
        raise e
    out = []
    for i, n in enumerate(names):
        if kinds.get(("t", n)) == "py":
            a, b = side[("t", n)], side[("f", n)]
            if a is not b and not _same_py(a, b):
                out.append(UNDEFINED if (a is UNDEFINED or b is UNDEFINED) else _diverged(n, a, b))
            else:
                out.append(a)
        else:
            out.append(res[i])
    return tuple(out)


def _same_py(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _diverged(name, a, b):
    raise ValueError(f"'{name}' is a Python value that differs between the branches of a tensor-dependent `if` "
                     f"({a!r} vs {b!r}); make it a tensor to carry it through tf.cond.")


# --- while -------------------------------------------------------------------------------------------------

def while_stmt(cond_fn, body_fn, vals, names):
    vals = tuple(vals)
    test = cond_fn(*vals)
    while not _symbolic(test):
        if not _truthy(test):
            return vals
        vals = tuple(body_fn(*vals))
        test = cond_fn(*vals)
    return _graph_loop(cond_fn, body_fn, vals, names)


def _graph_loop(cond_fn, body_fn, vals, names, maximum_iterations=None):
    from tensorlet._src.graph.control_flow import while_loop

    idx = [i for i, v in enumerate(vals) if v is not UNDEFINED and _carried(v)]
    fixed = list(vals)

    def full(loop):
        v = list(fixed)
        for i, x in zip(idx, loop):
            v[i] = x
        return v

    def c(*loop):
        return cond_fn(*full(loop))

    def b(*loop):
        out = body_fn(*full(loop))
        return tuple(out[i] for i in idx)

    init = tuple(convert_to_tensor(vals[i]) if not isinstance(vals[i], Tensor) and _is_number(vals[i]) else vals[i]
                 for i in idx)
    res = while_loop(c, b, init, maximum_iterations=maximum_iterations)
    out = list(fixed)
    for i, x in zip(idx, res):
        out[i] = x
    return tuple(out)


def _is_number(v):
    return isinstance(v, (int, float, bool, np.generic, np.ndarray))


# --- for ---------------------------------------------------------------------------------------------------

def for_stmt(iterable, body_fn, vals, names, break_name):
    vals = tuple(vals)
    brk = names.index(break_name) if break_name is not None else None
    if isinstance(iterable, Variable):
        iterable = iterable.value()
    if _symbolic(iterable) or isinstance(iterable, GraphTensor):
        return _graph_for(iterable, body_fn, vals, names, brk)
    if _is_dataset(iterable) and _tracing():
        return _dataset_for(iterable, body_fn, vals, names, brk)
    for item in iterable:
        if brk is not None and _symbolic(vals[brk]):
            return _graph_for_rest(iterable, item, body_fn, vals, names, brk)
        if brk is not None and _truthy(vals[brk]):
            break
        vals = tuple(body_fn(item, *vals))
    return vals


def _is_dataset(x) -> bool:
    return type(x).__module__.startswith("tensorlet._src.data") and hasattr(x, "element_spec")


def _tracing() -> bool:
    from tensorlet._src.framework.context import ctx

    return ctx.interp is not None and hasattr(ctx.interp, "read_variable")


def _dataset_for(ds, body_fn, vals, names, brk):
    """``for x in dataset`` inside tf.function: the dataset is iterated when the graph runs (a fresh iterator
    per run, elements fetched by Python callbacks), not unrolled at trace time."""
    from tensorlet._src.graph.py_func import numpy_function
    from tensorlet._src.util import nest

    spec = ds.element_spec
    leaf_specs = nest.flatten(spec)
    # composite leaves (RaggedTensor, SparseTensor) travel as their components and are rebuilt in the graph
    parts = [list(s._component_specs) if hasattr(s, "_from_components") and hasattr(s, "_component_specs")
             and getattr(s, "ragged_rank", 1) != 0 else [s] for s in leaf_specs]
    flat_spec = [c for p in parts for c in p]
    state = {"it": None, "next": None}

    def start():
        state["it"] = iter(ds)
        state["next"] = next(state["it"], None)
        return np.asarray(state["next"] is not None)

    def has_next():
        return np.asarray(state["next"] is not None)

    def take():
        cur = state["next"]
        state["next"] = next(state["it"], None)
        out = []
        for x, s, p in zip(nest.flatten(cur), leaf_specs, parts):
            comps = s._to_components(x) if len(p) > 1 or p[0] is not s else [x]
            out.extend(np.asarray(c) for c in comps)
        return out

    started = numpy_function(start, [], _bool_dtype())

    def cond_fn(flag, *vs):
        c = reshape(numpy_function(lambda _: has_next(), [flag], _bool_dtype()), [])
        if brk is not None:
            c = logical_and(c, logical_not(convert_to_tensor(vs[brk])))
        return c

    def body(flag, *vs):
        flat = numpy_function(lambda _: take(), [flag], [s.dtype for s in flat_spec])
        flat = flat if isinstance(flat, (list, tuple)) else [flat]
        for t, s in zip(flat, flat_spec):
            t.set_shape(s.shape)
        it, leaves = iter(flat), []
        for s, p in zip(leaf_specs, parts):
            comps = [next(it) for _ in p]
            leaves.append(s._from_components(comps) if len(p) > 1 or p[0] is not s else comps[0])
        item = nest.pack_sequence_as(spec, leaves) if nest.is_nested(spec) else leaves[0]
        out = body_fn(item, *vs)
        return (flag,) + tuple(out)

    res = _graph_loop(cond_fn, body, (reshape(started, []),) + tuple(vals), ("<started>",) + tuple(names))
    return tuple(res[1:])


def _bool_dtype():
    from tensorlet._src.framework import dtypes as _dt

    return _dt.bool


def _graph_for_rest(iterable, item, body_fn, vals, names, brk):
    """A Python iteration whose break flag became a tensor: keep going, each step guarded by the flag."""
    def step(it, vs):
        res = if_stmt(vs[brk], lambda *v: tuple(v), lambda *v: tuple(body_fn(it, *v)), vs, names, False)
        return tuple(res)

    vals = step(item, vals)
    for it in iterable:
        vals = step(it, vals)
    return vals


def _graph_for(t, body_fn, vals, names, brk):
    node = t.node
    if node.op is DYNAMIC_RANGE:
        start, limit, delta = node.inputs
        n_static = None
        if all(x._const is not None for x in (start, limit, delta)):
            s, lim, d = (np.asarray(x._const).item() for x in (start, limit, delta))
            n_static = max(0, -(-(lim - s) // d)) if d > 0 else max(0, -(-(s - lim) // -d))
        positive = delta._const is None or np.asarray(delta._const).item() > 0

        def get_item(i):
            return i
        first = start
        more = (lambda i: i < limit) if positive else (lambda i: i > limit)
        advance = (lambda i: i + delta)
    else:
        if t.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        n_static = t.shape[0]
        n = n_static if n_static is not None else shape(t)[0]

        def get_item(i):
            return gather(t, i)
        first = convert_to_tensor(0)

        def more(i):
            return i < n

        def advance(i):
            return i + 1

    def cond_fn(i, *vs):
        c = more(i)
        if brk is not None:
            c = logical_and(c, logical_not(convert_to_tensor(vs[brk])))
        return c

    def body(i, *vs):
        out = body_fn(get_item(i), *vs)
        return (advance(i),) + tuple(out)

    res = _graph_loop(cond_fn, body, (first,) + tuple(vals), ("<index>",) + tuple(names), maximum_iterations=n_static)
    return tuple(res[1:])


# --- expressions -------------------------------------------------------------------------------------------

def and_(*operands):
    value = operands[0]()
    for nxt in operands[1:]:
        if _symbolic(value):
            value = logical_and(value, nxt())
        elif not _truthy(value):
            return value
        else:
            value = nxt()
    return value


def or_(*operands):
    value = operands[0]()
    for nxt in operands[1:]:
        if _symbolic(value):
            value = logical_or(value, nxt())
        elif _truthy(value):
            return value
        else:
            value = nxt()
    return value


def not_(x):
    if _symbolic(x):
        return logical_not(x)
    return not _truthy(x)


def print_(*args, **kwargs):
    if any(_symbolic(a) for a in args):
        from tensorlet._src.ops.debugging import print as tf_print

        kw = {k: v for k, v in kwargs.items() if k in ("sep", "end")}
        if "file" in kwargs:
            kw["output_stream"] = kwargs["file"]
        import sys

        kw.setdefault("output_stream", sys.stdout)
        return tf_print(*args, **kw)
    return builtins.print(*args, **kwargs)


def range_(*args):
    if any(_symbolic(a) for a in args):
        from tensorlet._src.ops.creation import range as tf_range

        return tf_range(*args)
    return builtins.range(*[int(a) if isinstance(a, Tensor) else a for a in args])


def len_(x):
    if isinstance(x, Tensor) and not hasattr(x, "_v"):
        if x.shape.rank is not None and x.shape.rank > 0 and x.shape[0] is not None:
            return x.shape[0]
        return shape(x)[0]
    return builtins.len(x)


_SPECIAL = {builtins.print: print_, builtins.range: range_, builtins.len: len_}


def converted(f):
    """What a call to ``f`` inside converted code calls: builtins with tensor meaning, or ``f`` converted."""
    try:
        special = _SPECIAL.get(f)
    except TypeError:
        special = None
    if special is not None:
        return special
    from tensorlet._src.graph.autograph import convert

    try:
        return convert(f)
    except Exception:  # noqa: BLE001 - conversion is best effort; the original always works
        return f
