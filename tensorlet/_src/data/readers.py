"""File readers: ``TextLineDataset``, ``FixedLengthRecordDataset``, ``TFRecordDataset`` (records come from
``tensorlet._src.io.tfrecord.iter_records``), ``experimental.CsvDataset`` and ``experimental.make_csv_dataset``.

Files are read lazily, one after another, or ``num_parallel_reads`` at a time (a parallel interleave with
one background thread per open file).  Compression: ``""``/``None``, ``"GZIP"``, ``"ZLIB"``.

>>> [l.numpy() for l in tf.data.TextLineDataset("/tmp/lines.txt")]   # doctest: +SKIP
[b'first line', b'second line']
"""

from __future__ import annotations

import collections
import csv
import glob
import gzip
import io
import os
import zlib

import numpy as np

from tensorlet._src.data.dataset_ops import UNKNOWN, DatasetV2, static_int
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.ops.registry import tf_export

__all__ = ["TextLineDatasetV2", "FixedLengthRecordDatasetV2", "TFRecordDatasetV2", "CsvDatasetV2",
           "make_csv_dataset", "open_file"]

_READ = 1 << 20


def _compression(c):
    if isinstance(c, Tensor):
        c = c.numpy()
    if isinstance(c, bytes):
        c = c.decode()
    c = (c or "").upper()
    if c not in ("", "GZIP", "ZLIB"):
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression type: {c}")
    return c


def _path(f):
    if isinstance(f, np.ndarray):
        f = f[()]
    if isinstance(f, bytes):
        return f.decode()
    return os.fspath(f)


class _ZlibReader(io.RawIOBase):
    def __init__(self, f):
        self._f = f
        self._d = zlib.decompressobj()
        self._buf = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self._buf:
            chunk = self._f.read(_READ)
            if not chunk:
                self._buf = self._d.flush()
                if not self._buf:
                    return 0
                break
            self._buf = self._d.decompress(chunk)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self):
        self._f.close()
        super().close()


