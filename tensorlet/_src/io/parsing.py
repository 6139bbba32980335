"""``tf.io.parse_example`` / ``parse_single_example`` / ``parse_sequence_example`` /
``parse_single_sequence_example`` and the feature configurations (``FixedLenFeature``, ``VarLenFeature``,
``FixedLenSequenceFeature``, ``SparseFeature``, ``RaggedFeature``).

Parsing is one op (``ParseExampleV2`` / ``ParseSequenceExampleV2``) whose NumPy kernel decodes the
protobuf messages (:mod:`tensorlet._src.io.example`), so it also runs inside ``tf.function`` and
``Dataset.map`` graphs (on the NumPy executor).  The feature configuration is a static attribute; outputs
are the sparse ``(indices, values, dense_shape)`` triples and the dense values, assembled into
``SparseTensor``s and a dict ordered as TF orders it (sparse keys, then dense keys, each sorted).

>>> spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "tags": tf.io.VarLenFeature(tf.string)}
>>> parsed = tf.io.parse_single_example(record, spec)
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.io.sparse import SparseTensor
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.array_blocks import concat
from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.reduce import reduce_sum
from tensorlet._src.ops.scan_sort import argsort, cumprod

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "SparseFeature", "RaggedFeature",
           "parse_example", "parse_single_example", "parse_sequence_example", "parse_single_sequence_example"]


# --- feature configurations ------------------------------------------------------------------------------------

@tf_export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with exactly ``prod(shape)`` values, parsed to a dense tensor of ``shape``.

    >>> tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0])
    FixedLenFeature(shape=[2], dtype=tf.float32, default_value=[0.0, 0.0])
    """

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed to a ``tf.sparse.SparseTensor``."""

    __slots__ = ()


@tf_export("io.FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature with a multiple of ``prod(shape)`` values, parsed to ``[n] + shape`` (padded in a batch)."""

    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


@tf_export("io.SparseFeature")
class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse tensor stored as index feature(s) and a value feature, parsed to a ``SparseTensor``."""

    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@tf_export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple("RaggedFeature",
                                           ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A ragged feature (parsing it needs ``tf.RaggedTensor``, which tensorlet does not implement yet)."""

    __slots__ = ()

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32, validate=False):
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


# --- the spec attr ----------------------------------------------------------------------------------------------

_KIND = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
_TFNAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_NPDT = {"float32": np.float32, "int64": np.int64, "string": object}
_ALLOWED = "float, int64, string"


def _dtype_name(dtype, attr, op):
    d = _dt.as_dtype(dtype)
    if d.name not in _KIND:
        word = {"float64": "double", "float16": "half"}.get(d.name, d.name)
        raise errors.invalid_argument(op, f"Value for attr '{attr}' of {word} is not in the list of allowed values: "
                                          f"{_ALLOWED}")
    return d.name


def _shape_tuple(shape, key, feature):
    if shape is None:
        raise ValueError(f"Missing shape for feature {key}. Received feature={feature!r}.")
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"All dimensions of shape for feature {key} need to be known but received {list(shape)!r}.")
    return dims


def _default(value, dtype_name, shape, op="Reshape"):
    """A default value as a flat Python tuple of ``prod(shape)`` elements (hashable, for the op's attrs)."""
    arr = np.asarray(convert_to_tensor(value, dtype=_dt.as_dtype(dtype_name))._v)
    n = int(np.prod(shape, dtype=np.int64))
    if arr.size != n:
        raise errors.invalid_argument(op, f"Input to reshape is a tensor with {arr.size} values, but the requested "
                                          f"shape has {n}")
    return tuple(arr.reshape(-1).tolist())


