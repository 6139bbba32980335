"""``tf.io.decode_proto`` / ``tf.io.encode_proto``: fields of serialized protocol buffers to tensors and back.

Messages are read and written at the wire level, as TF's kernels do (decode_proto_op.cc, encode_proto_op.cc):
values are taken in wire order (a non-repeated field that appears twice keeps the last), packed and unpacked
repeated fields are both read, fields are written in field-number order, each value as it comes (a non-repeated
field given two values is written twice), and malformed input is a DataLossError.  Descriptors come from
``descriptor_source``: ``"local://"`` (protobuf's default pool, then tensorlet's own ``tensorflow.*`` protos), a
file holding a serialized ``FileDescriptorSet``, or ``"bytes://"`` followed by one.  TF's output dtypes per
field type are enforced; missing values are the field's default (proto2 ``default``, else zero / empty).
"""

from __future__ import annotations

import collections
import functools
import struct

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import bind, tf_export

# field type number (FieldDescriptor.TYPE_*) -> (proto type name, allowed output dtypes, wire type)
_TYPES = {
    1: ("double", (D.float64,), 1), 2: ("float", (D.float32, D.float64), 5), 3: ("int64", (D.int64,), 0),
    4: ("uint64", (D.uint64,), 0), 5: ("int32", (D.int32, D.int64), 0), 6: ("fixed64", (D.uint64,), 1),
    7: ("fixed32", (D.uint32, D.uint64), 5), 8: ("bool", (D.bool,), 0), 9: ("string", (D.string,), 2),
    10: ("group", (D.string,), 3), 11: ("message", (D.string,), 2), 12: ("bytes", (D.string,), 2),
    13: ("uint32", (D.uint32, D.uint64), 0), 14: ("enum", (D.int32, D.int64), 0),
    15: ("sfixed32", (D.int32, D.int64), 5),
    16: ("sfixed64", (D.int64,), 1), 17: ("sint32", (D.int32, D.int64), 0), 18: ("sint64", (D.int64,), 0),
}
_DT = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "string": "DT_STRING"}


def _dt_name(d):
    return _DT.get(d.name, "DT_" + d.name.upper())


# --- descriptors ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=32)
def _pool_from_bytes(data: bytes):
    from google.protobuf import descriptor_pb2, descriptor_pool

    fds = descriptor_pb2.FileDescriptorSet()
    try:
        fds.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.invalid_argument("DecodeProtoV2", f"Unable to parse the descriptor set: {e}") from None
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    return pool


def _find_descriptor(source, message_type, op_name):
    if isinstance(source, bytes):
        source = source.decode("latin-1")
    if source == "local://":
        from google.protobuf import descriptor_pool

        from tensorlet._src.io import example

        pools = [descriptor_pool.Default(), example.POOL]
    elif source.startswith("bytes://"):
        pools = [_pool_from_bytes(source[len("bytes://"):].encode("latin-1"))]
    else:
        try:
            with open(source, "rb") as f:
                data = f.read(1 << 28)
        except OSError as e:
            raise errors.op_error(errors.NotFoundError, op_name, f"{source}; {e.strerror}") from None
        pools = [_pool_from_bytes(data)]
    for pool in pools:
        try:
            return pool.FindMessageTypeByName(message_type)
        except KeyError:
            continue
    raise errors.invalid_argument(op_name, f"No descriptor found for message type {message_type}")


def _fields(desc, names, op_name):
    out = []
    for n in names:
        fd = desc.fields_by_name.get(n)
        if fd is None:
            raise errors.invalid_argument(op_name, f"Unknown field: {n} in message type {desc.full_name}")
        out.append(fd)
    return out


def _repeated(fd) -> bool:
    r = getattr(fd, "is_repeated", None)  # newer protobuf; older ones have only .label
    return bool(r) if r is not None else fd.label == fd.LABEL_REPEATED


def _default(fd):
    if _repeated(fd) or fd.type in (10, 11):
        return b"" if fd.type in (9, 10, 11, 12) else (False if fd.type == 8 else 0)
    v = fd.default_value
    return v.encode() if isinstance(v, str) else v


# --- the wire format --------------------------------------------------------------------------------

