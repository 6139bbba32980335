"""Server-side batching: concurrent requests to one signature are merged into one call.

TF Serving's ``BatchingParameters``: a batch closes when it holds ``max_batch_size`` rows or when its first
request has waited ``batch_timeout_micros``; it is padded up to the next of ``allowed_batch_sizes`` (so the
compiled function sees a handful of shapes and XLA compiles once per size); ``num_batch_threads`` batches run
at once; more than ``max_enqueued_batches`` waiting batches make new requests fail with UNAVAILABLE. Requests
whose non-batch dimensions differ go into different batches.
"""

from __future__ import annotations

import os
import threading
import time
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


class _Task:
    __slots__ = ("arrays", "rows", "key", "done", "result", "error", "t")

    def __init__(self, arrays, rows, key):
        self.arrays, self.rows, self.key = arrays, rows, key
        self.done = threading.Event()
        self.result = self.error = None
        self.t = time.monotonic()


class Batcher:
    """Batches calls of ``fn(dict of arrays) -> dict of arrays`` whose arrays share dimension 0."""

    def __init__(self, fn, options: BatchingOptions, on_batch=None):
        self.fn = fn
        self.opt = options
        self.on_batch = on_batch  # on_batch(rows, padded_size) for metrics
        self._queue: deque[_Task] = deque()
        self._rows = 0
        self._cv = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._worker, name=f"batch-{i}", daemon=True)
                         for i in range(self.opt.num_batch_threads)]
        for t in self._threads:
            t.start()

    def submit(self, arrays: dict) -> dict:
        rows = {a.shape[0] if a.ndim else -1 for a in arrays.values()}
        if len(rows) != 1 or -1 in rows:
            raise ServingError(INVALID_ARGUMENT, "Batching session Run() input tensors must have equal 0th-dimension "
                                                 "size")
        n = rows.pop()
        if n > self.opt.max_batch_size:
            raise ServingError(INVALID_ARGUMENT, f"Task size {n} is larger than maximum input batch size "
                                                 f"{self.opt.max_batch_size}")
        key = tuple((k, a.dtype.str, a.shape[1:]) for k, a in sorted(arrays.items()))
        task = _Task(arrays, n, key)
        with self._cv:
            if self._closed:
                raise ServingError(UNAVAILABLE, "Servable is being unloaded")
            enqueued = -(-(self._rows + n) // self.opt.max_batch_size)
            if enqueued > self.opt.max_enqueued_batches:
                raise ServingError(UNAVAILABLE, "The batch scheduling queue to which this task was submitted is full")
            self._queue.append(task)
            self._rows += n
            self._cv.notify()
        task.done.wait()
        if task.error is not None:
            raise task.error
        return task.result

    def _take(self):
        """Wait for a batch: the oldest task plus compatible ones, until full or its timeout passes."""
        timeout = self.opt.batch_timeout_micros / 1e6
        with self._cv:
            while True:
                while not self._queue and not self._closed:
                    self._cv.wait()
                if not self._queue:
                    return None
                first = self._queue[0]
                deadline = first.t + timeout
                while True:
                    batch, rows = [], 0
                    for t in self._queue:
                        if t.key == first.key and rows + t.rows <= self.opt.max_batch_size:
                            batch.append(t)
                            rows += t.rows
                    now = time.monotonic()
                    if rows >= self.opt.max_batch_size or now >= deadline or self._closed:
                        break
                    self._cv.wait(deadline - now)
                    if not self._queue or self._queue[0] is not first:
                        break
                if not self._queue or self._queue[0] is not first:
                    continue  # another worker took it
                for t in batch:
                    self._queue.remove(t)
                self._rows -= rows
                return batch

    def _worker(self):
        while True:
            batch = self._take()
            if batch is None:
                return
            self._run(batch)

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
            for t in batch:
                t.done.set()

    def close(self):
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        for t in self._threads:
            t.join(timeout=10)
