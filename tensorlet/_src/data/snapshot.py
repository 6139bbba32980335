"""``Dataset.save`` / ``Dataset.load`` files in TensorFlow's own format (the tf.data snapshot, file version 2).

What TF 2.21's ``Dataset.save(path)`` writes, and what is written and read here::

    path/dataset_spec.pb                          the element_spec as a StructuredValue proto
    path/snapshot.metadata                        SnapshotMetadataRecord (binary proto): run_id, creation
                                                  time (µs), version 2, the flat dtypes, num_elements, finalized
    path/<run_id>/<shard:08d>.shard/<n:08d>.snapshot
                                                  TFRecord files (GZIP-compressed with compression="GZIP"):
                                                  each element is one record per flat component, a TensorProto
                                                  (dtype, shape, tensor_content; strings as varint32 lengths
                                                  then the bytes)

Without ``shard_func`` every element goes to shard 0 (as in TF); with it, to the shard it returns.  Loading
reads the shards in name order, interleaved one element at a time as TF's default ``reader_func`` does (an
``interleave`` whose cycle length is the CPU count).  Files are data only: the run id must be a plain name,
shard directories must be real directories inside ``path``, every record's CRC is checked, each TensorProto
must match the element_spec, and the number of elements read must equal ``num_elements`` (which must be
possible for the bytes on disk): anything else raises ``DataLossError``.  ``compression="SNAPPY"`` uses TF's
snappy block framing (``snappy.py``; written as literal-only blocks).  Distributed (tf.data service) snapshots
are refused with a clear error.
"""

from __future__ import annotations

import collections
import keyword
import os
import random
import re
import shutil
import tempfile
import time

import numpy as np

from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape

SPEC_FILE = "dataset_spec.pb"
METADATA_FILE = "snapshot.metadata"
VERSION = 2
MAX_DEPTH = 64
_RUN_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
_SHARD = re.compile(r"\d{8}\.shard")
_MAX_META = 1 << 20
_MAX_SPEC = 16 << 20

_LE = {d.name: np.dtype(d.as_numpy_dtype).newbyteorder("<") for d in _dt.NUMERIC + (_dt.bool,)}
_STRING_ENUM = _dt.string.as_datatype_enum


def _loss(msg):
    return errors.DataLossError(None, None, msg)


# --- SnapshotMetadataRecord (tensorflow/core/protobuf/snapshot.proto), a runtime descriptor -------------------------
_META_CLASS = []


def _meta_class():
    if not _META_CLASS:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        fdp = descriptor_pb2.FileDescriptorProto(name="tensorlet/snapshot_metadata.proto",
                                                 package="tensorflow.data.experimental", syntax="proto3")
        msg = fdp.message_type.add(name="SnapshotMetadataRecord")
        F = descriptor_pb2.FieldDescriptorProto
        for name, number, typ, label in (
                ("graph_hash", 1, F.TYPE_STRING, F.LABEL_OPTIONAL), ("run_id", 2, F.TYPE_STRING, F.LABEL_OPTIONAL),
                ("creation_timestamp", 3, F.TYPE_INT64, F.LABEL_OPTIONAL),
                ("version", 4, F.TYPE_INT64, F.LABEL_OPTIONAL), ("dtype", 5, F.TYPE_INT32, F.LABEL_REPEATED),
                ("num_elements", 6, F.TYPE_INT64, F.LABEL_OPTIONAL),
                ("finalized", 1000, F.TYPE_BOOL, F.LABEL_OPTIONAL)):
            f = msg.field.add(name=name, number=number, type=typ, label=label)
            if label == F.LABEL_REPEATED:
                f.options.packed = True
        pool = descriptor_pool.DescriptorPool()
        pool.Add(fdp)
        _META_CLASS.append(message_factory.GetMessageClass(
            pool.FindMessageTypeByName("tensorflow.data.experimental.SnapshotMetadataRecord")))
    return _META_CLASS[0]


