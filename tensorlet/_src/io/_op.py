"""Ops of the io package: file access, codecs and protobuf parsing, run by NumPy (never compiled).

They are declared through the registry's ``defop`` like every op (``kind="io"``: they load with ``tf.io``, and
tests/io covers them).  ``no_lowering`` keeps graphs that use them on the NumPy executor; ``stateful`` ops (file
writes) are never pruned or folded, and ops that read files (``no_fold=True``) are never folded at trace time.
"""

from __future__ import annotations

from tensorlet._src.ops.registry import NONDIFF, Op, defop


def io_op(name, kernel, *, shape, n_out=1, grad=NONDIFF, stateful=False, no_fold=False, lowering=None,
          check=None, dtypes=None) -> Op:
    """An op with a NumPy kernel ``kernel(xp, *arrays, **attrs)`` and a shape rule for tracing."""
    return defop(name, kernel, shape=shape, n_out=n_out, grad=grad, jax_impl=lowering, check=check, dtypes=dtypes,
                 kind="io", stateful=stateful, foldable=not no_fold, no_lowering=lowering is None,
                 no_lowering_reason="runs in Python (files, codecs or protobuf parsing)")


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
