"""``tf.io`` file and byte ops: ``read_file``, ``write_file`` (atomic), ``matching_files``,
``serialize_tensor``/``parse_tensor`` (TF's ``TensorProto`` bytes), ``decode_raw``, ``decode_csv``,
``encode_base64``/``decode_base64`` and ``decode_compressed``.

Each is an op with a NumPy kernel and a shape rule, so ``Dataset.map`` and ``tf.function`` graphs can use
them (they run on the NumPy executor).  ``tf.io.gfile`` is in ``gfile.py``.
"""

from __future__ import annotations

import base64
import binascii
import glob as _glob
import os
import tempfile
import zlib

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.ops.registry import bind, tf_export

__all__ = ["read_file", "write_file", "matching_files", "serialize_tensor", "parse_tensor", "decode_raw",
           "decode_csv", "encode_base64", "decode_base64", "decode_compressed", "atomic_write"]


def _spec(shape, dtype):
    from tensorlet._src.ops.shapes import Spec

    return Spec(TensorShape(shape), dtype)


def _str(v) -> str:
    v = v.item() if isinstance(v, np.ndarray) else v
    return v.decode() if isinstance(v, bytes) else str(v)


def _strings(x):
    return strings(x)


def file_error(path, e: OSError, op=None):
    """The TF error for an ``OSError`` on ``path`` (``"path; No such file or directory"``)."""
    text = f"{path}; {e.strerror or e}"
    cls = (errors.NotFoundError if isinstance(e, FileNotFoundError) else
           errors.FailedPreconditionError if isinstance(e, (IsADirectoryError, NotADirectoryError)) else
           errors.PermissionDeniedError if isinstance(e, PermissionError) else
           errors.AlreadyExistsError if isinstance(e, FileExistsError) else errors.UnknownError)
    return errors.op_error(cls, op, text) if op else cls(None, None, text)


def atomic_write(path: str, data: bytes, make_dirs: bool = True):
    """Write ``data`` to ``path`` through a temporary file in the same directory renamed into place."""
    d = os.path.dirname(os.path.abspath(path))
    if make_dirs:
        os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# --- read_file / write_file / matching_files ----------------------------------------------------------------

def _read_kernel(xp, filename):
    path = _str(filename)
    try:
        with open(path, "rb") as f:
            return np.array(f.read(), dtype=object)
    except OSError as e:
        raise file_error(path, e, "ReadFile") from None


READ_FILE = io_op("ReadFile", _read_kernel, shape=lambda filename: _spec([], _dt.string), no_fold=True)


@tf_export("io.read_file")
def read_file(filename, name=None):
    """The whole contents of a file as a scalar string tensor.  ``tf.io.read_file("/tmp/img.png")``."""
    return bind(READ_FILE, _strings(filename))


def _write_kernel(xp, filename, contents):
    path = _str(filename)
    try:
        atomic_write(path, np.asarray(contents).item() if np.asarray(contents).dtype == object else bytes(contents))
    except OSError as e:
        raise file_error(path, e, "WriteFile") from None
    return np.zeros((0,), np.int8)  # no output in TF; a placeholder the graph can keep


WRITE_FILE = io_op("WriteFile", _write_kernel, shape=lambda filename, contents: _spec([0], _dt.int8), stateful=True)


@tf_export("io.write_file")
def write_file(filename, contents, name=None):
    """Write a scalar string to a file (creating parent directories), atomically: a temporary file in the
    same directory is renamed into place."""
    bind(WRITE_FILE, _strings(filename), _strings(contents))


def _matching_kernel(xp, pattern):
    pats = np.asarray(pattern, object).reshape(-1)
    found = sorted({m for p in pats.tolist() for m in _glob.glob(_str(p))})
    out = np.empty(len(found), object)
    out[:] = [m.encode() for m in found]
    return out


MATCHING_FILES = io_op("MatchingFiles", _matching_kernel, shape=lambda pattern: _spec([None], _dt.string),
                       no_fold=True)


@tf_export("io.matching_files")
def matching_files(pattern, name=None):
    """Sorted file names matching a glob pattern (or any of a vector of patterns)."""
    return bind(MATCHING_FILES, _strings(pattern))


# --- serialize_tensor / parse_tensor (tensorflow.TensorProto) ------------------------------------------------

def _tensor_pb2():
    from tensorboard.compat.proto import tensor_pb2

    return tensor_pb2


_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val",
               "int16": "int_val", "int8": "int_val", "uint16": "int_val", "int64": "int64_val",
               "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val", "string": "string_val",
               "complex64": "scomplex_val", "complex128": "dcomplex_val", "float16": "half_val",
               "bfloat16": "half_val"}


