"""Checkpoint files in TensorFlow's own format (the TensorBundle), written and read.

API (stable; ``tf.train.Checkpoint`` and SavedModel's ``variables/`` use it)::

    write_bundle(prefix, tensors, *, sync=False) -> prefix
        tensors: {key (str): array-like}.  Numbers, bool and strings (bytes/str).  Values are laid out in the
        data file in the dict's order (TF writes them in object-graph order), the index is sorted by key.
    read_bundle(prefix) -> reader
        TF's format, or tensorlet's earlier JSON index (``format.py``), detected from the ``.index`` file.
        reader.keys(), reader.has(key), reader.dtype(key) -> dtype name ("float32", "string"),
        reader.shape(key) -> tuple, reader.get(key) -> np.ndarray (strings as an object array of bytes)
    exists(prefix) -> bool
    Damaged or hostile files raise CorruptCheckpoint (a ValueError; the public API raises DataLossError).

The files, as TF's ``BundleWriter`` writes them (see docs/formats.md)::

    prefix.index                  a table (``sstable.py``): key "" -> BundleHeaderProto, then one
                                  BundleEntryProto per tensor key, keys sorted bytewise
    prefix.data-00000-of-00001    the tensors' bytes, back to back, no padding

``BundleHeaderProto``: ``num_shards`` (1) = 1, ``endianness`` (2, LITTLE = 0), ``version`` (3, VersionDef
``producer`` = 1).  ``BundleEntryProto``: ``dtype`` (1, the DataType enum), ``shape`` (2, TensorShapeProto),
``shard_id`` (3), ``offset`` (4), ``size`` (5), ``crc32c`` (6, fixed32: the *masked* CRC-32C of the entry's
bytes), ``slices`` (7, partitioned variables: refused).  Numbers are raw little-endian C-order bytes; a string
tensor is the varint64 lengths, the masked CRC-32C of the lengths taken as little-endian uint32 (4 bytes), then
the strings' bytes; its entry CRC covers the uint32 lengths, those 4 bytes and the strings.  The protobuf
messages are encoded and decoded here by hand (a few fields; no TF protos ship with tensorboard for them).

Writes go to ``<name>.tmp<pid>_<hex>`` files renamed into place, data first and index last, so a checkpoint
whose ``.index`` exists is complete.  A save also removes such temporaries that an earlier, killed save of the
same prefix left behind (only names of exactly that form, and only when their process is gone).
"""

from __future__ import annotations

import glob
import os
import re
import struct

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.io.crc32c import crc32c_extend, mask, unmask
from tensorlet._src.train import format as _legacy
from tensorlet._src.train import sstable
from tensorlet._src.train.format import MAX_INDEX_BYTES, CorruptCheckpoint

INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data-00000-of-00001"
BUNDLE_VERSION = 1
_CHUNK = 1 << 24  # bytes per write call (large tensors are written in pieces; the crash test slows this down)
_STRING = 7
_BIG = 1
_ACTIVE: set = set()  # temporaries this process is writing now

_NUMERIC = _legacy._NUMERIC  # name -> little-endian NumPy dtype, made on first use (no ml_dtypes import before)
_ENUM_OF = {name: _dt.as_dtype(name).as_datatype_enum for name in list(_NUMERIC) + ["string"]}
_NAME_OF = {v: k for k, v in _ENUM_OF.items()}