class _Corrupt(Exception):
    pass


def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise _Corrupt
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & (2 ** 64 - 1), pos
        shift += 7


def _skip(buf, pos, wire):
    if wire == 0:
        return _varint(buf, pos)[1]
    if wire == 1:
        pos += 8
    elif wire == 5:
        pos += 4
    elif wire == 2:
        n, pos = _varint(buf, pos)
        pos += n
    elif wire == 3:
        while True:
            if pos >= len(buf):
                raise _Corrupt
            tag, pos = _varint(buf, pos)
            if tag & 7 == 4:
                break
            pos = _skip(buf, pos, tag & 7)
    else:
        raise _Corrupt
    if pos > len(buf):
        raise _Corrupt
    return pos


def _signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _from_varint(v, typ):
    if typ in (5, 14):
        return _signed(v, 32)
    if typ == 3:
        return _signed(v, 64)
    if typ == 13:
        return v & 0xFFFFFFFF
    if typ == 8:
        return v != 0
    if typ in (17, 18):
        return (v >> 1) ^ -(v & 1)
    return v  # uint64


_FIXED = {1: "<d", 6: "<Q", 16: "<q", 2: "<f", 7: "<I", 15: "<i"}


def _read_one(buf, pos, typ, wire):
    if wire == 0:
        v, pos = _varint(buf, pos)
        return _from_varint(v, typ), pos
    if wire in (1, 5):
        n = 8 if wire == 1 else 4
        if pos + n > len(buf):
            raise _Corrupt
        return struct.unpack_from(_FIXED[typ], buf, pos)[0], pos + n
    n, pos = _varint(buf, pos)
    if pos + n > len(buf):
        raise _Corrupt
    return bytes(buf[pos:pos + n]), pos + n


def _decode_one(buf, fields):
    """Values of each requested field of one serialized message, in wire order."""
    by_number = {fd.number: i for i, fd in enumerate(fields)}
    values = [[] for _ in fields]
    pos = 0
    while pos < len(buf):
        try:
            tag, pos = _varint(buf, pos)
        except _Corrupt:
            raise _Corrupt("Failed reading a field tag") from None
        num, wire = tag >> 3, tag & 7
        i = by_number.get(num)
        if i is None:
            try:
                pos = _skip(buf, pos, wire)
            except _Corrupt:
                raise _Corrupt("Failed skipping unrequested field") from None
            continue
        fd = fields[i]
        want = _TYPES[fd.type][2]
        try:
            if wire == 2 and want != 2:  # a packed run of scalars
                n, pos = _varint(buf, pos)
                end = pos + n
                if end > len(buf):
                    raise _Corrupt
                while pos < end:
                    v, pos = _read_one(buf, pos, fd.type, want)
                    values[i].append(v)
                if pos != end:
                    raise _Corrupt
            elif wire == want:
                v, pos = _read_one(buf, pos, fd.type, wire)
                values[i].append(v)
            else:
                raise _Corrupt
        except (_Corrupt, struct.error):
            raise _Corrupt(f"Failed consuming field {fd.full_name}") from None
    return values


def _put_varint(out, v):
    v &= 2 ** 64 - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _encode_value(out, fd, v):
    typ = fd.type
    wire = _TYPES[typ][2]
    if wire == 0:
        v = int(v)
        if typ in (17, 18):
            v = (v << 1) ^ (v >> 63) if typ == 18 else ((v << 1) ^ (v >> 31)) & 0xFFFFFFFF
        _put_varint(out, v)
    elif wire in (1, 5):
        out += struct.pack(_FIXED[typ], float(v) if typ in (1, 2) else int(v))
    else:
        b = v if isinstance(v, bytes) else str(v).encode()
        _put_varint(out, len(b))
        out += b


def _encode_one(fields, columns):
    """Serialize one message: ``columns[i]`` are the values of ``fields[i]``; fields in field-number order."""
    out = bytearray()
    for fd, vals in sorted(zip(fields, columns), key=lambda p: p[0].number):
        if not vals:
            continue
        wire = _TYPES[fd.type][2]
        if fd.is_packed and wire != 2:
            body = bytearray()
            for v in vals:
                _encode_value(body, fd, v)
            _put_varint(out, fd.number << 3 | 2)
            _put_varint(out, len(body))
            out += body
        else:
            for v in vals:
                _put_varint(out, fd.number << 3 | wire)
                _encode_value(out, fd, v)
    return bytes(out)


