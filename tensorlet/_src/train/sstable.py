"""The immutable sorted table TensorFlow stores a checkpoint's ``.index`` in (LevelDB's table layout).

A table file is::

    data block 0 | trailer | data block 1 | trailer | ... | metaindex block | trailer | index block | trailer | footer

* A *block* holds sorted key/value entries.  Each entry is ``varint32 shared, varint32 non_shared,
  varint32 value_length, key[shared:], value``: the key shares ``shared`` leading bytes with the previous key.
  Every 16th entry (every entry in the index block) is a *restart point* with ``shared == 0``; the block ends
  with the restart offsets as little-endian uint32 and their count.
* Every block is followed by a 5-byte *trailer*: the compression type (0 = none) and the masked CRC-32C of the
  block's bytes plus that type byte.
* The *index block* maps, for each data block, a key ``>=`` every key in that block and ``<`` every key in the
  next one (shortened: ``"abc"`` / ``"abq"`` -> ``"abd"``; the last one is the shortest successor) to the block's
  *handle* ``varint64 offset, varint64 size``.  The metaindex block is empty.
* The 48-byte *footer* is the metaindex and index handles, zero-padded to 40 bytes, then the magic number
  ``0xdb4775248b80fb57`` (little-endian).

:func:`build` writes exactly what TensorFlow's ``table::TableBuilder`` writes with its default options (256 KiB
blocks, restart interval 16, no compression), so the bytes are identical for the same entries.
:func:`parse` reads a table, checking the footer, every block's CRC, every length against the bytes that are
there, and that keys are strictly increasing; anything else raises :class:`CorruptTable`.
"""

from __future__ import annotations

import struct

from tensorlet._src.io.crc32c import crc32c, mask, unmask

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_SIZE = 262144
RESTART_INTERVAL = 16
_TRAILER = 5


class CorruptTable(ValueError):
    """The bytes are not a valid table (mapped to ``DataLossError`` by the callers)."""


# --- varints ------------------------------------------------------------------------------------------------------
def put_varint(out: bytearray, v: int) -> None:
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def varint(v: int) -> bytes:
    out = bytearray()
    put_varint(out, v)
    return bytes(out)


