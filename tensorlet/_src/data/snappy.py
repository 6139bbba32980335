"""The SNAPPY compression of tf.data snapshot files (TF's ``SnappyOutputBuffer`` framing), in pure Python.

A compressed stream is a sequence of blocks, each ``uint32 big-endian compressed length | raw snappy block``;
a raw block is ``varint32 uncompressed length`` then elements: literals (tag low bits ``00``) and back
references (``01``/``10``/``11``: copies with 1-, 2- or 4-byte offsets).  Decoding checks every length and
offset against the bytes that are there; a block may not declare more output than snappy can produce from its
size (about 21x), so nothing is allocated for bytes that do not exist.  Encoding writes literal-only blocks of
128 KiB (valid snappy that TF reads; no compression), which keeps this module small.
"""

from __future__ import annotations

import struct

BLOCK = 1 << 17  # TF reads blocks into a 256 KiB output buffer
_MAX_RATIO = 22  # a 3-byte copy element yields at most 64 bytes


class SnappyError(ValueError):
    pass


def _varint32(buf, pos):
    v = shift = 0
    while True:
        if pos >= len(buf) or shift > 28:
            raise SnappyError("truncated snappy length")
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, pos
        shift += 7


def decompress_block(block: bytes) -> bytes:
    n, pos = _varint32(block, 0)
    if n > _MAX_RATIO * len(block) + 64:
        raise SnappyError(f"snappy block declares {n} bytes, more than its {len(block)} bytes can hold")
    out = bytearray()
    end = len(block)
    while pos < end:
        tag = block[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                k = ln - 59
                if pos + k > end:
                    raise SnappyError("truncated snappy literal length")
                ln = int.from_bytes(block[pos:pos + k], "little")
                pos += k
            ln += 1
            if pos + ln > end or len(out) + ln > n:
                raise SnappyError("snappy literal runs past the block")
            out += block[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            if pos + 1 > end:
                raise SnappyError("truncated snappy copy")
            ln = 4 + ((tag >> 2) & 7)
            off = ((tag >> 5) << 8) | block[pos]
            pos += 1
        else:
            k = 2 if kind == 2 else 4
            if pos + k > end:
                raise SnappyError("truncated snappy copy")
            ln = (tag >> 2) + 1
            off = int.from_bytes(block[pos:pos + k], "little")
            pos += k
        if off == 0 or off > len(out) or len(out) + ln > n:
            raise SnappyError("bad snappy back reference")
        start = len(out) - off
        if off >= ln:
            out += out[start:start + ln]
        else:  # overlapping: the last ``off`` bytes repeat
            pattern = bytes(out[start:])
            out += (pattern * (ln // off + 1))[:ln]
    if len(out) != n:
        raise SnappyError(f"snappy block holds {len(out)} bytes, not the {n} it declares")
    return bytes(out)


def decompress_stream(data: bytes) -> bytes:
    """The bytes of a stream of length-prefixed snappy blocks (TF's framing)."""
    out, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise SnappyError("truncated snappy block header")
        (ln,) = struct.unpack_from(">I", data, pos)
        pos += 4
        if pos + ln > len(data):
            raise SnappyError("truncated snappy block")
        out.append(decompress_block(data[pos:pos + ln]))
        pos += ln
    return b"".join(out)


def _literal_block(raw: bytes) -> bytes:
    n = len(raw)
    head = bytearray()
    v = n
    while v >= 0x80:
        head.append((v & 0x7F) | 0x80)
        v >>= 7
    head.append(v)
    if n == 0:
        return bytes(head)
    if n <= 60:
        head.append((n - 1) << 2)
    else:
        head.append(63 << 2)
        head += struct.pack("<I", n - 1)
    return bytes(head) + raw


def compress_stream(data: bytes) -> bytes:
    out = []
    for start in range(0, len(data), BLOCK):
        block = _literal_block(data[start:start + BLOCK])
        out.append(struct.pack(">I", len(block)) + block)
    return b"".join(out)
