"""Running a traced dataset function once over a stack of elements (``jax.vmap`` of its compiled graph).

``map(f).batch(n)`` (TF's map-and-batch fusion) and the chunks of a parallel ``map`` call ``f`` on several
elements at once: one XLA call on the stacked inputs instead of one call (and its Python hand-over) per element.
The results are the per-element ones stacked; ``Vectorized`` exists only where that holds:

* ``f`` traced (``DataFunction._concrete``) with fully defined numeric input and output shapes, no composites;
* its graph compiles (``lowering.check_lowerable``) and calls no Python (no ``tf.print``, asserts,
  ``py_function``: their per-element effects and errors stay per element);
* variables are only read, or are integer counters advanced by a constant per call (the hidden counter of
  stateful random ops): call ``k`` of a group sees ``c + k * step``, exactly as ``k`` sequential calls would,
  and the group reserves its ``n * step`` under the variables' lock (workers never draw the same numbers).

A group of ``n`` elements is padded to a fixed size (repeating its last element; padded results are dropped)
so a short last batch does not compile again.  Anything unexpected (an op jax cannot batch) turns the
vectorized form off and the caller runs the group element by element.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt

__all__ = ["vectorized", "map_and_batch_enabled", "rewrites_enabled", "Vectorized", "MIN_ELEMENTS", "each"]

# TENSORLET_DATA_VECTORIZE=0 turns the vectorized forms off (every call per element).
ENABLED = os.environ.get("TENSORLET_DATA_VECTORIZE", "1") == "1"
# A function is vectorized once it has run on this many elements one by one (over all its iterators): a short
# dataset iterated once never pays the extra compilation (~20-100 ms).
MIN_ELEMENTS = 64
MAX_GROUP = 256  # elements per vectorized call at most (a larger batch runs in pieces of this size)


def rewrites_enabled(options):
    """TF's ``experimental_optimization.apply_default_optimizations`` (None: True)."""
    return options.experimental_optimization.apply_default_optimizations is not False


def map_and_batch_enabled(options):
    """TF's ``map_and_batch_fusion``: a default optimization (on unless set False, or defaults are off)."""
    opt = options.experimental_optimization
    if opt.map_and_batch_fusion is not None:
        return bool(opt.map_and_batch_fusion)
    return opt.apply_default_optimizations is not False


def vectorized(fn):
    """The ``Vectorized`` form of DataFunction ``fn`` (built once), or None."""
    if not ENABLED:
        return None
    v = fn.__dict__.get("_vectorized", _UNSET)
    if v is _UNSET:
        with _build_lock:
            v = fn.__dict__.get("_vectorized", _UNSET)
            if v is _UNSET:
                v = Vectorized.build(fn)
                fn._vectorized = v
    return v if v is not None and not v.broken else None


_UNSET = object()
_build_lock = threading.Lock()
_counter_lock = threading.Lock()  # reads and counter reservations of host-valued variables


def _counter_step(graph, var):
    """``step`` when ``var``'s final value is its value at entry plus constants (an integer counter), else None."""
    from tensorlet._src.graph.ir import CONST, READ_VAR
    from tensorlet._src.ops.math_binary import ADD

    if not var.dtype.is_integer:
        return None
    t = graph.var_final[id(var)]
    step = np.zeros((), var.dtype._np)
    with np.errstate(over="ignore"):
        while t.node.op is ADD:
            a, b = t.node.inputs
            if b.node.op is CONST and np.shape(b.node.attrs["value"]) == ():
                step = step + np.asarray(b.node.attrs["value"], step.dtype)
                t = a
            elif a.node.op is CONST and np.shape(a.node.attrs["value"]) == ():
                step = step + np.asarray(a.node.attrs["value"], step.dtype)
                t = b
            else:
                return None
    node = t.node
    if node.op is READ_VAR and node.attrs["var"] is var and t.shape.rank == 0:
        return step
    return None


