"""The op registry and the one dispatch.

Every primitive is declared once with :func:`defop` -- its TF name, its kernel
(written against an array namespace ``xp``: NumPy eagerly, ``jax.numpy`` when
compiled), optional JAX lowering where the two differ, its shape/dtype rule for
tracing, its allowed dtypes and its gradient (or a declaration that it has none).

:func:`bind` hands an op to the current interpreter.  Eager is the default and is
inlined here: unwrap inputs, run the NumPy kernel, wrap outputs, record on active
tapes.  Any other interpreter (tracing, TF1 graphs) implements ``.bind``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import EXPORTS, export_value, tf_export  # re-exported: the old home
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.dtypes import _ML_LAZY, from_numpy, is_bfloat16_np
from tensorlet._src.framework.tensor import EagerTensor, _new

__all__ = ["Op", "defop", "bind", "bind2", "xpfn", "REGISTRY", "NONDIFF", "NO_GRADIENT", "defgrad", "tf_export",
           "export_value", "EXPORTS"]

REGISTRY: dict[str, Op] = {}

# Marks an op as not differentiable (integer-valued, comparisons, random, ...): gradients stop there silently.
NONDIFF = "nondiff"
# Marks an op for which TF defines no gradient: tape.gradient through it raises LookupError, as in TF.
NO_GRADIENT = "no_gradient"

# Set by the autodiff package: record(op, inputs, attrs, outputs) on active tapes.
tape_hook = None
# Set by tf.debugging.enable_check_numerics: instrument(tracer, op, inputs, outputs) -> outputs, called by the
# tracer for each op it adds to a graph (never on the eager path).
trace_hook = None


# TF returns inf/nan silently where NumPy warns (log(0), x/0, overflow): silence NumPy's floating-point
# RuntimeWarnings raised from tensorlet's kernels only -- a filter costs nothing per op, np.errstate ~0.9 us.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tensorlet\._src(\.|$)")


class xpfn:
    """An op kernel that is one function of the array namespace: ``defop("AddV2", xpfn("add"))``.

    Eagerly the NumPy function itself is called (no Python frame in between); compiled
    paths call ``getattr(jax.numpy, name)``.
    """

    __slots__ = ("fname",)

    def __init__(self, fname: str):
        self.fname = fname

    def __call__(self, xp, *args, **kw):
        return getattr(xp, self.fname)(*args, **kw)

    def __repr__(self):
        return f"xpfn({self.fname!r})"


# What an op is, for the tests that walk the table (``tests/ops/test_registry.py``):
#   "array"  an array op of an op family: reference CASES in tests/ops (eager, lowering, gradients)
#   "graph"  exists only inside traced graphs (placeholders, constants, control flow, run-time shapes, host calls):
#            tests/graph
#   "io"     tf.io's file, codec and parsing ops, loaded with tf.io: tests/io
#   "v1"     TF1 graph-mode ops (Session assignments, no-ops): tests/compat
KINDS = ("array", "graph", "io", "v1")


class Op:
    """One primitive.  See :func:`defop` for the fields."""

    __slots__ = ("name", "impl", "np_fn", "fast", "jax_impl", "shape_fn", "grad", "jvp", "n_out", "np_dtypes",
                 "dtypes", "check", "quiet", "sparse_grad", "doc", "no_lowering", "no_lowering_reason", "stateful",
                 "kind", "heavy", "foldable", "located", "shape_only", "host", "serializable", "lower_check", "tfdef")

    def __init__(self, name, impl, *, jax_impl=None, shape=None, grad=None, jvp=None, n_out=1,
                 dtypes=None, check=None, quiet=False, sparse_grad=False, doc="", no_lowering=False,
                 no_lowering_reason=None, stateful=False, kind="array", heavy=False, foldable=True, located=False,
                 shape_only=False, host=None, serializable=True, lower_check=None, tfdef=None):
        if kind not in KINDS:
            raise ValueError(f"op {name!r}: kind must be one of {KINDS}, got {kind!r}")
        if host not in (None, "sink", "source"):
            raise ValueError(f"op {name!r}: host must be None, 'sink' or 'source', got {host!r}")
        self.name = name
        self.impl = impl
        # the eager kernel on arrays only: the NumPy function itself, or impl with xp=np bound
        self.np_fn = getattr(np, impl.fname) if isinstance(impl, xpfn) else functools.partial(impl, np)
        self.fast = check is None and n_out == 1  # bind2 needs no extra step
        self.jax_impl = jax_impl
        self.shape_fn = shape
        self.grad = grad
        self.jvp = jvp
        self.n_out = n_out  # 1, an int > 1, or None for "kernel returns a tuple of any length"
        self.dtypes = tuple(dtypes) if dtypes is not None else None
        # bfloat16's and ml_dtypes' narrow types' NumPy dtypes join on first use (late_dtype_allowed): resolving them
        # here would import ml_dtypes
        self.np_dtypes = (frozenset(d._np for d in dtypes if d.name != "bfloat16" and d.name not in _ML_LAZY)
                          if dtypes is not None else None)
        self.check = check
        self.quiet = quiet
        self.sparse_grad = sparse_grad  # the gradient function accepts IndexedSlices upstream gradients
        self.doc = doc
        self.no_lowering = no_lowering  # XLA cannot run it (strings, Python callbacks): graphs run on NumPy
        self.no_lowering_reason = no_lowering_reason
        self.stateful = stateful  # has effects beyond its outputs (printing, callbacks): never folded or removed
        self.kind = kind
        self.heavy = heavy  # compute-bound: a graph holding one is compiled even when it is tiny
        self.foldable = foldable and not stateful  # may be evaluated at trace time when its inputs are constants
        self.located = located or stateful  # its nodes remember the user's line (run-time errors name it)
        self.shape_only = shape_only  # its value depends only on input shapes: folded whenever they are static
        self.host = host  # "sink": runs as a host callback inside compiled code; "source": string op feeding one
        self.serializable = serializable  # may be written to a SavedModel (False: attrs hold Python callables)
        self.lower_check = lower_check  # lower_check(node) -> why this node cannot be compiled, or None
        self.tfdef = tfdef  # how the op maps to a TF OpDef for TF-readable exports (None: not mapped yet)

    @property
    def differentiable(self) -> bool:
        return self.grad is not NONDIFF

    def lowering(self):
        """The function compiled paths call: ``f(xp, *arrays, **attrs)``."""
        return self.jax_impl or self.impl

    def __repr__(self):
        return f"<Op {self.name}>"


def defop(name, impl, **kw) -> Op:
    """Declare a primitive: the one table of every op the graph IR can hold.

    ``impl(xp, *arrays, **attrs)`` computes the op on arrays of namespace ``xp`` (or is an
    ``xpfn("name")`` when it is one function of the namespace).
    Keyword arguments: ``jax_impl`` (same signature, used instead of ``impl`` when
    lowering to XLA), ``shape`` (rule for tracing), ``grad`` (``grad(g, ans, *inputs,
    **attrs)`` in tensorlet ops, or ``NONDIFF`` / ``NO_GRADIENT``), ``jvp``, ``n_out``, ``dtypes``
    (allowed dtypes of the first input, TF's ``T`` attr), ``check`` (extra
    validation ``check(*inputs, **attrs)`` raising TF errors), ``quiet`` (documents
    that the op yields inf/nan where NumPy would warn; every kernel is silenced by
    the module-level warnings filter above, so it costs nothing per call),
    ``sparse_grad`` (its gradient accepts an ``IndexedSlices`` upstream as is;
    otherwise the tape densifies it first).

    Properties the graph runtime reads (all optional):
    ``kind`` (see :data:`KINDS`; decides where its tests live), ``stateful`` (effects beyond its outputs: never
    folded, merged or removed), ``no_lowering`` / ``no_lowering_reason`` (XLA cannot run it), ``heavy``
    (compute-bound: tiny graphs holding it are still compiled), ``foldable`` (False: never evaluated at trace
    time, e.g. file reads), ``located`` (nodes remember the user's line), ``shape_only`` (value depends only on
    input shapes), ``host`` (``"sink"``/``"source"``: host callbacks inside compiled code), ``serializable``
    (False: never written to a SavedModel), ``lower_check(node)`` (a reason a node cannot be compiled, or None),
    ``tfdef`` (the TF OpDef mapping used by TF-readable exports; None until one is declared).
    """
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    op = Op(name, impl, **kw)
    REGISTRY[name] = op
    return op


def defgrad(op: Op, grad) -> None:
    """Attach (or replace) the gradient of ``op``; used by the autodiff package."""
    op.grad = grad


# --- dispatch ------------------------------------------------------------------------

def bind(op: Op, *inputs, **attrs):
    """Run ``op`` on tensors ``inputs`` under the current interpreter."""
    c = ctx
    interp = c.interp
    if interp is not None:
        return interp.bind(op, inputs, attrs)
    allowed = op.np_dtypes
    if allowed is not None and inputs and inputs[0]._v.dtype not in allowed and not late_dtype_allowed(
            op, inputs[0]._v.dtype):
        raise _dtype_not_allowed(op, inputs[0])
    if op.check is not None:
        op.check(*inputs, **attrs)
    try:
        if len(inputs) == 1:
            out = op.np_fn(inputs[0]._v, **attrs)
        else:
            out = op.np_fn(*[t._v for t in inputs], **attrs)
    except errors.OpError:
        raise
    except _KERNEL_ERRORS as e:
        raise translate(op, inputs, attrs, e) from None
    if op.n_out == 1:
        r = _new(EagerTensor)
        r._v = out
    else:
        r = tuple(_wrap(o) for o in out)
    if c.tapes and tape_hook is not None:
        tape_hook(op, inputs, attrs, r)
    return r


def bind2(op: Op, x, y):
    """``bind(op, x, y)`` for attr-less binary ops: the eager hot path of ``a + b``."""
    c = ctx
    if c.interp is not None or not op.fast:
        return bind(op, x, y)
    xv = x._v
    allowed = op.np_dtypes
    if allowed is not None and xv.dtype not in allowed and not late_dtype_allowed(op, xv.dtype):
        raise _dtype_not_allowed(op, x)
    try:
        out = op.np_fn(xv, y._v)
    except _KERNEL_ERRORS as e:
        raise translate(op, (x, y), {}, e) from None
    r = _new(EagerTensor)
    r._v = out
    if c.tapes and tape_hook is not None:
        tape_hook(op, (x, y), {}, r)
    return r


_KERNEL_ERRORS = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError,
                  MemoryError, KeyError, AttributeError)


def _wrap(a):
    r = _new(EagerTensor)
    r._v = a
    return r


def eager_kernel(op: Op, *arrays, **attrs):
    """Call an op's NumPy kernel on raw arrays (for composite kernels and executors)."""
    return op.np_fn(*arrays, **attrs)


