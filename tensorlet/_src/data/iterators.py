"""``tf.data.Iterator``: the iterator of a dataset, its NumPy view, and checkpoint hooks.

Thread/resource ownership: every iterator owns an ``IterCtx``; background workers (prefetch,
parallel map/interleave) register their stop callbacks there and never reference the iterator
itself, so an iterator abandoned mid-epoch is garbage collected and a ``weakref.finalize`` stops
its threads.

Checkpoints (``tf.train.Checkpoint(iterator=it)``) use two hooks:

* ``it._save_state()`` -> JSON-able dict ``{"format": "tensorlet.data.iterator", "version": 1,
  "consumed": n, "seeds": [[seed, seed2, draws], ...]}``: the number of elements this iterator has
  returned, and for each shuffle/random node upstream its base seeds and seed-generator position at
  iterator creation.  ``it._save_state_arrays()`` -> ``{}`` (no array state; reserved).
* ``it._restore_state(state)`` rebuilds the pipeline with those seeds and replays ``n`` elements
  (deterministic pipelines resume exactly mid-epoch; map functions run again during the replay).

>>> it = iter(tf.data.Dataset.range(3)); next(it)
<tf.Tensor: shape=(), dtype=int64, numpy=0>
"""

from __future__ import annotations

import collections.abc
import threading
import weakref

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.structure import Optional, TensorSpec, TypeSpec
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.ops.registry import tf_export

__all__ = ["IterCtx", "Iterator", "OwnedIterator", "NumpyIterator", "IteratorSpec", "Optional",
           "get_single_element"]

STATE_FORMAT = "tensorlet.data.iterator"


class IterCtx:
    """Per-iterator resources: stop event and cleanup callbacks of background workers."""

    __slots__ = ("stop", "ignore", "options", "_cleanups", "_lock", "__weakref__")

    def __init__(self, options=None):
        self.stop = threading.Event()
        self.ignore = set()  # ids of nodes whose per-element errors drop the element (upstream of ignore_errors)
        self.options = options  # the iterated dataset's tf.data.Options (TF applies them to the whole pipeline)
        self._cleanups = []
        self._lock = threading.Lock()

    def on_close(self, fn):
        with self._lock:
            if self.stop.is_set():
                fn()
                return
            self._cleanups.append(fn)

    def close(self):
        with self._lock:
            self.stop.set()
            fns, self._cleanups = self._cleanups, []
        for fn in reversed(fns):
            try:
                fn()
            except Exception:  # noqa: BLE001 - cleanup must not raise from finalizers
                pass


def _finalize(ictx, gen):
    ictx.close()
    try:
        getattr(gen, "close", _noop)()
    except (ValueError, RuntimeError):  # still running in another thread: its stop event ends it
        pass


@tf_export("data.Iterator")
class Iterator(collections.abc.Iterator):
    """Base class of dataset iterators: ``next(it)``, ``it.get_next()``, ``it.element_spec``."""

    @property
    def element_spec(self):
        raise NotImplementedError

    def get_next(self):
        raise NotImplementedError

    def get_next_as_optional(self):
        raise NotImplementedError