# --- element_spec <-> StructuredValue -----------------------------------------------------------------------------
def _shape_into(shape: TensorShape, proto) -> None:
    proto.SetInParent()  # present even for a scalar, as TF writes it
    if shape.rank is None:
        proto.unknown_rank = True
        return
    for d in shape.dims:
        proto.dim.add(size=-1 if d is None else int(d))


def _shape_from(proto, where) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise _loss(f"{where}: bad dimension {d.size} in the element_spec")
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


def encode_spec(spec, out=None, depth=0):
    """``element_spec`` as TF's StructuredValue (what ``nested_structure_coder.encode_structure`` makes)."""
    from tensorboard.compat.proto import struct_pb2

    out = struct_pb2.StructuredValue() if out is None else out
    if depth > MAX_DEPTH:
        raise ValueError("the element_spec is nested too deeply to be saved")
    if isinstance(spec, TensorSpec):
        ts = out.tensor_spec_value
        if spec.name:
            ts.name = spec.name
        _shape_into(spec.shape, ts.shape)
        ts.dtype = spec.dtype.as_datatype_enum
    elif isinstance(spec, tuple) and hasattr(type(spec), "_fields"):
        nt = out.named_tuple_value
        nt.name = type(spec).__name__
        for k, v in zip(spec._fields, spec):
            encode_spec(v, nt.values.add(key=k).value, depth + 1)
    elif isinstance(spec, (tuple, list)):
        holder = out.tuple_value if isinstance(spec, tuple) else out.list_value
        holder.SetInParent()
        for v in spec:
            encode_spec(v, holder.values.add(), depth + 1)
    elif isinstance(spec, collections.abc.Mapping):
        out.dict_value.SetInParent()
        for k in spec:
            if not isinstance(k, str):
                raise TypeError(f"Only string dict keys can be saved, got {k!r}")
            encode_spec(spec[k], out.dict_value.fields[k], depth + 1)
    else:
        raise TypeError(f"Dataset.save cannot encode the element_spec component {spec!r} (tensorlet saves "
                        "TensorSpec components in tuples, lists, dicts and named tuples)")
    return out


def decode_spec(proto, where, depth=0):
    """The element_spec a StructuredValue describes (TensorSpecs, tuples, lists, dicts, named tuples only)."""
    if depth > MAX_DEPTH:
        raise _loss(f"{where}: element_spec nested too deeply")
    kind = proto.WhichOneof("kind")
    if kind == "tensor_spec_value":
        ts = proto.tensor_spec_value
        try:
            dtype = _dt.as_dtype(ts.dtype)
        except (TypeError, ValueError):
            raise _loss(f"{where}: unknown dtype enum {ts.dtype} in the element_spec") from None
        return TensorSpec(_shape_from(ts.shape, where), dtype, ts.name or None)
    if kind in ("tuple_value", "list_value"):
        items = [decode_spec(v, where, depth + 1) for v in getattr(proto, kind).values]
        return tuple(items) if kind == "tuple_value" else items
    if kind == "dict_value":
        fields = proto.dict_value.fields  # (a protobuf map has no order; keys come back sorted, as nest flattens)
        return {k: decode_spec(fields[k], where, depth + 1) for k in sorted(fields)}
    if kind == "named_tuple_value":
        nt = proto.named_tuple_value
        names = [p.key for p in nt.values]
        if not all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_")
                   for n in names + [nt.name]) or len(set(names)) != len(names):
            raise _loss(f"{where}: bad named tuple {nt.name!r} {names} in the element_spec")
        return collections.namedtuple(nt.name, names)(*[decode_spec(p.value, where, depth + 1) for p in nt.values])
    raise _loss(f"{where}: element_spec component {kind!r} cannot be loaded by tensorlet (TensorSpec components "
                "in tuples, lists, dicts and named tuples can)")


def _flat(spec) -> list:
    from tensorlet._src.data import structure as S

    return S.dflatten(spec)


# --- TensorProto records ------------------------------------------------------------------------------------------
def _varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _shape_bytes(shape) -> bytes:
    parts = []
    for d in shape:
        dim = b"\x08" + _varint(d) if d else b""
        parts.append(b"\x12" + _varint(len(dim)) + dim)
    return b"".join(parts)