def _spec(features, op):
    """The static spec: sparse entries then dense entries, each in sorted key order (TF's output order)."""
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    sparse, dense = [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sparse.append(("var", key, _dtype_name(f.dtype, "sparse_types", op)))
        elif isinstance(f, SparseFeature):
            keys = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
            for k in keys:
                sparse.append(("var", k, "int64"))
            sparse.append(("var", f.value_key, _dtype_name(f.dtype, "sparse_types", op)))
        elif isinstance(f, FixedLenFeature):
            name = _dtype_name(f.dtype, "Tdense", op)
            shape = _shape_tuple(f.shape, key, f)
            default = None if f.default_value is None else _default(f.default_value, name, shape)
            dense.append(("fixed", key, name, shape, default))
        elif isinstance(f, FixedLenSequenceFeature):
            if not f.allow_missing and op == "ParseExampleV2":
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            name = _dtype_name(f.dtype, "Tdense", op)
            shape = _shape_tuple(f.shape, key, f)
            default = None if f.default_value is None else _default(f.default_value, name, ())
            dense.append(("seq", key, name, shape, default, bool(f.allow_missing)))
        elif isinstance(f, RaggedFeature):
            raise NotImplementedError("tensorlet does not implement tf.RaggedTensor yet, so RaggedFeature cannot be "
                                      "parsed; use VarLenFeature (a SparseTensor) instead")
        else:
            raise ValueError(f"Unsupported feature type: {type(f).__name__} for key {key}")
    seen = {}
    for e in sparse:  # a SparseFeature's index/value keys may be shared with other features
        seen.setdefault(e[1], e)
    return tuple(seen.values()), tuple(dense)


# --- decoding --------------------------------------------------------------------------------------------------

def _example_classes():
    from tensorlet._src.io import example

    return example


def _decode_error():
    from google.protobuf.message import DecodeError

    return DecodeError


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _values(feat, kind):
    if kind == "bytes_list":
        vals = feat.bytes_list.value
        out = np.empty(len(vals), object)
        out[:] = list(vals)
        return out
    if kind == "float_list":
        return np.array(feat.float_list.value, np.float32)
    return np.array(feat.int64_list.value, np.int64)


class _Where:
    """Error-message context: single example ("Key: k.  ...") or batch ("Name: n, Key: k, Index: i.  ...")."""

    def __init__(self, single, names, op):
        self.single, self.names, self.op = single, names, op

    def name(self, i):
        return self.names[i] if self.names and i < len(self.names) and self.names[i] else "<unknown>"

    def key(self, key, i, text):
        if self.single:
            return errors.invalid_argument(self.op, f"Key: {key}.  {text}")
        return errors.invalid_argument(self.op, f"Name: {self.name(i)}, Key: {key}, Index: {i}.  {text}")

    def required(self, key, dtype, i):
        text = f"Feature: {key} (data type: {_TFNAME[_KIND[dtype]]}) is required but could not be found."
        return errors.invalid_argument(self.op, text if self.single else f"Name: {self.name(i)}, {text}")


def _typed(feat, key, dtype, i, where, sparse):
    """The values of a feature (``None`` when absent or of no kind), checking the kind against ``dtype``."""
    if feat is None:
        return None
    kind = feat.WhichOneof("kind")
    if kind is None:
        return None
    want = _KIND[dtype]
    if kind != want:
        text = (f"Data types don't match. Expected type: {_TFNAME[want]}, Actual type: {_TFNAME[kind]}" if sparse
                else f"Data types don't match. Data type: {_TFNAME[kind]} but expected type: {_TFNAME[want]}")
        raise where.key(key, i, text)
    return _values(feat, kind)


def _shape_str(dims):
    return "[" + ",".join(str(d) for d in dims) + "]"


def _empty(dtype, shape=(0,)):
    return np.empty(shape, _NPDT[dtype]) if dtype != "string" else np.full(shape, b"", object)


def _sparse_out(per_record, dtype, single, extra_dims=0):
    """indices / values / dense_shape of a VarLen feature from each record's value array."""
    counts = [0 if v is None else len(v) for v in per_record]
    total = sum(counts)
    values = np.concatenate([v for v in per_record if v is not None and len(v)]) if total else _empty(dtype)
    if values.dtype != _NPDT[dtype] and dtype != "string":
        values = values.astype(_NPDT[dtype])
    pos = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts).astype(np.int64)
    width = max(counts, default=0)
    if single:
        return pos.reshape(-1, 1), values, np.array([width], np.int64)
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return np.stack([rows, pos], axis=1), values, np.array([len(counts), width], np.int64)


