"""The work of the in-process tf.data service: registered datasets, iterations (a job's epoch), their tasks (one
producer thread per worker) and the three ways readers take elements from tasks, as in TF:

* first come, first served (the default): every element goes to exactly one reader of the iteration;
* cross-trainer cache: every ``trainer_id`` reads the whole sequence from a per-task sliding cache;
* coordinated (round-robin) reads: in round ``r`` every reader reads from the same task, reader ``i`` taking the
  ``i``-th of the ``num_consumers`` elements that task produced for the round.

A task's pipeline depends on the sharding policy: the registered dataset itself (``OFF``), a copy whose sources
read splits the iteration hands out (``DYNAMIC``, ``rewrite.py``), or a static shard of it (``FILE``, ``DATA``,
``FILE_OR_DATA``, ``HINT``).
"""

from __future__ import annotations

import atexit
import collections
import threading
import weakref

from tensorlet._src.data.dataset_ops import INFINITE
from tensorlet._src.data.iterators import IterCtx
from tensorlet._src.data.service import rewrite
from tensorlet._src.data.service.config import ShardingPolicy
from tensorlet._src.framework import errors

__all__ = ["RegisteredDataset", "Iteration", "Reader"]

CAP = 16  # elements a task produces ahead of its readers
CACHE_WINDOW = 1024  # elements a cross-trainer cache keeps per task (TF bounds it by bytes)
_POLL = 0.1
_WAIT = object()
_tasks: weakref.WeakSet = weakref.WeakSet()


def _stop_tasks_at_exit():
    live = list(_tasks)
    for t in live:
        t.cancel()
    for t in live:
        if t.thread is not None and t.thread.is_alive() and t.thread is not threading.current_thread():
            t.thread.join(2.0)


atexit.register(_stop_tasks_at_exit)


class RegisteredDataset:
    """A dataset the dispatcher knows by id."""

    def __init__(self, dataset_id, dataset, compression):
        self.dataset_id = dataset_id
        self.dataset = dataset
        self.element_spec = dataset.element_spec
        self.compression = compression

    @property
    def cardinality(self) -> int:
        return self.dataset._card()


class Task:
    """One worker's share of an iteration: a thread running ``pipeline`` into a bounded buffer."""

    def __init__(self, iteration, worker, pipeline, shard=None, error=None):
        self.iteration, self.worker, self.pipeline, self.shard = iteration, worker, pipeline, shard
        self.buf = collections.deque()
        self.base = 0  # index (in the task's output) of buf[0]
        self.produced = 0
        self.max_round = 0  # round-robin: the highest local round a reader asked for
        self.fetched = collections.Counter()  # round-robin: local round -> readers served
        self.error, self.sticky = error, error is not None  # sticky: the task could not start
        self.done = error is not None
        self.lost = self.cancelled = False
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self._run, name=f"tensorlet-data-service-{self.worker._address}",
                                       daemon=True)
        _tasks.add(self)
        self.thread.start()

    def cancel(self):
        self.cancelled = True

    def _run(self):
        it, cond = self.iteration, self.iteration.cond
        ictx = IterCtx(it.reg.dataset.options())
        gen = None
        try:
            gen = self.pipeline._gen(ictx)
            while True:
                with cond:
                    while not self.cancelled and not it.wants_more(self):
                        cond.wait(0.5)
                    if self.cancelled:
                        return
                try:
                    elem = next(gen)
                except StopIteration:
                    return
                with cond:
                    if self.cancelled:
                        return
                    self.buf.append(elem)
                    self.produced += 1
                    if it.ctc and len(self.buf) > CACHE_WINDOW:
                        self.buf.popleft()
                        self.base += 1
                    cond.notify_all()
        except Exception as e:  # noqa: BLE001 - forwarded to the readers, raised there
            with cond:
                self.error = e
        finally:
            ictx.close()
            try:
                getattr(gen, "close", lambda: None)()
            except (ValueError, RuntimeError):
                pass
            with cond:
                self.done = True
                cond.notify_all()