def tensor_record(arr: np.ndarray, dtype_enum: int, is_string: bool) -> bytes:
    """One component as the TensorProto record TF's snapshot writer emits (``AsProtoTensorContent``)."""
    if is_string:
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1).tolist()]
        content = b"".join(_varint(len(b)) for b in flat) + b"".join(flat)
    else:
        content = np.asarray(arr, order="C").reshape(-1).view(np.uint8).tobytes()
    shape = _shape_bytes(arr.shape)
    out = b"\x08" + _varint(dtype_enum) + b"\x12" + _varint(len(shape)) + shape
    if content:
        out += b"\x22" + _varint(len(content)) + content
    return out


def _get_varint(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]  # (IndexError on truncation: the caller falls back to the full parser)
        pos += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, pos
        shift += 7
        if shift > 63:
            raise IndexError


def _split_fast(record: bytes):
    """``(dtype enum, shape bytes, content)`` of a TensorProto laid out as TF's writer lays it out, else None."""
    try:
        if record[0] != 0x08:
            return None
        enum, pos = _get_varint(record, 1)
        if record[pos] != 0x12:
            return None
        ln, pos = _get_varint(record, pos + 1)
        shape = record[pos:pos + ln]
        pos += ln
        if pos == len(record):
            return enum, shape, b""
        if record[pos] != 0x22:
            return None
        cl, pos = _get_varint(record, pos + 1)
        if pos + cl != len(record):
            return None
        return enum, shape, record[pos:]
    except IndexError:
        return None


def parse_tensor(record: bytes, spec: TensorSpec, where: str, shapes: dict | None = None) -> np.ndarray:
    """A TensorProto record back to an array, checked against ``spec`` and against its own bytes.

    ``shapes`` caches ``shape bytes -> checked shape`` for one component (a dataset repeats few shapes)."""
    fast = _split_fast(record)
    if fast is not None:
        enum, shape_bytes, content = fast
        shape = None if shapes is None else shapes.get(shape_bytes)
        if shape is None:
            from tensorboard.compat.proto import tensor_shape_pb2

            sp = tensor_shape_pb2.TensorShapeProto()
            try:
                sp.ParseFromString(shape_bytes)
            except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
                raise _loss(f"{where}: bad tensor shape ({e})") from None
            shape = _check_shape(sp, spec, where)
            if shapes is not None:
                shapes[shape_bytes] = shape
        strings = []
    else:
        from tensorboard.compat.proto import tensor_pb2

        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(record)
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
            raise _loss(f"{where}: not a TensorProto ({e})") from None
        enum, content, strings = proto.dtype, proto.tensor_content, list(proto.string_val)
        shape = _check_shape(proto.tensor_shape, spec, where)
    if enum != spec.dtype.as_datatype_enum:
        raise _loss(f"{where}: the file holds dtype enum {enum}, the element_spec says {spec.dtype.name}")
    n = 1
    for d in shape:
        n *= d
    if spec.dtype == _dt.string:
        if content or n == 0:
            return _strings(content, n, shape, where)
        if len(strings) != n:
            raise _loss(f"{where}: {len(strings)} strings for shape {list(shape)}")
        out = np.empty(n, object)
        out[:] = strings
        return out.reshape(shape)
    le = _LE.get(spec.dtype.name)
    if le is None:
        raise _loss(f"{where}: dtype {spec.dtype.name} cannot be loaded")
    if content or n == 0:
        if len(content) != n * le.itemsize:
            raise _loss(f"{where}: {len(content)} bytes of data for {spec.dtype.name}{list(shape)}")
        arr = np.frombuffer(content, le).reshape(shape)
        return arr if le.isnative or le.itemsize == 1 else arr.astype(le.newbyteorder("="))
    raise _loss(f"{where}: saved tensor has no tensor_content (typed value fields are not written by TF's "
                "snapshot writer and are not read here)")


