"""The feature columns of ``tf.feature_column`` as TF 2.21 defines them.

Each column is an immutable named tuple with TF's fields, ``name``, ``parse_example_spec`` and (for categorical
columns) ``num_buckets``.  Values are computed by :func:`dense_tensor` (what ``DenseFeatures`` concatenates:
numeric values, one-hot buckets, multi-hot indicators, combined embeddings) and :func:`categorical_ids` (ids and
weights per example; ``-1`` marks a missing entry).  Ids are computed on the host (vocabulary lookups and string
hashing are host work in TF too); embedding lookups use tensorlet ops on the table variable, so they are
differentiable.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.io.parsing import FixedLenFeature, VarLenFeature

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_identity",
           "categorical_column_with_hash_bucket", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "crossed_column", "indicator_column", "embedding_column",
           "weighted_categorical_column", "shared_embeddings", "make_parse_example_spec", "sequence_numeric_column",
           "dense_tensor", "categorical_ids"]


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(d) for d in shape)


def _nt(name, fields):
    return collections.namedtuple(name, fields)


# --- dense columns ---------------------------------------------------------------------------------------------

class NumericColumn(_nt("NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        return self.shape


@tf_export("feature_column.numeric_column")
def numeric_column(key, shape=(1,), default_value=None, dtype=_dt.float32, normalizer_fn=None):
    """A dense numeric feature of ``shape`` per example (``normalizer_fn`` applied to its values)."""
    shape = _shape(shape)
    dtype = _dt.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: <dtype: {dtype.name!r}>, key: {key}")
    if default_value is not None:
        n = int(np.prod(shape))
        if isinstance(default_value, (int, float)):
            default_value = tuple([dtype.as_numpy_dtype(default_value).item()] * n) if len(shape) else default_value
        else:
            default_value = tuple(np.asarray(default_value, dtype.as_numpy_dtype).reshape(-1).tolist())
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class SequenceNumericColumn(_nt("SequenceNumericColumn", ["key", "shape", "default_value", "dtype",
                                                          "normalizer_fn"])):
    name = property(lambda self: self.key)

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}


@tf_export("feature_column.sequence_numeric_column")
def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=_dt.float32, normalizer_fn=None):
    """A numeric feature with a variable number of ``shape`` steps per example."""
    dtype = _dt.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: <dtype: {dtype.name!r}>, key: {key}")
    return SequenceNumericColumn(key, _shape(shape), default_value, dtype, normalizer_fn)


class BucketizedColumn(_nt("BucketizedColumn", ["source_column", "boundaries"])):
    name = property(lambda self: f"{self.source_column.name}_bucketized")
    parse_example_spec = property(lambda self: self.source_column.parse_example_spec)
    num_buckets = property(lambda self: (len(self.boundaries) + 1) * int(np.prod(self.source_column.shape)))


@tf_export("feature_column.bucketized_column")
def bucketized_column(source_column, boundaries):
    """Buckets of a numeric column: ``boundaries=[0., 10.]`` gives ``(-inf, 0), [0, 10), [10, inf)``."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError(f"boundaries must not be empty. source_column: {source_column}")
    b = tuple(float(x) for x in boundaries)
    if any(b[i] >= b[i + 1] for i in range(len(b) - 1)):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, b)


# --- categorical columns ---------------------------------------------------------------------------------------

class IdentityCategoricalColumn(_nt("IdentityCategoricalColumn", ["key", "number_buckets", "default_value"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.number_buckets)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(_dt.int64)})


class HashedCategoricalColumn(_nt("HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.hash_bucket_size)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})


class VocabularyListCategoricalColumn(_nt("VocabularyListCategoricalColumn",
                                          ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list) + self.num_oov_buckets)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})


class VocabularyFileCategoricalColumn(_nt("VocabularyFileCategoricalColumn",
                                          ["key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
                                           "default_value", "file_format"])):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.vocabulary_size + self.num_oov_buckets)
    parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def vocabulary(self):
        with open(self.vocabulary_file, encoding="utf-8") as f:
            words = [ln.rstrip("\n") for ln in f][: self.vocabulary_size]
        return tuple(int(w) for w in words) if self.dtype.is_integer else tuple(words)