class OwnedIterator(Iterator):
    """The iterator ``iter(dataset)`` returns."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._spec = dataset.element_spec
        flat = dataset._flat_spec()
        self._single = not S.is_struct(self._spec)
        self._all_tensors = all(isinstance(s, TensorSpec) for s in flat)
        self._plain_tuple = self._spec.__class__ is tuple and not any(S.is_struct(s) for s in self._spec)
        self._consumed = 0
        self._start(None)

    def _start(self, seeds):
        gens = self._dataset._all_seed_generators()
        if seeds is not None:
            if len(seeds) != len(gens):
                raise ValueError(f"Iterator state has {len(seeds)} random nodes but the dataset has {len(gens)}: "
                                 f"restore into an iterator of the same pipeline.")
            for g, s in zip(gens, seeds):
                g.set_state(s)
        self._seeds_at_start = [g.get_state() for g in gens]
        self._ictx = IterCtx(self._dataset.options())
        self._gen = self._dataset._gen(self._ictx)
        self._finalizer = weakref.finalize(self, _finalize, self._ictx, self._gen)

    @property
    def element_spec(self):
        return self._spec

    def _next_leaves(self):
        try:
            leaves = next(self._gen)
        except BaseException:  # end of data or an error: the pipeline is finished, stop its workers now
            self._finalizer()
            raise
        self._consumed += 1
        return leaves

    def _pack(self, leaves):
        if self._all_tensors:
            if self._single:
                t = EagerTensor.__new__(EagerTensor)
                t._v = leaves[0]
                return t
            out = []
            for v in leaves:
                t = EagerTensor.__new__(EagerTensor)
                t._v = v
                out.append(t)
            return tuple(out) if self._plain_tuple else S.dpack(self._spec, out)
        from tensorlet._src.data.dataset_ops import wrap_leaf

        return S.dpack(self._spec, [wrap_leaf(v) for v in leaves])

    def __next__(self):
        if ctx.interp is not None and hasattr(ctx.interp, "read_variable"):
            return self._traced_next()
        return self._pack(self._next_leaves())

    def _traced_next(self):
        """``next(it)`` inside ``tf.function``: the element is fetched each time the graph runs (a host
        callback), as TF's IteratorGetNext, not once while tracing."""
        from tensorlet._src.graph.py_func import numpy_function
        from tensorlet._src.util import nest

        flat_spec = self._dataset._flat_spec()
        if not self._all_tensors:
            raise errors.UnimplementedError(None, None, "next(iterator) inside tf.function supports datasets of "
                                                        f"dense tensors; this one yields {self._spec}")

        def fetch():
            try:
                return [np.asarray(v) for v in self._next_leaves()]
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None

        flat = numpy_function(fetch, [], [sp.dtype for sp in flat_spec])
        flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
        for t, sp in zip(flat, flat_spec):
            t.set_shape(sp.shape)
        return flat[0] if self._single else nest.pack_sequence_as(self._spec, flat)

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def get_next(self):
        """The next element; raises ``tf.errors.OutOfRangeError`` at the end (TF's behaviour)."""
        try:
            return self.__next__()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        try:
            return Optional.from_value(self.__next__())
        except StopIteration:
            return Optional.empty(self._spec)

    @property
    def _type_spec(self):
        return IteratorSpec(self._spec)

    # --- checkpoint hooks ---------------------------------------------------------------
    def _save_state(self):
        """JSON-able state: elements returned so far + seeds of random nodes (see the module docstring)."""
        return {"format": STATE_FORMAT, "version": 1, "consumed": int(self._consumed),
                "seeds": [list(s) for s in self._seeds_at_start]}

    def _save_state_arrays(self):
        return {}

    def _restore_state(self, state, arrays=None):
        """Resume at the saved position: rebuild the pipeline with the saved seeds and replay."""
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"Not a tensorlet dataset iterator state: {state!r}")
        self._finalizer()
        self._consumed = 0
        self._start([tuple(s) for s in state["seeds"]])
        n = int(state["consumed"])
        gen = self._gen
        for _ in range(n):
            try:
                next(gen)
            except StopIteration:
                break
            self._consumed += 1

    def _close(self):
        self._finalizer()


@tf_export("data.NumpyIterator")
class NumpyIterator:
    """Iterator of NumPy values (``Dataset.as_numpy_iterator()``): arrays, NumPy scalars, ``bytes``."""

    def __init__(self, dataset):
        self._iterator = OwnedIterator(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        it = self._iterator
        leaves = it._next_leaves()
        vals = [_to_numpy(v) for v in leaves]
        if it._single:
            return vals[0]
        return tuple(vals) if it._plain_tuple else S.dpack(it._spec, vals)

    next = __next__

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator!r})"

    def _save_state(self):
        return self._iterator._save_state()

    def _restore_state(self, state, arrays=None):
        self._iterator._restore_state(state, arrays)


def _to_numpy(v):
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return v[()]
        return v.copy()
    return v


@tf_export("data.IteratorSpec")
class IteratorSpec(TypeSpec):
    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)

    @property
    def value_type(self):
        return OwnedIterator

    def __eq__(self, other):
        return isinstance(other, IteratorSpec) and S.dflatten(other._element_spec) == S.dflatten(self._element_spec)

    def __hash__(self):
        return hash(tuple(S.dflatten(self._element_spec)))

    def __repr__(self):
        return f"IteratorSpec({self._element_spec!r})"


def get_single_element(dataset):
    """The one element of ``dataset`` (``InvalidArgumentError`` if it is empty or has more)."""
    from tensorlet._src.data.dataset_ops import DatasetV2

    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    it = OwnedIterator(dataset)
    try:
        first = next(it)
    except StopIteration:
        raise errors.InvalidArgumentError(None, None, "Dataset was empty.") from None
    try:
        next(it)
    except StopIteration:
        return first
    finally:
        it._close()
    raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")


def _noop():
    pass
