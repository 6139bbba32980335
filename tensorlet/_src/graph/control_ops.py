"""Graph-only control-flow ops: ``If``, ``While`` and ``VJP`` (the gradient of either).

Their sub-graphs are attrs.  Each op follows the registry's convention ``impl(xp, *arrays, **attrs)``: with NumPy
the sub-graphs run on the NumPy executor; lowered, they become ``lax.cond`` / ``lax.while_loop``.  Their gradient
is the ``VJP`` op: jax's vjp of the forward op's lowering (a ``While`` is lowered as a masked ``lax.scan`` over its
iteration bound for that), so reverse mode through traced control flow needs no hand-written transposes.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.executor import run_graph
from tensorlet._src.graph.ir import Spec
from tensorlet._src.ops.registry import NO_GRADIENT, defop
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.nn_conv_lowering import inside_loop

_DIFF_KINDS = frozenset("fcV")


def _graph_op(name, impl, **kw):
    return defop(name, impl, n_out=None, kind="graph", **kw)


def _nested_fn(graph):
    """A jax function ``f(args) -> outputs`` for a nested graph (cached on the graph)."""
    fn = getattr(graph, "_jax_fn", None)
    if fn is None:
        from tensorlet._src.graph.lowering import build_fn

        f, big = build_fn(graph)
        fn = graph._jax_fn = lambda args: f([], list(args), big)[0]
    return fn


def _merge_specs(a, b):
    if a.dtype is not b.dtype:
        raise TypeError(f"branches return different dtypes: {a.dtype.name} vs {b.dtype.name}")
    return Spec(a.shape.most_specific_compatible_shape(b.shape) if a.shape.rank == b.shape.rank else
                TensorShape(None), a.dtype)


# --- If -------------------------------------------------------------------------------------------

def _if_np(xp, pred, *args, then_graph, else_graph, n_then):
    if bool(np.asarray(pred)):
        return tuple(run_graph(then_graph, args[:n_then])[0])
    return tuple(run_graph(else_graph, args[n_then:])[0])


def _if_jax(jnp, pred, *args, then_graph, else_graph, n_then):
    from tensorlet._src.graph.jaxrt import lax

    ft, fe = _nested_fn(then_graph), _nested_fn(else_graph)
    return tuple(lax.cond(jnp.reshape(pred, ()), lambda a: ft(a[:n_then]), lambda a: fe(a[n_then:]), list(args)))


def _if_shape(pred, *args, then_graph, else_graph, n_then):
    return [_merge_specs(a.spec, b.spec) for a, b in zip(then_graph.outputs, else_graph.outputs)]


def _vjp_grad(g, ans, *inputs, **attrs):
    return vjp_grad(IF, g, ans, inputs, attrs)


IF = _graph_op("If", _if_np, jax_impl=_if_jax, shape=_if_shape, grad=_vjp_grad, heavy=True,
               lower_check=lambda node: _if_lower_check(node))


# --- While ----------------------------------------------------------------------------------------

def _while_np(xp, *args, cond_graph, body_graph, n_vars, n_cond, max_static=None, _scan=False):
    vs = list(args[:n_vars])
    cc, bc = list(args[n_vars:n_vars + n_cond]), list(args[n_vars + n_cond:])
    i = 0
    while (max_static is None or i < max_static) and bool(np.asarray(run_graph(cond_graph, vs + cc)[0][0])):
        vs = list(run_graph(body_graph, vs + bc)[0])
        i += 1
    return tuple(vs)


def _while_jax(jnp, *args, cond_graph, body_graph, n_vars, n_cond, max_static=None, _scan=False):
    from tensorlet._src.graph.jaxrt import lax

    fc, fb = _nested_fn(cond_graph), _nested_fn(body_graph)
    vs = list(args[:n_vars])
    cc, bc = list(args[n_vars:n_vars + n_cond]), list(args[n_vars + n_cond:])

    def cond_of(v):
        return jnp.reshape(fc(list(v) + cc)[0], ())

    def body_of(v):
        return [jnp.asarray(x).astype(jnp.asarray(o).dtype) for x, o in zip(fb(list(v) + bc), v)]

    if _scan:  # differentiable form: a fixed number of (masked) steps
        def step(carry, _):
            done, v = carry
            done = done | ~cond_of(v)
            nv = lax.cond(done, lambda x: list(x), body_of, v)
            return (done, nv), None

        with inside_loop():
            (_, out), _ = lax.scan(step, (jnp.asarray(False), vs), None, length=max_static)
        return tuple(out)
    if max_static is None:
        with inside_loop():
            return tuple(lax.while_loop(cond_of, body_of, vs))

    def c2(c):
        return (c[0] < max_static) & cond_of(c[1])

    def b2(c):
        return c[0] + 1, body_of(c[1])

    with inside_loop():
        return tuple(lax.while_loop(c2, b2, (jnp.asarray(0, jnp.int32), vs))[1])


def _while_shape(*args, cond_graph, body_graph, n_vars, n_cond, max_static=None, _scan=False):
    return [t.spec for t in body_graph.inputs[:n_vars]]


def _while_grad(g, ans, *inputs, **attrs):
    return vjp_grad(WHILE, g, ans, inputs, attrs)


WHILE = _graph_op("While", _while_np, jax_impl=_while_jax, shape=_while_shape, grad=_while_grad, heavy=True)


# --- VJP: the gradient of a control-flow op ----------------------------------------------------------

def _vjp_fn(fwd, fwd_attrs, n_primal, diff_in, diff_out):
    """``f(*primals, *cotangents) -> cotangents of the differentiable primals`` on jax arrays."""
    from tensorlet._src.graph.jaxrt import jax, jnp

    def f(*arrays):
        primals, cts = list(arrays[:n_primal]), list(arrays[n_primal:])
        idx = [i for i in range(n_primal) if diff_in[i]]

        def fwd_fn(*dp):
            full = list(primals)
            for i, v in zip(idx, dp):
                full[i] = v
            out = fwd.lowering()(jnp, *full, **fwd_attrs)
            return [o for o, d in zip(out, diff_out) if d]

        out, pullback = jax.vjp(fwd_fn, *[primals[i] for i in idx])
        dcts = [c for c, d in zip(cts, diff_out) if d]
        return tuple(pullback([jnp.asarray(c).astype(o.dtype) for c, o in zip(dcts, out)]))

    return f


def _vjp_fwd_attrs(fwd, attrs, arrays=None):
    if fwd is WHILE:
        a = dict(attrs, _scan=True)
        if a.get("max_static") is None:
            if arrays is None:
                return None
            a["max_static"] = _count_iterations(arrays, attrs)
        return a
    return attrs


def _count_iterations(arrays, attrs):
    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    vs = list(arrays[:n_vars])
    cc, bc = list(arrays[n_vars:n_vars + n_cond]), list(arrays[n_vars + n_cond:])
    i = 0
    while bool(np.asarray(run_graph(attrs["cond_graph"], vs + cc)[0][0])):
        vs = list(run_graph(attrs["body_graph"], vs + bc)[0])
        i += 1
    return i


_vjp_cache: dict = {}


def _vjp_np(xp, *arrays, fwd, fwd_attrs, n_primal, diff_in, diff_out):
    from tensorlet._src.graph.jaxrt import jax

    if fwd is WHILE and id(fwd_attrs["body_graph"]) in _stepwise:
        return _while_vjp_steps(arrays, fwd_attrs, n_primal, diff_in)
    a = _vjp_fwd_attrs(fwd, fwd_attrs, arrays[:n_primal])
    key = (id(fwd_attrs.get("body_graph", fwd_attrs.get("then_graph"))), a.get("max_static"))
    f = _vjp_cache.get(key)
    if f is None:
        f = _vjp_cache[key] = jax.jit(_vjp_fn(fwd, a, n_primal, diff_in, diff_out))
    try:
        return tuple(np.asarray(x) for x in f(*arrays))
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError,
            jax.errors.TracerArrayConversionError) as e:
        if fwd is not WHILE:
            from tensorlet._src.framework import errors

            raise errors.UnimplementedError(
                None, "VJP", f"tensorlet cannot differentiate this {fwd.name}: a shape inside it depends on "
                             f"run-time values ({type(e).__name__})") from None
        # a loop whose shapes change from step to step (a dynamic_size=True TensorArray growing): one scan
        # cannot hold it, so differentiate it step by step
        _stepwise.add(id(fwd_attrs["body_graph"]))
        _vjp_cache.pop(key, None)
        return _while_vjp_steps(arrays, fwd_attrs, n_primal, diff_in)


_stepwise: set = set()  # ids of While bodies whose shapes vary across iterations


def _while_vjp_steps(arrays, attrs, n_primal, diff_in):
    """The VJP of a ``While`` whose loop variables change shape between iterations: run the loop forward on
    NumPy keeping each iteration's inputs, then pull the cotangents back through one body step at a time (the
    body's ops replayed eagerly under a tape on that step's arrays: NumPy kernels, so a new shape per step costs
    no compilation)."""
    from tensorlet._src.autodiff.tape import GradientTape, _dense
    from tensorlet._src.framework.tensor import _wrap

    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    body, limit = attrs["body_graph"], attrs.get("max_static")
    primals, cts = list(arrays[:n_primal]), list(arrays[n_primal:])
    vs, cc, bc = list(primals[:n_vars]), primals[n_vars:n_vars + n_cond], primals[n_vars + n_cond:]
    history = []
    while (limit is None or len(history) < limit) and bool(np.asarray(run_graph(attrs["cond_graph"],
                                                                                 vs + cc)[0][0])):
        history.append(vs)
        vs = list(run_graph(body, vs + bc)[0])
    vi = [i for i in range(n_vars) if diff_in[i]]
    bi = [j for j in range(len(bc)) if diff_in[n_vars + n_cond + j]]
    ct_vars = [np.asarray(cts[i]) for i in vi]
    ct_caps = [np.zeros_like(np.asarray(bc[j])) for j in bi]
    caps = [_wrap(np.asarray(b)) for b in bc]
    for step_in in reversed(history):
        ins = [_wrap(np.asarray(a)) for a in step_in]
        sources = [ins[i] for i in vi] + [caps[j] for j in bi]
        with GradientTape(watch_accessed_variables=False) as tape:
            for x in sources:
                tape.watch(x)
            out = replay(body, ins + caps)
        targets = [out[i] for i in vi]
        grads = tape.gradient(targets, sources, output_gradients=[
            _wrap(c.astype(t.dtype._np, copy=False)) for c, t in zip(ct_vars, targets)])
        grads = [np.zeros_like(x._v) if g is None else np.asarray(_dense(g)._v) for g, x in zip(grads, sources)]
        ct_vars = grads[:len(vi)]
        ct_caps = [c + g for c, g in zip(ct_caps, grads[len(vi):])]
    by_var, by_cap = dict(zip(vi, ct_vars)), dict(zip(bi, ct_caps))
    res = []
    for k in range(n_primal):
        if not diff_in[k]:
            continue
        like = np.asarray(primals[k])
        if k < n_vars:
            res.append(by_var[k].astype(like.dtype, copy=False))
        elif k < n_vars + n_cond:
            res.append(np.zeros_like(like))
        else:
            res.append(by_cap[k - n_vars - n_cond].astype(like.dtype, copy=False))
    return tuple(res)


def replay(graph, args):
    """Run a nested graph's nodes as eager ops on eager tensors ``args`` (active tapes record them)."""
    from tensorlet._src.framework.tensor import _wrap
    from tensorlet._src.graph.ir import CONST, PLACEHOLDER
    from tensorlet._src.ops.registry import bind

    env = {id(ph): a for ph, a in zip(graph.inputs, args)}
    for node in graph.nodes:
        op = node.op
        if op is PLACEHOLDER:
            continue
        if op is CONST:
            env[id(node.outputs[0])] = _wrap(node.attrs["value"])
            continue
        r = bind(op, *[env[id(t)] for t in node.inputs], **node.attrs)
        if op.n_out == 1:
            env[id(node.outputs[0])] = r
        else:
            for o, v in zip(node.outputs, r):
                env[id(o)] = v
    return [env[id(t)] for t in graph.outputs]


