"""Map-and-batch fusion: ``map(f).batch(n)`` runs ``f`` once per batch on the stacked elements.

TF rewrites ``map`` followed by ``batch`` into one ``MapAndBatchDataset`` when
``experimental_optimization.map_and_batch_fusion`` is on (its default); tensorlet's fused form calls the
vectorized function (``data/vectorize.py``) on each group of ``n`` input elements, so the batch is built by
one XLA call instead of ``n`` calls and a stack.  Only functions whose vectorized results equal the per-element
ones are fused; a group the vectorized form cannot run (it broke, or an element does not match the input spec)
and the first ``vectorize.MIN_ELEMENTS`` elements run element by element, with map's errors and
``ignore_errors`` exactly as without fusion.  A parallel map's groups run on its worker threads (at most ``2 *
num_parallel_calls`` in flight), in order.

>>> ds = tf.data.Dataset.range(200).map(lambda x: x * 2).batch(64)
>>> [b.shape[0] for b in ds], int(list(ds)[-1][-1])
([64, 64, 64, 8], 398)
"""

from __future__ import annotations

import collections
import itertools
import time

import numpy as np

from tensorlet._src.data import vectorize
from tensorlet._src.framework import errors

__all__ = ["fused_gen"]


def fused_gen(batch_ds, ictx):
    """A generator of ``batch_ds``'s batches computed by the fused form, or None (the unfused path applies)."""
    from tensorlet._src.data.batching import _composite_specs
    from tensorlet._src.data.transformations import _MapDataset

    mds = batch_ds._input
    if not isinstance(mds, _MapDataset) or batch_ds._bs < 2:
        return None
    options = ictx.options if ictx.options is not None else batch_ds.options()
    if not vectorize.map_and_batch_enabled(options) or _composite_specs(mds) is not None:
        return None
    vec = vectorize.vectorized(mds._fn)
    if vec is None:
        return None
    return _fused(batch_ds, mds, vec, ictx, getattr(mds, "_workers", 1))


def _fused(bds, mds, vec, ictx, workers):
    from tensorlet._src.data.batching import stack_batch

    b, drop, fn = bds._bs, bds._drop, mds._fn
    map_id, batch_id = id(mds), id(bds)

    serial = None
    if workers > 1 and vec.counters:  # per-element calls advancing a counter: one at a time (parallel.py)
        from tensorlet._src.data.parallel import _serial_lock

        serial = _serial_lock(fn)

    def run_group(group, use_vec):
        """Either ``(True, stacked outputs)`` or ``(False, [(ok, output or error)] per element)``; ``group``: a
        list of elements, or a tuple of stacked inputs (gathered from an index plan)."""
        stacked = isinstance(group, tuple)
        if use_vec and not vec.broken:
            res = vec.call_stacked(group, size=b) if stacked else vec(group, size=b)
            if res is not None:
                return True, res
        if stacked:
            group = list(zip(*group))
        return False, vectorize.each(fn, group, serial)

    plan = mds._input._index_plan()  # from_tensor_slices (+ shuffle/take/skip/...): gather each group at once

    def groups(inp):
        """``(group, vectorize)`` per ``b`` input elements: a list of elements, or stacked inputs (a plan)."""
        if plan is None:
            parts = iter(lambda: list(itertools.islice(inp, b)), [])
        else:
            parts = (tuple(a[idx] for a in plan.arrays) for idx in _index_groups(plan, ictx, b))
        for group in parts:
            use_vec = vec.ready
            if not use_vec:
                vec.seen += _count(group)
            yield group, use_vec

    def results(inp):
        if workers <= 1:
            for group, use_vec in groups(inp):
                yield _count(group), run_group(group, use_vec)
            return
        yield from _on_workers(groups(inp), run_group, workers, ictx)

    def batch_of(buf):
        try:
            return stack_batch(buf)
        except errors.OpError:
            if batch_id in ictx.ignore:
                return None
            raise

    buf = []  # per-element outputs not yet in a batch
    for n, (stacked, out) in results(None if plan is not None else mds._input._gen(ictx)):
        if stacked and not buf:
            if n == b or not drop:
                yield tuple(out)
            continue
        if stacked:
            out = [(True, leaves) for leaves in vectorize.unstack(out, n)]
        for ok, value in out:
            if not ok:
                if map_id in ictx.ignore and isinstance(value, Exception):
                    continue
                raise value
            buf.append(value)
            if len(buf) == b:
                batch, buf = batch_of(buf), []
                if batch is not None:
                    yield batch
    if buf and not drop:
        batch = batch_of(buf)
        if batch is not None:
            yield batch


def _index_groups(plan, ictx, b):
    """The plan's element indices in groups of ``b`` (the last one shorter)."""
    cur = None
    for c in plan.chunks(ictx):
        cur = c if cur is None or not len(cur) else np.concatenate([cur, c])
        k = 0
        while len(cur) - k >= b:
            yield cur[k:k + b]
            k += b
        cur = cur[k:]
    if cur is not None and len(cur):
        yield cur


def _on_workers(tasks, run, n, ictx):
    """``(len(group), run(group, use_vec))`` for each task of ``tasks``, computed on ``n`` threads, in order.

    Tasks that take under ``INLINE_S`` on average (a cheap function, vectorized) run in the consuming thread
    instead: handing them to a worker and back costs more than they do."""
    from tensorlet._src.data.parallel import WorkerPool

    pool = WorkerPool(n)
    ictx.on_close(pool.shutdown)
    pending = collections.deque()
    cost = [0.0, 0]  # seconds, tasks

    def timed(arg):  # wall time: XLA runs the computation on its own threads while this one waits
        t0 = time.perf_counter()
        out = _call(arg)
        cost[0] += time.perf_counter() - t0
        cost[1] += 1
        return out

    try:
        try:
            for task in tasks:
                if not pending and cost[1] >= 2 * n and cost[0] < INLINE_S * cost[1]:
                    yield _count(task[0]), timed((run, task))
                    continue
                pending.append((_count(task[0]), pool.submit(timed, (run, task))))
                while len(pending) >= 2 * n or (pending and pending[0][1].done()):
                    k, fut = pending.popleft()
                    yield k, fut.result()
        except Exception:  # the input failed: the groups read before it come first
            while pending:
                k, fut = pending.popleft()
                yield k, fut.result()
            raise
        while pending:
            k, fut = pending.popleft()
            yield k, fut.result()
    finally:
        for _, f in pending:
            f.cancel()
        pool.shutdown()


INLINE_S = 3e-4  # a fused map-and-batch group cheaper than this runs in the consuming thread


def _count(group):
    return len(group[0]) if isinstance(group, tuple) else len(group)


def _call(arg):
    run, (group, use_vec) = arg
    return run(group, use_vec)