# --- DecodeProtoV2 ----------------------------------------------------------------------------------

def _check_types(desc, fields, types, op_name):
    for fd, d in zip(fields, types):
        name, allowed, _ = _TYPES[fd.type]
        if d not in allowed:
            if op_name == "EncodeProto":
                raise errors.invalid_argument(op_name, f"Incompatible type for field {fd.name}.  Saw dtype: "
                                                       f"{_word(d)} but field type is: {name}")
            raise errors.invalid_argument(op_name, f"Unexpected output type for {desc.full_name}.{fd.name}: {name} to "
                                                   f"{_dt_name(d)}")


def _word(d):
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)


def _decode_kernel(xp, msgs, message_type="", field_names=(), output_types=(), descriptor_source="local://",
                   message_format="binary", sanitize=False):
    desc = _find_descriptor(descriptor_source, message_type, "DecodeProtoV2")
    fields = _fields(desc, field_names, "DecodeProtoV2")
    types = [D.from_numpy(np.dtype(d)) if d is not object else D.string for d in output_types]
    _check_types(desc, fields, types, "DecodeProtoV2")
    flat = msgs.reshape(-1)
    decoded = []
    for m in flat:
        data = m if isinstance(m, bytes) else str(m).encode()
        if message_format == "text":
            data = _text_to_binary(desc, data)
        try:
            decoded.append(_decode_one(memoryview(data), fields))
        except _Corrupt as e:
            raise errors.op_error(errors.DataLossError, "DecodeProtoV2",
                                  str(e) or "Failed to parse input proto") from None
    single = [not _repeated(fd) for fd in fields]  # a non-repeated field seen twice: one value, the last
    sizes = np.array([[min(len(v), 1) if one else len(v) for v, one in zip(row, single)] for row in decoded],
                     np.int32).reshape(msgs.shape + (len(fields),))
    outs = [sizes]
    for i, (fd, d) in enumerate(zip(fields, types)):
        width = 1 if not _repeated(fd) else max((len(row[i]) for row in decoded), default=0)
        arr = np.full((len(flat), width), _default(fd), dtype=object if d is D.string else d._np)
        for r, row in enumerate(decoded):
            vals = row[i][-width:] if not _repeated(fd) else row[i]
            for k, v in enumerate(vals[:width]):
                arr[r, k] = v
        outs.append(arr.reshape(msgs.shape + (width,)))
    return tuple(outs)


def _text_to_binary(desc, data):
    from google.protobuf import message_factory, text_format

    msg = message_factory.GetMessageClass(desc)()
    try:
        text_format.Parse(data.decode("utf-8"), msg)
    except Exception as e:  # noqa: BLE001 - text_format.ParseError
        raise errors.op_error(errors.DataLossError, "DecodeProtoV2", f"Unable to parse text proto: {e}") from None
    return msg.SerializeToString()


def _decode_shape(msgs, field_names=(), output_types=(), **attrs):
    batch = msgs.shape.as_list() if msgs.shape.rank is not None else None
    if batch is None:
        return [shapes.Spec(TensorShape(None), D.int32)] + [
            shapes.Spec(TensorShape(None), D.string if d is object else D.from_numpy(np.dtype(d)))
            for d in output_types]
    return [shapes.Spec(TensorShape(batch + [len(field_names)]), D.int32)] + [
        shapes.Spec(TensorShape(batch + [None]), D.string if d is object else D.from_numpy(np.dtype(d)))
        for d in output_types]


DECODE_PROTO = io_op("DecodeProtoV2", _decode_kernel, shape=_decode_shape, n_out=None, dtypes=(D.string,))

DecodeProtoV2 = collections.namedtuple("DecodeProtoV2", ["sizes", "values"])


def _src(descriptor_source):
    return descriptor_source.decode("latin-1") if isinstance(descriptor_source, bytes) else str(descriptor_source)


