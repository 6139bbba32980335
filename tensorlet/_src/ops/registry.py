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
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.dtypes import from_numpy
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


class Op:
    """One primitive.  See :func:`defop`."""

    __slots__ = ("name", "impl", "np_fn", "fast", "jax_impl", "shape_fn", "grad", "jvp", "n_out", "np_dtypes",
                 "dtypes", "check", "quiet", "sparse_grad", "doc", "no_lowering", "no_lowering_reason", "stateful")

    def __init__(self, name, impl, *, jax_impl=None, shape=None, grad=None, jvp=None, n_out=1,
                 dtypes=None, check=None, quiet=False, sparse_grad=False, doc="", no_lowering=False, stateful=False):
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
        self.np_dtypes = frozenset(d._np for d in dtypes) if dtypes is not None else None
        self.check = check
        self.quiet = quiet
        self.sparse_grad = sparse_grad  # the gradient function accepts IndexedSlices upstream gradients
        self.doc = doc
        self.no_lowering = no_lowering  # XLA cannot run it (strings, Python callbacks): graphs run on NumPy
        self.no_lowering_reason = None
        self.stateful = stateful  # has effects beyond its outputs (printing, callbacks): never folded or removed

    @property
    def differentiable(self) -> bool:
        return self.grad is not NONDIFF

    def lowering(self):
        """The function compiled paths call: ``f(xp, *arrays, **attrs)``."""
        return self.jax_impl or self.impl

    def __repr__(self):
        return f"<Op {self.name}>"


def defop(name, impl, **kw) -> Op:
    """Declare a primitive.

    ``impl(xp, *arrays, **attrs)`` computes the op on arrays of namespace ``xp`` (or is an
    ``xpfn("name")`` when it is one function of the namespace).
    Keyword arguments: ``jax_impl`` (same signature, used instead of ``impl`` when
    lowering to XLA), ``shape`` (rule for tracing), ``grad`` (``grad(g, ans, *inputs,
    **attrs)`` in tensorlet ops, or ``NONDIFF``), ``jvp``, ``n_out``, ``dtypes``
    (allowed dtypes of the first input, TF's ``T`` attr), ``check`` (extra
    validation ``check(*inputs, **attrs)`` raising TF errors), ``quiet`` (documents
    that the op yields inf/nan where NumPy would warn; every kernel is silenced by
    the module-level warnings filter above, so it costs nothing per call),
    ``sparse_grad`` (its gradient accepts an ``IndexedSlices`` upstream as is;
    otherwise the tape densifies it first).
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
    if allowed is not None and inputs and inputs[0]._v.dtype not in allowed:
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
    if allowed is not None and xv.dtype not in allowed:
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


# --- public API table ----------------------------------------------------------------

# "math.add" -> (source module, attribute); tools/gen_api.py writes the public modules from it.
EXPORTS: dict[str, tuple[str, str]] = {}


def tf_export(*names):
    """Record the public TF names of a function or class (``"math.add", "add"``)."""

    def deco(obj):
        for n in names:
            export_value(n, obj.__module__, obj.__name__)
        return obj

    return deco


def export_value(name: str, module: str, attr: str) -> None:
    """Record a public name for a module attribute that is not a def/class (``tf.float32``)."""
    src = (module, attr)
    if EXPORTS.get(name, src) != src:
        raise ValueError(f"tf.{name} exported twice: {EXPORTS[name]} and {src}")
    EXPORTS[name] = src
