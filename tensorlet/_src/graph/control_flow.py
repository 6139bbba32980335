"""``tf.cond``, ``tf.case``, ``tf.switch_case`` and ``tf.while_loop``: eagerly plain Python control flow (so
tapes record what actually ran); while tracing, branch/body functions become nested graphs of ``If``/``While``
nodes.  Variables assigned inside become extra outputs/loop-carried values, so control flow stays functional.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph import subgraph
from tensorlet._src.graph.control_ops import IF, WHILE
from tensorlet._src.graph.ir import Spec
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops.math_binary import logical_and


def _bool_value(pred, what):
    if isinstance(pred, Variable):
        pred = pred.value()
    if isinstance(pred, Tensor):
        c = getattr(pred, "_const", None)
        v = pred._v if c is None and hasattr(pred, "_v") else c
        if v is None:
            return None
        v = np.asarray(v)
        if v.size != 1:
            raise ValueError(f"{what}: the predicate must be a scalar boolean tensor, got shape {v.shape}")
        return bool(v.reshape(()))
    return bool(pred)


def _flat(x):
    from tensorlet._src.graph.tensor_array import flatten_with_arrays

    return flatten_with_arrays(x)


# --- cond ----------------------------------------------------------------------------------------

@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond(pred, true_fn, false_fn)``: the result of ``true_fn()`` if ``pred`` else of ``false_fn()``.

    >>> tf.cond(tf.constant(2) > 1, lambda: tf.constant("big"), lambda: tf.constant("small"))
    <tf.Tensor: shape=(), dtype=string, numpy=b'big'>
    """
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if not subgraph.is_tracing():
        p = _bool_value(pred, "cond")
        return true_fn() if p else false_fn()
    pred_t = convert_to_tensor(pred)
    known = _bool_value(pred_t, "cond")
    if known is not None:  # a constant predicate: only the taken branch is traced (as TF's smart_cond)
        return true_fn() if known else false_fn()
    t = subgraph.trace(lambda: true_fn(), [], "cond_true", flatten_out=_flat)
    f = subgraph.trace(lambda: false_fn(), [], "cond_false", flatten_out=_flat)
    if t.n_out != f.n_out or [s is None for s in t.structure[1]] != [s is None for s in f.structure[1]]:
        raise ValueError("true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                         f"structure of return values.\n\ntrue_fn output: {t.structure[0]!r}\n"
                         f"false_fn output: {f.structure[0]!r}")
    for a, b in zip(t.graph.outputs, f.graph.outputs):
        if a.dtype is not b.dtype:
            raise TypeError(f"true_fn and false_fn arguments to tf.cond must have the same number, type, and "
                            f"overall structure of return values: true_fn returns {a.dtype.name} where false_fn "
                            f"returns {b.dtype.name}")
    return _emit_if(pred_t, t, f)


def _emit_if(pred_t, t, f):
    assigned = list({id(v): v for v in t.assigned + f.assigned}.values())
    if assigned:
        for tr in (t, f):
            subgraph.add_outputs(tr, lambda tracer: [tracer._current(v) for v in assigned])
    n_then = len(t.graph.captures)
    outs = bind(IF, pred_t, *t.captured, *f.captured, then_graph=t.graph, else_graph=f.graph, n_then=n_then)
    outs = list(outs)
    for v, value in zip(assigned, outs[t.n_out:]):
        v.assign(value)
    return _rebuild(t, outs[:t.n_out])


def _rebuild(traced, flat_values):
    from tensorlet._src.graph.tensor_array import rebuild_with_arrays

    return rebuild_with_arrays(traced, flat_values)


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The first ``fn`` whose ``pred`` is true (``[(pred, fn), ...]``), else ``default()``."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for p, fn in pairs:
        if not callable(fn):
            raise TypeError(f"fn for pred {getattr(p, 'name', p)} must be callable.")
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        *pairs, (_, default) = pairs
    if exclusive and not subgraph.is_tracing():
        n = sum(bool(_bool_value(p, "case")) for p, _ in pairs)
        if n > 1:
            from tensorlet._src.framework import errors

            raise errors.InvalidArgumentError(None, "case", "Input error: exclusive=True and more than one predicate "
                                                            "evaluated to True.")

    def build(i):
        if i == len(pairs):
            return default()
        p, fn = pairs[i]
        return cond(p, fn, lambda: build(i + 1))

    return build(0)


