"""``tf.data.experimental.distributed_save`` and reading its files back with ``Dataset.load``.

The layout is TF 2.21's distributed snapshot, so each side reads the other's files:

    path/snapshot.metadata       DistributedSnapshotMetadata in protobuf text format (element_spec, compression)
    path/dataset_spec.pb         the element_spec (StructuredValue), as Dataset.save writes it
    path/chunks/chunk_<stream>_<chunk>_<num_elements>
                                 TFRecord files (SNAPPY / GZIP / none) of one TensorProto record per component
    path/streams/stream_<i>/DONE a worker's stream is complete
    path/DONE                    the whole snapshot is complete

Each worker of the dispatcher writes one stream from the splits of the source it takes (``distributed_epoch``
sharding), in a thread; ``distributed_save`` returns at once, as TF's does.  Every chunk is written under a
temporary name and renamed.  TF also writes ``dataset_def.proto`` (the dataset's GraphDef, which it never reads
back) and split bookkeeping for restarts; a Python dataset has no GraphDef, and a tensorlet dispatcher does not
outlive its process, so neither is written.
"""

from __future__ import annotations

import os
import re
import threading
import time

from tensorlet._src.data import snapshot as _snap
from tensorlet._src.data.dataset_ops import DatasetV2
from tensorlet._src.data.iterators import IterCtx
from tensorlet._src.data.service import rewrite
from tensorlet._src.data.service.servers import lookup_dispatcher
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import tf_export

__all__ = ["distributed_save", "is_distributed_snapshot", "DistributedSnapshotDataset"]

CHUNK_ELEMENTS = 1024  # elements per chunk file (TF bounds chunks by bytes: 6 GiB by default)
_CHUNK = re.compile(r"chunk_(\d+)_(\d+)_(\d+)")
_MAX_META = 1 << 20
_META_CLASS = []
_STARTED: set = set()  # paths this process is writing (TF: AlreadyExistsError for a started snapshot)
_LOCK = threading.Lock()