def open_file(path, compression=""):
    """A binary file object for ``path`` with TF's compression names (NotFoundError as TF words it)."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=f, mode="rb")
    if compression == "ZLIB":
        return io.BufferedReader(_ZlibReader(f), _READ)
    return f


def _filenames(filenames):
    """A dataset of string scalars from a file name, list, string tensor or dataset of names."""
    from tensorlet._src.data.sources import TensorSliceDataset

    if isinstance(filenames, DatasetV2):
        spec = filenames.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is _dt.string and spec.shape.rank in (0, None)):
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                            f"{spec} elements.")
        return filenames
    if isinstance(filenames, os.PathLike):
        filenames = os.fspath(filenames)
    if isinstance(filenames, (list, tuple)):
        filenames = [os.fspath(f) if isinstance(f, os.PathLike) else f for f in filenames]
    t = convert_to_tensor(filenames)
    if t.dtype is not _dt.string:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `{t.dtype!r}` elements.")
    v = t._v
    if v.ndim == 0:
        v = v.reshape(1)
    elif v.ndim > 1:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements of shape [] (i.e. scalars). "
                        f"Got {v.shape}.")
    return TensorSliceDataset(v)


class _PerFileDataset(DatasetV2):
    """Records of one file (``reader(path) -> iterator of arrays``)."""

    def __init__(self, path, reader, spec):
        self._path = path
        self._reader = reader
        self._set_spec(spec)

    def _gen(self, ictx):
        for rec in self._reader(self._path):
            yield (rec,)


class _FilesDataset(DatasetV2):
    """Base of the readers: files in order, or ``num_parallel_reads`` interleaved (TF's layout)."""

    def _setup(self, filenames, reader, spec, num_parallel_reads):
        self._files = _filenames(filenames)
        self._reader = reader
        self._set_spec(spec)
        self._impl = None
        if num_parallel_reads is not None:
            n = static_int(num_parallel_reads, "num_parallel_reads")
            self._impl = self._files.interleave(lambda f: _PerFileDataset(_path(f._v), reader, spec),
                                                cycle_length=n if n > 0 else None, block_length=1,
                                                num_parallel_calls=n)

    def _inputs(self):
        return [self._files]

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        if self._impl is not None:
            return self._impl._gen(ictx)
        return self._sequential(ictx)

    def _sequential(self, ictx):
        reader = self._reader
        me = id(self)
        for (f,) in self._files._gen(ictx):
            it = reader(_path(f))
            while True:
                try:
                    rec = next(it)
                except StopIteration:
                    break
                except errors.OpError:
                    if me in ictx.ignore:  # under ignore_errors a corrupted file ends early; go on with the next
                        break
                    raise
                yield (rec,)


def _scalar_bytes(b):
    a = np.empty((), object)
    a[()] = b
    return a


@tf_export("data.TextLineDataset")
class TextLineDatasetV2(_FilesDataset):
    """Lines of text files (without the ``\\n`` / ``\\r\\n`` terminator) as ``tf.string`` scalars."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        comp = _compression(compression_type)

        def read(path):
            with open_file(path, comp) as f:
                for line in f:
                    if line.endswith(b"\n"):
                        line = line[:-1]
                        if line.endswith(b"\r"):
                            line = line[:-1]
                    yield _scalar_bytes(line)

        self._setup(filenames, read, TensorSpec([], _dt.string), num_parallel_reads)


@tf_export("data.FixedLengthRecordDataset")
class FixedLengthRecordDatasetV2(_FilesDataset):
    """Fixed-size records of binary files (after ``header_bytes``, before ``footer_bytes``)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        comp = _compression(compression_type)
        rb = static_int(record_bytes, "record_bytes")
        hb = 0 if header_bytes is None else static_int(header_bytes, "header_bytes")
        fb = 0 if footer_bytes is None else static_int(footer_bytes, "footer_bytes")
        if rb <= 0:
            raise errors.InvalidArgumentError(None, None, f"record_bytes must be greater than zero, got {rb}")

        def read(path):
            with open_file(path, comp) as f:
                data = f.read()
            body = data[hb:len(data) - fb if fb else len(data)]
            for i in range(0, len(body) - rb + 1, rb):
                yield _scalar_bytes(body[i:i + rb])

        self._setup(filenames, read, TensorSpec([], _dt.string), num_parallel_reads)


@tf_export("data.TFRecordDataset")
class TFRecordDatasetV2(_FilesDataset):
    """Records of TFRecord files (``tf.string`` scalars); reading and CRC checks live in ``tensorlet._src.io``."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        comp = _compression(compression_type)

        def read(path):
            from tensorlet._src.io.tfrecord import iter_records

            for rec in iter_records(path, comp):
                yield _scalar_bytes(bytes(rec))

        self._setup(filenames, read, TensorSpec([], _dt.string), num_parallel_reads)


# --- CSV -------------------------------------------------------------------------------------------------

_CSV_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)


def _record_default(d):
    """(dtype, default array or None when required)."""
    if isinstance(d, _dt.DType) or (isinstance(d, type) and d in (int, float, str, bytes)):
        dt = _dt.as_dtype(d)
        return dt, None
    t = convert_to_tensor(d)
    if t.dtype not in _CSV_TYPES:
        raise TypeError(f"Unsupported type for record default: {t.dtype.name}")
    v = t._v
    if v.size == 0:
        return t.dtype, None
    return t.dtype, np.asarray(v).reshape(-1)[:1].reshape(())


def _parse_field(text, dt, default, na_value, col, rec, path):
    if text == "" or (na_value and text == na_value):
        if default is None:
            raise errors.InvalidArgumentError(None, None, f"Field {col} is required but missing in record {rec}!")
        return default
    try:
        if dt is _dt.string:
            return _scalar_bytes(text.encode())
        if dt in (_dt.int32, _dt.int64):
            v = int(text)
            info = np.iinfo(dt._np)
            if not info.min <= v <= info.max:
                raise ValueError
            return dt._np.type(v)
        return dt._np.type(float(text))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Field {col} in record {rec} is not a valid "
                                                      f"{dt.name}: {text}") from None


@tf_export("data.experimental.CsvDataset")
class CsvDatasetV2(_FilesDataset):
    """Rows of CSV files as tuples of scalars typed by ``record_defaults`` (a dtype: required column)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None,
                 name=None):
        comp = _compression(compression_type)
        defaults = [_record_default(d) for d in record_defaults]
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("Either select_cols or exclude_cols should be empty")
        sel = None if select_cols is None else [static_int(c, "select_cols") for c in select_cols]
        exc = None if exclude_cols is None else set(static_int(c, "exclude_cols") for c in exclude_cols)
        if sel is not None:
            if sel != sorted(sel):
                raise errors.InvalidArgumentError(None, None, "select_cols is not sorted.")
            if len(sel) != len(defaults):
                raise ValueError("Length of select_cols and record_defaults do not match.")
        self._defaults = defaults
        delim = field_delim
        quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE

        def read(path):
            with open_file(path, comp) as fb:
                text = io.TextIOWrapper(fb, encoding="utf-8", newline="")
                reader = csv.reader(text, delimiter=delim, quoting=quoting)
                for rec, row in enumerate(reader):
                    if header and rec == 0:
                        continue
                    if not row:
                        continue
                    if sel is not None:
                        cols = sel
                    elif exc is not None:
                        cols = [i for i in range(len(row)) if i not in exc]
                    else:
                        cols = range(len(row))
                    cols = list(cols)
                    if len(cols) != len(defaults) or (cols and cols[-1] >= len(row)):
                        raise errors.InvalidArgumentError(
                            None, None, f"Expect {len(defaults)} fields but have {len(row)} in record {rec}")
                    yield tuple(_parse_field(row[c], dt, d, na_value, c, rec, path)
                                for c, (dt, d) in zip(cols, defaults))

        spec = tuple(TensorSpec([], dt) for dt, _ in defaults)
        self._files = _filenames(filenames)
        self._set_spec(spec)
        self._reader = read
        self._impl = None

    def _sequential(self, ictx):
        me = id(self)
        for (f,) in self._files._gen(ictx):
            it = self._reader(_path(f))
            while True:
                try:
                    row = next(it)
                except StopIteration:
                    break
                except errors.InvalidArgumentError:
                    if me in ictx.ignore:
                        continue
                    raise
                yield row