class CrossedColumn(_nt("CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def parse_example_spec(self):
        out = {}
        for k in self.keys:
            out.update({k: VarLenFeature(_dt.string)} if isinstance(k, str) else k.parse_example_spec)
        return out


class WeightedCategoricalColumn(_nt("WeightedCategoricalColumn", ["categorical_column", "weight_feature_key",
                                                                  "dtype"])):
    name = property(lambda self: f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}")
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    @property
    def parse_example_spec(self):
        out = dict(self.categorical_column.parse_example_spec)
        out[self.weight_feature_key] = VarLenFeature(self.dtype)
        return out


class SequenceCategoricalColumn(_nt("SequenceCategoricalColumn", ["categorical_column"])):
    name = property(lambda self: self.categorical_column.name)
    num_buckets = property(lambda self: self.categorical_column.num_buckets)
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)


def _check_key(key):
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty string. Given: {key!r}")


@tf_export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer ids in ``[0, num_buckets)`` used as they are (``default_value`` for ids out of range)."""
    _check_key(key)
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


@tf_export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=_dt.string):
    """Ids from hashing each value into ``hash_bucket_size`` buckets (TF's Fingerprint64 hash)."""
    _check_key(key)
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    dtype = _dt.as_dtype(dtype)
    if dtype is not _dt.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype!r}, column_name: {key}")
    return HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


def _vocab_dtype(vocab, dtype, key):
    if dtype is None:
        return _dt.string if isinstance(vocab[0], (str, bytes)) else _dt.int64
    dtype = _dt.as_dtype(dtype)
    if dtype is not _dt.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype!r}, column_name: {key}")
    return dtype


@tf_export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Ids from the position of each value in ``vocabulary_list`` (out-of-vocabulary: an OOV bucket or
    ``default_value``)."""
    _check_key(key)
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = _vocab_dtype(vocabulary_list, dtype, key)
    return VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value, int(num_oov_buckets))


@tf_export("feature_column.categorical_column_with_vocabulary_file")
def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, dtype=_dt.string,
                                            default_value=None, num_oov_buckets=0, file_format=None):
    """Like the vocabulary-list column, with the vocabulary read from a file (one entry a line)."""
    _check_key(key)
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        with open(vocabulary_file, encoding="utf-8") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets and default_value is not None:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
    dtype = _dt.as_dtype(dtype)
    return VocabularyFileCategoricalColumn(key, vocabulary_file, int(vocabulary_size), int(num_oov_buckets), dtype,
                                           -1 if default_value is None else default_value, file_format)


@tf_export("feature_column.crossed_column")
def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The cross of categorical features (string keys, bucketized or categorical columns), hashed."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for k in keys:
        if not isinstance(k, (str, BucketizedColumn, IdentityCategoricalColumn, HashedCategoricalColumn,
                              VocabularyListCategoricalColumn, VocabularyFileCategoricalColumn, CrossedColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {k}")
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {k}")
    return CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


@tf_export("feature_column.weighted_categorical_column")
def weighted_categorical_column(categorical_column, weight_feature_key, dtype=_dt.float32):
    """A categorical column whose ids carry the weights in feature ``weight_feature_key``."""
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


def _sequence(fn):
    def make(*args, **kwargs):
        return SequenceCategoricalColumn(fn(*args, **kwargs))

    make.__name__ = f"sequence_{fn.__name__}"
    make.__qualname__ = make.__name__
    make.__doc__ = f"The sequence form of ``{fn.__name__}`` (a variable number of ids per example)."
    return make


sequence_categorical_column_with_identity = _sequence(categorical_column_with_identity)
sequence_categorical_column_with_hash_bucket = _sequence(categorical_column_with_hash_bucket)
sequence_categorical_column_with_vocabulary_list = _sequence(categorical_column_with_vocabulary_list)
sequence_categorical_column_with_vocabulary_file = _sequence(categorical_column_with_vocabulary_file)
for _n in ("identity", "hash_bucket", "vocabulary_list", "vocabulary_file"):
    tf_export(f"feature_column.sequence_categorical_column_with_{_n}")(
        globals()[f"sequence_categorical_column_with_{_n}"])
    globals()[f"sequence_categorical_column_with_{_n}"].__module__ = __name__


class IndicatorColumn(_nt("IndicatorColumn", ["categorical_column"])):
    name = property(lambda self: f"{self.categorical_column.name}_indicator")
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)
    variable_shape = property(lambda self: (self.categorical_column.num_buckets,))


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """Multi-hot (counts, or summed weights) of a categorical column's ids."""
    return IndicatorColumn(categorical_column)


