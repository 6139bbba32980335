"""Ops of the io package: file access, codecs and protobuf parsing, run by NumPy (never compiled).

They are ``Op`` objects like the registry's, bound with ``bind`` (so tapes and ``tf.function`` tracing
see them), but they are not added to the registry table: the registry's own tests cover the op
families that ``import tensorlet`` loads, and these load with ``tf.io``.  ``IO_OPS`` lists them for
tests/io.  ``no_lowering`` keeps graphs that use them on the NumPy executor; ``stateful`` ops (file
writes) are never pruned or folded, and ops that read files are never folded at trace time.
"""

from __future__ import annotations

from tensorlet._src.framework.context import ctx
from tensorlet._src.ops.registry import NONDIFF, Op, bind

IO_OPS: dict[str, Op] = {}


class IOOp(Op):
    __slots__ = tuple(n for n in ("stateful", "no_lowering", "no_lowering_reason", "no_fold")
                      if n not in getattr(Op, "__slots__", ()))


def io_op(name, kernel, *, shape, n_out=1, grad=NONDIFF, stateful=False, no_fold=False, lowering=None,
          check=None, dtypes=None) -> IOOp:
    """An op with a NumPy kernel ``kernel(xp, *arrays, **attrs)`` and a shape rule for tracing."""
    if name in IO_OPS:
        raise ValueError(f"op {name!r} is already defined")
    op = IOOp(name, kernel, shape=shape, n_out=n_out, grad=grad, jax_impl=lowering, check=check, dtypes=dtypes)
    op.stateful = stateful
    op.no_lowering = lowering is None
    op.no_lowering_reason = "runs in Python (files, codecs or protobuf parsing)"
    op.no_fold = stateful or no_fold
    IO_OPS[name] = op
    return op


def run(op: IOOp, *inputs, **attrs):
    """``bind``, first telling an active tracer not to fold ops with effects or file reads."""
    if op.no_fold and ctx.interp is not None:
        try:
            from tensorlet._src.graph import tracing
        except ImportError:  # pragma: no cover - the graph package is part of tensorlet
            pass
        else:
            tracing.NO_FOLD.add(op.name)
    return bind(op, *inputs, **attrs)


def strings(x):
    """``convert_to_tensor(x, tf.string)`` that keeps trailing NUL bytes of the items of Python lists
    (serialized protos often end in ``\\x00``; converting a list through NumPy's ``S`` dtype would drop them)."""
    from tensorlet._src.framework import dtypes as _dt
    from tensorlet._src.framework.tensor import convert_to_tensor

    if isinstance(x, (list, tuple)):
        import numpy as np

        def enc(v):
            return v.encode() if isinstance(v, str) else v

        arr = np.array(x, dtype=object)  # nested lists become an object array of the leaves
        flat = [enc(v) if isinstance(v, (bytes, str)) else v for v in arr.reshape(-1).tolist()]
        if all(isinstance(v, bytes) for v in flat):
            out = np.empty(arr.shape, object)
            out.reshape(-1)[:] = flat
            x = out
    return convert_to_tensor(x, dtype=_dt.string)