class Vectorized:
    """``f`` over stacked elements; ``__call__(group)`` -> the stacked flat outputs, or None (run per element)."""

    def __init__(self, graph, in_specs, out_specs):
        self.graph = graph
        self.in_specs = in_specs
        self.out_specs = out_specs
        self.broken = False
        self.seen = 0  # elements run one by one so far (every iterator): vectorize from MIN_ELEMENTS on
        self._jitted = None
        self._lock = threading.Lock()
        self._shared = False  # a variable it reads is device-resident: read under lowering._write_lock

    @property
    def ready(self):
        """Compiled already, or the function has run on enough elements to be worth compiling."""
        return self._jitted is not None or self.seen >= MIN_ELEMENTS

    @classmethod
    def build(cls, fn):
        from tensorlet._src.data import structure as S
        from tensorlet._src.graph.lowering import NotLowerable, _calls_python, check_lowerable

        concrete = getattr(fn, "_concrete", None)
        if concrete is None or fn._out_spec is None:
            return None
        ins, outs = list(S.dflatten(fn.input_spec)), list(S.dflatten(fn._out_spec))
        graph = concrete.graph
        if not ins or graph.captures or len(graph.inputs) != len(ins) or len(graph.outputs) != len(outs):
            return None
        for s in ins + outs:
            if type(s) is not TensorSpec or s.dtype is _dt.string or not s.shape.is_fully_defined():
                return None
        try:
            check_lowerable(graph)
        except NotLowerable:
            return None
        if _calls_python(graph):
            return None
        self = cls(graph, ins, outs)
        self.counters = []  # (variable, step): written integer counters
        for v in graph.variables:
            if id(v) in graph.var_final:
                step = _counter_step(graph, v)
                if step is None:
                    return None
                self.counters.append((v, step))
        return self

    def _compile(self):
        from tensorlet._src.graph.jaxrt import jax
        from tensorlet._src.graph.lowering import build_fn

        f, big = build_fn(self.graph)
        variables = list(self.graph.variables)
        batched = {id(v) for v, _ in self.counters}
        pos = [i for i, v in enumerate(variables) if id(v) in batched]

        def one(counter_values, var_values, args, big_values):
            values = list(var_values)
            for i, c in zip(pos, counter_values):
                values[i] = c
            outs, _ = f(values, args, big_values)
            return outs

        vm = jax.vmap(one, in_axes=(0, None, 0, None))
        self._big = big
        self._variables = variables
        self._counter_pos = [variables.index(v) for v, _ in self.counters]
        return jax.jit(vm)

    def __call__(self, group, size=None):
        """``group``: a list of flat input leaves (one tuple per element); runs them padded to ``size`` elements
        (default ``len(group)``).  Returns a list of arrays with leading dim ``len(group)``, or None."""
        if self.broken:
            return None
        cols = []
        for j, spec in enumerate(self.in_specs):
            col = [np.asarray(e[j]) for e in group]
            shape = tuple(spec.shape.as_list())
            if any(c.shape != shape for c in col):
                return None  # an element that does not match its spec: the per-element path reports it
            cols.append(np.stack(col))
        return self.call_stacked(cols, size)

    def _read_variables(self, n, size, lowering):
        """The variables' values, and the counters' values for ``size`` calls (``n`` of them reserved).

        Variables only eager code, dataset functions or workers wrote (host values) are read under this module's
        lock, so a batch never waits for the training step the main thread is running.  Once one holds a device
        array (a compiled function wrote it: the main thread may donate that buffer), every call reads under the
        compiled functions' ``_write_lock`` instead, as their worker-thread calls do."""
        if not self._shared:
            with _counter_lock:
                if not any(v._dev is not None and getattr(v, "_donatable", None) is v._dev for v in self._variables):
                    return self._take(n, size)
                self._shared = True
        with lowering._write_lock:
            return self._take(n, size)

    def _take(self, n, size):
        values = [v._host if v._dev is None else v._dev for v in self._variables]
        for v in self._variables:
            v._donatable = None  # the main thread must not donate a buffer this call may still read
        counters = []
        with np.errstate(over="ignore"):
            for (v, step), i in zip(self.counters, self._counter_pos):
                c0 = np.asarray(values[i], step.dtype)
                counters.append(c0 + np.arange(size, dtype=step.dtype) * step)
                v._v = np.asarray(c0 + step * step.dtype.type(n), step.dtype)
        return values, counters

    def call_stacked(self, cols, size=None):
        """Like ``__call__`` on the inputs already stacked (one array per input, leading dim = elements)."""
        if self.broken:
            return None
        n = len(cols[0])
        size = max(n, size or n)
        if size > MAX_GROUP:  # a large batch in pieces: bounded intermediates, one executable
            parts = [self.call_stacked([c[k:k + MAX_GROUP] for c in cols], MAX_GROUP) for k in range(0, n, MAX_GROUP)]
            if any(p is None for p in parts):
                return None
            return [np.concatenate(out) for out in zip(*parts)]
        from tensorlet._src.graph import lowering

        try:
            args = []
            for c, spec in zip(cols, self.in_specs):
                c = np.asarray(c)
                if c.shape[1:] != tuple(spec.shape.as_list()):
                    return None
                if size > n:  # pad with copies of the last element (their results are dropped)
                    c = np.concatenate([c, np.repeat(c[-1:], size - n, axis=0)])
                args.append(c.astype(spec.dtype._np, copy=False))
            if self._jitted is None:
                with self._lock:
                    if self._jitted is None:
                        self._jitted = self._compile()
            values, counters = self._read_variables(n, size, lowering) if self._variables else ((), ())
            outs = self._jitted(counters, values, args, self._big)
            res = []
            for o, spec in zip(outs, self.out_specs):
                a = np.asarray(o)
                if a.dtype != spec.dtype._np:
                    a = a.astype(spec.dtype._np)
                res.append(a[:n] if size > n else a)
            return res
        except Exception:  # noqa: BLE001 - an op jax cannot batch: per element from now on
            self.broken = True
            return None


def unstack(outs, n):
    """Per-element flat leaves of stacked outputs (views; 0-d results stay arrays)."""
    return [tuple(a[k, ...] for a in outs) for k in range(n)]


def each(fn, elements, serial=None) -> list:
    """The element-by-element form: ``fn`` on each element in order (under the lock ``serial`` when given: a
    stateful function), as ``(True, result)`` or ``(False, exception)``, for the caller to raise (or skip) at its
    element, in order."""
    out = []
    for leaves in elements:
        try:
            if serial is None:
                out.append((True, fn(leaves)))
            else:
                with serial:
                    out.append((True, fn(leaves)))
        except Exception as e:  # noqa: BLE001 - handed to the caller with its element
            out.append((False, e))
    return out