def _check_shape(proto, spec, where) -> tuple:
    shape = []
    for d in proto.dim:
        if d.size < 0:
            raise _loss(f"{where}: negative dimension in a saved tensor")
        shape.append(d.size)
    if proto.unknown_rank or not spec.shape.is_compatible_with(shape):
        raise _loss(f"{where}: saved tensor of shape {shape} does not match the element_spec {spec.shape}")
    n = 1
    for d in shape:
        n *= d
    if n >= 1 << 62:
        raise _loss(f"{where}: saved tensor of shape {shape} is too large")
    return tuple(shape)


def _strings(content: bytes, n: int, shape, where) -> np.ndarray:
    if n > len(content):
        raise _loss(f"{where}: {n} strings cannot fit in {len(content)} bytes")
    lengths, pos = [], 0
    for _ in range(n):
        v = shift = 0
        while True:
            if pos >= len(content) or shift > 28:
                raise _loss(f"{where}: truncated string lengths")
            b = content[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        lengths.append(v)
    if pos + sum(lengths) != len(content):
        raise _loss(f"{where}: string lengths do not add up to the saved bytes")
    out = np.empty(n, object)
    for i, ln in enumerate(lengths):
        out[i] = content[pos:pos + ln]
        pos += ln
    return out.reshape(shape)


# --- writing ------------------------------------------------------------------------------------------------------
def _compression(compression):
    c = (compression or "").upper()
    if c in ("", "NONE"):
        return ""
    if c in ("GZIP", "ZLIB", "SNAPPY"):
        return c
    raise ValueError(f"Unsupported compression {compression!r}: use None, 'GZIP', 'ZLIB' or 'SNAPPY'.")


class _SnappyWriter:
    """TFRecords in TF's snappy block framing (literal-only blocks: valid snappy, not smaller)."""

    def __init__(self, path):
        self._f = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._records = []
        self._raw = bytearray()

    def write(self, record):
        self._records.append(record)
        if len(self._records) >= 1024:
            self._frame()

    def _frame(self, final=False):
        from tensorlet._src.data import snappy
        from tensorlet._src.io.tfrecord import frame_records

        self._raw += frame_records(self._records)
        self._records = []
        cut = len(self._raw) if final else len(self._raw) - len(self._raw) % snappy.BLOCK
        if cut:
            self._f.write(snappy.compress_stream(bytes(self._raw[:cut])))
            del self._raw[:cut]

    def close(self):
        if self._f is not None:
            try:
                self._frame(final=True)
            finally:
                self._f.close()
                self._f = None


def write(path, element_spec, elements, compression=None, shard_func=None) -> int:
    """Writes the flat-leaf tuples ``elements`` as a TF snapshot at ``path`` (replaced atomically: everything is
    written into a temporary directory beside it, then renamed); returns the number of elements."""
    from tensorlet._src.io.tfrecord import TFRecordWriter

    kind = _compression(compression)
    flat = _flat(element_spec)
    enums = [s.dtype.as_datatype_enum for s in flat]
    strings = [s.dtype == _dt.string for s in flat]
    nps = [None if st else _LE.get(s.dtype.name) for s, st in zip(flat, strings)]
    for s, st, le in zip(flat, strings, nps):
        if not st and le is None:
            raise TypeError(f"Dataset.save cannot save components of dtype {s.dtype.name}")
    spec_bytes = encode_spec(element_spec).SerializeToString()
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=parent)
    run_id = str(random.getrandbits(64))
    writers = {}
    try:
        run_dir = os.path.join(tmp, run_id)
        os.makedirs(run_dir)
        n = 0
        for leaves in elements:
            k = 0 if shard_func is None else int(shard_func(leaves))
            w = writers.get(k)
            if w is None:
                if k < 0:
                    raise errors.InvalidArgumentError(None, None, f"shard_func returned a negative shard index {k}")
                d = os.path.join(run_dir, f"{k:08d}.shard")
                os.makedirs(d)
                fn = os.path.join(d, "00000000.snapshot")
                w = writers[k] = _SnappyWriter(fn) if kind == "SNAPPY" else TFRecordWriter(fn, kind or None)
            for leaf, enum, st, le in zip(leaves, enums, strings, nps):
                arr = np.asarray(leaf) if st else np.asarray(leaf, dtype=le)
                w.write(tensor_record(arr, enum, st))
            n += 1
        for w in writers.values():
            w.close()
        meta = _meta_class()(run_id=run_id, creation_timestamp=int(time.time() * 1e6), version=VERSION,
                             dtype=enums, num_elements=n, finalized=True)
        with open(os.path.join(tmp, SPEC_FILE), "wb") as f:
            f.write(spec_bytes)
        with open(os.path.join(tmp, METADATA_FILE), "wb") as f:
            f.write(meta.SerializeToString())
        if os.path.isdir(path) and not os.path.islink(path):
            old = tempfile.mkdtemp(prefix=".old-" + os.path.basename(path) + "-", dir=parent)
            os.replace(path, os.path.join(old, "d"))
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        for w in writers.values():
            try:
                w.close()
            except Exception:  # noqa: BLE001 - the original error matters
                pass
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return n