@tf_export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()`` (``default`` or the last branch when out of range)."""
    fns = [fn for _, fn in sorted(branch_fns.items())] if isinstance(branch_fns, dict) else \
        [fn[1] if isinstance(fn, tuple) else fn for fn in branch_fns]
    if not fns:
        raise ValueError("Must provide at least one item in branch_fns")
    for fn in fns:
        if not callable(fn):
            raise TypeError("branch_fns must contain callables")
    default = default if default is not None else fns[-1]
    if not subgraph.is_tracing():
        idx = int(np.asarray(branch_index.numpy() if isinstance(branch_index, Tensor) else branch_index))
        return fns[idx]() if 0 <= idx < len(fns) else default()
    idx = convert_to_tensor(branch_index)

    def build(i):
        if i == len(fns):
            return default()
        return cond(idx == i, fns[i], lambda: build(i + 1))

    return build(0)


# --- while_loop -------------------------------------------------------------------------------------

@tf_export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    >>> tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), [tf.constant(0)])
    [<tf.Tensor: shape=(), dtype=int32, numpy=10>]
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    single = not isinstance(loop_vars, (list, tuple)) or (
        isinstance(loop_vars, tuple) and hasattr(loop_vars, "_fields"))
    lv = [loop_vars] if single else loop_vars

    def call_body(*vs):
        r = body(*vs)
        if single and isinstance(r, (list, tuple)) and len(r) == 1 and not hasattr(r, "_fields"):
            r = r[0]
        return [r] if single else r

    if not subgraph.is_tracing():
        vs = list(lv) if isinstance(lv, list) else lv
        vs = nest.map_structure(lambda x: x if isinstance(x, (Tensor, Variable)) or not _numeric(x)
                                else convert_to_tensor(x), vs)
        limit = None if maximum_iterations is None else int(np.asarray(maximum_iterations))
        i = 0
        while (limit is None or i < limit) and _bool_value(cond(*vs), "while_loop"):
            vs = call_body(*vs)
            i += 1
        out = vs[0] if single else (type(loop_vars)(vs) if isinstance(loop_vars, tuple) else list(vs))
        return out
    return _traced_while(cond, call_body, lv, single, loop_vars, shape_invariants, maximum_iterations)


def _numeric(x):
    return isinstance(x, (int, float, bool, np.ndarray, np.generic))


def _traced_while(cond_fn, body_fn, lv, single, original, shape_invariants, maximum_iterations):
    from tensorlet._src.graph.tensor_array import (dynamic_array_flags, flatten_with_arrays, probe_loop_arrays,
                                                   rebuild_loop_vars)

    max_static, counter = None, False
    if maximum_iterations is not None:
        m = convert_to_tensor(maximum_iterations)
        c = getattr(m, "_const", None)
        if c is None and hasattr(m, "_v"):
            c = m._v
        if c is not None:
            max_static = int(np.asarray(c))
        else:
            counter = True
    lv = [convert_to_tensor(x) if _numeric(x) else x for x in lv]
    probe_loop_arrays(lv, body_fn)
    flat = flatten_with_arrays(lv)
    growing = dynamic_array_flags(lv)
    tensors = [x.value() if isinstance(x, Variable) else convert_to_tensor(x) for x in flat]
    inv = nest.flatten(shape_invariants) if shape_invariants is not None else None
    specs = []
    for i, t in enumerate(tensors):
        shape = t.shape
        if inv is not None and i < len(inv) and inv[i] is not None:
            shape = TensorShape(inv[i])
        elif growing[i] and shape.rank:  # a dynamic-size TensorArray grows in the loop
            shape = TensorShape([None] + shape.as_list()[1:])
        specs.append(Spec(shape, t.dtype))
    if counter:
        specs = [Spec(TensorShape([]), m.dtype)] + specs
        tensors = [convert_to_tensor(np.zeros((), m.dtype._np))] + tensors

    def rebuilt(phs):
        vals = phs[1:] if counter else phs
        return rebuild_loop_vars(lv, list(vals))

    def cond_graph_fn(*phs):
        r = cond_fn(*rebuilt(phs))
        if counter:
            r = logical_and(phs[0] < m, r)
        return r

    def body_graph_fn(*phs):
        out = body_fn(*rebuilt(phs))
        flat_out = flatten_with_arrays(out)
        if counter:
            flat_out = [phs[0] + 1] + flat_out
        return flat_out

    carried = []
    for _ in range(3):  # retrace while the body turns out to assign more variables (loop-carried)
        n_plain = len(specs)
        all_specs = specs + [Spec(v.shape, v.dtype) for v in carried]

        def c_fn(*phs, _n=n_plain):
            return cond_graph_fn(*phs[:_n])

        def b_fn(*phs, _n=n_plain, _carried=tuple(carried)):
            for v, ph in zip(_carried, phs[_n:]):
                ctx.interp.graph.var_reads[id(v)] = ph
                if all(v is not x for x in ctx.interp.graph.variables):
                    ctx.interp.graph.variables.append(v)
            out = body_graph_fn(*phs[:_n])
            return list(out) + [ctx.interp._current(v) for v in _carried]

        cg = subgraph.trace(c_fn, all_specs, "while_cond")
        bg = subgraph.trace(b_fn, all_specs, "while_body")
        new = [v for v in bg.assigned if all(v is not c for c in carried)]
        if not new:
            break
        carried += new
    if bg.n_out != len(all_specs):
        raise ValueError(f"body of tf.while_loop returned {bg.n_out - len(carried)} values but the loop has "
                         f"{len(specs)} loop variables (structure of loop_vars: {original!r})")
    for i, (ph, out) in enumerate(zip(bg.graph.inputs, bg.graph.outputs)):
        if out.dtype is not ph.dtype:
            raise TypeError(f"Loop variable {i} enters the loop with type {ph.dtype.name}, but has type "
                            f"{out.dtype.name} after one iteration.")
        if not ph.shape.is_compatible_with(out.shape) or ph.shape.rank is not None and out.shape.rank is None:
            raise ValueError(f"Input tensor enters the loop with shape {ph.shape}, but has shape {out.shape} after "
                             "one iteration. To allow the shape to vary across iterations, use the "
                             "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
    var_values = [ctx.interp._current(v) for v in carried]
    n_vars = len(all_specs)
    outs = bind(WHILE, *tensors, *var_values, *cg.captured, *bg.captured, cond_graph=cg.graph,
                body_graph=bg.graph, n_vars=n_vars, n_cond=len(cg.graph.captures), max_static=max_static)
    outs = list(outs)
    for v, value in zip(carried, outs[len(specs):]):
        v.assign(value)
    vals = outs[1:len(specs)] if counter else outs[:len(specs)]
    result = rebuild_loop_vars(lv, vals)
    if single:
        return result[0]
    return type(original)(result) if isinstance(original, tuple) else list(result)
