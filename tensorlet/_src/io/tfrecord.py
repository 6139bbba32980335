"""TFRecord files: ``tf.io.TFRecordWriter``, ``tf.io.TFRecordOptions`` and the reader behind
``tf.data.TFRecordDataset`` (:func:`iter_records`).

A record is framed as ``uint64 length (little-endian) | masked crc32c(length) | data | masked crc32c(data)``;
a file may be compressed as a whole with ZLIB or GZIP.  Files written here are byte-identical to TF's
(zlib memLevel 9, ``flush()`` is a zlib partial flush, as TF's ZlibOutputBuffer does).

The reader reads large blocks, walks the headers in Python and checks the checksums of all records of a
block in one vectorised call (:mod:`tensorlet._src.io.crc32c`).  Corruption raises
``tf.errors.DataLossError`` with TF's wording, prefixed by the file name as TF prefixes file errors
(``"/data/train.tfrecord; corrupted record at 12"``).
"""

from __future__ import annotations

import os
import re
import struct
import zlib

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.io import crc32c as _crc
from tensorlet._src.ops.registry import tf_export

__all__ = ["TFRecordOptions", "TFRecordWriter", "iter_records", "compression_string", "frame_records"]

_LEN = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_NAMES = {0: "", 1: "ZLIB", 2: "GZIP"}
READ_BLOCK = 1 << 20  # bytes of (uncompressed) stream handled per vectorised checksum pass
_WRITE_BUFFER = 4 << 20  # bytes of records the writer gathers before framing them in one pass


def _fspath(path) -> str:
    if isinstance(path, bytes):
        return path.decode()
    if hasattr(path, "numpy"):  # a scalar string tensor
        v = path.numpy()
        return v.decode() if isinstance(v, bytes) else str(v)
    return os.fspath(path)


def compression_string(options) -> str:
    """``""``, ``"ZLIB"`` or ``"GZIP"`` from a ``TFRecordOptions``, a name, an enum value or ``None``."""
    if options is None:
        return ""
    ct = options.compression_type if isinstance(options, TFRecordOptions) else options
    if ct is None:
        return ""
    if hasattr(ct, "numpy"):
        ct = ct.numpy()
    if isinstance(ct, bytes):
        ct = ct.decode()
    if isinstance(ct, (int, np.integer)) and not isinstance(ct, bool) and int(ct) in _NAMES:
        return _NAMES[int(ct)]
    if ct in ("", "ZLIB", "GZIP"):
        return ct
    raise ValueError(f'Not a valid compression_type: "{ct}"')