def tensor_to_proto(arr: np.ndarray, dtype: _dt.DType):
    """A ``TensorProto`` as TF's ``SerializeTensor`` builds it: numbers in ``tensor_content``, strings in
    ``string_val``."""
    p = _tensor_pb2().TensorProto()
    p.dtype = dtype.as_datatype_enum
    p.tensor_shape.SetInParent()
    for d in arr.shape:
        p.tensor_shape.dim.add(size=int(d))
    if dtype is _dt.string:
        p.string_val.extend(arr.reshape(-1).tolist())
    else:
        p.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return p


def proto_to_array(p, dtype: _dt.DType) -> np.ndarray:
    """The NumPy value of a ``TensorProto`` (``tensor_content`` or the typed ``*_val`` fields, where a short
    list is filled out with its last value, as TF does)."""
    shape = tuple(int(d.size) for d in p.tensor_shape.dim)
    n = int(np.prod(shape, dtype=np.int64))
    np_dt = dtype._np
    if dtype is _dt.string:
        vals = list(p.string_val)
        arr = np.empty(n, object)
        arr[:] = (vals + [vals[-1]] * (n - len(vals))) if vals and len(vals) < n else (vals or [b""] * n)
        return arr.reshape(shape)
    if p.tensor_content:
        return np.frombuffer(p.tensor_content, np.dtype(np_dt).newbyteorder("<")).astype(np_dt).reshape(shape)
    field = _VAL_FIELDS.get(dtype.name)
    vals = list(getattr(p, field)) if field else []
    if dtype.name in ("float16", "bfloat16"):
        vals = np.array(vals, np.uint16).view(np_dt)
    elif dtype.is_complex:
        vals = np.array(vals, np.float64).reshape(-1, 2) @ np.array([1, 1j])
    arr = np.asarray(vals).astype(np_dt)
    if arr.size == 0:
        return np.zeros(shape, np_dt)
    if arr.size < n:
        arr = np.concatenate([arr, np.full(n - arr.size, arr[-1], np_dt)])
    return arr[:n].reshape(shape)


def _serialize_kernel(xp, tensor):
    arr = np.asarray(tensor)
    return np.array(tensor_to_proto(arr, _dt.from_numpy(arr.dtype)).SerializeToString(), dtype=object)


SERIALIZE_TENSOR = io_op("SerializeTensor", _serialize_kernel, shape=lambda tensor: _spec([], _dt.string))


@tf_export("io.serialize_tensor")
def serialize_tensor(tensor, name=None):
    """A tensor as a serialized ``TensorProto`` (scalar string), byte-identical to TF's.

    >>> tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.0, 2.0])), tf.float32).numpy()
    array([1., 2.], dtype=float32)
    """
    return bind(SERIALIZE_TENSOR, convert_to_tensor(tensor))


def _type_word(d: _dt.DType) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(d.name, d.name)


def _parse_tensor_kernel(xp, serialized, out_type):
    raw = np.asarray(serialized).item()
    from google.protobuf.message import DecodeError

    p = _tensor_pb2().TensorProto()
    try:
        p.ParseFromString(raw)
    except DecodeError:
        b64 = base64.b64encode(raw).decode()
        raise errors.invalid_argument("ParseTensor", f"Could not parse `serialized` as TensorProto, base64: {b64}") \
            from None
    want = _dt.as_dtype(out_type)
    if p.dtype != want.as_datatype_enum:
        try:
            got = _type_word(_dt.as_dtype(p.dtype))
        except (TypeError, ValueError, KeyError):
            got = str(p.dtype)
        raise errors.invalid_argument("ParseTensor", f"Type mismatch between parsed tensor ({got}) and dtype "
                                                     f"({_type_word(want)})")
    return proto_to_array(p, want)


PARSE_TENSOR = io_op("ParseTensor", _parse_tensor_kernel,
                     shape=lambda serialized, out_type: _spec(None, _dt.as_dtype(out_type)))


@tf_export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None):
    """The tensor in a serialized ``TensorProto``; ``out_type`` must be its dtype."""
    return bind(PARSE_TENSOR, _strings(serialized), out_type=_dt.as_dtype(out_type).name)


# --- decode_raw -------------------------------------------------------------------------------------------------