def _infer_type(text, na_value, prev):
    if text == "" or text == na_value:
        return prev
    order = [_dt.int32, _dt.int64, _dt.float32, _dt.float64, _dt.string]
    start = order.index(prev) if prev is not None else 0
    for t in order[start:]:
        if t is _dt.string:
            return t
        try:
            if t in (_dt.int32, _dt.int64):
                v = int(text)
                info = np.iinfo(t._np)
                if info.min <= v <= info.max:
                    return t
            else:
                v = float(text)
                if t is _dt.float64 or abs(v) <= np.finfo(np.float32).max or not np.isfinite(v):
                    return t
        except ValueError:
            continue
    return _dt.string


def _header(path, delim, comp):
    with open_file(path, comp) as fb:
        text = io.TextIOWrapper(fb, encoding="utf-8", newline="")
        row = next(csv.reader(text, delimiter=delim), None)
    if row is None:
        raise ValueError(f"Cannot infer column names: {path} is empty.")
    return row


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ``(OrderedDict(column -> values), label)`` from CSV files (column types inferred)."""
    from tensorlet._src.data.sources import TensorSliceDataset

    pats = [file_pattern] if isinstance(file_pattern, (str, bytes, os.PathLike)) else list(file_pattern)
    files = []
    for p in pats:
        p = os.fsdecode(p)
        files.extend(sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p])
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    comp = _compression(compression_type)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _header(files[0], field_delim, comp)
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Expected `column_names` to be unique.")
    if select_columns is not None:
        idx = [column_names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
        idx = sorted(idx)
    else:
        idx = list(range(len(column_names)))
    names = [column_names[i] for i in idx]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}.")
    if column_defaults is None:
        types = [None] * len(idx)
        with open_file(files[0], comp) as fb:
            reader = csv.reader(io.TextIOWrapper(fb, encoding=encoding, newline=""), delimiter=field_delim)
            for r, row in enumerate(reader):
                if header and r == 0:
                    continue
                if r > num_rows_for_inference:
                    break
                for k, c in enumerate(idx):
                    if c < len(row):
                        types[k] = _infer_type(row[c], na_value, types[k])
        # TF's inferred defaults are zero values (0 / ""), so missing fields are filled, not errors
        column_defaults = [np.asarray(b"", object) if t in (None, _dt.string) else np.zeros((), t._np)
                           for t in types]
    elif select_columns is not None and len(column_defaults) == len(column_names):
        column_defaults = [column_defaults[i] for i in idx]
    n_reads = 1 if num_parallel_reads is None else num_parallel_reads

    def file_ds(f):
        d = CsvDatasetV2(_path(f._v), column_defaults, compression_type=comp, header=header,
                         field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                         select_cols=idx if select_columns is not None else None)
        return d.ignore_errors() if ignore_errors else d

    arr = np.empty(len(files), object)
    arr[:] = [os.fsencode(f) for f in files]
    ds = TensorSliceDataset(arr)
    if shuffle:
        ds = ds.shuffle(len(files), seed=shuffle_seed)
    ds = ds.interleave(file_ds, cycle_length=n_reads, num_parallel_calls=None if n_reads == 1 else n_reads)
    if num_epochs != 1 and shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed).repeat(num_epochs)
    elif shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)

    def to_dict(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    ds = ds.map(to_dict)
    return ds.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)