@tf_export("io.TFRecordOptions")
class TFRecordOptions:
    """Options of a TFRecord file: compression (``""``, ``"ZLIB"``, ``"GZIP"``) and zlib settings.

    >>> tf.io.TFRecordOptions(compression_type="GZIP").compression_type
    'GZIP'
    """

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP"}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        compression_string(compression_type)  # validates
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``"GZIP"`` for ``TFRecordOptions("GZIP")``, ``2`` or ``"GZIP"``; ``""`` for ``None``."""
        return compression_string(options)


def _compressor(kind: str, options):
    opt = options if isinstance(options, TFRecordOptions) else TFRecordOptions()
    level = -1 if opt.compression_level is None else int(opt.compression_level)
    window = 15 if opt.window_bits is None else int(opt.window_bits)
    mem = 9 if opt.mem_level is None else int(opt.mem_level)  # TF's ZlibCompressionOptions default
    strategy = 0 if opt.compression_strategy is None else int(opt.compression_strategy)
    return zlib.compressobj(level, zlib.DEFLATED, window + 16 if kind == "GZIP" else window, mem, strategy)


def frame_records(records) -> bytes:
    """The TFRecord framing of a list of ``bytes`` records, checksums computed in one pass."""
    n = len(records)
    if n == 0:
        return b""
    lengths = np.fromiter((len(r) for r in records), np.uint64, n)
    heads = lengths.astype("<u8").tobytes()
    total = int(lengths.sum())
    if total + 8 * n < 2048:  # few bytes: pure Python is cheaper than NumPy's per-call cost
        parts = []
        for i, r in enumerate(records):
            h = heads[8 * i:8 * i + 8]
            parts += (h, _U32.pack(_crc.mask(_crc.crc32c(h))), r, _U32.pack(_crc.mask(_crc.crc32c(r))))
        return b"".join(parts)
    data = b"".join(records)
    ends = np.cumsum(lengths.astype(np.int64))
    head_crc = _crc.mask(_crc.crc32c_many(heads, np.arange(n, dtype=np.int64) * 8, np.full(n, 8)))
    data_crc = _crc.mask(_crc.crc32c_many(data, ends - lengths.astype(np.int64), lengths))
    hc = head_crc.astype("<u4").tobytes()
    dc = data_crc.astype("<u4").tobytes()
    parts = []
    for i, r in enumerate(records):
        parts += (heads[8 * i:8 * i + 8], hc[4 * i:4 * i + 4], r, dc[4 * i:4 * i + 4])
    return b"".join(parts)


@tf_export("io.TFRecordWriter")
class TFRecordWriter:
    """Writes records (``bytes``, e.g. serialized ``tf.train.Example``) to a TFRecord file.

    >>> with tf.io.TFRecordWriter("/tmp/data.tfrecord") as w:
    ...     w.write(tf.train.Example().SerializeToString())

    Records are buffered and framed in batches; ``flush()`` and ``close()`` write everything out.
    The file is written in place, as TF does (it exists, empty, as soon as the writer is created).
    """

    def __init__(self, path, options=None):
        self._path = _fspath(path)
        self._kind = compression_string(options)
        try:
            self._file = open(self._path, "wb")  # noqa: SIM115 - closed by close()/__exit__/__del__
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self._path}; No such file or directory") from None
        except IsADirectoryError:
            raise errors.FailedPreconditionError(None, None, f"{self._path}; Is a directory") from None
        except PermissionError:
            raise errors.PermissionDeniedError(None, None, f"{self._path}; Permission denied") from None
        self._z = _compressor(self._kind, options) if self._kind else None
        self._pending: list = []
        self._pending_bytes = 0

    def write(self, record):
        """Append one record (``bytes``; ``str`` is written as UTF-8)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode()
        elif not isinstance(record, bytes):
            if isinstance(record, (bytearray, memoryview)):
                record = bytes(record)
            else:
                raise TypeError(f"write(): incompatible function arguments: record must be bytes or str, "
                                f"got {type(record).__name__}")
        self._pending.append(record)
        self._pending_bytes += len(record) + 16
        if self._pending_bytes >= _WRITE_BUFFER:
            self._drain()

    def _drain(self):
        if self._pending:
            data = frame_records(self._pending)
            self._pending = []
            self._pending_bytes = 0
            self._file.write(self._z.compress(data) if self._z is not None else data)

    def flush(self):
        """Write buffered records to the file (a zlib partial flush for compressed files, like TF)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._drain()
        if self._z is not None:
            self._file.write(self._z.flush(zlib.Z_PARTIAL_FLUSH))
        self._file.flush()

    def close(self):
        """Flush and close the file; later writes raise ``FailedPreconditionError``."""
        if self._file is None:
            return
        try:
            self._drain()
            if self._z is not None:
                self._file.write(self._z.flush(zlib.Z_FINISH))
        finally:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


# --- reading ---------------------------------------------------------------------------------------------

def _data_loss(path, message):
    return errors.DataLossError(None, None, f"{path}; {message}")


class _Plain:
    """Uncompressed byte source."""

    def __init__(self, f, path):
        self.f = f
        self.truncated = "Read less bytes than requested"

    def read(self, n):
        return self.f.read(n)

    def skip(self, n):
        self.f.seek(n, os.SEEK_CUR)

    def remaining(self):
        """Bytes left in the file (a declared record length beyond it is refused before allocating)."""
        try:
            return os.fstat(self.f.fileno()).st_size - self.f.tell()
        except OSError:
            return None


_ZERR = re.compile(r"Error (-?\d+) while (?:decompressing data|flushing)(?::\s*(.*))?")


class _Inflate:
    """Decompressed byte source (ZLIB or GZIP, also concatenated gzip members)."""

    IN_BLOCK = 1 << 16

    def __init__(self, f, path, kind):
        self.f = f
        self.path = path
        self.wbits = 31 if kind == "GZIP" else 15
        self.d = zlib.decompressobj(self.wbits)
        self.tail = b""  # compressed input not consumed yet
        self.error = None  # a DataLossError to raise once the output before it has been handed out
        self.eof = False
        self.truncated = "EOF reached"

    def _inflate(self, data, limit):
        saved = self.d.copy()
        try:
            return self.d.decompress(data, limit)
        except zlib.error as e:
            m = _ZERR.match(str(e))
            code, why = (m.group(1), m.group(2) or "") if m else ("-3", str(e))
            self.error = _data_loss(self.path, f"inflate() failed with error {code}: {why}".rstrip(": "))
            self.d = saved  # replay byte by byte to hand out the output produced before the error
            out = []
            for i in range(len(data)):
                try:
                    out.append(self.d.decompress(data[i:i + 1]))
                except zlib.error:
                    break
            self.eof = True
            return b"".join(out)

    def read(self, n):
        out = []
        got = 0
        while got < n and not self.eof:
            if self.d.eof:
                rest = self.d.unused_data + self.tail
                self.tail = b""
                if not rest:
                    rest = self.f.read(self.IN_BLOCK)
                if not rest:
                    self.eof = True
                    break
                self.d = zlib.decompressobj(self.wbits)  # another gzip member follows
                self.tail = rest
            data = self.tail or self.f.read(self.IN_BLOCK)
            if not data:
                self.eof = True  # the stream ended early: records read so far stand, a partial one is truncated
                break
            piece = self._inflate(data, n - got)
            self.tail = self.d.unconsumed_tail
            out.append(piece)
            got += len(piece)
        return b"".join(out)

    def remaining(self):
        return None  # unknown before inflating; reading grows only with the data that inflates

    def skip(self, n):
        while n > 0:
            chunk = self.read(min(n, 1 << 22))
            if not chunk:
                return
            n -= len(chunk)


def _open_source(path, kind):
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by iter_records' finally
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    return f, (_Inflate(f, path, kind) if kind else _Plain(f, path))


def _corrupted(path, offset):
    note = " (Is this even a TFRecord file?)" if offset == 0 else ""
    return _data_loss(path, f"corrupted record at {offset}{note}")


def _first_bad(buf, starts, lengths):
    """Index of the first record of ``buf`` (headers at ``starts``) whose length or data checksum fails,
    and which one (``"length"``/``"data"``); ``(None, None)`` when all are good."""
    n = len(starts)
    total = int(lengths.sum()) + 16 * n
    if total < 4096:
        for i in range(n):
            s, ln = int(starts[i]), int(lengths[i])
            if _crc.mask(_crc.crc32c(buf[s:s + 8])) != _U32.unpack_from(buf, s + 8)[0]:
                return i, "length"
            if _crc.mask(_crc.crc32c(memoryview(buf)[s + 12:s + 12 + ln])) != _U32.unpack_from(buf, s + 12 + ln)[0]:
                return i, "data"
        return None, None
    a = np.frombuffer(buf, np.uint8)
    four = np.arange(4)
    head_stored = a[(starts + 8)[:, None] + four].view("<u4")[:, 0]
    data_stored = a[(starts + 12 + lengths)[:, None] + four].view("<u4")[:, 0]
    bad_len = _crc.mask(_crc.crc32c_many(buf, starts, np.full(n, 8))) != head_stored
    bad_data = _crc.mask(_crc.crc32c_many(buf, starts + 12, lengths)) != data_stored
    bad = bad_len | bad_data
    if not bad.any():
        return None, None
    i = int(np.argmax(bad))
    return i, ("length" if bad_len[i] else "data")


def iter_records(path, compression_type="", offsets=False, *, start_offset=0, block_size=None):
    """Yield the records of a TFRecord file as ``bytes`` (``(offset, record)`` with ``offsets=True``).

    ``offset`` is where the record's header starts in the uncompressed stream; ``start_offset`` resumes
    from such an offset (the end of a record: ``offset + len(record) + 16``).  Checksums are verified; a
    corrupted or truncated record raises ``tf.errors.DataLossError`` (after every good record before
    it has been yielded).  A trailing partial header (fewer than 12 bytes) ends the file silently, as in TF.
    """
    path = _fspath(path)
    kind = compression_string(compression_type)
    f, src = _open_source(path, kind)
    try:
        yield from _records_of(src, path, offsets, start_offset, block_size)
    finally:
        f.close()


class _Buffer:
    """Records already in memory (a stream decompressed by the caller)."""

    truncated = "Read less bytes than requested"

    def __init__(self, data):
        self.mv = memoryview(data)
        self.pos = 0

    def read(self, n):
        out = bytes(self.mv[self.pos:self.pos + n])
        self.pos += len(out)
        return out

    def skip(self, n):
        self.pos = min(len(self.mv), self.pos + n)

    def remaining(self):
        return len(self.mv) - self.pos


def iter_buffer_records(data, name):
    """:func:`iter_records` over TFRecord bytes in memory (``name`` is used in error messages)."""
    return _records_of(_Buffer(data), name, False, 0, None)


def _records_of(src, path, offsets, start_offset, block_size):
    block = int(block_size or READ_BLOCK)
    base = int(start_offset)  # stream offset of buf[0]
    if base:
        src.skip(base)
    buf = b""
    unpack = _LEN.unpack_from
    while True:
        chunk = src.read(block)
        at_end = not chunk
        if chunk:
            buf = buf + chunk if buf else chunk
        size = len(buf)
        starts, lengths = [], []
        p = 0
        while p + 12 <= size:
            ln = unpack(buf, p)[0]
            if p + 16 + ln > size:
                break
            starts.append(p)
            lengths.append(ln)
            p += 16 + ln
        if starts:
            st = np.array(starts, np.int64)
            ln_arr = np.array(lengths, np.int64)
            bad, what = _first_bad(buf, st, ln_arr)
            stop = len(starts) if bad is None else bad
            mv = buf
            if offsets:
                for i in range(stop):
                    s = starts[i]
                    yield base + s, mv[s + 12:s + 12 + lengths[i]]
            else:
                for i in range(stop):
                    s = starts[i]
                    yield mv[s + 12:s + 12 + lengths[i]]
            if bad is not None:
                off = base + starts[bad]
                raise _corrupted(path, off if what == "length" else off + 12)
        if p:
            buf = buf[p:]
            base += p
        # buf now holds at most one incomplete record
        if len(buf) >= 12:
            head = buf[:8]
            if _crc.mask(_crc.crc32c(head)) != _U32.unpack_from(buf, 8)[0]:
                raise _corrupted(path, base)
            need = 16 + unpack(buf, 0)[0] - len(buf)
            if need > block and not at_end:  # a record larger than a block: read the rest at once
                left = src.remaining()
                if left is not None and need > left:  # (a compressed stream grows only as data inflates)
                    raise _data_loss(path, f"truncated record at {base}' failed with {src.truncated}")
                more = src.read(need)
                buf += more
                if len(more) < need:
                    raise _data_loss(path, f"truncated record at {base}' failed with {src.truncated}")
                continue
        if at_end:
            error = getattr(src, "error", None)
            if error is not None:
                raise error
            if len(buf) >= 12:
                raise _data_loss(path, f"truncated record at {base}' failed with {src.truncated}")
            return
