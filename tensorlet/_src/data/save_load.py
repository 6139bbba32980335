"""``Dataset.save`` / ``Dataset.load`` and ``Dataset.cache`` (memory or files).

tensorlet's dataset format (no pickle anywhere; loading never runs code) -- a directory::

    dataset_spec.json   {"format": "tensorlet.data.save", "version": 1, "element_spec": ..., "num_elements": N,
                         "shards": ["shard_00000.npz", ...], "compression": null | "GZIP"}
    shard_00000.npz     runs of consecutive elements with equal component shapes, stacked:
                        r{run}_c{component} (strings: r{run}_c{component}_bytes uint8 + _len int64 + _shape)

written into a temporary directory and renamed into place.  ``cache(filename)`` stores its first complete
pass the same way in ``filename + ".tlcache"`` and reads it on later passes (and in later programs).

>>> ds = tf.data.Dataset.range(3); ds.save("/tmp/r3"); [int(x) for x in tf.data.Dataset.load("/tmp/r3")]
[0, 1, 2]
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import tempfile
import threading

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import DatasetSpec, DatasetV2, to_leaf
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.data.transformations import UnaryDataset
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import tf_export

__all__ = ["save", "load", "CacheDataset", "spec_to_json", "spec_from_json"]

FORMAT = "tensorlet.data.save"
SPEC_FILE = "dataset_spec.json"
SHARD_BYTES = 64 << 20


# --- element spec <-> JSON ------------------------------------------------------------------------

def spec_to_json(spec):
    if isinstance(spec, TensorSpec):
        return {"type": "tensor", "shape": spec.shape.dims, "dtype": spec.dtype.name, "name": spec.name}
    if isinstance(spec, DatasetSpec):
        raise TypeError("Datasets of nested datasets cannot be saved.")
    if isinstance(spec, tuple):
        d = {"type": "tuple", "items": [spec_to_json(s) for s in spec]}
        if hasattr(type(spec), "_fields"):
            d["namedtuple"] = [type(spec).__name__, list(type(spec)._fields)]
        return d
    if isinstance(spec, collections.abc.Mapping):
        keys = list(spec)
        if not all(isinstance(k, str) for k in keys):
            raise TypeError(f"Only string dict keys can be saved, got {keys}")
        return {"type": "dict", "keys": keys, "items": [spec_to_json(spec[k]) for k in keys]}
    raise TypeError(f"Cannot save element spec {spec!r}")


def spec_from_json(d):
    t = d["type"]
    if t == "tensor":
        return TensorSpec(TensorShape(d["shape"]), _dt.as_dtype(d["dtype"]), d.get("name"))
    if t == "tuple":
        items = [spec_from_json(x) for x in d["items"]]
        if "namedtuple" in d:
            name, fields = d["namedtuple"]
            return collections.namedtuple(name, fields)(*items)
        return tuple(items)
    if t == "dict":
        return {k: spec_from_json(x) for k, x in zip(d["keys"], d["items"])}
    raise ValueError(f"Unknown element spec entry {d!r}")


# --- shards -------------------------------------------------------------------------------------------

def _encode(arrays, key, a):
    if a.dtype == object:
        flat = [bytes(x) for x in a.reshape(-1)]
        arrays[key + "_bytes"] = np.frombuffer(b"".join(flat), np.uint8) if flat else np.zeros(0, np.uint8)
        arrays[key + "_len"] = np.asarray([len(x) for x in flat], np.int64)
        arrays[key + "_shape"] = np.asarray(a.shape, np.int64)
    else:
        arrays[key] = a


def _decode(z, key):
    if key in z.files:
        return z[key]
    data = z[key + "_bytes"].tobytes()
    lens = z[key + "_len"]
    shape = tuple(z[key + "_shape"].tolist())
    out = np.empty(len(lens), object)
    pos = 0
    for i, n in enumerate(lens.tolist()):
        out[i] = data[pos:pos + n]
        pos += n
    return out.reshape(shape)


class _ShardWriter:
    def __init__(self, directory, prefix, compression):
        self.dir = directory
        self.prefix = prefix
        self.compress = compression == "GZIP"
        self.files = []
        self.runs = []  # finished runs of the current shard: lists of elements
        self.run = []
        self.shapes = None
        self.nbytes = 0

    def add(self, leaves):
        shapes = tuple(np.shape(v) for v in leaves)
        if shapes != self.shapes and self.run:
            self.runs.append(self.run)
            self.run = []
        self.shapes = shapes
        self.run.append(leaves)
        self.nbytes += sum(getattr(v, "nbytes", 8) for v in leaves)
        if self.nbytes >= SHARD_BYTES:
            self.flush()

    def flush(self):
        if self.run:
            self.runs.append(self.run)
            self.run = []
        if not self.runs:
            return
        arrays = {}
        for r, run in enumerate(self.runs):
            for j, col in enumerate(zip(*run)):
                _encode(arrays, f"r{r}_c{j}", np.stack(col))
        arrays["runs"] = np.asarray([len(run) for run in self.runs], np.int64)
        name = f"{self.prefix}{len(self.files):05d}.npz"
        with open(os.path.join(self.dir, name), "wb") as f:
            (np.savez_compressed if self.compress else np.savez)(f, **arrays)
        self.files.append(name)
        self.runs = []
        self.shapes = None
        self.nbytes = 0


def _write_dir(path, element_spec, elements, compression=None, shard_func=None):
    """Write elements (flat leaf tuples) to directory ``path`` atomically; returns the element count."""
    if compression not in (None, "", "GZIP", "NONE"):
        raise ValueError(f"Unsupported compression {compression!r}: use None or 'GZIP'.")
    compression = compression or None
    if compression == "NONE":
        compression = None
    spec_json = spec_to_json(element_spec)
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=parent)
    try:
        writers = {}
        n = 0
        for leaves in elements:
            k = 0 if shard_func is None else int(shard_func(leaves))
            w = writers.get(k)
            if w is None:
                w = writers[k] = _ShardWriter(tmp, f"shard_{k}_", compression)
            w.add(leaves)
            n += 1
        files = []
        for k in sorted(writers):
            writers[k].flush()
            files.extend(writers[k].files)
        meta = {"format": FORMAT, "version": 1, "element_spec": spec_json, "num_elements": n, "shards": files,
                "compression": compression}
        with open(os.path.join(tmp, SPEC_FILE), "w") as f:
            json.dump(meta, f)
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return n


def _read_meta(path):
    fn = os.path.join(path, SPEC_FILE)
    if not os.path.exists(fn):
        raise errors.NotFoundError(None, None, f"Could not find metadata file {fn}: not a dataset saved by "
                                               f"tf.data.Dataset.save")
    with open(fn) as f:
        meta = json.load(f)
    if meta.get("format") != FORMAT:
        raise errors.DataLossError(None, None, f"{fn} is not a tensorlet dataset ({meta.get('format')!r})")
    return meta


def _read_elements(path, meta):
    for name in meta["shards"]:
        with np.load(os.path.join(path, name), allow_pickle=False) as z:
            runs = z["runs"].tolist()
            ncomp = None
            for r, count in enumerate(runs):
                if ncomp is None:
                    ncomp = sum(1 for k in z.files if k.startswith("r0_c") and not k.endswith(("_len", "_shape")))
                cols = [_decode(z, f"r{r}_c{j}") for j in range(ncomp)]
                for i in range(count):
                    yield tuple(c[i, ...] if c.dtype == object and c.ndim == 1 else c[i] for c in cols)


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
        _write_dir(path, dataset.element_spec, dataset._gen(ictx), compression, fn)
    finally:
        ictx.close()


class LoadDataset(DatasetV2):
    def __init__(self, path, element_spec=None):
        self._path = os.fspath(path)
        self._meta = _read_meta(self._path)
        spec = spec_from_json(self._meta["element_spec"])
        if element_spec is not None:
            if not (S.same_structure(spec, element_spec) and all(
                    a.is_compatible_with(b) for a, b in zip(S.dflatten(spec), S.dflatten(element_spec)))):
                raise ValueError(f"The `element_spec` {element_spec} is not compatible with the saved dataset's "
                                 f"element spec {spec}.")
            spec = element_spec
        self._set_spec(spec)

    def _card(self):
        return int(self._meta["num_elements"])

    def _gen(self, ictx):
        return _read_elements(self._path, self._meta)


LoadDataset.__name__ = LoadDataset.__qualname__ = "_LoadDataset"


def load(path, element_spec=None, compression=None, reader_func=None):
    return LoadDataset(path, element_spec)


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
            if os.path.exists(os.path.join(d, SPEC_FILE)):
                return _read_elements(d, _read_meta(d))
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
            if not os.path.exists(os.path.join(d, SPEC_FILE)):
                _write_dir(d, self._input.element_spec, iter(got))


CacheDataset.__name__ = CacheDataset.__qualname__ = "CacheDataset"