def _decode_raw_kernel(xp, input_bytes, out_type, little_endian=True, fixed_length=None):
    arr = np.asarray(input_bytes, object)
    dt = np.dtype(_dt.as_dtype(out_type)._np).newbyteorder("<" if little_endian else ">")
    size = dt.itemsize
    flat = arr.reshape(-1).tolist()
    if fixed_length is not None:
        flat = [b[:fixed_length].ljust(fixed_length, b"\0") for b in flat]
        n = fixed_length
    else:
        n = len(flat[0]) if flat else 0
        for i, b in enumerate(flat):
            if len(b) != n:
                raise errors.invalid_argument("DecodeRaw", f"DecodeRaw requires input strings to all be the same "
                                                           f"size, but element {i} has size {n} != {len(b)}")
    if n % size:
        raise errors.invalid_argument("DecodeRaw", f"Input to DecodeRaw has length {n} that is not a multiple of "
                                                   f"{size}, the size of {_type_word(_dt.as_dtype(out_type))}")
    data = np.frombuffer(b"".join(flat), dt).astype(dt.newbyteorder("="))
    return data.reshape(arr.shape + (n // size,))


def _decode_raw_shape(input_bytes, out_type, little_endian=True, fixed_length=None):
    s = input_bytes.shape
    dims = None if s.rank is None else s.as_list() + [None]
    return _spec(dims, _dt.as_dtype(out_type))


DECODE_RAW = io_op("DecodeRaw", _decode_raw_kernel, shape=_decode_raw_shape)


@tf_export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterpret the bytes of each string as a vector of ``out_type`` (adds a trailing dimension).

    >>> tf.io.decode_raw(tf.constant(b"\\x01\\x00\\x02\\x00"), tf.int16).numpy()
    array([1, 2], dtype=int16)
    """
    return bind(DECODE_RAW, _strings(input_bytes), out_type=_dt.as_dtype(out_type).name,
               little_endian=bool(little_endian), fixed_length=None if fixed_length is None else int(fixed_length))


# --- decode_csv -------------------------------------------------------------------------------------------------

def _split_csv(line: bytes, delim: bytes, quote: bool, op="DecodeCSV"):
    """TF's CSV field splitting: a quoted field is entirely in quotes, with ``""`` for a quote."""
    fields, i, n = [], 0, len(line)
    if n == 0:
        return [b""]
    while True:
        if quote and i < n and line[i:i + 1] == b'"':
            j, buf = i + 1, bytearray()
            while True:
                if j >= n:
                    raise errors.invalid_argument(op, "Quoted field has to end with quote followed by delim or end")
                c = line[j:j + 1]
                if c == b'"':
                    if line[j + 1:j + 2] == b'"':
                        buf += b'"'
                        j += 2
                        continue
                    j += 1
                    if j < n and line[j:j + 1] != delim:
                        raise errors.invalid_argument(op, "Quote inside a string has to be escaped by another quote")
                    break
                buf += c
                j += 1
            fields.append(bytes(buf))
            i = j
        else:
            j = line.find(delim, i)
            j = n if j < 0 else j
            field = line[i:j]
            if quote and (b'"' in field or b"\r" in field or b"\n" in field):
                raise errors.invalid_argument(op, "Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            i = j
        if i >= n:
            return fields
        i += 1  # the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _convert_field(text: bytes, dtype: str, col: int, rec: int):
    try:
        if dtype in ("int32", "int64"):
            s = text.decode()
            if not s.strip() or any(c in s for c in ".eE"):
                raise ValueError
            v = int(s)
            info = np.iinfo(dtype)
            if not info.min <= v <= info.max:
                raise ValueError
            return v
        if dtype in ("float32", "float64"):
            return float(text.decode())
    except (ValueError, UnicodeDecodeError):
        word = _type_word(_dt.as_dtype(dtype))
        raise errors.invalid_argument("DecodeCSV", f"Field {col} in record {rec} is not a valid {word}: {_str(text)}") \
            from None
    return text


def _decode_csv_kernel(xp, records, *defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None):
    recs = np.asarray(records, object)
    flat = recs.reshape(-1).tolist()
    delim = field_delim.encode()
    na = na_value.encode()
    ncols = len(defaults)
    cols = [[] for _ in range(ncols)]
    for r, line in enumerate(flat):
        fields = _split_csv(line, delim, use_quote_delim)
        if select_cols is not None:
            if len(fields) <= select_cols[-1]:
                raise errors.invalid_argument("DecodeCSV", f"Expect {select_cols[-1] + 1} fields but have "
                                                           f"{len(fields)} in record {r}")
            fields = [fields[c] for c in select_cols]
        if len(fields) != ncols:
            raise errors.invalid_argument("DecodeCSV", f"Expect {ncols} fields but have {len(fields)} in record {r}")
        for c, (text, d) in enumerate(zip(fields, defaults)):
            dtype = _dt.from_numpy(d.dtype).name
            if text == b"" or (na and text == na):
                if d.size == 0:
                    raise errors.invalid_argument("DecodeCSV", f"Field {c} is required but missing in record {r}!")
                cols[c].append(d.reshape(-1)[0])
            else:
                cols[c].append(_convert_field(text, dtype, c, r))
    out = []
    for c, d in enumerate(defaults):
        a = np.empty(len(cols[c]), object) if d.dtype == object else None
        if a is not None:
            a[:] = cols[c]
        else:
            a = np.array(cols[c], d.dtype)
        out.append(a.reshape(recs.shape))
    return tuple(out)


def _decode_csv_shape(records, *defaults, **attrs):
    return tuple(_spec(records.shape, d.dtype) for d in defaults)


DECODE_CSV = io_op("DecodeCSV", _decode_csv_kernel, shape=_decode_csv_shape, n_out=None)
_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")


@tf_export("io.decode_csv")
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None,
               name=None):
    """Split CSV lines into one tensor per column, typed by ``record_defaults`` (an empty default makes the
    column required).

    >>> a, b = tf.io.decode_csv(["1,x", "2,"], [[0], ["none"]])
    >>> b.numpy()
    array([b'x', b'none'], dtype=object)
    """
    recs = _strings(records)
    defaults = []
    for d in record_defaults:
        t = convert_to_tensor(d)
        if t.dtype.name not in _CSV_TYPES:
            raise errors.invalid_argument("DecodeCSV", f"Value for attr 'OUT_TYPE' of {t.dtype.name} is not in the "
                                                       "list of allowed values: float, double, int32, int64, string")
        defaults.append(t)
    if select_cols is not None:
        select_cols = tuple(int(c) for c in select_cols)
        if list(select_cols) != sorted(set(select_cols)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    return list(bind(DECODE_CSV, recs, *defaults, field_delim=str(field_delim), use_quote_delim=bool(use_quote_delim),
                    na_value=str(na_value), select_cols=select_cols))


# --- base64 / compressed ---------------------------------------------------------------------------------------

def _b64_encode_kernel(xp, x, pad=False):
    arr = np.asarray(x, object)
    out = np.empty(arr.shape, object)
    for i, v in np.ndenumerate(arr):
        s = base64.urlsafe_b64encode(v)
        out[i] = s if pad else s.rstrip(b"=")
    return out


def _b64_decode_kernel(xp, x):
    arr = np.asarray(x, object)
    out = np.empty(arr.shape, object)
    for i, v in np.ndenumerate(arr):
        s = v.rstrip(b"=")
        if len(s) % 4 == 1:
            raise errors.invalid_argument("DecodeBase64", "Base64 string length cannot be 1 modulo 4.")
        try:
            out[i] = base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
        except (binascii.Error, ValueError):
            raise errors.invalid_argument("DecodeBase64", "Invalid character found in base64.") from None
    return out


ENCODE_BASE64 = io_op("EncodeBase64", _b64_encode_kernel, shape=lambda x, pad=False: _spec(x.shape, _dt.string))
DECODE_BASE64 = io_op("DecodeBase64", _b64_decode_kernel, shape=lambda x: _spec(x.shape, _dt.string))


@tf_export("io.encode_base64")
def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's argument name
    """Web-safe base64 (``-`` and ``_``), without ``=`` padding unless ``pad``."""
    return bind(ENCODE_BASE64, _strings(input), pad=bool(pad))


@tf_export("io.decode_base64")
def decode_base64(input, name=None):  # noqa: A002 - TF's argument name
    """Decode web-safe base64 (padding optional)."""
    return bind(DECODE_BASE64, _strings(input))


def _decompress_kernel(xp, x, compression_type=""):
    arr = np.asarray(x, object)
    out = np.empty(arr.shape, object)
    wbits = {"ZLIB": 15, "GZIP": 31}.get(compression_type)
    for i, v in np.ndenumerate(arr):
        if wbits is None:
            out[i] = v
            continue
        try:
            out[i] = zlib.decompress(v, wbits)
        except zlib.error as e:
            raise errors.op_error(errors.DataLossError, "DecodeCompressed", f"inflate() failed: {e}") from None
    return out


DECODE_COMPRESSED = io_op("DecodeCompressed", _decompress_kernel,
                          shape=lambda x, compression_type="": _spec(x.shape, _dt.string))


@tf_export("io.decode_compressed")
def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TF's argument name
    """Decompress each string (``compression_type`` ``""``, ``"ZLIB"`` or ``"GZIP"``)."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise errors.invalid_argument("DecodeCompressed", f"Unsupported compression type: {compression_type}")
    return bind(DECODE_COMPRESSED, _strings(bytes), compression_type=compression_type)
