"""``Dataset.save`` / ``Dataset.load`` (TF's snapshot format, ``snapshot.py``) and ``Dataset.cache``.

``save`` writes what TF 2.21 writes (``dataset_spec.pb``, ``snapshot.metadata``, TFRecord shards of TensorProtos),
so TF loads tensorlet's saved datasets and tensorlet loads TF's.  ``cache(filename)`` stores its first complete
pass in the same format in ``filename + ".tlcache"`` and reads it on later passes (and in later programs).
Directories written by earlier tensorlet versions (``dataset_spec.json`` + npz shards) are refused with a clear
error: that private format is no longer read.

>>> ds = tf.data.Dataset.range(3); ds.save("/tmp/r3"); [int(x) for x in tf.data.Dataset.load("/tmp/r3")]
[0, 1, 2]
"""

from __future__ import annotations

import os
import threading

from tensorlet._src.data import snapshot as _snap
from tensorlet._src.data.dataset_ops import DatasetV2, to_leaf
from tensorlet._src.data.transformations import UnaryDataset
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import tf_export

__all__ = ["save", "load", "CacheDataset"]

LEGACY_SPEC_FILE = "dataset_spec.json"


def _open(path, element_spec=None, compression=None):
    if _snap.is_snapshot(path):
        return _snap.Snapshot(path, element_spec, compression)
    if os.path.isfile(os.path.join(path, LEGACY_SPEC_FILE)):
        raise errors.DataLossError(None, None, f"{path} was saved by an earlier tensorlet in its private format "
                                   "(dataset_spec.json), which is no longer read; save the dataset again")
    raise errors.NotFoundError(None, None, f"Could not find metadata file [{path}]")


# --- public API --------------------------------------------------------------------------------------

def save(dataset, path, compression=None, shard_func=None):
    from tensorlet._src.data.functions import DataFunction
    from tensorlet._src.data.iterators import IterCtx

    path = os.fspath(path)
    fn = None
    if shard_func is not None:
        df = DataFunction(shard_func, dataset.element_spec, "shard_func")

        def fn(leaves):
            return int(to_leaf(df.call_structured(leaves)))
    ictx = IterCtx()
    try:
        _snap.write(path, dataset.element_spec, dataset._gen(ictx), compression, fn)
    finally:
        ictx.close()


class LoadDataset(DatasetV2):
    def __init__(self, path, element_spec=None, compression=None):
        self._path = os.fspath(path)
        self._snapshot = _open(self._path, element_spec, compression)
        self._set_spec(self._snapshot.element_spec)

    def _card(self):
        return int(self._snapshot.num_elements)

    def _gen(self, ictx):
        return self._snapshot.elements()


LoadDataset.__name__ = LoadDataset.__qualname__ = "_LoadDataset"


def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
    from tensorlet._src.data.service import distributed_save as _dist

    if _dist.is_distributed_snapshot(os.fspath(path)):  # written by distributed_save (TF's layout)
        ds = _dist.DistributedSnapshotDataset(path, element_spec, compression, wait)
    else:
        ds = LoadDataset(path, element_spec, compression)
    if reader_func is not None:
        raise errors.UnimplementedError(None, None, "Dataset.load(reader_func=...) is not supported by tensorlet; "
                                        "shards are read interleaved as by TF's default reader_func")
    return ds


@tf_export("data.experimental.save")
def experimental_save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Alias of ``dataset.save(path)``."""
    save(dataset, path, compression, shard_func)


@tf_export("data.experimental.load")
def experimental_load(path, element_spec=None, compression=None, reader_func=None):
    """Alias of ``tf.data.Dataset.load``."""
    return load(path, element_spec, compression, reader_func)


# --- cache --------------------------------------------------------------------------------------------

class CacheDataset(UnaryDataset):
    """Memory cache (``filename=""``) or file cache; a pass that stops early caches nothing (as TF)."""

    def __init__(self, input_dataset, filename="", name=None):
        super().__init__(input_dataset, name)
        from tensorlet._src.framework.tensor import Tensor

        if isinstance(filename, Tensor):
            filename = filename.numpy()
        if isinstance(filename, bytes):
            filename = filename.decode()
        self._filename = os.fspath(filename)
        self._mem = None
        self._lock = threading.Lock()
        self._set_spec(input_dataset.element_spec)

    def _dir(self):
        return self._filename + ".tlcache"

    def _gen(self, ictx):
        if self._filename:
            d = self._dir()
            if _snap.is_snapshot(d):
                return _snap.Snapshot(d).elements()
            return self._fill_file(ictx, d)
        if self._mem is not None:
            return iter(self._mem)
        return self._fill_memory(ictx)

    def _fill_memory(self, ictx):
        got = []
        for leaves in self._input._gen(ictx):
            got.append(leaves)
            yield leaves
        with self._lock:
            if self._mem is None:
                self._mem = got

    def _fill_file(self, ictx, d):
        got = []
        for leaves in self._input._gen(ictx):
            got.append(leaves)
            yield leaves
        with self._lock:
            if not _snap.is_snapshot(d):
                _snap.write(d, self._input.element_spec, iter(got))


CacheDataset.__name__ = CacheDataset.__qualname__ = "CacheDataset"
