"""Server-side batching: concurrent requests to one signature are merged into one call.

TF Serving's ``BatchingParameters``: a batch closes when it holds ``max_batch_size`` rows or when its first
request has waited ``batch_timeout_micros``; it is padded up to the next of ``allowed_batch_sizes`` (so the
compiled function sees a handful of shapes and XLA compiles once per size); ``num_batch_threads`` batches run
at once; more than ``max_enqueued_batches`` waiting batches make new requests fail with UNAVAILABLE. Requests
whose non-batch dimensions differ go into different batches.

One departure from TF Serving's scheduler, whose open batch waits for its timeout even when nothing else is on
its way (``IsOpenBatchSchedulable``: full, closed or timed out): given an ``Arrivals`` count of the requests the
server has received for the model and not yet queued, a batch also closes as soon as that count is zero, since no
other request can join it. ``batch_timeout_micros`` stays the longest a request waits; a lone client does not
pay it.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import deque

import numpy as np

from tensorlet._src.serving.errors import INVALID_ARGUMENT, UNAVAILABLE, ServingError


class BatchingOptions:
    def __init__(self, max_batch_size=1000, batch_timeout_micros=0, max_enqueued_batches=100, num_batch_threads=None,
                 allowed_batch_sizes=(), pad_variable_length_inputs=False):
        self.max_batch_size = int(max_batch_size)
        self.batch_timeout_micros = int(batch_timeout_micros)
        self.max_enqueued_batches = int(max_enqueued_batches)
        self.num_batch_threads = int(num_batch_threads or os.cpu_count() or 1)
        self.allowed_batch_sizes = tuple(int(b) for b in allowed_batch_sizes)
        self.pad_variable_length_inputs = bool(pad_variable_length_inputs)
        if self.max_batch_size <= 0:
            raise ValueError("max_batch_size must be positive")
        sizes = self.allowed_batch_sizes
        if sizes:
            if any(b <= a for a, b in zip(sizes, sizes[1:])) or sizes[0] <= 0:
                raise ValueError("allowed_batch_sizes entries must be monotonically increasing")
            if sizes[-1] != self.max_batch_size:
                raise ValueError("final entry in allowed_batch_sizes must equal max_batch_size")

    @classmethod
    def from_proto(cls, p):
        kw = {}
        for f in ("max_batch_size", "batch_timeout_micros", "max_enqueued_batches", "num_batch_threads"):
            if p.HasField(f):
                kw[f] = getattr(p, f).value
        return cls(allowed_batch_sizes=list(p.allowed_batch_sizes),
                   pad_variable_length_inputs=p.pad_variable_length_inputs, **kw)

    def padded(self, n: int) -> int:
        for b in self.allowed_batch_sizes:
            if b >= n:
                return b
        return n


class Arrivals:
    """Requests received for one model that have not reached a batch queue yet (nor finished without one).

    ``enter()`` returns a ticket; ``Batcher.submit`` (or the request's end) calls ``ticket.leave()`` once the
    request is queued, and a count back at zero wakes the model's batchers so an open batch closes at once.
    ``upstream`` counts the requests received whose model is not known yet (a gRPC call whose message is still
    being read): they may be on their way to this model too, so a batch also waits for them, unless every thread
    that carries such requests is busy with one already (``capacity``, ``started``/``finished``): then none of them
    can arrive before a batch ends."""

    def __init__(self, upstream: Arrivals | None = None, capacity: int | None = None):
        self.n = 0
        self.upstream = upstream
        self.capacity = capacity  # threads that carry these requests (None: not bounded)
        self.active = 0  # of those, the ones handling a request
        self._lock = threading.RLock()  # reentrant: a ticket dropped unleft (its ``__del__``) may run anywhere
        self._batchers = weakref.WeakSet()

    def enter(self) -> _Ticket:
        with self._lock:
            self.n += 1
        return _Ticket(self)

    def coming(self) -> int:
        """Requests counted here that can still arrive: none while every thread carrying them is busy."""
        if self.capacity is not None and self.active >= self.capacity:
            return 0
        return self.n

    def idle(self) -> bool:
        """No request on its way: neither to this model nor unrouted."""
        return self.n <= 0 and (self.upstream is None or self.upstream.coming() <= 0)

    def others(self) -> int:
        """Requests on their way besides the caller's own (counted here)."""
        return self.n - 1 + (self.upstream.coming() if self.upstream is not None else 0)

    def started(self):
        """A carrying thread took a request (see ``capacity``); all of them busy wakes the batchers."""
        with self._lock:
            self.active += 1
            full = self.capacity is not None and self.active == self.capacity and self.n > 0
            batchers = list(self._batchers) if full else ()
        for b in batchers:
            b._poke()

    def finished(self):
        with self._lock:
            self.active -= 1

    def _leave(self, ticket):
        with self._lock:
            if ticket._arrivals is None:  # left already (on another thread)
                return
            ticket._arrivals = None
            self.n -= 1
            idle = self.n == 0
            batchers = list(self._batchers) if idle else ()
        for b in batchers:
            b._poke()

    def register(self, batcher):
        with self._lock:
            self._batchers.add(batcher)
        if self.upstream is not None:
            self.upstream.register(batcher)


class _Ticket:
    __slots__ = ("_arrivals",)

    def __init__(self, arrivals):
        self._arrivals = arrivals

    def leave(self):
        a = self._arrivals
        if a is not None:
            a._leave(self)

    def __del__(self):  # a request that ended without leaving (a call cancelled before its handler ran)
        self.leave()

    def batching(self) -> bool:
        """Whether the model has batchers (that wait for the requests counted here)."""
        return self._arrivals is not None and len(self._arrivals._batchers) > 0


class _Task:
    __slots__ = ("arrays", "rows", "key", "done", "result", "error", "t", "loop", "future")

    def __init__(self, arrays, rows, key, loop=None):
        self.arrays, self.rows, self.key = arrays, rows, key
        self.loop = loop  # an asyncio loop to resolve ``future`` on, or None: ``done`` is set
        # a thread's request waits on ``done``, a lock held until its batch has run (the cheapest wakeup there is)
        self.done = _held_lock() if loop is None else None
        self.future = loop.create_future() if loop is not None else None
        self.result = self.error = None
        self.t = time.monotonic()


def _held_lock():
    lock = threading.Lock()
    lock.acquire()
    return lock


def _resolve(tasks):
    for t in tasks:
        if not t.future.done():  # a request cancelled by its timeout has no one waiting
            if t.error is not None:
                t.future.set_exception(t.error)
            else:
                t.future.set_result(t.result)


class Batcher:
    """Batches calls of ``fn(dict of arrays) -> dict of arrays`` whose arrays share dimension 0."""

    def __init__(self, fn, options: BatchingOptions, on_batch=None, arrivals: Arrivals | None = None):
        self.fn = fn
        self.opt = options
        self.on_batch = on_batch  # on_batch(rows, padded_size) for metrics
        self.arrivals = arrivals
        if arrivals is not None:
            arrivals.register(self)
        self._queue: deque[_Task] = deque()
        self._rows = 0
        self._busy = 0  # batches running (on the batch threads or a caller's, see ``run_alone``)
        self._collecting = 0  # workers holding an open batch (waiting for it to fill)
        self._cv = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._worker, name=f"batch-{i}", daemon=True)
                         for i in range(self.opt.num_batch_threads)]
        for t in self._threads:
            t.start()

    def submit(self, arrays: dict, ticket=None) -> dict:
        """Run ``arrays`` in a batch; blocks until its rows of the outputs are ready."""
        task = self.run_alone(arrays, ticket)
        if task is None:
            task = self._enqueue(arrays, ticket, None)
            task.done.acquire()
        if task.error is not None:
            raise task.error
        return task.result

    def run_alone(self, arrays: dict, ticket):
        """Run a request's batch on the calling thread when it would be dispatched alone at once anyway: nothing
        queued, no other request on its way (``ticket`` is this one's own arrival) and a batch thread's share
        free. Returns the finished task, or None (then submit it)."""
        if ticket is None or self.arrivals is None or self.arrivals.others() > 0:
            return None
        with self._cv:
            if self._queue or self._closed or self._busy >= self.opt.num_batch_threads:
                return None
            self._busy += 1
        try:
            task = self._task(arrays, None)
            ticket.leave()
            self._run([task])
            return task
        finally:
            self._release_share()

    def submit_async(self, arrays: dict, loop, ticket=None):
        """Like ``submit`` from a coroutine: returns an asyncio future of ``loop`` (no thread waits on it)."""
        return self._enqueue(arrays, ticket, loop).future

    def _task(self, arrays, loop):
        rows = {a.shape[0] if a.ndim else -1 for a in arrays.values()}
        if len(rows) != 1 or -1 in rows:
            raise ServingError(INVALID_ARGUMENT, "Batching session Run() input tensors must have equal 0th-dimension "
                                                 "size")
        n = rows.pop()
        if n > self.opt.max_batch_size:
            raise ServingError(INVALID_ARGUMENT, f"Task size {n} is larger than maximum input batch size "
                                                 f"{self.opt.max_batch_size}")
        key = tuple((k, a.dtype.str, a.shape[1:]) for k, a in sorted(arrays.items()))
        return _Task(arrays, n, key, loop)

    def _enqueue(self, arrays, ticket, loop):
        task = self._task(arrays, loop)
        n = task.rows
        with self._cv:
            if self._closed:
                raise ServingError(UNAVAILABLE, "Servable is being unloaded")
            enqueued = -(-(self._rows + n) // self.opt.max_batch_size)
            if enqueued > self.opt.max_enqueued_batches:
                raise ServingError(UNAVAILABLE, "The batch scheduling queue to which this task was submitted is full")
            self._queue.append(task)
            self._rows += n
            # wake a worker to open a batch; one holding an open batch already wakes by itself when the batch may
            # be full, at its timeout, or when no request is on its way (``_poke``), not at every request
            if not self._collecting or self._rows >= self.opt.max_batch_size:
                self._cv.notify()
        if ticket is not None:
            ticket.leave()  # queued: no longer on its way (a count back at zero pokes the workers)
        return task

    def _poke(self):
        with self._cv:
            if self._queue:  # only a worker holding an open batch waits for the arrivals (waking idle ones costs)
                self._cv.notify_all()

    def _release_share(self):
        with self._cv:
            self._busy -= 1
            if self._queue:  # a worker may be waiting for a batch thread's share
                self._cv.notify_all()

    def _take(self):
        """Wait for a batch: the oldest task plus compatible ones, until full or its timeout passes."""
        timeout = self.opt.batch_timeout_micros / 1e6
        with self._cv:
            while True:
                while (not self._queue or self._busy >= self.opt.num_batch_threads) and not self._closed:
                    self._cv.wait()
                if not self._queue:
                    return None
                first = self._queue[0]
                deadline = first.t + timeout
                self._collecting += 1
                try:
                    while True:
                        batch, rows = [], 0
                        for t in self._queue:
                            if t.key == first.key and rows + t.rows <= self.opt.max_batch_size:
                                batch.append(t)
                                rows += t.rows
                        now = time.monotonic()
                        if (rows >= self.opt.max_batch_size or now >= deadline or self._closed
                                or (self.arrivals is not None and self.arrivals.idle())):
                            break
                        self._cv.wait(deadline - now)
                        if not self._queue or self._queue[0] is not first:
                            break
                finally:
                    self._collecting -= 1
                if not self._queue or self._queue[0] is not first:
                    continue  # another worker took it
                for t in batch:
                    self._queue.remove(t)
                self._rows -= rows
                self._busy += 1
                return batch

    def _worker(self):
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                self._run(batch)
            finally:
                self._release_share()

    def _run(self, batch):
        rows = sum(t.rows for t in batch)
        size = self.opt.padded(rows)
        try:
            names = list(batch[0].arrays)
            merged = {}
            for k in names:
                parts = [t.arrays[k] for t in batch]
                if size > rows:  # pad by repeating the last row so values stay in the model's domain
                    last = parts[-1][-1:]
                    parts.append(np.repeat(last, size - rows, axis=0))
                merged[k] = parts[0] if len(parts) == 1 else np.concatenate(parts)
            out = self.fn(merged)
            for k, v in out.items():
                if v.ndim == 0 or v.shape[0] != size:
                    raise ServingError(INVALID_ARGUMENT, f"Batched output tensor {k} has 0th dimension "
                                                         f"{v.shape[0] if v.ndim else 'none'}, expected {size}")
            if self.on_batch is not None:
                self.on_batch(rows, size)
            start = 0
            for t in batch:
                t.result = {k: v[start:start + t.rows] for k, v in out.items()}
                start += t.rows
        except ServingError as e:
            for t in batch:
                t.error = e
        except Exception as e:
            from tensorlet._src.serving.errors import from_exception

            for t in batch:
                t.error = from_exception(e)
        finally:
            loops = {}
            for t in batch:
                if t.loop is None:
                    t.done.release()
                else:
                    loops.setdefault(t.loop, []).append(t)
            for loop, tasks in loops.items():  # one wakeup per event loop, not one per request
                try:
                    loop.call_soon_threadsafe(_resolve, tasks)
                except RuntimeError:  # the loop is closed: the server is going away
                    pass

    def close(self):
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        for t in self._threads:
            t.join(timeout=10)
