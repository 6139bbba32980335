"""Worker threads: ``prefetch``, parallel ``map`` and parallel ``interleave``.

NumPy kernels and compiled (XLA) calls release the GIL, so a heavy map function scales across threads.  Memory
is bounded: ``prefetch(n)`` holds at most ``n`` produced elements, a parallel map at most ``2 *
num_parallel_calls`` tasks in flight (a task: one element, or up to ``CHUNK_MAX`` when the function is cheap).
Threads are daemons that never reference the user's iterator; they stop when the iterator is exhausted, closed,
or garbage collected (its ``IterCtx`` runs their cleanups).

>>> ds = tf.data.Dataset.range(8).map(lambda x: x * x, num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)
>>> [int(x) for x in ds][:4]
[0, 1, 4, 9]
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures as cf
import queue
import threading
import time
import weakref

from tensorlet._src.data.dataset_ops import AUTOTUNE, static_int
from tensorlet._src.data.transformations import UnaryDataset, _InterleaveDataset, _MapDataset, num_workers
from tensorlet._src.data import vectorize as _vectorize
from tensorlet._src.data.vectorize import rewrites_enabled, unstack, vectorized
from tensorlet._src.framework import errors

__all__ = ["PrefetchDataset", "ParallelMapDataset", "ParallelInterleaveDataset", "background", "AUTOTUNE_PREFETCH"]

AUTOTUNE_PREFETCH = 4  # elements buffered by prefetch(AUTOTUNE)
# Live workers, stopped and joined at interpreter exit: a daemon thread killed in the middle of an XLA call
# aborts the process ("terminate called ...") instead of exiting cleanly.
_threads: weakref.WeakSet = weakref.WeakSet()
_stops: weakref.WeakSet = weakref.WeakSet()
_pools: weakref.WeakSet = weakref.WeakSet()


def _stop_workers_at_exit():
    for ev in list(_stops):
        ev.set()
    for pool in list(_pools):
        pool.shutdown()
    deadline = time.monotonic() + 10.0
    for t in list(_threads):
        if t.is_alive() and t is not threading.current_thread():
            t.join(max(0.0, deadline - time.monotonic()))


atexit.register(_stop_workers_at_exit)
_POLL = 0.1  # seconds between stop checks of blocked workers
_ITEM, _END, _ERR = 0, 1, 2


def background(gen, size, ictx, name="tensorlet-data-prefetch"):
    """Run generator ``gen`` in a daemon thread, buffering up to ``size`` items; yields them in order."""
    q = queue.Queue(maxsize=max(1, size))
    stop = threading.Event()

    def put(item):
        while not stop.is_set() and not ictx.stop.is_set():
            try:
                q.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def worker():
        try:
            for item in gen:
                if not put((_ITEM, item)):
                    return
            put((_END, None))
        except BaseException as e:  # forwarded to the consumer, raised there in order
            put((_ERR, e))
        finally:
            try:
                getattr(gen, "close", _noop)()
            except (ValueError, RuntimeError):
                pass

    t = threading.Thread(target=worker, name=name, daemon=True)
    _threads.add(t)
    _stops.add(stop)

    def cleanup():
        stop.set()

    ictx.on_close(cleanup)
    t.start()
    try:
        while True:
            try:
                kind, item = q.get(timeout=_POLL)
            except queue.Empty:
                if stop.is_set() or ictx.stop.is_set():
                    return
                if not t.is_alive() and q.empty():
                    return
                continue
            if kind == _ITEM:
                yield item
            elif kind == _END:
                return
            else:
                raise item
    finally:
        stop.set()


class PrefetchDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size, name=None):
        super().__init__(input_dataset, name)
        b = static_int(buffer_size, "buffer_size")
        if b < -1:
            raise errors.InvalidArgumentError(None, "PrefetchDataset", "buffer_size must be >= -1 "
                                                                       "(-1 is AUTOTUNE), got " f"{b}")
        self._buffer = AUTOTUNE_PREFETCH if b == AUTOTUNE else b
        self._set_spec(input_dataset.element_spec)

    def _gen(self, ictx):
        if self._buffer == 0:
            return self._input._gen(ictx)
        return background(self._input._gen(ictx), self._buffer, ictx)


PrefetchDataset.__name__ = PrefetchDataset.__qualname__ = "_PrefetchDataset"


class WorkerPool:
    """``n`` daemon threads running submitted calls; results are ``concurrent.futures.Future``s."""

    def __init__(self, n, name="tensorlet-data-map"):
        self._tasks = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._run, args=(self._tasks,), name=name, daemon=True)
                         for _ in range(n)]
        for t in self._threads:
            _threads.add(t)
            t.start()
        _pools.add(self)

    @staticmethod
    def _run(tasks):
        while True:
            item = tasks.get()
            if item is None:
                return
            fut, fn, arg = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(arg))
            except BaseException as e:
                fut.set_exception(e)

    def submit(self, fn, arg):
        fut = cf.Future()
        self._tasks.put((fut, fn, arg))
        return fut

    def shutdown(self):
        for _ in self._threads:
            self._tasks.put(None)


def _deterministic(ds, deterministic):
    if deterministic is not None:
        return bool(deterministic)
    d = ds.options().deterministic
    return True if d is None else bool(d)


class ParallelMapDataset(_MapDataset):
    def __init__(self, input_dataset, map_func, num_parallel_calls, deterministic=None, name=None):
        super().__init__(input_dataset, map_func, num_parallel_calls, deterministic, name)
        self._workers = num_workers(num_parallel_calls)

    def _gen(self, ictx):
        n = self._workers
        if n <= 1:
            return _MapDataset._gen(self, ictx)
        return self._gen_parallel(ictx, n)

    def _gen_parallel(self, ictx, n):
        """Elements go to the workers in chunks (one task runs the function on a few consecutive elements), sized
        so that a task takes about ``CHUNK_S`` seconds: a cheap function then pays the hand-over (a future, two
        queue operations, a wake-up: main-thread Python time, holding the GIL) once per chunk instead of once per
        element.  Each element's result or error is kept and yielded in order; at most ``2 * n`` tasks are in
        flight, and a chunk starts as soon as its elements are read (chunks are 1 element until the function's
        cost is known).  A function ``data/vectorize.py`` can run over stacked elements does so once it has run
        on ``MIN_ELEMENTS`` elements: a chunk of ``VEC_CHUNK`` elements is then one XLA call (its Python
        overhead, which holds the GIL, paid once per chunk; XLA's batched loops use the cores better)."""
        fn = self._fn
        me = id(self)
        det = _deterministic(self, self._deterministic)
        pool = WorkerPool(n)
        ictx.on_close(pool.shutdown)
        cap = 2 * n
        pending = collections.deque()
        inp = self._input._gen(ictx)
        exhausted = False
        timing = [0.0, 0]  # seconds spent in the function, elements: the chunk size follows the function's cost
        vec = _vectorized(self, ictx)
        use_vec = vec is not None and vec.ready
        size = VEC_CHUNK if use_vec else 1
        # A function writing variables (stateful random ops advance a counter) runs one call at a time: two
        # workers reading the counter before either writes it back would draw the same numbers.
        concrete = fn._concrete
        serial = _serial_lock(fn) if concrete is not None and concrete.graph.var_final else None

        def run_chunk(task):
            chunk, vectorize = task
            if vectorize and not vec.broken:
                res = vec(chunk, size=VEC_CHUNK)
                if res is not None:
                    return [(True, leaves) for leaves in unstack(res, len(chunk))]
            t0 = time.perf_counter()
            out = _vectorize.each(fn, chunk, serial)
            timing[0] += time.perf_counter() - t0
            timing[1] += len(chunk)
            return out

        try:
            while True:
                while not exhausted and len(pending) < cap:
                    chunk = []
                    while len(chunk) < size:
                        try:
                            chunk.append(next(inp))
                        except StopIteration:
                            exhausted = True
                            break
                    if not chunk:
                        break
                    pending.append(pool.submit(run_chunk, (chunk, use_vec)))
                if not pending:
                    return
                if det:
                    fut = pending.popleft()
                else:
                    done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                    fut = next(f for f in pending if f in done)
                    pending.remove(fut)
                for ok, out in fut.result():
                    if not ok:
                        if me in ictx.ignore and isinstance(out, Exception):
                            continue
                        raise out
                    yield out
                if use_vec:
                    size = VEC_CHUNK
                elif vec is not None and vec.seen + timing[1] >= _vectorize.MIN_ELEMENTS:
                    use_vec, size = True, VEC_CHUNK
                elif timing[1] >= 2 * n:
                    per = timing[0] / timing[1]
                    size = max(1, min(CHUNK_MAX, int(CHUNK_S / per) if per > 0 else CHUNK_MAX))
        finally:
            if vec is not None and not use_vec:
                vec.seen += timing[1]
            for f in pending:
                f.cancel()
            pool.shutdown()


CHUNK_S = 1e-3  # a parallel map's task runs its function on elements for about this long ...
CHUNK_MAX = 16  # ... on at most this many elements
VEC_CHUNK = 16  # elements per call of a vectorized function (data/vectorize.py; a short chunk is padded)


def _serial_lock(fn):
    lock = fn.__dict__.get("_serial")
    if lock is None:
        lock = fn.__dict__.setdefault("_serial", threading.Lock())
    return lock


def _vectorized(ds, ictx):
    """The vectorized form of a parallel map's function, where TF's default rewrites are allowed."""
    options = ictx.options if ictx.options is not None else ds.options()
    if not rewrites_enabled(options):
        return None
    return vectorized(ds._fn)


ParallelMapDataset.__name__ = ParallelMapDataset.__qualname__ = "_ParallelMapDataset"


class ParallelInterleaveDataset(_InterleaveDataset):
    """Interleave whose open inputs each produce in a background thread (same order as ``interleave``)."""

    def __init__(self, input_dataset, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                 deterministic=None, name=None):
        super().__init__(input_dataset, map_func, cycle_length, block_length, name)
        self._workers = num_workers(num_parallel_calls)

    def _open(self, leaves, ictx):
        gen = super()._open(leaves, ictx)
        if self._workers <= 1:
            return gen
        return background(gen, max(2, self._block), ictx, name="tensorlet-data-interleave")


ParallelInterleaveDataset.__name__ = ParallelInterleaveDataset.__qualname__ = "_ParallelInterleaveDataset"


def _noop():
    pass
