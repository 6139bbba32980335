"""``tf.debugging.enable_check_numerics`` / ``disable_check_numerics``: every float output of every op checked for
NaN and Inf, raising InvalidArgumentError with TF's message (the op, its output slot, dtype, shape, counts, inputs).

Like TF's op callbacks it is per thread.  Eagerly, enabling installs an interpreter on the thread's context that
runs each op eagerly and checks its outputs; disabled, nothing of it is on the eager path (``bind`` sees no
interpreter, as before), so it costs nothing.  Functions traced while it is on get a ``CheckNumericsV2`` node after
each float output of each op (``registry.trace_hook``, read by the tracer); such graphs run on the NumPy executor,
where the check can raise.  Functions traced before keep their graphs, as in TF.  Ops that only move values
(TF's "safe" ops: Identity, Reshape, ConcatV2, ...) are not checked, as in TF.
"""

from __future__ import annotations

import threading

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import ctx
from tensorlet._src.ops import registry
from tensorlet._src.ops.registry import bind, defop, tf_export

# TF's check_numerics_callback.SAFE_OPS (values only moved, never computed) and the check ops themselves
SAFE_OPS = frozenset({"Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "GatherV2", "Identity", "IdentityN",
                      "Const", "Pack", "Placeholder", "Reshape", "Tile", "Transpose", "Unpack", "CheckNumerics",
                      "CheckNumericsV2", "ReadVariableOp"})
# outputs TF skips: FusedBatchNorm's saved statistics (reserve spaces hold garbage by design)
_IGNORED_OUTPUTS = {"FusedBatchNorm": (1, 2, 3, 4), "FusedBatchNormV2": (1, 2, 3, 4),
                    "FusedBatchNormV3": (1, 2, 3, 4, 5)}


def _is_float(np_dtype) -> bool:
    return np_dtype.kind == "f" or D.is_bfloat16_np(np_dtype) or (np_dtype.kind == "V" and np_dtype.itemsize == 1
                                                                 and np_dtype.name.startswith("float8"))


def _anomalies(v) -> str:
    found = []
    inf = np.isinf(v)
    if np.any(inf & (v < 0)):
        found.append("-Inf")
    if np.any(inf & (v > 0)):
        found.append("+Inf")
    if np.any(np.isnan(v)):
        found.append("NaN")
    if len(found) == 3:
        return f"{found[0]}, {found[1]}, and {found[2]}"
    return " and ".join(found)


def _v2_check(x, message=""):
    v = np.asarray(x._v)
    if v.dtype.kind == "V":
        v = v.astype(np.float32)
    if not np.isfinite(v).all():
        raise errors.invalid_argument("CheckNumericsV2", f"{message} : Tensor had {_anomalies(v)} values")


def _v2_grad(g, ans, x, message=""):
    return bind(CHECK_NUMERICS_V2, g, message="Not a number (NaN) or infinity (Inf) values detected in gradient. "
                                              f"{message}")


# The op TF's check-numerics mode inserts: its output is its input, checked.  It stays on the NumPy executor so
# that the check runs (XLA code cannot raise).
CHECK_NUMERICS_V2 = defop("CheckNumericsV2", lambda xp, x, message="": x, check=_v2_check, located=True,
                          dtypes=(D.bfloat16, D.float16, D.float32, D.float64), grad=_v2_grad, no_lowering=True,
                          no_lowering_reason="checks values for NaN/Inf on the host "
                                             "(tf.debugging.enable_check_numerics)")


def _header(slot, n_out, op_name, out, graph_name=None) -> str:
    kind = "graph" if graph_name is not None else "eagerly-executing"
    return (f"\n\n!!! Detected Infinity or NaN in output {slot} of {kind} op \"{op_name}\" (# of outputs: "
            f"{n_out}) !!!\n  dtype: {out.dtype}\n  shape: {out.shape}\n")


def _inputs_text(inputs) -> str:
    if len(inputs) > 1:
        return f"\n  Input tensors ({len(inputs)}):\n" + "".join(f"         {i}: {x!s}\n"
                                                               for i, x in enumerate(inputs))
    if len(inputs) == 1:
        return f"\n  Input tensor: {inputs[0]!s}\n"
    return ""


