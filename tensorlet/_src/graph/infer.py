"""Output shapes and dtypes of a node while tracing.

An op's ``shape=`` rule is used when it has one; otherwise its lowering is evaluated abstractly with
``jax.eval_shape`` (no computation).  Unknown (None) dims are handled by evaluating twice with two different
stand-in sizes: output dims that change are unknown.  Ops that jax cannot evaluate abstractly (strings) run
their NumPy kernel on small dummy inputs; ops whose output shape depends on input *values* (``tf.where`` with
one argument, ``tf.unique``, ``tf.boolean_mask``) get unknown dims.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.ir import Spec

_SENTINELS = (1009, 1013)  # stand-ins for unknown dims (primes, unlikely to collide with real sizes)
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
    try:
        if any(t.dtype is _dt.string for t in ins) or getattr(op, "no_lowering", False):
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
