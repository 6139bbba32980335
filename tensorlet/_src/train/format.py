"""tensorlet's earlier checkpoint format (version 1: a JSON index and one raw data file), still read.

Since tensorlet writes checkpoints in TensorFlow's own format (``tf_bundle.py``), this module keeps:

* :class:`Reader` for checkpoints earlier tensorlet versions wrote (``tf_bundle.read_bundle`` picks it when the
  ``.index`` file starts with ``{``), and :func:`write` to make such files (tests; SavedModel's private format);
* the helpers both formats share: :class:`CorruptCheckpoint`, temporary names, ``OBJECT_GRAPH_KEY``.

The layout, with prefix ``dir/ckpt-3``::

    dir/ckpt-3.index                    JSON: format, version, data size, one entry per tensor
    dir/ckpt-3.data-00000-of-00001      the tensors' bytes, each entry starting on a 64-byte boundary

An index entry is ``{"dtype": "float32", "shape": [2, 3], "offset": 0, "size": 24, "crc32": 123}``.
Numbers are C-order little-endian (bfloat16 as its 2 raw bytes, bool as one byte 0/1); a string tensor of
``n`` elements is ``n`` little-endian uint64 lengths followed by the bytes.  The object graph is the
``_CHECKPOINTABLE_OBJECT_GRAPH`` entry: a scalar string holding TF's ``TrackableObjectGraph`` protobuf.
Loading never runs code: JSON, protobuf and raw bytes only, every offset/size checked against the file before
anything is allocated, every entry's CRC-32 verified.
"""

from __future__ import annotations

import json
import os
import secrets
import zlib

import numpy as np

from tensorlet._src.framework import dtypes as _dt

FORMAT = "tensorlet-checkpoint"
VERSION = 1
DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
ALIGN = 64
MAX_INDEX_BYTES = 1 << 30
_CHUNK = 1 << 24  # bytes per write call (large tensors are written in pieces)



class _NumericDtypes(dict):
    """dtypes a checkpoint may hold (name -> little-endian NumPy dtype); string is handled separately.

    Every name is a key from the start; a value is made on first use, so that importing the checkpoint code does
    not import ml_dtypes (bfloat16's NumPy type) before a bfloat16 tensor is read or written."""

    _DTYPES = {d.name: d for d in _dt.NUMERIC + (_dt.bool,)}

    def __init__(self):
        super().__init__((name, None) for name in self._DTYPES)

    def __getitem__(self, name):
        v = super().__getitem__(name)
        if v is None:
            v = np.dtype(self._DTYPES[name].as_numpy_dtype).newbyteorder("<")
            self[name] = v
        return v

    def get(self, name, default=None):
        return self[name] if name in self else default


_NUMERIC = _NumericDtypes()