def _fixed_out(per_record, entry, single, where):
    _, key, dtype, shape, default = entry
    n = int(np.prod(shape, dtype=np.int64))
    out = _empty(dtype, (len(per_record), n))
    for i, v in enumerate(per_record):
        if v is None:
            if default is None:
                raise where.required(key, dtype, i)
            out[i] = default
        elif len(v) != n:
            if where.single:
                raise where.key(key, i, f"Can't parse serialized Example: Some {_KIND[dtype]} slice was not parsed.")
            raise where.key(key, i, f"Number of {_TFNAME[_KIND[dtype]]} values != expected.  Values size: {len(v)} "
                                    f"but output shape: {_shape_str(shape)}")
        else:
            out[i] = v
    return out.reshape(shape) if single else out.reshape((len(per_record),) + shape)


def _seq_out(per_record, entry, single, where):
    _, key, dtype, shape, default, _allow = entry
    stride = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i, v in enumerate(per_record):
        if v is None:
            rows.append(0)
            continue
        if stride == 0 or len(v) % stride:
            if where.single:
                raise errors.invalid_argument(where.op, f"Error while parsing feature with key {key}: number of "
                                                        f"elements should be divisible by {stride}, found {len(v)} "
                                                        "instead")
            raise where.key(key, i, f"Number of {_TFNAME[_KIND[dtype]]} values is not a multiple of stride length. "
                                    f"Saw {len(v)} values but output shape is: {_shape_str(('?',) + shape)}")
        rows.append(len(v) // stride)
    width = max(rows, default=0)
    pad = default[0] if default is not None else (b"" if dtype == "string" else 0)
    out = np.full((len(per_record), width * stride), pad, _NPDT[dtype])
    for i, v in enumerate(per_record):
        if v is not None and len(v):
            out[i, :len(v)] = v
    return out.reshape((width,) + shape) if single else out.reshape((len(per_record), width) + shape)


def _records(serialized, op):
    arr = np.asarray(serialized)
    if arr.ndim > 1:
        raise errors.invalid_argument(op, f"Expected serialized to be a scalar or vector, got shape: "
                                          f"{_shape_str(arr.shape)}")
    single = arr.ndim == 0
    return single, ([arr.item()] if single else arr.tolist())


def _parse(cls, raw, op):
    try:
        return cls.FromString(raw)
    except _decode_error():
        raise errors.invalid_argument(op, f"Could not parse example input, value: '{_text(raw)}'") from None


def _parse_example_kernel(xp, serialized, spec, names=()):
    sparse, dense = spec
    single, raws = _records(serialized, "ParseExampleV2")
    where = _Where(single, names, "ParseExampleV2")
    example = _example_classes().Example
    maps = [_parse(example, r, "ParseExampleV2").features.feature for r in raws]
    outs = []
    for _, key, dtype in sparse:
        per = [_typed(m.get(key), key, dtype, i, where, True) for i, m in enumerate(maps)]
        outs += _sparse_out(per, dtype, single)
    for entry in dense:
        key, dtype = entry[1], entry[2]
        per = [_typed(m.get(key), key, dtype, i, where, False) for i, m in enumerate(maps)]
        outs.append(_fixed_out(per, entry, single, where) if entry[0] == "fixed" else _seq_out(per, entry, single,
                                                                                                where))
    return tuple(outs)


def _out_specs(sparse, dense, lead, seq_dims=0):
    """Specs of the op's outputs for tracing: ``lead`` is ``()`` for one example, ``(batch,)`` for a batch."""
    from tensorlet._src.ops.shapes import Spec

    rank = len(lead) + seq_dims + 1
    specs = []
    for _, _key, dtype in sparse:
        specs += [Spec(TensorShape([None, rank]), _dt.int64), Spec(TensorShape([None]), _dt.as_dtype(dtype)),
                  Spec(TensorShape([rank]), _dt.int64)]
    for entry in dense:
        shape = entry[3]
        dims = list(lead) + ([None] if entry[0] == "seq" else []) + list(shape)
        specs.append(Spec(TensorShape(dims), _dt.as_dtype(entry[2])))
    return tuple(specs)


def _parse_example_shape(serialized, spec, names=()):
    rank = serialized.shape.rank
    lead = () if rank == 0 else (serialized.shape[0],) if rank == 1 else (None,)
    return _out_specs(spec[0], spec[1], lead)


PARSE_EXAMPLE = io_op("ParseExampleV2", _parse_example_kernel, shape=_parse_example_shape, n_out=None)


# --- ParseExampleV2 nodes of TF-written graphs (a TF1 SavedModel's classify/regress input) -----------------------
# TF's node carries the feature keys as constant inputs and the dense defaults as tensors (empty: required); they
# become the spec above, the defaults' values read when the op runs.

def _graph_spec(sparse_keys, dense_keys, sparse_types, dense_types, dense_shapes, defaults=None):
    sparse = tuple(("var", _key(k), _dt.as_dtype(t).name) for k, t in zip(sparse_keys, sparse_types))
    dense = []
    for j, (k, t, shp) in enumerate(zip(dense_keys, dense_types, dense_shapes)):
        dims = tuple(shp) if shp is not None else ()
        d = None
        if defaults is not None and np.asarray(defaults[j]).size:
            d = tuple(np.asarray(defaults[j]).reshape(-1).tolist())
        name = _dt.as_dtype(t).name
        if dims and dims[0] is None:  # FixedLenSequenceFeature (allow_missing)
            dense.append(("seq", _key(k), name, tuple(int(x) for x in dims[1:]), d, True))
        else:
            dense.append(("fixed", _key(k), name, tuple(int(x) for x in dims), d))
    return sparse, tuple(dense)


def _key(k):
    return k.decode() if isinstance(k, bytes) else str(k)


def _dims(shape):
    if isinstance(shape, TensorShape):
        return () if shape.rank is None else tuple(shape.as_list())
    return tuple(shape or ())


def _graph_keys(attrs):
    for a in ("sparse_keys", "dense_keys", "ragged_keys"):
        attrs[a] = tuple(_key(k) for k in np.asarray(attrs.get(a, ()), object).reshape(-1).tolist())
    if attrs.pop("ragged_keys"):
        raise ValueError("ragged features (tf.io.RaggedFeature) are not supported")
    attrs["dense_shapes"] = tuple(_dims(s) for s in attrs.get("dense_shapes", ()))
    for a in ("num_sparse", "ragged_value_types", "ragged_split_types"):
        attrs.pop(a, None)
    return attrs


def _parse_graph_kernel(xp, serialized, names, *defaults, sparse_keys=(), dense_keys=(), stypes=(), tdense=(),
                        dense_shapes=()):
    spec = _graph_spec(sparse_keys, dense_keys, stypes, tdense, dense_shapes, defaults)
    for e in spec[1]:
        if e[4] is not None and len(e[4]) != int(np.prod(e[3], dtype=np.int64)) and e[0] == "fixed":
            raise errors.invalid_argument("ParseExampleV2", f"dense_defaults[{e[1]}] has {len(e[4])} values, the "
                                                            f"feature's shape {_shape_str(e[3])} needs "
                                                            f"{int(np.prod(e[3], dtype=np.int64))}")
    nm = tuple(_key(x) for x in np.asarray(names, object).reshape(-1).tolist())
    return _parse_example_kernel(xp, serialized, spec, nm)


def _parse_graph_shape(serialized, names, *defaults, sparse_keys=(), dense_keys=(), stypes=(), tdense=(),
                       dense_shapes=()):
    return _parse_example_shape(serialized, _graph_spec(sparse_keys, dense_keys, stypes, tdense, dense_shapes))


def _graph_tfdef():
    from tensorlet._src.ops.tfdef import TFDef

    return TFDef(op="ParseExampleV2", consts=[("sparse_keys", 2, "string"), ("dense_keys", 3, "string"),
                                              ("ragged_keys", 4, "string")],
                 rename={"stypes": "sparse_types", "tdense": "Tdense"}, from_tf=_graph_keys)


PARSE_EXAMPLE_GRAPH = defop("ParseExampleV2Graph", _parse_graph_kernel, shape=_parse_graph_shape, n_out=None,
                            grad=NONDIFF, kind="io", foldable=False, no_lowering=True,
                            no_lowering_reason="runs in Python (protobuf parsing)", tfdef=_graph_tfdef())


def _assemble(spec, flat, features):
    sparse, dense = spec
    out = {}
    k = 0
    parts = {}
    for entry in sparse:
        parts[entry[1]] = SparseTensor._make(flat[k], flat[k + 1], flat[k + 2])
        k += 3
    for entry in dense:
        parts[entry[1]] = flat[k]
        k += 1
    for key in sorted(features):  # sparse results first, then dense, like TF
        f = features[key]
        if isinstance(f, (VarLenFeature, SparseFeature)):
            out[key] = parts[key] if isinstance(f, VarLenFeature) else _sparse_feature(f, parts)
    for key in sorted(features):
        if key not in out:
            out[key] = parts[key]
    return out


def _sparse_feature(f, parts):
    """Combine a SparseFeature's index and value features into one SparseTensor (eager or traced)."""
    keys = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
    sizes = [f.size] if isinstance(f.size, int) else list(f.size)
    vals = parts[f.value_key]
    lead = vals.indices[:, :-1]  # the batch index (if any)
    cols = [expand_dims(parts[k].values, 1) for k in keys]
    indices = concat([lead] + cols, axis=1) if lead.shape[1] else concat(cols, axis=1)
    shape = concat([vals.dense_shape[:-1], convert_to_tensor(sizes, dtype=_dt.int64)], axis=0)
    st = SparseTensor._make(indices, vals.values, shape)
    if not f.already_sorted:
        order = argsort(_linear(indices, shape), stable=True)
        st = SparseTensor._make(gather(indices, order), gather(vals.values, order), shape)
    return st


def _linear(indices, shape):
    strides = cumprod(shape, reverse=True, exclusive=True)
    return reduce_sum(indices * strides, axis=1)


def _names(example_names):
    if example_names is None:
        return ()
    v = example_names.numpy() if hasattr(example_names, "numpy") else example_names
    v = np.asarray(v, object).reshape(-1)
    return tuple(x.decode() if isinstance(x, bytes) else str(x) for x in v.tolist())


@tf_export("io.parse_example")
def parse_example(serialized, features, example_names=None, name=None):
    """Parse a vector of serialized ``tf.train.Example`` protos into a dict of batched tensors.

    ``FixedLenFeature`` -> ``[batch] + shape``; ``VarLenFeature`` -> ``SparseTensor`` with ``[batch, n]``
    dense shape; ``FixedLenSequenceFeature`` -> ``[batch, n] + shape`` padded with ``default_value``.
    """
    spec = _spec(features, "ParseExampleV2")
    x = strings(serialized)
    flat = bind(PARSE_EXAMPLE, x, spec=spec, names=_names(example_names))
    return _assemble(spec, flat, features)


@tf_export("io.parse_single_example")
def parse_single_example(serialized, features, example_names=None, name=None):
    """Parse one serialized ``tf.train.Example`` (a scalar string) into a dict of tensors.

    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
    >>> tf.io.parse_single_example(ex.SerializeToString(), {"x": tf.io.FixedLenFeature([2], tf.float32)})["x"]
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    """
    spec = _spec(features, "ParseExampleV2")
    x = strings(serialized)
    if x.shape.rank is not None and x.shape.rank != 0:
        raise ValueError("Input serialized must be a scalar")
    flat = bind(PARSE_EXAMPLE, x, spec=spec, names=_names(example_names))
    return _assemble(spec, flat, features)


# --- sequence examples -------------------------------------------------------------------------------------------

def _parse_sequence_kernel(xp, serialized, context, sequence, names=()):
    op = "ParseSequenceExampleV2"
    single, raws = _records(serialized, op)
    where = _Where(single, names, op)
    cls = _example_classes().SequenceExample
    protos = [_parse(cls, r, op) for r in raws]
    outs = []
    cmaps = [p.context.feature for p in protos]
    for _, key, dtype in context[0]:
        outs += _sparse_out([_typed(m.get(key), key, dtype, i, where, True) for i, m in enumerate(cmaps)], dtype,
                            single)
    for entry in context[1]:
        key, dtype = entry[1], entry[2]
        per = [_typed(m.get(key), key, dtype, i, where, False) for i, m in enumerate(cmaps)]
        outs.append(_fixed_out(per, entry, single, where) if entry[0] == "fixed" else _seq_out(per, entry, single,
                                                                                                where))
    fmaps = [p.feature_lists.feature_list for p in protos]
    lengths = []
    for _, key, dtype in sequence[0]:
        outs += _seq_sparse(fmaps, key, dtype, single, where)
    for entry in sequence[1]:
        o, n = _seq_dense(fmaps, entry, single, where)
        outs.append(o)
        lengths.append(n)
    return tuple(outs) + tuple(lengths)


def _steps(fl, key, dtype, i, where, sparse):
    return [_typed(f, key, dtype, i, where, sparse) for f in fl.feature]


def _seq_sparse(fmaps, key, dtype, single, where):
    """A VarLen sequence feature: indices ``[t, j]`` (``[b, t, j]`` in a batch)."""
    idx, vals, steps, width = [], [], [], 0
    for i, m in enumerate(fmaps):
        fl = m.get(key)
        per = _steps(fl, key, dtype, i, where, True) if fl is not None else []
        steps.append(len(per))
        for t, v in enumerate(per):
            n = 0 if v is None else len(v)
            width = max(width, n)
            if n:
                vals.append(v)
                j = np.arange(n, dtype=np.int64)
                cols = [np.full(n, t, np.int64), j] if single else [np.full(n, i, np.int64), np.full(n, t, np.int64), j]
                idx.append(np.stack(cols, axis=1))
    rank = 2 if single else 3
    indices = np.concatenate(idx) if idx else np.zeros((0, rank), np.int64)
    values = np.concatenate(vals) if vals else _empty(dtype)
    lead = [] if single else [len(fmaps)]
    return indices, values, np.array(lead + [max(steps, default=0), width], np.int64)


def _seq_dense(fmaps, entry, single, where):
    _, key, dtype, shape, default, allow_missing = entry
    stride = int(np.prod(shape, dtype=np.int64))
    per_rec = []
    for i, m in enumerate(fmaps):
        fl = m.get(key)
        if fl is None:
            if not allow_missing and default is None:
                raise errors.invalid_argument(
                    where.op, f"Name: {where.name(i)}, Feature list '{key}' is required but could not be found.  "
                              "Did you mean to include it in feature_list_dense_missing_assumed_empty or "
                              "feature_list_dense_defaults?")
            per_rec.append([])
            continue
        steps = _steps(fl, key, dtype, i, where, False)
        for t, v in enumerate(steps):
            if v is None or len(v) != stride:
                raise errors.invalid_argument(
                    where.op, f"Name: {where.name(i)}, Key: {key}, Index: {t}.  Number of {_TFNAME[_KIND[dtype]]} "
                              f"values != expected.  values size: {0 if v is None else len(v)} but output shape: "
                              f"{_shape_str(shape)}")
        per_rec.append(steps)
    lengths = np.array([len(s) for s in per_rec], np.int64)
    width = int(lengths.max(initial=0))
    pad = default[0] if default is not None else (b"" if dtype == "string" else 0)
    out = np.full((len(per_rec), width, stride), pad, _NPDT[dtype])
    for i, s in enumerate(per_rec):
        for t, v in enumerate(s):
            out[i, t] = v
    if single:
        return out.reshape((width,) + shape), np.asarray(lengths[0])
    return out.reshape((len(per_rec), width) + shape), lengths


def _parse_sequence_shape(serialized, context, sequence, names=()):
    from tensorlet._src.ops.shapes import Spec

    rank = serialized.shape.rank
    lead = () if rank == 0 else (serialized.shape[0],)
    specs = _out_specs(context[0], context[1], lead) + _out_specs(sequence[0], sequence[1], lead, seq_dims=1)
    # FixedLenSequence outputs of a sequence example are [t] + shape (the "seq" marker adds the t dim)
    lengths = tuple(Spec(TensorShape(list(lead)), _dt.int64) for _ in sequence[1])
    return specs + lengths


PARSE_SEQUENCE = io_op("ParseSequenceExampleV2", _parse_sequence_kernel, shape=_parse_sequence_shape, n_out=None)


def _seq_spec(sequence_features):
    sparse, dense = [], []
    for key in sorted(sequence_features or {}):
        f = sequence_features[key]
        if isinstance(f, VarLenFeature):
            sparse.append(("var", key, _dtype_name(f.dtype, "feature_list_sparse_types", "ParseSequenceExampleV2")))
        elif isinstance(f, FixedLenSequenceFeature):
            name = _dtype_name(f.dtype, "feature_list_dense_types", "ParseSequenceExampleV2")
            shape = _shape_tuple(f.shape, key, f)
            default = None if f.default_value is None else _default(f.default_value, name, ())
            dense.append(("seq", key, name, shape, default, bool(f.allow_missing)))
        elif isinstance(f, RaggedFeature):
            raise NotImplementedError("tensorlet does not implement tf.RaggedTensor yet, so RaggedFeature cannot be "
                                      "parsed; use VarLenFeature (a SparseTensor) instead")
        else:
            raise ValueError(f"Unsupported sequence feature type: {type(f).__name__} for key {key}")
    return tuple(sparse), tuple(dense)


def _run_sequence(serialized, context_features, sequence_features, names):
    if not context_features and not sequence_features:
        raise ValueError("Must provide at least one feature key.")
    context = _spec(context_features, "ParseSequenceExampleV2") if context_features else ((), ())
    sequence = _seq_spec(sequence_features)
    x = strings(serialized)
    flat = bind(PARSE_SEQUENCE, x, context=context, sequence=sequence, names=names)
    nc = 3 * len(context[0]) + len(context[1])
    ns = 3 * len(sequence[0]) + len(sequence[1])
    ctx_out = _assemble(context, flat[:nc], context_features) if context_features else {}
    seq_out = _assemble(sequence, flat[nc:nc + ns], sequence_features) if sequence_features else {}
    lengths = {entry[1]: t for entry, t in zip(sequence[1], flat[nc + ns:])}
    return ctx_out, seq_out, lengths


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """Parse a vector of serialized ``tf.train.SequenceExample`` protos.

    Returns ``(context, feature_lists, feature_list_lengths)``: dicts of batched tensors (sequence
    features ``[batch, time] + shape``, padded) and, per ``FixedLenSequenceFeature``, each example's length.
    """
    x = strings(serialized)
    if x.shape.rank is not None and x.shape.rank != 1:
        raise ValueError(f"Shape {x.shape} must have rank 1")
    return _run_sequence(x, context_features, sequence_features, _names(example_names))


@tf_export("io.parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """Parse one serialized ``tf.train.SequenceExample``: ``(context, feature_lists)`` dicts of tensors."""
    x = strings(serialized)
    if x.shape.rank is not None and x.shape.rank != 0:
        raise ValueError(f"Shape {x.shape} must have rank 0")
    ctx_out, seq_out, _ = _run_sequence(x, context_features, sequence_features, _names(example_name))
    return ctx_out, seq_out
