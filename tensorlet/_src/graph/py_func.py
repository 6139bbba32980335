"""``tf.py_function`` and ``tf.numpy_function``: Python inside graphs.

Eagerly the function is simply called.  While tracing, one ``EagerPyFunc``/``PyFunc`` node holds the Python
callable; the NumPy executor calls it on each run (such graphs are not compiled by XLA: the function logs which
op kept it on the NumPy executor).  ``py_function`` is differentiable: its gradient runs the function again
under a tape.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph import subgraph
from tensorlet._src.graph.ir import Spec
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops.creation import zeros_like


def _tout_list(Tout):
    if isinstance(Tout, (list, tuple)):
        return [_dt.as_dtype(d) for d in Tout], False
    if Tout is None:
        return [], False
    return [_dt.as_dtype(Tout)], True


def _eager(a):
    r = object.__new__(EagerTensor)
    r._v = a
    return r


def _run_python(func, arrays, touts, numpy_args):
    import numpy as np

    saved = ctx.interp, ctx.tapes
    ctx.interp, ctx.tapes = None, ()
    try:
        args = [np.asarray(a) if numpy_args else _eager(a) for a in arrays]
        out = func(*args)
    finally:
        ctx.interp, ctx.tapes = saved
    flat = [] if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
    if len(flat) != len(touts):
        from tensorlet._src.framework import errors

        raise errors.InvalidArgumentError(None, "EagerPyFunc", f"{getattr(func, '__name__', 'func')} returned "
                                                               f"{len(flat)} values, but expects {len(touts)}")
    res = []
    for v, d in zip(flat, touts):
        a = convert_to_tensor(v.numpy() if hasattr(v, "numpy") and not isinstance(v, Tensor) else v, dtype=d)
        res.append(a._v)
    return tuple(res)


def _pyfunc_np(xp, *arrays, func, touts, numpy_args):
    return _run_python(func, arrays, touts, numpy_args)


def _pyfunc_shape(*ins, func, touts, numpy_args):
    return [Spec(TensorShape(None), d) for d in touts]


def _pyfunc_grad(g, ans, *inputs, func, touts, numpy_args):
    from tensorlet._src.autodiff.tape import GradientTape

    gs = list(g) if isinstance(g, (tuple, list)) else [g]
    n = len(inputs)
    diff = [x.dtype.is_floating or x.dtype.is_complex for x in inputs]

    def vjp(*xs_and_gs):
        xs, dys = list(xs_and_gs[:n]), list(xs_and_gs[n:])
        with GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            out = func(*xs)
        flat = out if isinstance(out, (list, tuple)) else [out]
        grads = tape.gradient(list(flat), xs, output_gradients=dys[:len(flat)])
        return [gr if gr is not None else _zeros(x) for gr, x in zip(grads, xs)]

    res = py_function(vjp, list(inputs) + gs, Tout=[x.dtype for x in inputs])
    res = res if isinstance(res, (list, tuple)) else [res]
    return [r if d else None for r, d in zip(res, diff)]


def _zeros(x):
    return zeros_like(x)


# their attrs hold the Python callable: never compiled, never written to a SavedModel
EAGER_PY_FUNC = defop("EagerPyFunc", _pyfunc_np, shape=_pyfunc_shape, grad=_pyfunc_grad, n_out=None, kind="graph",
                      stateful=True, no_lowering=True, no_lowering_reason="calls Python (tf.py_function)",
                      serializable=False)
PY_FUNC = defop("PyFunc", _pyfunc_np, shape=_pyfunc_shape, grad=NONDIFF, n_out=None, kind="graph", stateful=True,
                no_lowering=True, no_lowering_reason="calls Python (tf.numpy_function)", serializable=False)


def _call(op, func, inp, Tout, numpy_args):
    touts, single = _tout_list(Tout)
    inputs = [x.value() if hasattr(x, "assign") else convert_to_tensor(x) for x in nest.flatten(inp)]
    if not subgraph.is_tracing():
        if numpy_args:
            out = func(*[x.numpy() for x in inputs])
            flat = [] if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
            res = [convert_to_tensor(v, dtype=d) for v, d in zip(flat, touts)]
        else:
            out = func(*inputs)
            flat = [] if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
            res = [convert_to_tensor(v, dtype=d) for v, d in zip(flat, touts)]
    else:
        res = list(bind(op, *inputs, func=func, touts=tuple(touts), numpy_args=numpy_args))
    if single:
        return res[0]
    return res if touts else None


@tf_export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):
    """Run Python ``func`` on eager tensors, also inside ``tf.function`` (differentiable)."""
    if func is None:
        return lambda f: (lambda *args: py_function(f, list(args), Tout))
    return _call(EAGER_PY_FUNC, func, inp or [], Tout, False)


@tf_export("numpy_function", "compat.v1.numpy_function", "compat.v1.py_func")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Run Python ``func`` on NumPy arrays, also inside ``tf.function`` (not differentiable)."""
    if func is None:
        return lambda f: (lambda *args: numpy_function(f, list(args), Tout, stateful))
    return _call(PY_FUNC, func, inp or [], Tout, True)


# --- host calls: Python effects that compiled code runs through a callback (summaries) --------------------

def _host_np(xp, *arrays, func):
    func(*arrays)
    return ()


def _host_jax(jnp, *arrays, func):
    from tensorlet._src.graph.jaxrt import jax

    jax.debug.callback(func, *arrays, ordered=True)
    return ()


HOST_CALL = defop("HostCall", _host_np, jax_impl=_host_jax, shape=lambda *ins, func: [], grad=NONDIFF, n_out=None,
                  kind="graph", stateful=True)


def host_call(func, *tensors):
    """Run ``func(*arrays)`` for its effect each time the traced graph runs (also under XLA)."""
    return bind(HOST_CALL, *[convert_to_tensor(t) for t in tensors], func=func)
