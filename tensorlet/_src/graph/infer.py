"""Output shapes and dtypes of a node while tracing.

An op's ``shape=`` rule is used when it has one; otherwise its lowering is evaluated abstractly with
``jax.eval_shape`` (no computation).  Unknown (None) dims are handled by evaluating twice with two different
stand-in sizes: output dims that change are unknown.  Ops that jax cannot evaluate abstractly (strings) run
their NumPy kernel on small dummy inputs; ops whose output shape depends on input *values* (``tf.where`` with
one argument, ``tf.unique``, ``tf.boolean_mask``) get unknown dims.

Until something has imported jax (seconds), small inputs are evaluated by the op's NumPy kernel instead, with the
same stand-in sizes, each twice with different stand-in values: when the two runs disagree the output shape
depends on values and the jax path decides, as it does whenever the kernel fails or the inputs are large.  So
tracing a graph (a loaded SavedModel, a first ``tf.function`` call) does not import jax just to learn shapes.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.ir import Spec

_SENTINELS = (1009, 1013)  # stand-ins for unknown dims (primes, unlikely to collide with real sizes)
_NUMPY_BUDGET = 1 << 20  # input elements one NumPy stand-in evaluation may allocate (1/16 of it for heavy ops)
_cache: dict = {}


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (int, float, str, bool, bytes, type(None), np.dtype, np.generic)):
        return v
    hash(v)  # raises TypeError for unhashable attrs: not cached
    return ("id", id(v))


def specs(op, ins, attrs) -> list[Spec]:
    rule = op.shape_fn
    if rule is not None:
        out = rule(*ins, **attrs)
        outs = out if isinstance(out, (list, tuple)) and not hasattr(out, "dtype") else (out,)
        return [Spec(o.shape, o.dtype) for o in outs]
    try:
        key = (op.name, tuple((tuple(t.shape.as_list()) if t.shape.rank is not None else None, t.dtype)
                              for t in ins), _freeze(attrs))
    except TypeError:
        key = None
    if key is not None:
        hit = _cache.get(key)
        if hit is not None:
            return hit
    if op.stateful:  # never run an effect to learn shapes
        result = [] if op.n_out is None else [Spec(TensorShape(None), ins[0].dtype if ins else _dt.float32)]
    else:
        result = _abstract(op, ins, attrs)
    if key is not None:
        _cache[key] = result
    return result


def _abstract(op, ins, attrs):
    if any(t.shape.rank is None for t in ins):
        return _unknown(op, ins, attrs)
    has_unknown = any(d is None for t in ins for d in t.shape.as_list())
    strings = any(t.dtype is _dt.string for t in ins)
    if not strings and _numpy_first():
        res = _numpy_specs(op, ins, attrs, has_unknown)
        if res is not None:
            return res
    try:
        if strings or getattr(op, "no_lowering", False):
            raise _NoJax
        first = _eval_jax(op, ins, attrs, _SENTINELS[0])
        if not has_unknown:
            return first
        second = _eval_jax(op, ins, attrs, _SENTINELS[1])
        return [Spec(TensorShape([a if a == b else None for a, b in zip(s1.shape.as_list(), s2.shape.as_list())]),
                     s1.dtype) for s1, s2 in zip(first, second)]
    except _ValueDependent:
        return _unknown(op, ins, attrs, keep_rank=True)
    except _NoJax:
        try:
            return _numpy_dummy(op, ins, attrs)
        except Exception:  # noqa: BLE001 - the kernel rejects dummy values: shapes unknown until run time
            return _unknown(op, ins, attrs, keep_rank=True)
    except Exception:
        if has_unknown:  # stand-in sizes the op rejects (e.g. squeezing an unknown dim): shapes unknown
            return _unknown(op, ins, attrs, keep_rank=True)
        raise


class _NoJax(Exception):
    pass


class _ValueDependent(Exception):
    pass


def _eval_jax(op, ins, attrs, sentinel):
    from tensorlet._src.graph.jaxrt import jax, jnp

    fn = op.lowering()
    args = []
    for t in ins:
        shape = tuple(sentinel if d is None else d for d in t.shape.as_list())
        if t._const is not None and t._const.size <= 64:
            args.append(t._const)  # small constants stay concrete: ops may read their values (axes, shapes)
        else:
            args.append(jax.ShapeDtypeStruct(shape, t.dtype._np))
    concrete = [i for i, a in enumerate(args) if not isinstance(a, jax.ShapeDtypeStruct)]
    abstract_idx = [i for i, a in enumerate(args) if isinstance(a, jax.ShapeDtypeStruct)]

    def f(*abstract):
        full = list(args)
        for i, a in zip(abstract_idx, abstract):
            full[i] = a
        for i in concrete:
            full[i] = jnp.asarray(full[i])
        return fn(jnp, *full, **attrs)

    try:
        out = jax.eval_shape(f, *[args[i] for i in abstract_idx])
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
            jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError,
            jax.errors.NonConcreteBooleanIndexError) as e:
        raise _ValueDependent from e
    except (NotImplementedError, AttributeError) as e:
        raise _NoJax from e
    except TypeError as e:
        msg = str(e).lower()
        if "not a valid jax type" in msg:
            raise _NoJax from e
        if "tracer" in msg or "abstract" in msg:
            raise _ValueDependent from e
        raise
    outs = out if isinstance(out, (list, tuple)) else (out,)
    if op.n_out == 1 and isinstance(out, (list, tuple)):
        outs = (out,)
    return [Spec(TensorShape._from_tuple(tuple(o.shape)), _dt._FROM_NP[np.dtype(o.dtype)]) for o in outs]


def _numpy_first() -> bool:
    """Whether shapes are learnt from NumPy kernels first: while jax is not imported (importing it costs seconds)."""
    return "jax" not in sys.modules


def _stand_in(t, shape, variant, index):
    """Input ``index``: its constant value, else ones (variant 0), small distinct values with a zero, differing per
    input (1), or large distinct values (2), so that an output shape depending on input values (a count, a size,
    a mask) shows as a difference between the runs."""
    if t._const is not None:
        return t._const
    dt = t.dtype._np
    if variant == 0:
        return np.ones(shape, dt)
    n = math.prod(shape)
    if t.dtype is _dt.bool:
        return (np.arange(n) % 2 == 0 if variant == 1 else np.zeros(n, bool)).reshape(shape)
    vals = np.arange(n) + 2 * index if variant == 1 else np.arange(n) * 3 + (_SENTINELS[1] + index)
    return vals.astype(dt).reshape(shape)


def _numpy_specs(op, ins, attrs, has_unknown):
    """Output specs from the op's NumPy kernel on stand-in inputs, or None where that cannot tell them exactly
    (the kernel fails, the output shape depends on values, the inputs are large, the op has effects)."""
    if op.stateful or getattr(op, "no_lowering", False) or getattr(op, "host", None):
        return None
    budget = _NUMPY_BUDGET >> 4 if op.heavy else _NUMPY_BUDGET
    runs = []
    for sentinel in (_SENTINELS if has_unknown else _SENTINELS[:1]):
        shapes = [tuple(sentinel if d is None else d for d in t.shape.as_list()) for t in ins]
        if sum(math.prod(sh) for sh, t in zip(shapes, ins) if t._const is None) > budget:
            return None
        got = []
        for variant in (0, 1, 2):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = op.np_fn(*[_stand_in(t, sh, variant, i) for i, (t, sh) in enumerate(zip(ins, shapes))],
                                   **attrs)
                outs = (out,) if op.n_out == 1 else tuple(out)
                got.append(tuple((np.shape(o), _dt._FROM_NP[np.asarray(o).dtype]) for o in outs))
            except Exception:  # noqa: BLE001 - the kernel rejects stand-ins (or has no NumPy form): jax decides
                return None
        if got[0] != got[1] or got[0] != got[2]:
            return None  # value-dependent output shape
        runs.append(got[0])
    if len(runs) == 1:
        return [Spec(TensorShape._from_tuple(sh), d) for sh, d in runs[0]]
    res = []
    for (s1, d1), (s2, d2) in zip(*runs):
        if len(s1) != len(s2) or d1 is not d2:
            return None
        res.append(Spec(TensorShape([a if a == b else None for a, b in zip(s1, s2)]), d1))
    return res


def _dummy(t):
    shape = [1 if d is None else d for d in t.shape.as_list()]
    if t._const is not None:
        return t._const
    if t.dtype is _dt.string:
        return np.full(shape, b"0123456789abcdef", dtype=object)
    return np.ones(shape, t.dtype._np)


def _numpy_dummy(op, ins, attrs):
    out = op.np_fn(*[_dummy(t) for t in ins], **attrs)
    outs = (out,) if op.n_out == 1 else tuple(out)
    has_unknown = any(d is None for t in ins for d in t.shape.as_list())
    res = []
    for o in outs:
        o = np.asarray(o)
        shape = TensorShape([None] * o.ndim) if has_unknown else TensorShape._from_tuple(o.shape)
        res.append(Spec(shape, _dt._FROM_NP[o.dtype]))
    return res


def _unknown(op, ins, attrs, keep_rank=False):
    """Specs with unknown dims: rank and dtype from the NumPy kernel on dummy inputs."""
    try:
        dummy = _numpy_dummy(op, [_Known(t) for t in ins], attrs)
    except Exception:  # noqa: BLE001
        d = ins[0].dtype if ins else _dt.float32
        return [Spec(TensorShape(None), d) for _ in range(op.n_out or 1)]
    return [Spec(TensorShape([None] * s.shape.rank) if keep_rank and s.shape.rank is not None else
                 TensorShape(None), s.dtype) for s in dummy]


class _Known:
    """A tensor stand-in with unknown dims replaced by 1 (for dummy evaluation)."""

    def __init__(self, t):
        self.dtype = t.dtype
        self._const = t._const
        self.shape = TensorShape([1] * 1 if t.shape.rank is None else [1 if d is None else d
                                                                        for d in t.shape.as_list()])