@tf_export("io.decode_proto")
def decode_proto(bytes, message_type, field_names, output_types, descriptor_source="local://",  # noqa: A002
                 message_format="binary", sanitize=False, name=None):
    """Fields ``field_names`` of serialized ``message_type`` protos as ``(sizes, values)``: ``sizes[..., i]`` counts
    field i's values per message, ``values[i]`` is ``[..., max count]`` of ``output_types[i]`` padded with the
    field's default.

    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}))
    >>> sizes, values = tf.io.decode_proto([ex.SerializeToString()], "tensorflow.Example", ["features"],
    ...                                    [tf.string])
    >>> sizes.numpy()
    array([[1]], dtype=int32)
    """
    msgs = strings(bytes)
    names = tuple(str(n) for n in field_names)
    types = tuple(D.as_dtype(d) for d in output_types)
    if len(names) != len(types):
        raise errors.invalid_argument("DecodeProtoV2", "field_names and output_types attributes must have the same "
                                                       "length")
    if message_format not in ("binary", "text"):
        raise errors.invalid_argument("DecodeProtoV2", f"message_format must be 'text' or 'binary', got "
                                                       f"'{message_format}'")
    out = bind(DECODE_PROTO, msgs, message_type=str(message_type), field_names=names,
               output_types=tuple(object if d is D.string else d._np for d in types),
               descriptor_source=_src(descriptor_source), message_format=message_format, sanitize=bool(sanitize))
    return DecodeProtoV2(out[0], list(out[1:]))


# --- EncodeProto ------------------------------------------------------------------------------------

def _encode_kernel(xp, sizes, *values, field_names=(), message_type="", descriptor_source="local://"):
    desc = _find_descriptor(descriptor_source, message_type, "EncodeProto")
    fields = _fields(desc, field_names, "EncodeProto")
    _check_types(desc, fields, [D.from_numpy(v.dtype) for v in values], "EncodeProto")
    batch = sizes.shape[:-1]
    n = int(np.prod(batch, dtype=np.int64))
    flat_sizes = sizes.reshape(n, len(fields))
    flat_vals = [v.reshape(n, -1) for v in values]
    out = np.empty(n, object)
    for m in range(n):
        cols = []
        for i, v in enumerate(flat_vals):
            k = int(flat_sizes[m, i])
            if k > v.shape[1]:
                raise errors.invalid_argument("EncodeProto", f"Size to write must not be larger than value tensor; but "
                                                             f"saw: {k} > {v.shape[1]} at message {m} field {i}")
            cols.append(v[m, :k].tolist())
        out[m] = _encode_one(fields, cols)
    return out.reshape(batch)


ENCODE_PROTO = io_op("EncodeProto", _encode_kernel,
                     shape=lambda sizes, *v, **a: shapes.Spec(
                         TensorShape(sizes.shape.as_list()[:-1] if sizes.shape.rank is not None else None),
                         D.string),
                     dtypes=(D.int32,))


@tf_export("io.encode_proto")
def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://", name=None):
    """Serialized ``message_type`` protos from ``values`` (``values[i]`` is ``[..., n]``; the first
    ``sizes[..., i]`` of them are written for field ``field_names[i]``).

    >>> sizes, values = tf.io.decode_proto([tf.train.Int64List(value=[1, 2]).SerializeToString()],
    ...                                    "tensorflow.Int64List", ["value"], [tf.int64])
    >>> tf.io.encode_proto(sizes, values, ["value"], "tensorflow.Int64List").numpy()
    array([b'\\n\\x02\\x01\\x02'], dtype=object)
    """
    s = t(sizes, dtype=D.int32)
    vals = [strings(v) if isinstance(v, (str, bytes)) else t(v) for v in values]
    names = tuple(str(n) for n in field_names)
    if len(vals) != len(names):
        raise errors.invalid_argument("EncodeProto", f"Length of inputs list must match field_names; got "
                                                     f"{len(vals)} values and {len(names)} field names")
    return bind(ENCODE_PROTO, s, *vals, field_names=names, message_type=str(message_type),
                descriptor_source=_src(descriptor_source))