def _vjp_jax(jnp, *arrays, fwd, fwd_attrs, n_primal, diff_in, diff_out):
    a = _vjp_fwd_attrs(fwd, fwd_attrs)
    return _vjp_fn(fwd, a, n_primal, diff_in, diff_out)(*arrays)


def _vjp_shape(*ins, fwd, fwd_attrs, n_primal, diff_in, diff_out):
    return [ins[i].spec for i in range(n_primal) if diff_in[i]]


VJP = _graph_op("VJP", _vjp_np, jax_impl=_vjp_jax, shape=_vjp_shape, grad=NO_GRADIENT,
                lower_check=lambda node: _vjp_lower_check(node))


def vjp_grad(fwd, g, ans, inputs, attrs):
    """Gradient of control-flow op ``fwd``: one VJP node; None for integer inputs."""
    from tensorlet._src.ops.registry import bind

    outs = ans if isinstance(ans, (tuple, list)) else (ans,)
    gs = g if isinstance(g, (tuple, list)) else (g,)
    diff_in = tuple(x.dtype._np.kind in _DIFF_KINDS for x in inputs)
    diff_out = tuple(o.dtype._np.kind in _DIFF_KINDS for o in outs)
    if not any(diff_in) or not any(diff_out):
        return [None] * len(inputs)
    cts = [(zeros_like(o) if x is None else x) for o, x, d in zip(outs, gs, diff_out)]
    res = bind(VJP, *inputs, *cts, fwd=fwd, fwd_attrs=attrs, n_primal=len(inputs), diff_in=diff_in,
               diff_out=diff_out)
    it = iter(res)
    return [next(it) if d else None for d in diff_in]


def _vjp_lower_check(node):
    """Why a VJP node cannot be compiled, or None."""
    if node.attrs["fwd"] is WHILE and node.attrs["fwd_attrs"].get("max_static") is None:
        return "is the gradient of a tf.while_loop without maximum_iterations (its trip count is only known " \
               "at run time)"
    return None


def _if_lower_check(node):
    """Why an If node cannot be compiled, or None."""
    for a, b in zip(node.attrs["then_graph"].outputs, node.attrs["else_graph"].outputs):
        if a.shape != b.shape:
            return f"is a tf.cond whose branches return different shapes ({a.shape} vs {b.shape})"
    return None