def data_path(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def exists(prefix) -> bool:
    return os.path.isfile(os.fspath(prefix) + INDEX_SUFFIX)


# --- protobuf wire format -----------------------------------------------------------------------------------------
def _tag(out: bytearray, number: int, wire: int) -> None:
    sstable.put_varint(out, number << 3 | wire)


def _shape_proto(shape) -> bytes:
    out = bytearray()
    for d in shape:
        dim = sstable.varint(d) if d else b""
        _tag(out, 2, 2)
        if dim:
            sstable.put_varint(out, len(dim) + 1)
            out.append(0x08)
            out += dim
        else:
            out.append(0)
    return bytes(out)


def _entry_proto(dtype_enum: int, shape, shard: int, offset: int, size: int, crc: int) -> bytes:
    out = bytearray()
    _tag(out, 1, 0)
    sstable.put_varint(out, dtype_enum)
    s = _shape_proto(shape)
    _tag(out, 2, 2)
    sstable.put_varint(out, len(s))
    out += s
    for number, v in ((3, shard), (4, offset), (5, size)):
        if v:
            _tag(out, number, 0)
            sstable.put_varint(out, v)
    if crc:
        _tag(out, 6, 5)
        out += struct.pack("<I", crc)
    return bytes(out)


def _header_proto(num_shards: int = 1) -> bytes:
    # num_shards, endianness LITTLE (0, omitted), version {producer: 1}
    return b"\x08" + sstable.varint(num_shards) + b"\x1a\x02\x08" + sstable.varint(BUNDLE_VERSION)


def _fields(buf):
    """``(field number, wire type, value)`` of one message: ints for varint/fixed fields, bytes for the rest."""
    pos, n = 0, len(buf)
    while pos < n:
        tag, pos = sstable.get_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise CorruptCheckpoint("protobuf field number 0")
        if wire == 0:
            value, pos = sstable.get_varint(buf, pos)
        elif wire == 1 or wire == 5:
            k = 8 if wire == 1 else 4
            if pos + k > n:
                raise CorruptCheckpoint("truncated fixed-width protobuf field")
            value = int.from_bytes(buf[pos:pos + k], "little")
            pos += k
        elif wire == 2:
            ln, pos = sstable.get_varint(buf, pos)
            if pos + ln > n:
                raise CorruptCheckpoint("truncated protobuf field")
            value, pos = bytes(buf[pos:pos + ln]), pos + ln
        else:
            raise CorruptCheckpoint(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def _want(wire, expected, what):
    if wire != expected:
        raise CorruptCheckpoint(f"{what} has the wrong protobuf wire type {wire}")


def _int64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _parse_shape(buf, key) -> tuple:
    dims = []
    for number, wire, value in _fields(buf):
        if number == 2:
            _want(wire, 2, "shape dim")
            size = 0
            for n2, w2, v2 in _fields(value):
                if n2 == 1:
                    _want(w2, 0, "shape dim size")
                    size = _int64(v2)
            if size < 0:
                raise CorruptCheckpoint(f"{key!r}: the saved shape has an unknown or negative dimension")
            dims.append(size)
        elif number == 3 and value:
            raise CorruptCheckpoint(f"{key!r}: the saved shape has unknown rank")
    if len(dims) > 254:
        raise CorruptCheckpoint(f"{key!r}: the saved shape has {len(dims)} dimensions")
    n = 1
    for d in dims:
        n *= d
    if n >= 1 << 62:
        raise CorruptCheckpoint(f"{key!r}: the saved shape {dims} has too many elements")
    return tuple(dims)


# --- writing ------------------------------------------------------------------------------------------------------
def _encode(key, value):
    """``(dtype enum, shape, buffers, crc)`` of one value (crc None: computed from the buffers as written)."""
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.dtype.kind in "OSU":
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1).tolist()]
        lengths = bytearray()
        crc = 0
        for b in flat:
            sstable.put_varint(lengths, len(b))
            crc = crc32c_extend(crc, struct.pack("<I" if len(b) <= 0xFFFFFFFF else "<Q", len(b)))
        check = struct.pack("<I", mask(crc))
        crc = crc32c_extend(crc, check)
        for b in flat:
            crc = crc32c_extend(crc, b)
        return _STRING, arr.shape, [bytes(lengths) + check] + flat, crc
    try:
        name = _dt.from_numpy(arr.dtype).name
        le = _NUMERIC[name]
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"cannot save {key!r}: dtype {arr.dtype} has no checkpoint encoding") from None
    arr = np.asarray(arr, dtype=le, order="C")  # (ascontiguousarray would make a scalar 1-d)
    return _ENUM_OF[name], arr.shape, [memoryview(arr.reshape(-1).view(np.uint8))], None


_PARALLEL_CRC = 2 << 20  # buffers this large get their CRC computed in a thread while they are written / read
_READ_PIECE = 1 << 20


def _write_chunks(f, buf, crc: int) -> tuple[int, int]:
    """Writes one buffer in pieces; returns (running CRC-32C, bytes written) (the crash test hooks it).

    For a large buffer the CRC runs in a second thread during the writes (both release the GIL)."""
    mv = memoryview(buf).cast("B")
    if len(mv) >= _PARALLEL_CRC:
        import threading

        out = []
        worker = threading.Thread(target=lambda: out.append(crc32c_extend(crc, mv)))
        worker.start()
        try:
            for start in range(0, len(mv), _CHUNK):
                f.write(mv[start:start + _CHUNK])
        finally:
            worker.join()
        return out[0], len(mv)
    for start in range(0, len(mv), _CHUNK):
        piece = mv[start:start + _CHUNK]
        f.write(piece)
        crc = crc32c_extend(crc, piece)
    return crc, len(mv)