# --- errors ------------------------------------------------------------------------

_TF_TYPE_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _tf_type_name(d) -> str:
    return _TF_TYPE_NAMES.get(d.name, d.name)


def late_dtype_allowed(op: Op, np_dtype) -> bool:
    """Whether ``np_dtype`` (outside ``op.np_dtypes``) is bfloat16 or an ml_dtypes narrow type (float8, int4) and
    allowed: it then joins the set."""
    if is_bfloat16_np(np_dtype):
        name = "bfloat16"
    else:
        name = getattr(np_dtype, "name", None)
        if name not in _ML_LAZY:
            return False
    if any(d.name == name for d in op.dtypes):
        op.np_dtypes = op.np_dtypes | {np_dtype}
        return True
    return False


def _dtype_not_allowed(op: Op, t):
    d = t.dtype
    allowed = ", ".join(_tf_type_name(a) for a in op.dtypes)
    return errors.invalid_argument(
        op.name, f"Value for attr 'T' of {d.name} is not in the list of allowed values: {allowed}")


def describe(inputs) -> str:
    parts = []
    for t in inputs:
        v = getattr(t, "_v", None)
        if v is None:
            parts.append(type(t).__name__)
        else:
            parts.append(f"{from_numpy(v.dtype).name}{errors.shape_str(np.shape(v))}")
    return ", ".join(parts)


def translate(op: Op, inputs, attrs, e: Exception):
    """Turn a NumPy exception from a kernel into a TF error naming op, shapes and user line."""
    msg = str(e)
    if "could not be broadcast" in msg and len(inputs) >= 2:
        shapes = " vs. ".join(errors.shape_str(np.shape(t._v)) for t in inputs)
        text = f"Incompatible shapes: {shapes}"
    else:
        text = f"{msg} (inputs: {describe(inputs)}"
        if attrs:
            text += ", attrs: " + ", ".join(f"{k}={v!r}" for k, v in attrs.items())
        text += ")"
    cls = errors.ResourceExhaustedError if isinstance(e, MemoryError) else errors.InvalidArgumentError
    return errors.op_error(cls, op.name, text)