def _meta_class():
    """DistributedSnapshotMetadata (tensorflow/core/protobuf/snapshot.proto), built at runtime."""
    if not _META_CLASS:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        fdp = descriptor_pb2.FileDescriptorProto(name="tensorlet/distributed_snapshot_metadata.proto",
                                                 package="tensorflow.data.experimental", syntax="proto3")
        msg = fdp.message_type.add(name="DistributedSnapshotMetadata")
        F = descriptor_pb2.FieldDescriptorProto
        msg.field.add(name="element_spec", number=1, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
        msg.field.add(name="compression", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(fdp)
        _META_CLASS.append(message_factory.GetMessageClass(
            pool.FindMessageTypeByName("tensorflow.data.experimental.DistributedSnapshotMetadata")))
    return _META_CLASS[0]


def _kind(compression) -> str:
    if compression == "AUTO":
        return "SNAPPY"
    if compression is None:
        return ""
    if compression not in ("GZIP", "SNAPPY", "ZLIB"):
        raise ValueError(f"Invalid `compression` argument: {compression}. Must be one of ['AUTO', 'GZIP', "
                         f"'SNAPPY', None].")
    return compression


def _atomic_write(path, data: bytes):
    tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class _ChunkWriter:
    """One chunk file: records into a temporary file, renamed to ``chunk_<stream>_<chunk>_<n>`` on close."""

    def __init__(self, root, stream, index, kind, flat):
        from tensorlet._src.io.tfrecord import TFRecordWriter

        self._root, self._stream, self._index, self._flat = root, stream, index, flat
        self._tmp = os.path.join(root, "chunks", f".tmp_chunk_{stream}_{index}")
        self._w = _snap._SnappyWriter(self._tmp) if kind == "SNAPPY" else TFRecordWriter(self._tmp, kind or None)
        self.n = 0

    def write(self, leaves):
        import numpy as np

        for leaf, spec in zip(leaves, self._flat):
            st = spec.dtype.name == "string"
            arr = np.asarray(leaf) if st else np.asarray(leaf, dtype=_snap._LE[spec.dtype.name])
            self._w.write(_snap.tensor_record(arr, spec.dtype.as_datatype_enum, st))
        self.n += 1

    def close(self):
        self._w.close()
        os.replace(self._tmp, os.path.join(self._root, "chunks", f"chunk_{self._stream}_{self._index}_{self.n}"))


def _write_stream(root, stream, pipeline, kind, flat, done_event):
    ictx = IterCtx(pipeline.options())
    index, w = 0, None
    try:
        for leaves in pipeline._gen(ictx):
            if w is None:
                w = _ChunkWriter(root, stream, index, kind, flat)
            w.write(leaves)
            if w.n >= CHUNK_ELEMENTS:
                w.close()
                w, index = None, index + 1
        if w is not None:
            w.close()
        d = os.path.join(root, "streams", f"stream_{stream}")
        os.makedirs(d, exist_ok=True)
        _atomic_write(os.path.join(d, "DONE"), b"")
    finally:
        ictx.close()
        done_event.set()


@tf_export("data.experimental.distributed_save")
def distributed_save(dataset, path, data_service_address, compression="AUTO"):
    """Start writing ``dataset`` to ``path`` with the workers of the tf.data service at ``data_service_address``
    ("localhost:PORT"); returns at once (``Dataset.load(path, wait=True)`` reads while it is written)."""
    if not isinstance(data_service_address, str):
        raise ValueError(f"`data_service_address` must be a string, but is a {type(data_service_address)} "
                         f"({data_service_address}")
    if not data_service_address:
        raise ValueError("`data_service_address` must not be empty")
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`, got {type(dataset)}")
    kind = _kind(compression)
    dispatcher = lookup_dispatcher(data_service_address.split("://")[-1])
    if not dispatcher._config.fault_tolerant_mode:
        raise errors.InvalidArgumentError(None, "DistributedSave", "tf.data distributed snapshot requires running "
                                          "tf.data service in the fault tolerant mode. Please set "
                                          "`DispatcherConfig.fault_tolerant_mode` to True.")
    path = os.path.abspath(os.fspath(path))
    with _LOCK:
        if path in _STARTED or os.path.exists(path):
            raise errors.AlreadyExistsError(None, "DistributedSave", f"Failed to snapshot: tf.data snapshot at "
                                                                     f"{path} is already started or completed")
        _STARTED.add(path)
    spec = dataset.element_spec
    flat = _snap._flat(spec)
    for s in flat:
        if s.dtype.name != "string" and s.dtype.name not in _snap._LE:
            raise TypeError(f"distributed_save cannot save components of dtype {s.dtype.name}")
    spec_bytes = _snap.encode_spec(spec).SerializeToString()
    os.makedirs(os.path.join(path, "chunks"))
    os.makedirs(os.path.join(path, "streams"))
    _atomic_write(os.path.join(path, _snap.SPEC_FILE), spec_bytes)
    from google.protobuf import text_format

    meta = _meta_class()(element_spec=spec_bytes, compression=kind)
    _atomic_write(os.path.join(path, _snap.METADATA_FILE), text_format.MessageToString(meta).encode())
    threading.Thread(target=_coordinate, args=(dispatcher, dataset, path, kind, flat),
                     name="tensorlet-distributed-save", daemon=True).start()
    return None


def _coordinate(dispatcher, dataset, path, kind, flat):
    """Wait for workers, give each a stream over shared splits of the source, write DONE when all finish."""
    while not dispatcher._num_workers():
        if dispatcher._stopped.wait(0.1):
            return
    providers: dict = {}
    streams = []
    with dispatcher._lock:
        workers = list(dispatcher._workers)
    for i, _ in enumerate(workers):
        ev = threading.Event()
        t = threading.Thread(target=_write_stream, args=(path, i, rewrite.split_sources(dataset, providers), kind,
                                                         flat, ev), name=f"tensorlet-distributed-save-{i}",
                             daemon=True)
        streams.append(ev)
        t.start()
    for ev in streams:
        ev.wait()
    ok = all(os.path.exists(os.path.join(path, "streams", f"stream_{i}", "DONE")) for i in range(len(streams)))
    for p in providers.values():
        p.close()
    if ok:
        _atomic_write(os.path.join(path, "DONE"), b"")


# --- reading ------------------------------------------------------------------------------------------------

def is_distributed_snapshot(path) -> bool:
    fn = os.path.join(os.fspath(path), _snap.METADATA_FILE)
    if not os.path.isfile(fn) or os.path.getsize(fn) > _MAX_META:
        return False
    with open(fn, "rb") as f:
        head = f.read(64).lstrip()
    return head.startswith((b"element_spec", b"compression")) or (head == b"" and os.path.isdir(
        os.path.join(path, "chunks")))


class DistributedSnapshotDataset(DatasetV2):
    """The elements of a distributed snapshot: its chunks in (stream, chunk) order; ``wait=True`` reads chunks
    as they appear until the snapshot's DONE file exists."""

    def __init__(self, path, element_spec=None, compression=None, wait=False):
        from google.protobuf import text_format
        from tensorboard.compat.proto import struct_pb2

        self._path = os.fspath(path)
        fn = os.path.join(self._path, _snap.METADATA_FILE)
        meta = _meta_class()()
        try:
            with open(fn, "rb") as f:
                text_format.Parse(f.read().decode("utf-8"), meta)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise errors.DataLossError(None, None, f"{fn}: not a distributed snapshot metadata file ({e})") from None
        proto = struct_pb2.StructuredValue()
        from google.protobuf.message import DecodeError

        try:
            proto.ParseFromString(meta.element_spec)
        except (DecodeError, RecursionError) as e:
            raise errors.DataLossError(None, None, f"{fn}: bad element_spec ({e})") from None
        saved = _snap.decode_spec(proto, fn)
        if element_spec is not None and element_spec != saved:
            raise ValueError(f"The `element_spec` {element_spec} is not compatible with the saved dataset's "
                             f"element spec {saved}.")
        if compression is not None and compression != meta.compression:
            raise errors.InvalidArgumentError(None, None, f"Got invalid compression {compression}. Expected "
                                                          f"{meta.compression}.")
        self._kind = _snap._compression(meta.compression or None)
        self._wait = wait
        self._flat = _snap._flat(saved)
        self._set_spec(saved)

    def _chunks(self):
        d = os.path.join(self._path, "chunks")
        out = []
        for name in os.listdir(d) if os.path.isdir(d) else []:
            m = _CHUNK.fullmatch(name)
            full = os.path.join(d, name)
            if m and os.path.isfile(full) and not os.path.islink(full):
                out.append(((int(m[1]), int(m[2])), int(m[3]), full))
        return sorted(out)

    def _records(self, path):
        from tensorlet._src.io.tfrecord import iter_buffer_records, iter_records

        if self._kind == "SNAPPY":
            from tensorlet._src.data import snappy

            with open(path, "rb") as f:
                data = f.read()
            try:
                return iter_buffer_records(snappy.decompress_stream(data), path)
            except snappy.SnappyError as e:
                raise errors.DataLossError(None, None, f"{path}: {e}") from None
        return iter_records(path, self._kind)

    def _chunk_elements(self, path, declared):
        k, n, pending = len(self._flat), 0, []
        caches = [{} for _ in self._flat]
        for rec in self._records(path):
            pending.append(rec)
            if len(pending) == k:
                n += 1
                if n > declared:
                    break
                yield tuple(_snap.parse_tensor(bytes(r), s, path, c) for r, s, c in zip(pending, self._flat, caches))
                pending = []
        if pending or n != declared:
            raise errors.DataLossError(None, None, f"{path}: the chunk's name declares {declared} elements but it "
                                                   f"holds {n}{' and a partial one' if pending else ''}")

    def _gen(self, ictx):
        done_file = os.path.join(self._path, "DONE")
        seen = set()
        while True:
            finished = os.path.exists(done_file)
            for key, declared, full in self._chunks():
                if key in seen:
                    continue
                seen.add(key)
                yield from self._chunk_elements(full, declared)
            if finished or not self._wait:
                return
            if ictx.stop.wait(0.05):
                return
            time.sleep(0)