class EmbeddingColumn(_nt("EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                                              "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm", "trainable",
                                              "use_safe_embedding_lookup"])):
    name = property(lambda self: f"{self.categorical_column.name}_embedding")
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)
    variable_shape = property(lambda self: (self.dimension,))


def _check_embedding(dimension, combiner, initializer):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn', 'sum'; got {combiner!r}")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: {initializer}")


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """A dense ``dimension``-vector per example: the ``combiner`` of the embeddings of its ids."""
    _check_embedding(dimension, combiner, initializer)
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, ckpt_to_load_from,
                           tensor_name_in_ckpt, max_norm, trainable, use_safe_embedding_lookup)


@tf_export("feature_column.shared_embeddings")
def shared_embeddings(categorical_columns, dimension, combiner="mean", initializer=None,
                      shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                      max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """Embedding columns sharing one table (TF 2.21 supports them only while building a TF1 graph)."""
    from tensorlet._src.framework.context import executing_eagerly

    if executing_eagerly():
        raise RuntimeError("shared_embedding_columns are not supported when eager execution is enabled.")
    _check_embedding(dimension, combiner, initializer)
    n = {c.num_buckets for c in categorical_columns}
    if len(n) > 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number of "
                         f"buckets. Given column: {categorical_columns}")
    return [EmbeddingColumn(c, int(dimension), combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                            max_norm, trainable, use_safe_embedding_lookup) for c in categorical_columns]


@tf_export("feature_column.make_parse_example_spec")
def make_parse_example_spec(feature_columns):
    """The ``tf.io.parse_example`` features dict all ``feature_columns`` need."""
    out = {}
    for c in feature_columns:
        spec = getattr(c, "parse_example_spec", None)
        if spec is None:
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: {c}")
        for k, v in spec.items():
            if k in out and out[k] != v:
                raise ValueError(f"feature_columns contain different parse_spec for key {k}. Given {v} and {out[k]}")
        out.update(spec)
    return out


# --- values ----------------------------------------------------------------------------------------------------

def _host_values(x):
    """(values [batch, n] as an object/number array, valid mask) of a dense or sparse feature."""
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        idx = np.asarray(x.indices.numpy())
        vals = np.asarray(x.values.numpy())
        shape = [int(d) for d in np.asarray(x.dense_shape.numpy())]
        batch = shape[0]
        width = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        out = np.zeros((batch, max(width, 1)), dtype=vals.dtype)
        mask = np.zeros((batch, max(width, 1)), dtype=bool)
        strides = np.cumprod([1] + shape[:0:-1])[::-1] if len(shape) > 1 else [1]
        for r, v in zip(idx, vals):
            col = int(np.dot(r[1:], strides[:len(r) - 1])) if len(r) > 1 else 0
            out[r[0], col] = v
            mask[r[0], col] = True
        return out, mask
    arr = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    arr = arr.reshape(arr.shape[0], -1)
    if arr.dtype.kind in "SUO":
        mask = np.array([[v not in (b"", "") for v in row] for row in arr], dtype=bool).reshape(arr.shape)
    else:
        mask = arr >= 0 if arr.dtype.kind in "iu" else np.ones(arr.shape, dtype=bool)
    return arr, mask