def _tmp_name(path: str) -> str:
    return f"{path}.tmp{os.getpid()}_{secrets.token_hex(4)}"


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_file(path: str, data: bytes, sync: bool) -> None:
    """Writes ``data`` to ``path`` (a temporary name), fsynced when ``sync``."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        if sync:
            os.fsync(f.fileno())


def _encode(value) -> tuple[str, list, list]:
    """(dtype name, shape, list of buffers) for one array."""
    arr = np.asarray(value)
    if arr.dtype.kind in "OSU":
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1).tolist()]
        lengths = np.array([len(b) for b in flat], dtype="<u8")
        return "string", list(arr.shape), [lengths.tobytes(), b"".join(flat)]
    name = _dt.from_numpy(arr.dtype).name
    le = np.ascontiguousarray(arr, dtype=_NUMERIC[name])
    return name, list(arr.shape), [le.reshape(-1).view(np.uint8)]


def _write_chunks(f, buf, crc: int) -> tuple[int, int]:
    """Writes one buffer in pieces; returns (running CRC-32, bytes written) (the crash test hooks it)."""
    mv = memoryview(buf).cast("B")
    for start in range(0, len(mv), _CHUNK):
        piece = mv[start:start + _CHUNK]
        f.write(piece)
        crc = zlib.crc32(piece, crc)
    return crc, len(mv)


def write(prefix: str, tensors: dict, *, sync: bool = True) -> str:
    """Writes ``{key: array}`` as a checkpoint at ``prefix``; returns ``prefix``."""
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    data_path, index_path = prefix + DATA_SUFFIX, prefix + INDEX_SUFFIX
    entries = {}
    tmp_data = _tmp_name(data_path)
    try:
        with open(tmp_data, "wb") as f:
            offset = 0
            for key in sorted(tensors):
                dtype, shape, bufs = _encode(tensors[key])
                pad = -offset % ALIGN
                if pad:
                    f.write(b"\0" * pad)
                    offset += pad
                crc, size = 0, 0
                for b in bufs:
                    crc, n = _write_chunks(f, b, crc)
                    size += n
                entries[key] = {"dtype": dtype, "shape": shape, "offset": offset, "size": size, "crc32": crc}
                offset += size
            f.flush()
            if sync:
                os.fsync(f.fileno())
        index = {"format": FORMAT, "version": VERSION, "data_files": 1, "data_size": offset, "tensors": entries}
        text = json.dumps(index, separators=(",", ":"), sort_keys=False).encode()
        tmp_index = _tmp_name(index_path)
        try:
            write_file(tmp_index, text, sync)
            os.replace(tmp_data, data_path)
            os.replace(tmp_index, index_path)
        except BaseException:
            _remove(tmp_index)
            raise
    except BaseException:
        _remove(tmp_data)
        raise
    if sync:
        _fsync_dir(index_path)
    return prefix


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


# --- reading ------------------------------------------------------------------------------------------------------
class CorruptCheckpoint(ValueError):
    """The files do not form a valid checkpoint (raised as tf.errors.DataLossError by the public API)."""


class Reader:
    """Reads a tensorlet checkpoint: ``keys()``, ``dtype(key)``, ``shape(key)``, ``get(key)``."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        index_path = prefix + INDEX_SUFFIX
        size = os.path.getsize(index_path)
        if size > MAX_INDEX_BYTES:
            raise CorruptCheckpoint(f"checkpoint index {index_path} is too large ({size} bytes)")
        with open(index_path, "rb") as f:
            raw = f.read()
        try:
            index = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise CorruptCheckpoint(f"checkpoint index {index_path} is not valid JSON: {e}") from None
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise CorruptCheckpoint(f"{index_path} is not a tensorlet checkpoint index")
        if index.get("version") != VERSION:
            raise CorruptCheckpoint(f"{index_path}: unsupported checkpoint format version {index.get('version')!r} "
                                    f"(this tensorlet reads version {VERSION})")
        self._data_path = prefix + DATA_SUFFIX
        try:
            data_size = os.path.getsize(self._data_path)
        except OSError:
            raise CorruptCheckpoint(f"checkpoint data file {self._data_path} is missing") from None
        if index.get("data_size") != data_size:
            raise CorruptCheckpoint(f"checkpoint data file {self._data_path} has {data_size} bytes, the index "
                                    f"expects {index.get('data_size')!r}")
        tensors = index.get("tensors")
        if not isinstance(tensors, dict):
            raise CorruptCheckpoint(f"{index_path}: 'tensors' must be an object")
        self._entries = {}
        for key, e in tensors.items():
            self._entries[key] = _check_entry(key, e, data_size)

    def keys(self):
        return list(self._entries)

    def has(self, key) -> bool:
        return key in self._entries

    def dtype(self, key) -> str:
        return self._entries[key][0]

    def shape(self, key) -> tuple:
        return self._entries[key][1]

    def get(self, key) -> np.ndarray:
        dtype, shape, offset, size, crc = self._entries[key]
        buf = bytearray(size)
        try:
            with open(self._data_path, "rb") as f:
                f.seek(offset)
                if f.readinto(buf) != size:
                    raise CorruptCheckpoint(f"checkpoint data file {self._data_path} is truncated")
        except OSError:
            raise CorruptCheckpoint(f"checkpoint data file {self._data_path} cannot be read") from None
        if zlib.crc32(buf) != crc:
            raise CorruptCheckpoint(f"checksum mismatch for {key!r} in {self._data_path} (the file is corrupted)")
        return _decode(key, dtype, shape, buf)


def _check_entry(key, e, data_size):
    if not isinstance(key, str) or not isinstance(e, dict):
        raise CorruptCheckpoint(f"bad index entry for {key!r}")
    dtype, shape, offset, size, crc = (e.get(k) for k in ("dtype", "shape", "offset", "size", "crc32"))
    if dtype != "string" and dtype not in _NUMERIC:
        raise CorruptCheckpoint(f"index entry {key!r}: unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(type(d) is int and 0 <= d < 1 << 62 for d in shape) or len(shape) > 64:
        raise CorruptCheckpoint(f"index entry {key!r}: bad shape {shape!r}")
    for name, v in (("offset", offset), ("size", size), ("crc32", crc)):
        if type(v) is not int or v < 0:
            raise CorruptCheckpoint(f"index entry {key!r}: bad {name} {v!r}")
    if offset + size > data_size:
        raise CorruptCheckpoint(f"index entry {key!r} points past the end of the data file")
    n = 1
    for d in shape:
        n *= d
    if dtype == "string":
        if size < 8 * n:
            raise CorruptCheckpoint(f"index entry {key!r}: size {size} too small for {n} strings")
    elif n * _NUMERIC[dtype].itemsize != size:
        raise CorruptCheckpoint(f"index entry {key!r}: size {size} does not match shape {shape} and dtype {dtype}")
    return dtype, tuple(shape), offset, size, crc


def _decode(key, dtype, shape, buf) -> np.ndarray:
    if dtype != "string":
        arr = np.frombuffer(buf, dtype=np.uint8).view(_NUMERIC[dtype]).reshape(shape)
        native = arr.dtype.newbyteorder("=")
        return arr if arr.dtype == native else arr.astype(native)
    n = 1
    for d in shape:
        n *= d
    lengths = np.frombuffer(buf, dtype="<u8", count=n)
    if int(lengths.sum(dtype=np.uint64)) + 8 * n != len(buf):
        raise CorruptCheckpoint(f"string entry {key!r}: lengths do not add up to the entry size")
    mv = memoryview(buf)
    out = np.empty(n, dtype=object)
    pos = 8 * n
    for i, ln in enumerate(lengths.tolist()):
        out[i] = bytes(mv[pos:pos + ln])
        pos += ln
    return out.reshape(shape)


def exists(prefix: str) -> bool:
    return os.path.isfile(prefix + INDEX_SUFFIX)