# --- reading ------------------------------------------------------------------------------------------------------
def is_snapshot(path) -> bool:
    return os.path.isfile(os.path.join(os.fspath(path), METADATA_FILE))


def read_spec(path):
    fn = os.path.join(path, SPEC_FILE)
    if not os.path.isfile(fn):
        raise errors.NotFoundError(None, None, f"tf.data snapshot element_spec file not found: {fn}.")
    if os.path.getsize(fn) > _MAX_SPEC:
        raise _loss(f"{fn} is too large for an element_spec")
    from google.protobuf.message import DecodeError
    from tensorboard.compat.proto import struct_pb2

    proto = struct_pb2.StructuredValue()
    try:
        with open(fn, "rb") as f:
            proto.ParseFromString(f.read())
    except (DecodeError, RecursionError) as e:
        raise _loss(f"{fn} is not a valid element_spec ({e})") from None
    return decode_spec(proto, fn)


class Snapshot:
    """A saved dataset opened for reading: ``element_spec``, ``num_elements``, ``elements()``."""

    def __init__(self, path, element_spec=None, compression=None):
        self.path = os.fspath(path)
        fn = os.path.join(self.path, METADATA_FILE)
        if os.path.getsize(fn) > _MAX_META:
            raise _loss(f"{fn} is too large")
        with open(fn, "rb") as f:
            raw = f.read()
        if raw.lstrip().startswith((b"element_spec", b"compression")):
            raise errors.UnimplementedError(None, None, f"{self.path} is a distributed (tf.data service) snapshot, "
                                            "which tensorlet cannot load")
        from google.protobuf.message import DecodeError

        meta = _meta_class()()
        try:
            meta.ParseFromString(raw)
        except DecodeError as e:
            raise _loss(f"{fn}: not a snapshot metadata record ({e})") from None
        if meta.version != VERSION:
            raise _loss(f"{fn}: snapshot file format version {meta.version} is not supported (tensorlet reads "
                        f"version {VERSION}, what Dataset.save writes)")
        if not meta.finalized:
            raise _loss(f"{fn}: the save that wrote {self.path} did not finish")
        if not _RUN_ID.fullmatch(meta.run_id):
            raise _loss(f"{fn}: bad run id {meta.run_id!r} (it must name a directory inside {self.path})")
        saved_spec = read_spec(self.path)
        flat = _flat(saved_spec)
        if [s.dtype.as_datatype_enum for s in flat] != list(meta.dtype):
            raise _loss(f"{fn}: the dtypes {list(meta.dtype)} do not match the element_spec {saved_spec}")
        if not flat:
            raise _loss(f"{fn}: the element_spec has no components")
        if element_spec is not None:
            from tensorlet._src.data import structure as S

            want = S.dflatten(element_spec)
            if not (S.same_structure(saved_spec, element_spec) and all(
                    a.is_compatible_with(b) for a, b in zip(flat, want))):
                raise ValueError(f"The `element_spec` {element_spec} is not compatible with the saved dataset's "
                                 f"element spec {saved_spec}.")
            saved_spec, flat = element_spec, want
        self.element_spec = saved_spec
        self._flat = flat
        self._kind = None if compression is None else _compression(compression)
        self._files = self._list_files(meta.run_id)
        total = sum(os.path.getsize(f) for shard in self._files for f in shard)
        per_element = 16 * len(flat)  # each component is a framed record of at least 16 bytes
        ratio = 1 if self._kind == "" else 1100  # deflate expands at most ~1032x
        if meta.num_elements < 0 or meta.num_elements * per_element > total * ratio:
            raise _loss(f"{fn} declares {meta.num_elements} elements, more than the {total} bytes of "
                        f"{self.path} can hold")
        self.num_elements = meta.num_elements

    def _list_files(self, run_id):
        root = os.path.realpath(self.path)
        run_dir = os.path.join(self.path, run_id)
        if os.path.islink(run_dir) or (os.path.exists(run_dir) and not os.path.isdir(run_dir)):
            raise _loss(f"{self.path}: the run directory {run_id} is not a directory of this snapshot")
        if not os.path.exists(run_dir):  # as TF: no shards (an empty dataset; git keeps no empty directory); a
            return []  # declared element count above zero then fails the size check in __init__
        shards = []
        for name in sorted(os.listdir(run_dir)):
            if not name.endswith(".shard"):
                continue
            d = os.path.join(run_dir, name)
            if not _SHARD.fullmatch(name) or os.path.islink(d) or not os.path.isdir(d) or \
                    os.path.commonpath([root, os.path.realpath(d)]) != root:
                raise _loss(f"{self.path}: {name} is not a shard directory of this snapshot")
            files, i = [], 0
            while True:
                f = os.path.join(d, f"{i:08d}.snapshot")
                if not os.path.isfile(f) or os.path.islink(f):
                    break
                files.append(f)
                i += 1
            shards.append(files)
        return shards

    def _records(self, path):
        from tensorlet._src.io.tfrecord import iter_records

        kind = self._kind
        if kind is None:  # not given: detect a gzip stream (TF needs the caller to say so)
            with open(path, "rb") as f:
                kind = "GZIP" if f.read(3) == b"\x1f\x8b\x08" else ""
        if kind == "SNAPPY":
            from tensorlet._src.data import snappy
            from tensorlet._src.io.tfrecord import iter_buffer_records

            with open(path, "rb") as f:
                data = f.read()
            try:
                return iter_buffer_records(snappy.decompress_stream(data), path)
            except snappy.SnappyError as e:
                raise _loss(f"{path}: {e}") from None
        return iter_records(path, kind)

    def _shard_elements(self, files):
        flat = self._flat
        k = len(flat)
        caches = [{} for _ in flat]
        for path in files:
            pending = []
            for rec in self._records(path):
                pending.append(rec)
                if len(pending) == k:
                    yield tuple(parse_tensor(bytes(r), s, path, c) for r, s, c in zip(pending, flat, caches))
                    pending = []
            if pending:
                raise _loss(f"{path}: the file ends inside an element ({len(pending)} of its {k} components)")

    def elements(self):
        """The saved elements (flat-leaf tuples): shards interleaved one element at a time, cycle length = CPU
        count (TF's default ``reader_func``); raises DataLossError unless exactly ``num_elements`` are read."""
        cycle = max(1, os.cpu_count() or 1)
        inputs = iter([self._shard_elements(files) for files in self._files])
        slots = [None] * cycle
        idx = n = num_open = 0
        end_of_input = False
        while not end_of_input or num_open:  # TF's InterleaveDataset, block length 1
            it = slots[idx]
            if it is not None:
                try:
                    el = next(it)
                except StopIteration:
                    slots[idx] = None
                    num_open -= 1
                    idx = (idx + 1) % cycle
                    continue
                n += 1
                if n > self.num_elements:
                    raise _loss(f"{self.path} holds more elements than the {self.num_elements} its metadata "
                                "declares")
                yield el
                idx = (idx + 1) % cycle
            elif not end_of_input:
                slots[idx] = next(inputs, None)
                if slots[idx] is None:
                    end_of_input = True
                else:
                    num_open += 1
            else:
                idx = (idx + 1) % cycle
        if n != self.num_elements:
            raise _loss(f"{self.path} holds {n} elements but its metadata declares {self.num_elements} (files are "
                        "missing or truncated)")