def get_varint(buf, pos: int, limit: int | None = None, bits: int = 64) -> tuple[int, int]:
    """``(value, new position)`` of the varint at ``buf[pos]``; at most ``bits`` bits, inside ``buf[:limit]``."""
    end = len(buf) if limit is None else limit
    result = shift = 0
    while True:
        if pos >= end:
            raise CorruptTable("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            if result >> bits:
                raise CorruptTable(f"varint larger than {bits} bits")
            return result, pos
        shift += 7
        if shift >= bits + 7:
            raise CorruptTable("varint too long")


# --- writing ------------------------------------------------------------------------------------------------------
class _Block:
    def __init__(self, restart_interval: int):
        self.interval = restart_interval
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            last = self.last
            n = min(len(last), len(key))
            while shared < n and last[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        buf = self.buf
        put_varint(buf, shared)
        put_varint(buf, len(key) - shared)
        put_varint(buf, len(value))
        buf += key[shared:]
        buf += value
        self.last = key
        self.counter += 1

    def size_estimate(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def empty(self) -> bool:
        return not self.buf

    def finish(self) -> bytes:
        return bytes(self.buf) + struct.pack(f"<{len(self.restarts) + 1}I", *self.restarts, len(self.restarts))


def _separator(start: bytes, limit: bytes) -> bytes:
    """A short key ``k`` with ``start <= k < limit`` (TF's ``FindShortestSeparator``)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _successor(key: bytes) -> bytes:
    """A short key ``>= key`` (TF's ``FindShortSuccessor``)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


def build(entries) -> bytes:
    """The table file holding ``entries``, an iterable of ``(key bytes, value bytes)`` in strictly increasing
    key order, byte for byte as TensorFlow's table builder writes it."""
    out = bytearray()
    index = _Block(1)
    data = _Block(RESTART_INTERVAL)
    pending = None  # handle of the last data block, indexed once the next key (or the end) is known
    last_key = None

    def write_block(block: _Block) -> tuple[int, int]:
        raw = block.finish()
        handle = (len(out), len(raw))
        out.extend(raw)
        out.append(0)
        out.extend(struct.pack("<I", mask(crc32c(raw + b"\0"))))
        return handle

    def flush():
        nonlocal data, pending
        if not data.empty():
            pending = write_block(data)
            data = _Block(RESTART_INTERVAL)

    for key, value in entries:
        if last_key is not None:
            if key <= last_key:
                raise ValueError(f"table keys must be strictly increasing: {key!r} after {last_key!r}")
            if len(key) + len(value) >= 2 * BLOCK_SIZE:
                flush()
        if pending is not None:
            index.add(_separator(last_key, key), varint(pending[0]) + varint(pending[1]))
            pending = None
        last_key = key
        data.add(key, value)
        if data.size_estimate() >= BLOCK_SIZE:
            flush()
    flush()
    meta = write_block(_Block(RESTART_INTERVAL))
    if pending is not None:
        index.add(_successor(last_key), varint(pending[0]) + varint(pending[1]))
    idx = write_block(index)
    footer = varint(meta[0]) + varint(meta[1]) + varint(idx[0]) + varint(idx[1])
    out += footer + b"\0" * (40 - len(footer)) + struct.pack("<Q", MAGIC)
    return bytes(out)


# --- reading ------------------------------------------------------------------------------------------------------
def _handle(buf, pos: int, limit: int) -> tuple[int, int, int]:
    off, pos = get_varint(buf, pos, limit)
    size, pos = get_varint(buf, pos, limit)
    return off, size, pos


def _block(data, handle, end: int, what: str) -> memoryview:
    """The checked contents of the block at ``handle`` (which must lie inside ``data[:end]``)."""
    off, size = handle
    if off + size + _TRAILER > end:
        raise CorruptTable(f"{what} block (offset {off}, size {size}) lies outside the file")
    mv = memoryview(data)
    kind = data[off + size]
    (stored,) = struct.unpack_from("<I", data, off + size + 1)
    if crc32c(bytes(mv[off:off + size + 1])) != unmask(stored):
        raise CorruptTable(f"{what} block checksum mismatch (offset {off})")
    if kind != 0:
        raise CorruptTable(f"{what} block is compressed (type {kind}); only uncompressed tables can be read")
    return mv[off:off + size]


def _entries(block: memoryview, what: str):
    """``(key, value)`` pairs of one block, its restart array validated."""
    size = len(block)
    if size < 4:
        raise CorruptTable(f"{what} block too short")
    (num_restarts,) = struct.unpack_from("<I", block, size - 4)
    end = size - 4 - 4 * num_restarts
    if num_restarts == 0 or end < 0:
        raise CorruptTable(f"{what} block has a bad restart count {num_restarts}")
    restarts = struct.unpack_from(f"<{num_restarts}I", block, end)
    if restarts[0] != 0 or any(b <= a for a, b in zip(restarts, restarts[1:])) or restarts[-1] > max(end - 1, 0):
        raise CorruptTable(f"{what} block has bad restart offsets")
    restart_set = set(restarts)
    pos, key, seen = 0, b"", 0
    while pos < end:
        start = pos
        shared, pos = get_varint(block, pos, end, 32)
        non_shared, pos = get_varint(block, pos, end, 32)
        vlen, pos = get_varint(block, pos, end, 32)
        at_restart = start in restart_set
        if shared > len(key) or pos + non_shared + vlen > end or (at_restart and shared):
            raise CorruptTable(f"bad entry in {what} block")
        seen += at_restart
        key = key[:shared] + bytes(block[pos:pos + non_shared])
        pos += non_shared
        yield key, bytes(block[pos:pos + vlen])
        pos += vlen
    if end and seen != num_restarts:
        raise CorruptTable(f"{what} block has a restart point inside an entry")


def parse(data: bytes) -> list:
    """All ``(key, value)`` pairs of a table file, in order; raises :class:`CorruptTable` on any damage."""
    n = len(data)
    if n < FOOTER_SIZE:
        raise CorruptTable(f"file is too short to be an sstable ({n} bytes)")
    if struct.unpack_from("<Q", data, n - 8)[0] != MAGIC:
        raise CorruptTable("not an sstable (bad magic number)")
    foot = n - FOOTER_SIZE
    m_off, m_size, pos = _handle(data, foot, n - 8)
    i_off, i_size, _ = _handle(data, pos, n - 8)  # the zero padding after the handles is not checked (as TF)
    for _ in _entries(_block(data, (m_off, m_size), foot, "metaindex"), "metaindex"):
        pass  # TF writes no meta blocks; any entry there is ignored, as TF does
    out = []
    last = None
    prev_end = 0
    for sep, handle in _entries(_block(data, (i_off, i_size), foot, "index"), "index"):
        off, size, used = _handle(handle, 0, len(handle))
        if used != len(handle) or off < prev_end:
            raise CorruptTable("bad block handle in the table index")
        prev_end = off + size + _TRAILER
        for key, value in _entries(_block(data, (off, size), min(foot, m_off, i_off), "data"), "data"):
            if last is not None and key <= last:
                raise CorruptTable("table keys out of order")
            if key > sep:
                raise CorruptTable("table key beyond its index entry")
            last = key
            out.append((key, value))
    return out