def _tmp_name(path: str) -> str:
    name = _legacy._tmp_name(path)
    _ACTIVE.add(name)
    return name


_TMP_RE = re.compile(r"\.(?:index|data-\d{5}-of-\d{5})\.tmp(\d+)_[0-9a-f]{8}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def remove_stale_temporaries(prefix: str) -> list:
    """Deletes ``prefix.index.tmp<pid>_<hex>`` / ``prefix.data-*.tmp<pid>_<hex>`` files left by killed saves
    (their process is gone, or it is this process and no save is writing them); returns the paths removed."""
    removed = []
    base = os.path.basename(prefix)
    for path in glob.glob(glob.escape(prefix) + ".*.tmp*"):
        name = os.path.basename(path)
        m = _TMP_RE.fullmatch(name[len(base):]) if name.startswith(base) else None
        if m is None or not os.path.isfile(path) or os.path.islink(path):
            continue
        pid = int(m.group(1))
        if (pid == os.getpid() and path not in _ACTIVE) or not _alive(pid):
            _legacy._remove(path)
            removed.append(path)
    return removed


def write_bundle(prefix, tensors: dict, *, sync: bool = False) -> str:
    """Writes ``{key: array}`` as a TF checkpoint at ``prefix`` (``.index`` + one data shard); returns ``prefix``.

    The files are renamed into place only when complete, so a killed process never leaves a partial checkpoint.
    ``sync=True`` also fsyncs them (and the directory) before returning, for durability across power loss;
    TF does not, and neither does ``tf.train.Checkpoint`` by default (a data file cut short by a crash is then
    detected by its size and CRC on reading)."""
    prefix = os.fspath(prefix)
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    remove_stale_temporaries(prefix)
    dpath, ipath = prefix + DATA_SUFFIX, prefix + INDEX_SUFFIX
    entries = []
    tmp_data = _tmp_name(dpath)
    tmp_index = None
    try:
        with open(tmp_data, "wb") as f:
            offset = 0
            for key, value in tensors.items():
                kb = key.encode("utf-8", "surrogateescape") if isinstance(key, str) else bytes(key)
                if not kb:
                    raise ValueError("a checkpoint key must not be empty (the empty key holds the header)")
                dtype_enum, shape, bufs, crc = _encode(key, value)
                running, size = 0, 0
                for b in bufs:
                    running, n = _write_chunks(f, b, running)
                    size += n
                crc = running if crc is None else crc
                entries.append((kb, _entry_proto(dtype_enum, shape, 0, offset, size, mask(crc))))
                offset += size
            f.flush()
            if sync:
                os.fsync(f.fileno())
        entries.sort()
        for a, b in zip(entries, entries[1:]):
            if a[0] == b[0]:
                raise ValueError(f"duplicate checkpoint key {a[0]!r}")
        table = sstable.build([(b"", _header_proto())] + entries)
        tmp_index = _tmp_name(ipath)
        _legacy.write_file(tmp_index, table, sync)
        os.replace(tmp_data, dpath)
        os.replace(tmp_index, ipath)
    except BaseException:
        _legacy._remove(tmp_data)
        if tmp_index is not None:
            _legacy._remove(tmp_index)
        raise
    finally:
        _ACTIVE.discard(tmp_data)
        _ACTIVE.discard(tmp_index)
    if sync:
        _legacy._fsync_dir(ipath)
    return prefix


# --- reading ------------------------------------------------------------------------------------------------------
def _read_checked(f, size: int, want_crc: bool):
    """``(bytearray, CRC-32C)`` of the next ``size`` bytes of ``f`` (``(None, None)`` if the file is shorter).

    A large read is done in pieces, each piece's CRC computed in a second thread while the next is read."""
    buf = bytearray(size)
    mv = memoryview(buf)
    if not want_crc or size < _PARALLEL_CRC:
        if f.readinto(buf) != size:
            return None, None
        return buf, (crc32c_extend(0, buf) if want_crc else None)
    import queue
    import threading

    todo = queue.SimpleQueue()
    out = [0]

    def work():
        crc = 0
        while (piece := todo.get()) is not None:
            crc = crc32c_extend(crc, piece)
        out[0] = crc

    worker = threading.Thread(target=work)
    worker.start()
    ok = True
    try:
        for start in range(0, size, _READ_PIECE):
            piece = mv[start:start + _READ_PIECE]
            if f.readinto(piece) != len(piece):
                ok = False
                break
            todo.put(piece)
    finally:
        todo.put(None)
        worker.join()
    return (buf, out[0]) if ok else (None, None)


def read_bundle(prefix):
    """A reader for the checkpoint at ``prefix``: TF's TensorBundle, or tensorlet's earlier JSON index."""
    prefix = os.fspath(prefix)
    with open(prefix + INDEX_SUFFIX, "rb") as f:
        head = f.read(1)
    if head == b"{":
        return _legacy.Reader(prefix)
    return BundleReader(prefix)


class BundleReader:
    """Reads a TensorBundle checkpoint (what TF or tensorlet wrote): ``keys/has/dtype/shape/get``."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        path = prefix + INDEX_SUFFIX
        size = os.path.getsize(path)
        if size > MAX_INDEX_BYTES:
            raise CorruptCheckpoint(f"checkpoint index {path} is too large ({size} bytes)")
        with open(path, "rb") as f:
            data = f.read(MAX_INDEX_BYTES + 1)
        try:
            table = sstable.parse(data)
        except sstable.CorruptTable as e:
            raise CorruptCheckpoint(f"Unable to open table file {path}: {e}: perhaps your file is in a different "
                                    "file format and you need to use a different restore operator?") from None
        if not table or table[0][0] != b"":
            raise CorruptCheckpoint(f"{path}: the checkpoint index has no header entry")
        self._header(path, table[0][1])
        self._entries = {}
        for kb, value in table[1:]:
            key = kb.decode("utf-8", "surrogateescape")
            self._entries[key] = self._entry(key, value)
        self._sizes = {}

    def _header(self, path, value):
        num_shards, endianness, producer, min_consumer, bad = 0, 0, 0, 0, []
        for number, wire, v in _fields(value):
            if number == 1:
                _want(wire, 0, "num_shards")
                num_shards = _int64(v)
            elif number == 2:
                _want(wire, 0, "endianness")
                endianness = v
            elif number == 3:
                _want(wire, 2, "version")
                for n2, w2, v2 in _fields(v):
                    if n2 == 1 and w2 == 0:
                        producer = _int64(v2)
                    elif n2 == 2 and w2 == 0:
                        min_consumer = _int64(v2)
                    elif n2 == 3 and w2 == 0:
                        bad.append(_int64(v2))
        if not 1 <= num_shards <= 99999:
            raise CorruptCheckpoint(f"{path}: bad shard count {num_shards}")
        if endianness not in (0, _BIG):
            raise CorruptCheckpoint(f"{path}: unknown byte order {endianness}")
        if producer < 0 or min_consumer > BUNDLE_VERSION or BUNDLE_VERSION in bad:
            raise CorruptCheckpoint(f"{path}: checkpoint format version (producer {producer}, min consumer "
                                    f"{min_consumer}) is not supported; this reader is version {BUNDLE_VERSION}")
        self._num_shards = num_shards
        self._order = ">" if endianness == _BIG else "<"

    def _entry(self, key, value):
        dtype, shape, shard, offset, size, crc, sliced = 0, (), 0, 0, 0, 0, False
        for number, wire, v in _fields(value):
            if number == 1:
                _want(wire, 0, "dtype")
                dtype = v
            elif number == 2:
                _want(wire, 2, "shape")
                shape = _parse_shape(v, key)
            elif number in (3, 4, 5):
                _want(wire, 0, "shard/offset/size")
                v = _int64(v)
                if v < 0:
                    raise CorruptCheckpoint(f"{key!r}: negative shard, offset or size")
                shard, offset, size = (v, offset, size) if number == 3 else (
                    (shard, v, size) if number == 4 else (shard, offset, v))
            elif number == 6:
                _want(wire, 5, "crc32c")
                crc = v
            elif number == 7:
                sliced = True
        name = _NAME_OF.get(dtype)
        if name is None:
            try:
                what = _dt.as_dtype(int(dtype)).name
            except (TypeError, ValueError):
                what = f"enum {dtype}"
            raise CorruptCheckpoint(f"{key!r}: dtype {what} cannot be read from a checkpoint")
        n = 1
        for d in shape:
            n *= d
        if not sliced:
            if shard >= self._num_shards:
                raise CorruptCheckpoint(f"{key!r}: shard {shard} out of range ({self._num_shards} shards)")
            if name != "string" and n * _NUMERIC[name].itemsize != size:
                raise CorruptCheckpoint(f"Invalid size in bundle entry: key {key!r}; stored size {size}; expected "
                                        f"size {n * _NUMERIC[name].itemsize} for {name}{list(shape)}")
            if name == "string" and n and size < n + 4:
                raise CorruptCheckpoint(f"string entry {key!r}: size {size} too small for {n} strings")
        return name, shape, shard, offset, size, crc, sliced

    def keys(self):
        return list(self._entries)

    def has(self, key) -> bool:
        return key in self._entries

    def dtype(self, key) -> str:
        return self._entries[key][0]

    def shape(self, key) -> tuple:
        return self._entries[key][1]

    def get(self, key) -> np.ndarray:
        name, shape, shard, offset, size, crc, sliced = self._entries[key]
        if sliced:
            raise CorruptCheckpoint(f"{key!r} is a sliced (partitioned) variable, which tensorlet cannot read")
        path = data_path(self.prefix, shard, self._num_shards)
        total = self._sizes.get(path)
        if total is None:
            try:
                total = self._sizes[path] = os.path.getsize(path)
            except OSError:
                raise CorruptCheckpoint(f"checkpoint data file {path} is missing") from None
        if offset + size > total:
            raise CorruptCheckpoint(f"{key!r} (offset {offset}, size {size}) points past the end of {path} "
                                    f"({total} bytes)")
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                buf, actual = _read_checked(f, size, name != "string")
        except OSError:
            raise CorruptCheckpoint(f"checkpoint data file {path} cannot be read") from None
        if buf is None:
            raise CorruptCheckpoint(f"{path} is truncated")
        if name == "string":
            return self._strings(key, shape, buf, crc, path)
        if actual != unmask(crc):
            raise CorruptCheckpoint(f"TensorBundle at {self.prefix} shard {shard} ({size} bytes): Checksum does not "
                                    f"match: stored {unmask(crc)} vs. calculated on the restored bytes {actual} "
                                    f"(key {key!r})")
        dt = _NUMERIC[name].newbyteorder(self._order)
        arr = np.frombuffer(buf, dtype=dt).reshape(shape)
        return arr if dt.isnative or dt.itemsize == 1 else arr.astype(dt.newbyteorder("="))

    def _strings(self, key, shape, buf, crc, path):
        n = 1
        for d in shape:
            n *= d
        out = np.empty(n, dtype=object)
        if not buf:
            if n:
                raise CorruptCheckpoint(f"string entry {key!r} is empty but holds {n} strings")
            return out.reshape(shape)
        lengths, pos, running = [], 0, 0
        o = self._order
        try:
            for _ in range(n):
                ln, pos = sstable.get_varint(buf, pos)
                lengths.append(ln)
                running = crc32c_extend(running, struct.pack(o + ("I" if ln <= 0xFFFFFFFF else "Q"), ln))
        except sstable.CorruptTable:
            raise CorruptCheckpoint(f"string entry {key!r}: truncated lengths") from None
        if pos + 4 + sum(lengths) != len(buf):
            raise CorruptCheckpoint(f"string entry {key!r}: lengths do not add up to the entry size")
        (stored,) = struct.unpack_from(o + "I", buf, pos)
        if unmask(stored) != running:
            raise CorruptCheckpoint(f"The length checksum does not match for {key!r} in {path}")
        running = crc32c_extend(running, buf[pos:pos + 4])
        pos += 4
        mv = memoryview(buf)
        for i, ln in enumerate(lengths):
            out[i] = bytes(mv[pos:pos + ln])
            pos += ln
        running = crc32c_extend(running, mv[pos - sum(lengths):])
        if running != unmask(crc):
            raise CorruptCheckpoint(f"Checksum does not match for string entry {key!r} in {path} (the file is "
                                    "corrupted)")
        return out.reshape(shape)