def _as_bytes(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def categorical_ids(column, features):
    """``(ids, weights)`` as ``[batch, n]`` NumPy arrays for a categorical column; id ``-1`` is missing."""
    if isinstance(column, SequenceCategoricalColumn):
        return categorical_ids(column.categorical_column, features)
    if isinstance(column, WeightedCategoricalColumn):
        ids, _ = categorical_ids(column.categorical_column, features)
        w, _ = _host_values(features[column.weight_feature_key])
        return ids, np.where(ids >= 0, w.astype(np.float32), 0.0)
    if isinstance(column, BucketizedColumn):
        x = convert_to_tensor(features[column.source_column.key]).numpy().astype(np.float64)
        x = x.reshape(x.shape[0], -1)
        b = np.searchsorted(np.asarray(column.boundaries), x, side="right")
        ids = b + np.arange(x.shape[1]) * (len(column.boundaries) + 1)
        return ids.astype(np.int64), np.ones(ids.shape, np.float32)
    vals, mask = _host_values(features[column.key] if not isinstance(column, CrossedColumn) else None) \
        if not isinstance(column, CrossedColumn) else (None, None)
    if isinstance(column, IdentityCategoricalColumn):
        ids = vals.astype(np.int64)
        bad = (ids < 0) | (ids >= column.number_buckets)
        if column.default_value is None and np.any(bad & mask):
            from tensorlet._src.framework import errors

            raise errors.InvalidArgumentError(None, "assert_less_than_num_buckets",
                                              f"Condition x < y did not hold. Got ids {ids[bad & mask].tolist()} "
                                              f"for num_buckets {column.number_buckets}")
        ids = np.where(bad, column.default_value if column.default_value is not None else -1, ids)
    elif isinstance(column, HashedCategoricalColumn):
        from tensorlet._src.ops.strings_split import to_hash_bucket_fast

        flat = np.array([_as_bytes(v) for v in vals.reshape(-1)], dtype=object)
        ids = to_hash_bucket_fast(convert_to_tensor(flat, _dt.string), column.hash_bucket_size).numpy()
        ids = ids.reshape(vals.shape)
    elif isinstance(column, (VocabularyListCategoricalColumn, VocabularyFileCategoricalColumn)):
        vocab = column.vocabulary_list if isinstance(column, VocabularyListCategoricalColumn) else column.vocabulary()
        key = (lambda v: _as_bytes(v)) if column.dtype is _dt.string else int
        table = {key(w): i for i, w in enumerate(vocab)}
        ids = np.full(vals.shape, -1, np.int64)
        n = len(vocab)
        for pos, v in np.ndenumerate(vals):
            k = key(v)
            if k in table:
                ids[pos] = table[k]
            elif column.num_oov_buckets:
                import zlib

                ids[pos] = n + zlib.crc32(k if isinstance(k, bytes) else str(k).encode()) % column.num_oov_buckets
            else:
                ids[pos] = column.default_value
    elif isinstance(column, CrossedColumn):
        return _crossed_ids(column, features)
    else:
        raise ValueError(f"Unsupported categorical column {column}")
    ids = np.where(mask, ids, -1)
    return ids.astype(np.int64), mask.astype(np.float32)


_M64 = (1 << 64) - 1
_KMUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _shift_mix(v):
    return v ^ (v >> 47)


def _fingerprint_cat64(fp1, fp2):
    """TF's FingerprintCat64: how sparse_cross_hashed folds each crossed feature's hash into the key."""
    r = (fp1 ^ _KMUL) & _M64
    r ^= (_shift_mix((fp2 * _KMUL) & _M64) * _KMUL) & _M64
    r = (r * _KMUL) & _M64
    r = (_shift_mix(r) * _KMUL) & _M64
    return _shift_mix(r)


def _crossed_ids(column, features):
    """Ids of a crossed column: every combination of the inputs' values per example, hashed as TF's
    ``sparse_cross_hashed`` does (string values by Fingerprint64, integer ids as they are)."""
    from tensorlet._src.ops.strings_split import _farmhash

    fp = _farmhash().fingerprint64
    parts = []
    for k in column.keys:
        if isinstance(k, str):
            vals, mask = _host_values(features[k])
            hashed = [[(fp(_as_bytes(v)) if vals.dtype.kind in "SUO" else int(v) & _M64)
                       for v, m in zip(row, mrow) if m] for row, mrow in zip(vals, mask)]
        else:
            ids, _ = categorical_ids(k, features)
            hashed = [[int(i) & _M64 for i in row if i >= 0] for row in ids]
        parts.append(hashed)
    batch = len(parts[0])
    rows = []
    import itertools

    key = _DEFAULT_HASH_KEY if column.hash_key is None else int(column.hash_key)
    for b in range(batch):
        out = []
        for combo in itertools.product(*[p[b] for p in parts]):
            h = key
            for x in combo:
                h = _fingerprint_cat64(h, x)
            out.append(h % column.hash_bucket_size)
        rows.append(out)
    width = max([len(r) for r in rows] + [1])
    ids = np.full((batch, width), -1, np.int64)
    for b, r in enumerate(rows):
        ids[b, :len(r)] = r
    return ids, (ids >= 0).astype(np.float32)


def dense_tensor(column, features, state=None):
    """The dense ``[batch, width]`` tensor ``DenseFeatures`` makes for ``column`` (``state``: a dict holding the
    embedding tables, created on first use)."""
    from tensorlet._src.ops import array_shape as array_ops, math_binary, reduce
    from tensorlet._src.ops.math_binary import cast

    if isinstance(column, NumericColumn):
        x = features[column.key]
        if hasattr(x, "dense_shape"):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not "
                             f"supported. key: {column.key}")
        x = cast(convert_to_tensor(x), _dt.float32)
        if column.normalizer_fn is not None:
            x = column.normalizer_fn(x)
        return array_ops.reshape(x, [-1, int(np.prod(column.shape))])
    if isinstance(column, BucketizedColumn):
        ids, _ = categorical_ids(column, features)
        out = np.zeros((ids.shape[0], column.num_buckets), np.float32)
        for r, row in enumerate(ids):
            out[r, row] = 1.0
        return convert_to_tensor(out)
    if isinstance(column, IndicatorColumn):
        ids, w = categorical_ids(column.categorical_column, features)
        n = column.categorical_column.num_buckets
        out = np.zeros((ids.shape[0], n), np.float32)
        for (r, _), i, wt in zip(np.ndindex(ids.shape), ids.reshape(-1), w.reshape(-1)):
            if i >= 0:
                out[r, i] += wt
        return convert_to_tensor(out)
    if isinstance(column, EmbeddingColumn):
        state = {} if state is None else state
        table = state.get(column.name)
        if table is None:
            from tensorlet._src.framework.variables import Variable
            from tensorlet._src.ops import random_gen as random_ops

            shape = [column.categorical_column.num_buckets, column.dimension]
            init = column.initializer(shape, _dt.float32) if column.initializer is not None else \
                random_ops.truncated_normal(shape, stddev=1.0 / math.sqrt(column.dimension))
            table = Variable(init, trainable=column.trainable, name=f"{column.name}/embedding_weights")
            state[column.name] = table
        ids, w = categorical_ids(column.categorical_column, features)
        valid = ids >= 0
        w = np.where(valid, w, 0.0).astype(np.float32)
        if column.combiner == "mean":
            denom = w.sum(axis=1, keepdims=True)
            w = np.divide(w, denom, out=np.zeros_like(w), where=denom > 0)
        elif column.combiner == "sqrtn":
            denom = np.sqrt((w * w).sum(axis=1, keepdims=True))
            w = np.divide(w, denom, out=np.zeros_like(w), where=denom > 0)
        from tensorlet._src.ops.gather_scatter import gather

        emb = gather(table, convert_to_tensor(np.where(valid, ids, 0)))
        if column.max_norm is not None:
            norms = np.asarray(reduce.reduce_sum(emb * emb, axis=-1, keepdims=True).numpy()) ** 0.5
            emb = emb * convert_to_tensor(np.minimum(1.0, column.max_norm / np.maximum(norms, 1e-12)).astype(
                np.float32))
        return reduce.reduce_sum(math_binary.multiply(emb, convert_to_tensor(w[..., None])), axis=1)
    raise ValueError(f"Items of feature_columns must be a DenseColumn. You can wrap a categorical column with an "
                     f"embedding_column or indicator_column. Given: {column}")
