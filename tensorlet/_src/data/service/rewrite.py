"""Per-worker copies of a pipeline for the tf.data service's sharding policies.

``split_sources`` (``DYNAMIC``): every source node (a node without inputs, or one with several: a zip's elements
are split whole, so its components stay paired) is replaced by a reader of a split provider the iteration shares
between its workers, so each source element goes to exactly one worker; a
``repeat(count)`` above a source moves into its provider (the provider serves ``count`` passes), which keeps
TF's element multiset (``count`` copies of each) however the workers take the splits.

``static_shard`` (``FILE`` / ``DATA`` / ``FILE_OR_DATA`` / ``HINT``): worker ``index`` of ``n`` reads the files
``index, index + n, ...`` of every file reader, or the elements ``index, index + n, ...`` of the whole dataset.
"""

from __future__ import annotations

import copy
import threading

from tensorlet._src.data.dataset_ops import UNKNOWN, DatasetV2
from tensorlet._src.data.iterators import IterCtx
from tensorlet._src.data.service.config import ShardingPolicy
from tensorlet._src.data.transformations import RepeatDataset, ShardDataset
from tensorlet._src.framework import errors

__all__ = ["SplitProvider", "split_sources", "static_shard"]


class SplitProvider:
    """Hands out the elements of a source, ``count`` passes over it (-1: forever), one caller at a time."""

    def __init__(self, source, count=1):
        self._source, self._count = source, count
        self._lock = threading.Lock()
        self._ictx = IterCtx(source.options())
        self._gen = None
        self._passes = 0
        self._pass_empty = True
        self._done = False

    def next(self):
        with self._lock:
            while not self._done:
                if self._gen is None:
                    if (self._count != -1 and self._passes >= self._count) or (self._passes and self._pass_empty):
                        self._done = True  # all passes served (or a pass was empty: an empty source repeated)
                        break
                    self._gen = self._source._gen(self._ictx)
                    self._passes += 1
                    self._pass_empty = True
                try:
                    elem = next(self._gen)
                except StopIteration:
                    self._gen = None
                    continue
                self._pass_empty = False
                return elem
            return None

    def close(self):
        with self._lock:
            self._done = True
        self._ictx.close()


class _SplitSourceDataset(DatasetV2):
    """A worker's view of a source: the splits the provider gives this worker."""

    def __init__(self, provider, spec):
        self._provider = provider
        self._set_spec(spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        while not ictx.stop.is_set():
            elem = self._provider.next()
            if elem is None:
                return
            yield elem


def _replace(value, visit):
    """``value`` with every dataset in it (nested in tuples, lists, dicts) replaced by ``visit(dataset)``."""
    if isinstance(value, DatasetV2):
        return visit(value)
    if isinstance(value, (tuple, list)) and any(isinstance(v, (DatasetV2, tuple, list, dict)) for v in value):
        out = [_replace(v, visit) for v in value]
        return type(value)(out) if not hasattr(value, "_fields") else type(value)(*out)
    if isinstance(value, dict) and any(isinstance(v, (DatasetV2, tuple, list, dict)) for v in value.values()):
        return type(value)((k, _replace(v, visit)) for k, v in value.items())
    return value


def _copy_pipeline(dataset, replace_node):
    """A copy of the pipeline: ``replace_node(node, visit)`` returns a replacement or None (copy the node and
    its inputs)."""
    memo: dict = {}
    made: set = set()

    def visit(node):
        key = id(node)
        if key in memo:
            return memo[key]
        new = replace_node(node, visit)
        if new is None:
            new = copy.copy(node)
            for k, v in vars(node).items():
                r = _replace(v, visit)
                if r is not v:
                    new.__dict__[k] = r
            for inp in new._inputs():
                if id(inp) not in made:
                    raise errors.InvalidArgumentError(
                        None, None, f"The tf.data service cannot shard {type(node).__name__}: one of its inputs is "
                                    f"not reachable from its attributes")
        memo[key] = new
        made.add(id(new))
        return new

    return visit(dataset)


def split_sources(dataset, providers):
    """``dataset`` with its sources read from the shared ``providers`` ({(id(source), count): provider})."""

    def replace(node, visit, count=1):
        if isinstance(node, RepeatDataset):
            c = node._count
            inner = -1 if (c == -1 or count == -1) else count * c
            return _copy_pipeline(node._input, lambda n, v: replace(n, v, inner))
        if len(node._inputs()) != 1:  # a source, or a zip/concatenate: its elements are the splits (zip stays aligned)
            key = (id(node), count)
            if key not in providers:
                providers[key] = SplitProvider(node, count)
            return _SplitSourceDataset(providers[key], node.element_spec)
        return None

    return _copy_pipeline(dataset, replace)


def _file_inputs(dataset):
    from tensorlet._src.data.readers import _FilesDataset

    out, seen, stack = [], set(), [dataset]
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        if isinstance(d, _FilesDataset):
            out.append(d._files)
        stack.extend(d._inputs())
    return out


def static_shard(dataset, policy, n, index):
    """Worker ``index`` of ``n``'s part of ``dataset`` under a static sharding ``policy``."""
    if policy is ShardingPolicy.HINT:
        # tensorlet's ``shard`` refuses SHARD_HINT placeholders, so no pipeline has one: TF then shards nothing
        return dataset
    files = _file_inputs(dataset) if policy in (ShardingPolicy.FILE, ShardingPolicy.FILE_OR_DATA) else []
    if files:
        ids = {id(f) for f in files}
        return _copy_pipeline(dataset, lambda node, visit: ShardDataset(node, n, index) if id(node) in ids else None)
    if policy is ShardingPolicy.FILE:
        raise errors.NotFoundError(None, None, f"Failed to get element: Found an unshardable source dataset: "
                                               f"{type(dataset).__name__} reads no files (FILE sharding needs a "
                                               f"TFRecordDataset, TextLineDataset, FixedLengthRecordDataset or "
                                               f"CsvDataset in the pipeline)")
    return ShardDataset(dataset, n, index)
