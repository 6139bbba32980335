"""``tf.queue.FIFOQueue`` and its kin: bounded, thread-safe queues of tuples of tensors.

Elements are stored as NumPy arrays behind one condition variable: ``enqueue`` blocks while the queue is full,
``dequeue`` while it is empty (or, for RandomShuffleQueue, below ``min_after_dequeue``), ``close`` wakes everyone
with TF's errors (``CancelledError`` for enqueues to a closed queue, ``OutOfRangeError`` when a closed queue has
too few elements).  Inside ``tf.function`` each operation is a stateful host call (``tf.numpy_function``), so a
traced step reads and writes the same queue as eager code and other threads.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import random
import threading

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph import subgraph
from tensorlet._src.graph.py_func import numpy_function

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"]

_ids = itertools.count()


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@tf_export("queue.QueueBase")
class QueueBase:
    """Base class of the queues: a bounded buffer of elements, each a tuple (or dict) of tensors."""

    _kind = "QueueBase"

    def __init__(self, dtypes, shapes, names, capacity, name):
        self._dtypes = [_dt.as_dtype(d) for d in _as_list(dtypes)]
        if shapes is not None:
            shapes = [TensorShape(s) for s in (shapes if isinstance(shapes, (list, tuple)) and (
                not shapes or isinstance(shapes[0], (list, tuple, TensorShape)) or shapes[0] is None)
                else [shapes])]
            if len(shapes) != len(self._dtypes):
                raise ValueError(f"Queue shapes must have the same length as dtypes, got {len(shapes)} and "
                                 f"{len(self._dtypes)}")
        self._shapes = shapes if shapes is not None else [TensorShape(None) for _ in self._dtypes]
        if names is not None:
            names = _as_list(names)
            if len(names) != len(self._dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._capacity = int(capacity) if capacity is not None and capacity >= 0 else None
        self._name = f"_{next(_ids)}_{name}"
        self._cv = threading.Condition()
        self._closed = False
        self._cancelled = False

    # --- properties ---
    name = property(lambda self: self._name)
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))
    names = property(lambda self: self._names)

    @property
    def queue_ref(self):
        return self

    @staticmethod
    def from_list(index, queues):
        """The ``index``-th of ``queues`` (all with the same component dtypes)."""
        if not queues:
            raise ValueError("Expected at least one queue")
        if any(q.dtypes != queues[0].dtypes for q in queues):
            raise TypeError("Queues do not have matching component dtypes.")
        return queues[int(convert_to_tensor(index).numpy())]

    # --- storage (subclasses) ---
    def _len(self):
        return len(self._items)

    def _put(self, item):
        self._items.append(item)

    def _take(self):
        return self._items.popleft()

    def _ready(self, n):
        return self._len() >= n

    # --- element conversion ---
    def _flatten(self, vals):
        if self._names is not None:
            if not isinstance(vals, dict):
                raise ValueError("Queue must have names to enqueue a dictionary" if not self._names else
                                 "Expected a dictionary for a queue with names")
            if set(vals) != set(self._names):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue. Dictionary: "
                                 f"{sorted(vals)}, Queue: {sorted(self._names)}")
            vals = [vals[n] for n in self._names]
        elif isinstance(vals, dict):
            raise ValueError("Queue must have names to enqueue a dictionary")
        vals = _as_list(vals) if not isinstance(vals, (list, tuple)) else list(vals)
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components but got {len(vals)}")
        return vals

    def _arrays(self, vals, many):
        out = []
        for v, d, s in zip(vals, self._dtypes, self._shapes):
            t = v if isinstance(v, np.ndarray) else convert_to_tensor(v, dtype=d).numpy()
            arr = np.asarray(t)
            if _dt.from_numpy(arr.dtype) is not d and not (arr.dtype.kind in "OSU" and d is _dt.string):
                raise errors.InvalidArgumentError(None, "QueueEnqueueV2",
                                                  f"Type mismatch in tuple component: expected {d.name}, got "
                                                  f"{_dt.from_numpy(arr.dtype).name}")
            shape = TensorShape(arr.shape[1:] if many else arr.shape)
            if s.rank is not None and not s.is_compatible_with(shape):
                raise ValueError(f"Shapes {shape} and {s} are incompatible")
            out.append(arr)
        return out

    def _wrap(self, arrays):
        ts = [convert_to_tensor(a, dtype=d) for a, d in zip(arrays, self._dtypes)]
        if self._names is not None:
            return dict(zip(self._names, ts))
        return ts[0] if len(ts) == 1 else ts

    # --- blocking primitives (NumPy in, NumPy out) ---
    def _np_enqueue_many(self, cols):
        n = len(cols[0]) if cols else 0
        with self._cv:
            for i in range(n):
                while self._capacity is not None and self._len() >= self._capacity and not self._closed:
                    self._cv.wait()
                if self._closed:
                    raise errors.CancelledError(None, "QueueEnqueueV2", f"{self._kind} '{self._name}' is closed.")
                self._put(tuple(np.array(c[i]) for c in cols))
                self._cv.notify_all()

    def _np_dequeue(self, n, up_to=False):
        with self._cv:
            while not self._ready(n) and not self._closed:
                self._cv.wait()
            if self._closed:
                avail = self._len()
                if self._cancelled or avail == 0 or (avail < n and not up_to):
                    raise errors.OutOfRangeError(
                        None, "QueueDequeueV2",
                        f"{self._kind} '{self._name}' is closed and has insufficient elements (requested {n}, "
                        f"current size {avail})")
                n = min(n, avail)
            items = [self._take() for _ in range(n)]
            self._cv.notify_all()
        return items

    # --- public operations ---
    def _host(self, fn, inputs, touts):
        """Run ``fn`` now (eager) or as a stateful host call of the traced graph."""
        if not subgraph.is_tracing():
            return fn(*[x.numpy() if isinstance(x, Tensor) else np.asarray(x) for x in inputs])
        return numpy_function(fn, inputs, touts)

    def enqueue(self, vals, name=None):
        """Add one element (a tuple/list of tensors, or a dict for a queue with names); blocks while full."""
        arrays_in = [convert_to_tensor(v, dtype=d) for v, d in zip(self._flatten(vals), self._dtypes)]

        def run(*arrays):
            self._np_enqueue_many([a[None] for a in self._arrays(arrays, False)])
            return None

        return self._host(run, arrays_in, [])

    def enqueue_many(self, vals, name=None):
        """Add the elements given by slicing each component along its first dimension."""
        arrays_in = [convert_to_tensor(v, dtype=d) for v, d in zip(self._flatten(vals), self._dtypes)]

        def run(*arrays):
            cols = self._arrays(arrays, True)
            if len({len(c) for c in cols}) > 1:
                raise errors.InvalidArgumentError(None, "QueueEnqueueManyV2", "All input tensors must have the "
                                                                              "same size in the 0th dimension")
            self._np_enqueue_many(cols)
            return None

        return self._host(run, arrays_in, [])

    def _stack(self, items):
        return [np.stack([it[j] for it in items]) if items else np.zeros((0,), d.as_numpy_dtype)
                for j, d in enumerate(self._dtypes)]

    def _result(self, out, batch):
        if not isinstance(out, (list, tuple)):
            out = [out]
        for t, s in zip(out, self._shapes):
            if s.rank is not None and hasattr(t, "set_shape"):
                t.set_shape(TensorShape([None] if batch == "var" else ([batch] if batch else [])).concatenate(s))
        return self._wrap_tensors(out)

    def _wrap_tensors(self, ts):
        if self._names is not None:
            return dict(zip(self._names, ts))
        return ts[0] if len(ts) == 1 else list(ts)

    def dequeue(self, name=None):
        """Remove and return one element; blocks while empty."""
        def run():
            (item,) = self._np_dequeue(1)
            return list(item)

        if not subgraph.is_tracing():
            return self._wrap(run())
        return self._result(numpy_function(run, [], list(self._dtypes)), None)

    def dequeue_many(self, n, name=None):
        """Remove ``n`` elements, stacked along a new first dimension; blocks until there are ``n``."""
        n = int(convert_to_tensor(n).numpy()) if not isinstance(n, int) else n

        def run():
            return self._stack_items(self._np_dequeue(n))

        if not subgraph.is_tracing():
            return self._wrap(run())
        return self._result(numpy_function(run, [], list(self._dtypes)), n)

    def dequeue_up_to(self, n, name=None):
        """Like ``dequeue_many``, but a closed queue returns the fewer than ``n`` elements it has left."""
        n = int(convert_to_tensor(n).numpy()) if not isinstance(n, int) else n

        def run():
            return self._stack_items(self._np_dequeue(n, up_to=True))

        if not subgraph.is_tracing():
            return self._wrap(run())
        return self._result(numpy_function(run, [], list(self._dtypes)), "var")

    def _stack_items(self, items):
        return self._stack(items)

    def close(self, cancel_pending_enqueues=False, name=None):
        """Close the queue: further enqueues fail; dequeues drain what is left, then fail."""
        with self._cv:
            self._closed = True
            if cancel_pending_enqueues:
                self._cancelled = True
            self._cv.notify_all()

    def is_closed(self, name=None):
        with self._cv:
            return convert_to_tensor(self._closed)

    def size(self, name=None):
        """The number of elements in the queue (an int32 scalar)."""
        if subgraph.is_tracing():
            return numpy_function(lambda: np.int32(self._len()), [], _dt.int32)
        with self._cv:
            return convert_to_tensor(np.int32(self._len()))

    def __repr__(self):
        return f"<tf.queue.{type(self).__name__} '{self._name}' capacity={self._capacity}>"


@tf_export("queue.FIFOQueue")
class FIFOQueue(QueueBase):
    """Elements come out in the order they went in."""

    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        super().__init__(dtypes, shapes, names, capacity, name)
        self._items = collections.deque()


@tf_export("queue.PaddingFIFOQueue")
class PaddingFIFOQueue(FIFOQueue):
    """A FIFO queue whose ``dequeue_many`` pads elements of unknown (``None``) dimensions to the largest."""

    _kind = "PaddingFIFOQueue"

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        if shapes is None:
            raise ValueError("Shapes must be provided.")
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)
        for s in self._shapes:
            if s.rank is None:
                raise ValueError(f"All shapes must have a defined rank; got {s}")
        self._kind = "PaddingFIFOQueue"

    def _stack_items(self, items):
        out = []
        for j, d in enumerate(self._dtypes):
            arrs = [it[j] for it in items]
            if not arrs:
                out.append(np.zeros((0,) + tuple(0 if x is None else x for x in self._shapes[j].as_list()),
                                    d.as_numpy_dtype))
                continue
            dims = np.max(np.array([a.shape for a in arrs]), axis=0) if arrs[0].ndim else ()
            fill = b"" if d is _dt.string else 0
            buf = np.full((len(arrs),) + tuple(dims), fill, dtype=arrs[0].dtype)
            for i, a in enumerate(arrs):
                buf[(i,) + tuple(slice(0, k) for k in a.shape)] = a
            out.append(buf)
        return out


@tf_export("queue.RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """Elements come out in random order; while open, at least ``min_after_dequeue`` stay in the queue."""

    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        super().__init__(dtypes, shapes, names, capacity, name)
        self._min_after = int(min_after_dequeue)
        self._items = []
        self._rng = random.Random(seed)

    def _take(self):
        i = self._rng.randrange(len(self._items))
        self._items[i], self._items[-1] = self._items[-1], self._items[i]
        return self._items.pop()

    def _ready(self, n):
        return self._len() >= n + self._min_after


@tf_export("queue.PriorityQueue")
class PriorityQueue(QueueBase):
    """Elements come out lowest priority first; each element's first component is its int64 priority."""

    _kind = "PriorityQueue"

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = [_dt.int64] + [_dt.as_dtype(t) for t in _as_list(types)]
        if shapes is not None:
            shapes = [TensorShape([])] + [TensorShape(s) for s in shapes]
        super().__init__(types, shapes, None, capacity, name)
        self._items = []
        self._seq = itertools.count()

    def _put(self, item):
        heapq.heappush(self._items, (int(item[0]), next(self._seq), item))

    def _take(self):
        return heapq.heappop(self._items)[2]
