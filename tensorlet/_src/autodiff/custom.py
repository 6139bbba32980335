"""``tf.custom_gradient`` and ``tf.recompute_grad``.

The wrapped function runs with tapes paused; then one pseudo-op is recorded on the
active tapes whose inputs are the call's tensor arguments (plus reads of the
variables the function used) and whose gradient is the user's ``grad_fn``.
"""

from __future__ import annotations

import functools

from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import Tensor, _wrap, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest


class _CustomOp:
    """An op-like record for the tape (not in the registry)."""

    __slots__ = ("name", "grad", "n_out", "sparse_grad")

    def __init__(self, name, grad, n_out):
        self.name = name
        self.grad = grad
        self.n_out = n_out
        self.sparse_grad = False


class _Paused:
    def __enter__(self):
        self.saved = ctx.tapes
        ctx.tapes = ()

    def __exit__(self, *exc):
        ctx.tapes = self.saved
        return False


def _accepts_variables(fn) -> bool:
    import inspect  # only when a custom gradient reads variables; costs ~15 ms at import otherwise

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "variables" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _fresh(t):
    """A new tensor with ``t``'s value: eagerly a new handle on the same array; while tracing, an (unrecorded)
    identity op, since a graph tensor has no array to rewrap."""
    if hasattr(t, "_v"):
        return _wrap(t._v)
    from tensorlet._src.ops.array_identity import identity

    with _Paused():
        return identity(t)


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` returns the gradients for ``x``.

    If ``f`` reads trainable variables, ``grad_fn(*dy, variables=vars)`` must return
    ``(grads_for_x, grads_for_vars)``.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        from tensorlet._src.autodiff.tape import GradientTape, record_custom

        if not ctx.tapes:
            result, _ = f(*args, **kwargs)
            return result
        tensor_args = [convert_to_tensor(a) if not isinstance(a, (Tensor, Variable)) else a for a in args]
        with _Paused():
            probe = GradientTape(watch_accessed_variables=True)
            with probe:
                result, grad_fn = f(*tensor_args, **kwargs)
        # as in TF, the variables grad_fn answers for are those ``f`` read that are not among its arguments
        # (an argument that is a variable gets its gradient as an input, not twice)
        variables = [v for v in probe.watched_variables() if all(v is not a for a in tensor_args)]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
                            f"function uses variables: {[v.name for v in variables]}")
        flat = nest.flatten(result)
        outs = tuple(_fresh(convert_to_tensor(o)) for o in flat)  # fresh identities for the record
        inputs = tuple(a.value() if isinstance(a, Variable) else a for a in tensor_args)
        reads = tuple(v.value() for v in variables)  # tracked by tapes that watch these variables
        n_args = len(inputs)

        def grad(g, ans, *ins):
            upstream = g if len(outs) > 1 else (g,)
            if variables:
                in_grads, var_grads = grad_fn(*upstream, variables=variables)
                var_grads = list(var_grads)
            else:
                in_grads, var_grads = grad_fn(*upstream), []
            in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
            if len(in_grads) != n_args:
                raise ValueError(f"custom_gradient function expected to return {n_args} gradients, but returned "
                                 f"{len(in_grads)} instead.")
            return tuple(in_grads) + tuple(var_grads)

        op = _CustomOp(f"CustomGradient:{getattr(f, '__name__', 'f')}", grad, len(outs) if len(outs) > 1 else 1)
        record_custom(op, inputs + reads, {}, outs if len(outs) > 1 else outs[0])
        return nest.pack_sequence_as(result, list(outs))

    return wrapped


@tf_export("recompute_grad")
def recompute_grad(f):
    """Run ``f`` without keeping its intermediate values; recompute them when the gradient is needed."""

    @functools.wraps(f)
    def inner(*args, **kwargs):
        @custom_gradient
        def call(*xs):
            result = f(*xs, **kwargs)

            def grad_fn(*dys, variables=None):
                from tensorlet._src.autodiff.tape import GradientTape

                with GradientTape() as tape:
                    tape.watch(list(xs))
                    out = f(*xs, **kwargs)
                srcs = list(xs) + list(variables or [])
                gs = tape.gradient(nest.flatten(out), srcs, output_gradients=list(dys))
                if variables is None:
                    return gs[:len(xs)]
                return gs[:len(xs)], gs[len(xs):]

            return result, grad_fn

        return call(*args)

    return inner
