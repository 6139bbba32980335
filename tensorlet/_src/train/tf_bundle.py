"""Reading checkpoints written by TensorFlow itself (the TensorBundle format), so TF-trained weights load.

A TF checkpoint's ``.index`` is a LevelDB-style table (sorted key/value blocks, a block index and a 48-byte
footer ending in the magic ``0xdb4775248b80fb57``).  Key ``""`` holds the ``BundleHeaderProto``; every other
key is a tensor name whose value is a ``BundleEntryProto`` (dtype, shape, shard, offset, size, CRC-32C).
Values live in ``.data-NNNNN-of-MMMMM`` files: numbers as raw little-endian bytes (their masked CRC-32C is
verified), a string tensor as varint64 lengths, a 4-byte checksum, then the bytes.  Only reading is
implemented; protobuf messages are decoded from the wire format by hand (a few varints), everything
bounds-checked.  Compressed blocks and sliced (partitioned) variables are refused with a clear error.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.train.format import MAX_INDEX_BYTES, CorruptCheckpoint

_MAGIC = 0xDB4775248B80FB57

try:  # TFRecord's CRC-32C (vectorised NumPy), shared with tensorlet's io package
    from tensorlet._src.io.crc32c import masked_crc32c as _masked_crc32c
except ImportError:  # pragma: no cover
    _masked_crc32c = None


def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise CorruptCheckpoint("truncated varint in TF checkpoint index")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise CorruptCheckpoint("varint too long in TF checkpoint index")


def _fields(buf):
    """Yields ``(field number, value)`` of a protobuf message (ints for varint/fixed, bytes for strings)."""
    pos = 0
    while pos < len(buf):
        tag, pos = _varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            if pos + 8 > len(buf):
                raise CorruptCheckpoint("truncated fixed64")
            value, pos = struct.unpack_from("<Q", buf, pos)[0], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            if pos + n > len(buf):
                raise CorruptCheckpoint("truncated field in TF checkpoint index")
            value, pos = bytes(buf[pos:pos + n]), pos + n
        elif wire == 5:
            if pos + 4 > len(buf):
                raise CorruptCheckpoint("truncated fixed32")
            value, pos = struct.unpack_from("<I", buf, pos)[0], pos + 4
        else:
            raise CorruptCheckpoint(f"unsupported protobuf wire type {wire}")
        yield number, value


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _shape(buf):
    dims = []
    for number, value in _fields(buf):
        if number == 2:
            size = 0
            for n2, v2 in _fields(value):
                if n2 == 1:
                    size = _signed(v2)
            if size < 0:
                raise CorruptCheckpoint("TF checkpoint entry with an unknown dimension")
            dims.append(size)
        elif number == 3 and value:
            raise CorruptCheckpoint("TF checkpoint entry with unknown rank")
    return tuple(dims)


def _block_entries(data, offset, size):
    """Key/value pairs of one table block (prefix-compressed keys, restart array at the end)."""
    if offset + size + 5 > len(data) or size < 4:
        raise CorruptCheckpoint("TF checkpoint index block out of range")
    if data[offset + size] != 0:
        raise CorruptCheckpoint("compressed TF checkpoint index blocks are not supported")
    block = memoryview(data)[offset:offset + size]
    (num_restarts,) = struct.unpack_from("<I", block, size - 4)
    end = size - 4 * (num_restarts + 1)
    if end < 0:
        raise CorruptCheckpoint("bad restart count in TF checkpoint index block")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        non_shared, pos = _varint(block, pos)
        vlen, pos = _varint(block, pos)
        if shared > len(key) or pos + non_shared + vlen > end:
            raise CorruptCheckpoint("bad entry in TF checkpoint index block")
        key = key[:shared] + bytes(block[pos:pos + non_shared])
        pos += non_shared
        yield key, bytes(block[pos:pos + vlen])
        pos += vlen


def _handle(buf, pos=0):
    off, pos = _varint(buf, pos)
    size, pos = _varint(buf, pos)
    return off, size, pos


class Reader:
    """Same interface as ``format.Reader``, over a checkpoint TF wrote."""

    def __init__(self, prefix: str):
        try:
            self._load(prefix)
        except (TypeError, IndexError, OverflowError, struct.error, UnicodeError) as e:  # fields of the wrong type
            raise CorruptCheckpoint(f"malformed TF checkpoint index {prefix}.index: {e}") from None

    def _load(self, prefix):
        self.prefix = prefix
        path = prefix + ".index"
        if os.path.getsize(path) > MAX_INDEX_BYTES:
            raise CorruptCheckpoint(f"checkpoint index {path} is too large")
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 48 or struct.unpack_from("<Q", data, len(data) - 8)[0] != _MAGIC:
            raise CorruptCheckpoint(f"{path} is neither a tensorlet nor a TensorFlow checkpoint index")
        footer = data[-48:]
        _, _, pos = _handle(footer)
        index_off, index_size, _ = _handle(footer, pos)
        self._entries = {}
        num_shards = 1
        for _, handle in _block_entries(data, index_off, index_size):
            off, size, _ = _handle(handle)
            for key, value in _block_entries(data, off, size):
                if key == b"":
                    for number, v in _fields(value):
                        if number == 1:
                            num_shards = v
                        elif number == 2 and v != 0:
                            raise CorruptCheckpoint("big-endian TF checkpoints are not supported")
                    continue
                self._entries[key.decode("utf-8", "surrogateescape")] = self._entry(key, value)
        self._num_shards = max(1, num_shards)
        self._sizes = {}

    def _entry(self, key, value):
        dtype, shape, shard, offset, size, crc = None, (), 0, 0, 0, None
        for number, v in _fields(value):
            if number == 1:
                dtype = v
            elif number == 2:
                shape = _shape(v)
            elif number == 3:
                shard = v
            elif number == 4:
                offset = v
            elif number == 5:
                size = v
            elif number == 6:
                crc = v
            elif number == 7:
                raise CorruptCheckpoint(f"{key!r} is a sliced (partitioned) variable, which tensorlet cannot read")
        try:
            name = _dt.as_dtype(int(dtype)).name
        except (TypeError, ValueError):
            raise CorruptCheckpoint(f"{key!r}: unsupported dtype enum {dtype!r}") from None
        if name not in ("string",) and not _dt.as_dtype(name).is_numpy_compatible:
            raise CorruptCheckpoint(f"{key!r}: dtype {name} cannot be read")
        return name, shape, shard, offset, size, crc

    def keys(self):
        return list(self._entries)

    def has(self, key) -> bool:
        return key in self._entries

    def dtype(self, key) -> str:
        return self._entries[key][0]

    def shape(self, key) -> tuple:
        return self._entries[key][1]

    def get(self, key) -> np.ndarray:
        try:
            return self._get(key)
        except (TypeError, IndexError, OverflowError, struct.error, MemoryError) as e:
            raise CorruptCheckpoint(f"malformed TF checkpoint entry {key!r}: {e}") from None

    def _get(self, key) -> np.ndarray:
        dtype, shape, shard, offset, size, crc = self._entries[key]
        if shard >= self._num_shards:
            raise CorruptCheckpoint(f"{key!r}: shard {shard} out of range")
        path = f"{self.prefix}.data-{shard:05d}-of-{self._num_shards:05d}"
        total = self._sizes.get(path)
        if total is None:
            try:
                total = self._sizes[path] = os.path.getsize(path)
            except OSError:
                raise CorruptCheckpoint(f"checkpoint data file {path} is missing") from None
        if offset + size > total:
            raise CorruptCheckpoint(f"{key!r} points past the end of {path}")
        n = 1
        for d in shape:
            n *= d
        buf = bytearray(size)
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                if f.readinto(buf) != size:
                    raise CorruptCheckpoint(f"{path} is truncated")
        except OSError:
            raise CorruptCheckpoint(f"checkpoint data file {path} cannot be read") from None
        if dtype != "string":
            if crc is not None and _masked_crc32c is not None and _masked_crc32c(bytes(buf)) != crc:
                raise CorruptCheckpoint(f"checksum mismatch for {key!r} in {path} (the file is corrupted)")
            np_dtype = np.dtype(_dt.as_dtype(dtype).as_numpy_dtype).newbyteorder("<")
            if n * np_dtype.itemsize != size:
                raise CorruptCheckpoint(f"{key!r}: size {size} does not match shape {list(shape)} and {dtype}")
            arr = np.frombuffer(buf, dtype=np.uint8).view(np_dtype).reshape(shape)
            return arr.astype(np_dtype.newbyteorder("="), copy=False)
        lengths, pos = [], 0
        for _ in range(n):
            ln, pos = _varint(buf, pos)
            lengths.append(ln)
        pos += 4  # checksum of the lengths
        if pos + sum(lengths) != size:
            raise CorruptCheckpoint(f"string entry {key!r}: lengths do not add up to the entry size")
        out = np.empty(n, dtype=object)
        for i, ln in enumerate(lengths):
            out[i] = bytes(buf[pos:pos + ln])
            pos += ln
        return out.reshape(shape)
