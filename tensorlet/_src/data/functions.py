"""User functions of tf.data (map, filter, flat_map, scan, ...): the ONE place that calls them.

``DataFunction`` receives elements as tensors (a plain tuple element is unpacked into positional
arguments, as TF does), normalizes what the function returns (a list becomes a tuple, Python values
become tensors) and knows its output ``element_spec``.

Execution: traced once with ``tf.function`` over the input spec, as TF does (Python side effects run only
at trace time; graphs run on the NumPy executor or XLA by tensorlet's tiers).  Functions that cannot be
traced (they call ``.numpy()``, or take strings/nested datasets) run eagerly; their output spec comes from two
*probe* calls on placeholder-like values (unknown dims as 1, then 2; dims that differ become ``None``), or if
a probe fails from the first real element.  ``TENSORLET_DATA_TRACE=0`` runs every function eagerly.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape

__all__ = ["DataFunction", "TRACE"]

# Dataset functions are traced with tf.function (TENSORLET_DATA_TRACE=0 runs them eagerly, for debugging).
TRACE = os.environ.get("TENSORLET_DATA_TRACE", "1") == "1"


def _tf_function():
    if not TRACE:
        return None
    from tensorlet._src.graph.function import function

    return function


def _dummy_leaf(spec, fill):
    from tensorlet._src.data.dataset_ops import DatasetSpec

    if isinstance(spec, DatasetSpec):
        from tensorlet._src.data.sources import EmptyDataset

        return EmptyDataset(spec.element_spec)
    shape = spec.shape
    dims = [fill] if shape.rank is None else [fill if d is None else d for d in shape.as_list()]
    d = spec.dtype
    if d is _dt.string:
        a = np.empty(dims, object)
        a.fill(str(fill).encode())
        return a
    if d is _dt.bool:
        return np.ones(dims, np.bool_)
    return np.full(dims, fill, d._np)


def _relax_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    return a.most_specific_compatible_shape(b)


class DataFunction:
    """Wraps a user function over dataset elements with spec ``input_spec``."""

    def __init__(self, fn, input_spec, name="map_func", unpack=True):
        if not callable(fn):
            raise TypeError(f"`{name}` must be callable, got {fn!r}")
        self.fn = fn
        self.name = name
        self.input_spec = input_spec
        self.unpack = unpack  # a plain tuple element is passed as positional arguments
        self._out_spec = None
        self._out_template = None
        self._lock = threading.Lock()
        self._traced = None
        self._concrete = None  # the traced graph (data/vectorize.py runs it over stacked elements)
        tf_function = _tf_function()
        if tf_function is not None:
            self._trace(tf_function)

    # --- calling ---------------------------------------------------------------------
    def call_structured(self, leaves):
        """Call on flat internal leaves; returns what the user function returned (normalized)."""
        from tensorlet._src.data.dataset_ops import wrap_leaf

        args = S.dpack(self.input_spec, [wrap_leaf(v) for v in leaves])
        if self._traced is not None:
            out = self._traced(*S.dflatten(args))
            out = S.dpack(self._out_template, S.dflatten(out))
        elif self.unpack and args.__class__ is tuple:
            out = self.fn(*args)
        else:
            out = self.fn(args)
        if isinstance(out, list):
            out = tuple(out)
        return out

    def __call__(self, leaves):
        """Call on flat leaves; returns the flat output leaves (arrays or datasets)."""
        from tensorlet._src.data.dataset_ops import to_leaf

        out = self.call_structured(leaves)
        if out.__class__ is tuple:
            return tuple(to_leaf(v) for v in S.dflatten(out))
        if S.is_struct(out):
            return tuple(to_leaf(v) for v in S.dflatten(out))
        return (to_leaf(out),)

    def call_args(self, *values):
        """Call with explicit structured arguments (scan/reduce: ``(state, element)``)."""
        return self.fn(*values)

    # --- output spec ------------------------------------------------------------------
    @property
    def output_spec(self):
        if self._out_spec is None:
            with self._lock:
                if self._out_spec is None:
                    self._out_spec = self._probe()
        return self._out_spec

    def _probe(self):
        from tensorlet._src.data.dataset_ops import leaf_spec, to_leaf

        flat_in = S.dflatten(self.input_spec)
        results = []
        for fill in (1, 2):
            leaves = [_dummy_leaf(s, fill) for s in flat_in]
            try:
                out = self.call_structured(leaves)
            except TypeError as e:
                if "argument" in str(e) and ("positional" in str(e) or "keyword" in str(e)):
                    raise  # wrong arity: a real error, as TF reports it when tracing
                return None
            except Exception:  # noqa: BLE001 - placeholder values may be invalid for the function; use real data
                return None
            try:
                leaves_out = [to_leaf(v) for v in S.dflatten(out)]
            except (TypeError, ValueError) as e:
                raise TypeError(f"The `{self.name}` returned a value that is not a tensor or a structure of tensors: "
                                f"{out!r} ({e})") from None
            results.append((out, [leaf_spec(v) for v in leaves_out]))
        (t1, s1), (_, s2) = results
        specs = []
        for a, b in zip(s1, s2):
            if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
                specs.append(TensorSpec._make(_relax_shape(a.shape, b.shape), a.dtype))
            else:
                specs.append(a)
        return S.dpack(_template(t1), specs)

    def spec_from_output(self, out):
        """The spec of a real output (used when probing was not possible)."""
        from tensorlet._src.data.dataset_ops import leaf_spec, to_leaf

        specs = [leaf_spec(to_leaf(v)) for v in S.dflatten(out)]
        specs = [TensorSpec._make(TensorShape(None) if s.shape.rank is None else s.shape, s.dtype)
                 if isinstance(s, TensorSpec) else s for s in specs]
        return S.dpack(_template(out), specs)

    # --- tracing (tf.function) -----------------------------------------------------------
    def _trace(self, tf_function):
        """Trace once with tf.function; on any failure stay eager (TF would fall back to py_function-like
        behaviour only with an explicit tf.py_function, so report nothing)."""
        flat_in = S.dflatten(self.input_spec)
        if not all(isinstance(s, TensorSpec) and s.dtype is not _dt.string for s in flat_in):
            return  # nested datasets and strings stay eager (the compiled path takes numeric arrays)
        fn, spec, unpack = self.fn, self.input_spec, self.unpack

        def flat_fn(*flat):
            args = S.dpack(spec, list(flat))
            out = fn(*args) if unpack and args.__class__ is tuple else fn(args)
            if isinstance(out, list):
                out = tuple(out)
            self._out_template = _template(out)
            return tuple(S.dflatten(out))

        try:
            try:
                traced = tf_function(flat_fn, input_signature=list(flat_in))
            except TypeError:
                traced = tf_function(flat_fn)
            concrete = traced.get_concrete_function(*flat_in)
            outs = getattr(concrete, "structured_outputs", None)
            specs = [o._type_spec if _is_composite(o) else TensorSpec._make(TensorShape(o.shape), o.dtype)
                     for o in S.dflatten(outs)]
            self._out_spec = S.dpack(self._out_template, specs)
            self._traced = traced
            self._concrete = concrete
        except Exception:  # noqa: BLE001 - untraceable functions run eagerly
            self._traced = None
            self._concrete = None
            self._out_spec = None


def _is_composite(v):
    from tensorlet._src.data import composite

    return composite.is_composite(v)


def _template(out):
    """A structure template for ``out`` (leaves replaced by None; only the shape of nesting matters)."""
    if isinstance(out, list):
        out = tuple(out)
    return S.dpack(out, [None] * len(S.dflatten(out)))