def _eager_message(slot, n_out, op_name, out, inputs) -> str:
    v = np.asarray(out._v)
    if v.dtype.kind == "V":
        v = v.astype(np.float32)
    inf = np.isinf(v)
    text = _header(slot, n_out, op_name, out)
    for what, n in (("-Inf", np.sum(inf & (v < 0))), ("+Inf", np.sum(inf & (v > 0))), ("+NaN", np.sum(np.isnan(v)))):
        if n:
            text += f"  # of {what} elements: {n}\n"
    return text + _inputs_text(inputs) + "\n"


class CheckNumericsEager:
    """The eager interpreter of check-numerics mode: run the op eagerly, then check its float outputs."""

    eager = True

    def bind(self, op, inputs, attrs):
        ctx.interp = None
        try:
            out = bind(op, *inputs, **attrs)
        finally:
            ctx.interp = self
        if op.name in SAFE_OPS:
            return out
        _check_outputs(op.name, inputs, out if isinstance(out, tuple) else (out,), _IGNORED_OUTPUTS.get(op.name, ()))
        return out

    def function_outputs(self, name, inputs, out):
        """A function traced before the mode was on, called eagerly: its outputs are checked as one op's, named as
        TF names the call (``__inference_<name>``)."""
        from tensorlet._src.util import nest

        flat = [o for o in nest.flatten(out) if getattr(o, "_v", None) is not None]
        _check_outputs(f"__inference_{name}", inputs, flat, ())
        return out


def _check_outputs(op_name, inputs, outs, skip):
    for slot, o in enumerate(outs):
        v = getattr(o, "_v", None)
        if v is None or slot in skip or not _is_float(v.dtype):
            continue
        a = v.astype(np.float32) if v.dtype.kind == "V" else v
        if not np.isfinite(a).all():
            _v2_check(o, _eager_message(slot, len(outs), op_name, o, inputs))


def _instrument(tracer, op, inputs, result):
    """``registry.trace_hook``: follow each float output of a traced op with a CheckNumericsV2 node."""
    if not getattr(_state, "on", False) or op.name in SAFE_OPS or op.kind not in ("array", "io"):
        return result
    multi = isinstance(result, tuple)
    outs = list(result) if multi else [result]
    skip = _IGNORED_OUTPUTS.get(op.name, ())
    graph = tracer.graph
    name = getattr(graph, "name", None) or "graph"
    checked = graph.__dict__.setdefault("_check_numerics_of", {})  # checked tensor -> the op output it checks
    shown = [checked.get(id(x), x) for x in inputs]  # messages name the op outputs, as TF's
    for slot, o in enumerate(outs):
        d = getattr(o, "dtype", None)
        if d is None or slot in skip or d not in CHECK_NUMERICS_V2.dtypes:
            continue
        message = (_header(slot, len(outs), op.name, o, name) + _inputs_text(shown) + f"  Graph name: \"{name}\"\n"
                   "\n")
        outs[slot] = tracer.bind(CHECK_NUMERICS_V2, (o,), {"message": message})
        checked[id(outs[slot])] = o
    return tuple(outs) if multi else outs[0]


_INTERP = CheckNumericsEager()
_state = threading.local()  # .on: check-numerics mode is on in this thread (TF's op callbacks are per thread)


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on (in this thread), an op whose float output holds NaN or Inf raises InvalidArgumentError naming
    the op, eagerly and inside functions traced from now on.

    >>> tf.debugging.enable_check_numerics()
    >>> try:
    ...     tf.math.log(tf.constant([0.0]))
    ... except tf.errors.InvalidArgumentError as e:
    ...     print(str(e).splitlines()[2])
    !!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!
    >>> tf.debugging.disable_check_numerics()
    """
    if ctx.interp is None:
        ctx.interp = _INTERP
    _state.on = True
    registry.trace_hook = _instrument  # stays installed: it checks the thread's flag


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Turns check-numerics mode off (a no-op when it is not on)."""
    if ctx.interp is _INTERP:
        ctx.interp = None
    _state.on = False