class Reader:
    """One iterator reading an iteration."""

    def __init__(self, iteration, trainer_id=None, consumer_index=None):
        self.iteration, self.trainer_id, self.consumer_index = iteration, trainer_id, consumer_index
        self.next_task = 0
        self.round = 0
        self.closed = False

    def close(self):
        if not self.closed:
            self.closed = True
            self.iteration.reader_left(self)


class Iteration:
    """One epoch of a job: its tasks, its split providers (``DYNAMIC``) and its readers' positions."""

    def __init__(self, dispatcher, reg, policy, job_name, num_consumers, ctc):
        self.dispatcher, self.reg, self.policy, self.job_name = dispatcher, reg, policy, job_name
        self.num_consumers, self.ctc = num_consumers, ctc
        self.cond = threading.Condition()
        self.tasks: list = []
        self.closed = None  # the reason, once closed
        self.providers: dict = {}  # DYNAMIC: (id(source), repeats) -> SplitProvider
        self.cursors: dict = {}  # cross-trainer cache: trainer_id -> {id(task): next index}
        self.readers = 0
        self.static = policy not in (ShardingPolicy.OFF, ShardingPolicy.DYNAMIC)

    @staticmethod
    def mismatch(job_name, policy, num_consumers, reg, new_policy, new_consumers):
        """A named job is found by name alone (a reader of another dataset joins it, as in TF); its processing
        mode and reader coordination must match."""
        raise errors.InvalidArgumentError(
            None, "MakeIterator", f"Failed to get or create job for dataset with id {reg.dataset_id}: Tried to "
                                  f"create job with name {job_name}, but found an existing job with different "
                                  f"parameters: Existing processing mode: {policy.name}, num_consumers: "
                                  f"{num_consumers}; got {new_policy.name}, num_consumers: {new_consumers}.")

    # --- workers -------------------------------------------------------------------------------------------
    def add_worker(self, worker):
        with self.cond:
            if self.closed is not None or any(t.worker is worker for t in self.tasks):
                return
            live = [t for t in self.tasks if not t.lost]
            if live and self._finished(live):
                return
            try:
                pipeline, shard = self._pipeline_for(worker)
            except errors.OpError as e:
                self.tasks.append(Task(self, worker, None, error=e))
                self.cond.notify_all()
                return
            task = Task(self, worker, pipeline, shard)
            self.tasks.append(task)
        task.start()

    def _pipeline_for(self, worker):
        ds, policy = self.reg.dataset, self.policy
        if policy is ShardingPolicy.OFF:
            return ds, None
        if policy is ShardingPolicy.DYNAMIC:
            return rewrite.split_sources(ds, self.providers), None
        workers = self.dispatcher._worker_list or []
        if worker._address not in workers:
            raise errors.NotFoundError(
                None, None, f"Failed to get or create iteration for job {self.job_name or '(anonymous)'}: Failed to "
                            f"shard dataset in tf.data service: Worker {worker._address} is not in the workers "
                            f"list. Got workers list {','.join(workers)}.")
        index = workers.index(worker._address)
        return rewrite.static_shard(ds, policy, len(workers), index), index

    def lose_worker(self, worker):
        with self.cond:
            for t in self.tasks:
                if t.worker is worker and not t.lost:
                    t.cancel()
                    t.lost = True
                    t.buf.clear()
            self.cond.notify_all()

    def close(self, reason):
        with self.cond:
            if self.closed is None:
                self.closed = reason
            for t in self.tasks:
                t.cancel()
            providers, self.providers = list(self.providers.values()), {}
            self.cond.notify_all()
        for p in providers:
            p.close()

    # --- readers -------------------------------------------------------------------------------------------
    def reader(self, trainer_id=None, consumer_index=None):
        with self.cond:
            self.readers += 1
        return Reader(self, trainer_id, consumer_index)

    def reader_left(self, reader):
        with self.cond:
            self.readers -= 1
            last = self.readers == 0
        if last and self.job_name is None:
            self.close("the iteration ended")
            self.dispatcher._release(self)

    def wants_more(self, task) -> bool:
        """Called by the task thread under ``cond``: should it produce its next element now?"""
        if self.num_consumers is not None:
            return task.produced < (task.max_round + 2) * self.num_consumers
        if self.ctc:
            ahead = max((c.get(id(task), task.base) for c in self.cursors.values()), default=task.base)
            return task.produced < max(ahead, task.base) + CAP
        return len(task.buf) < CAP

    def get_next(self, reader, stop):
        """The reader's next element (a flat tuple), or None at the end of the iteration."""
        with self.cond:
            while True:
                if self.closed is not None:
                    raise errors.UnavailableError(None, None, f"tf.data service: {self.closed}")
                if stop.is_set():
                    return None
                if self.num_consumers is not None:
                    out = self._next_round_robin(reader)
                elif self.ctc:
                    out = self._next_cached(reader)
                else:
                    out = self._next_shared(reader)
                if out is not _WAIT:
                    return out
                self.cond.wait(_POLL)

    def _live(self):
        return [t for t in self.tasks if not t.lost]

    def _finished(self, live):
        if not live:
            return False
        if self.static:
            done = {t.shard for t in live if t.done and not t.buf and t.error is None}
            return len(done) == len(self.dispatcher._worker_list or ())
        return all(t.done and not t.buf and t.error is None for t in live)

    def _raise_errors(self, live, empty):
        for t in live:
            if t.error is not None and empty(t):
                e = t.error
                if not t.sticky:
                    t.error = None
                raise e

    def _next_shared(self, reader):
        live = self._live()
        n = len(live)
        for k in range(n):
            t = live[(reader.next_task + k) % n]
            if t.buf:
                reader.next_task = (reader.next_task + k + 1) % n
                t.base += 1
                self.cond.notify_all()
                return t.buf.popleft()
        self._raise_errors(live, lambda t: not t.buf)
        return None if self._finished(live) else _WAIT

    def _next_cached(self, reader):
        live = self._live()
        cur = self.cursors.setdefault(reader.trainer_id, {})
        n = len(live)
        for k in range(n):
            t = live[(reader.next_task + k) % n]
            c = max(cur.get(id(t), t.base), t.base)
            if c < t.base + len(t.buf):
                cur[id(t)] = c + 1
                reader.next_task = (reader.next_task + k + 1) % n
                self.cond.notify_all()
                return t.buf[c - t.base]
        self._raise_errors(live, lambda t: max(cur.get(id(t), t.base), t.base) >= t.base + len(t.buf))
        return None if live and all(t.done for t in live) else _WAIT

    def _next_round_robin(self, reader):
        card = self.reg.cardinality
        live = self._live()
        if not live:
            return _WAIT
        nc, ci = self.num_consumers, reader.consumer_index
        t = live[reader.round % len(live)]
        if card != INFINITE:
            raise errors.FailedPreconditionError(
                None, None, f"Failed to get element from worker {t.worker._address}: Failed to get an element, "
                            f"with a nonretryable error: Failed to get element: Round robin reads require that the "
                            f"input dataset has infinite cardinality, but the dataset has cardinality {card}. "
                            f"Consider adding a `.repeat()` transformation to the dataset.")
        local = reader.round // len(live)
        idx = local * nc + ci
        if local > t.max_round:
            t.max_round = local
            self.cond.notify_all()
        if t.base <= idx < t.base + len(t.buf):
            elem = t.buf[idx - t.base]
            reader.round += 1
            t.fetched[local] += 1
            while len(t.buf) >= nc and t.fetched[t.base // nc] >= nc:  # a round every reader has read
                del t.fetched[t.base // nc]
                for _ in range(nc):
                    t.buf.popleft()
                t.base += nc
            self.cond.notify_all()
            return elem
        self._raise_errors([t], lambda t: True)
        return None if t.done else _WAIT
