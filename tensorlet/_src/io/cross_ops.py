"""Feature crosses: ``tf.sparse.cross`` / ``cross_hashed`` and ``tf.ragged.cross`` / ``cross_hashed``.

Each row's cross is the Cartesian product of its values in every input (the last input varying fastest);
strings are joined with ``separator`` ("_X_"), hashed crosses chain TF's FarmHash fingerprints through
``FingerprintCat64`` (strings by Fingerprint64, integers by value) from ``hash_key``.  ``tf.sparse.cross`` puts
its sparse inputs before the dense ones, as TF's kernel does; ``tf.ragged.cross`` keeps the input order.
"""

from __future__ import annotations

import itertools

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.io.sparse import SparseTensor
from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor
from tensorlet._src.ops.registry import tf_export

_M64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_INT64_MAX = (1 << 63) - 1
_DEFAULT_KEY = 0xDECAFCAFFE


def _shift_mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64``: combines two 64-bit fingerprints."""
    r = fp1 ^ _MUL
    r ^= (_shift_mix((fp2 * _MUL) & _M64) * _MUL) & _M64
    r = (r * _MUL) & _M64
    r = (_shift_mix(r) * _MUL) & _M64
    return _shift_mix(r)


def _rows(x):
    """Per-row lists of Python values of a dense 2-D tensor, a 2-D SparseTensor or a RaggedTensor."""
    if isinstance(x, SparseTensor):
        idx = np.asarray(x.indices.numpy())
        vals = np.asarray(x.values.numpy()).tolist()
        n = int(np.asarray(x.dense_shape.numpy())[0])
        rows = [[] for _ in range(n)]
        for (r, *_), v in zip(idx.tolist(), vals):
            rows[r].append(v)
        return rows, x.values.dtype
    if isinstance(x, RaggedTensor):
        return x.to_list(), x.dtype
    x = convert_to_tensor(x)
    if x.shape.rank != 2:
        raise ValueError(f"Expected each input to be rank 2, got {x.shape}")
    return np.asarray(x.numpy()).tolist(), x.dtype


def _as_string(v):
    return v if isinstance(v, bytes) else str(v).encode()


def _crosses(inputs, hashed, num_buckets, hash_key, separator):
    feats = [_rows(x) for x in inputs]
    n = len(feats[0][0])
    if any(len(rows) != n for rows, _ in feats):
        raise ValueError("All inputs must have the same number of rows (batch size)")
    if not hashed:
        for _, d in feats:
            if d not in (D.string, D.int64, D.int32):
                raise TypeError(f"Input values must be string, int32 or int64, got {d.name}")
    sep = separator.encode() if isinstance(separator, str) else separator
    out = []
    if hashed:
        from tensorlet._src.ops.strings_split import _farmhash

        fp = _farmhash().fingerprint64
    for r in range(n):
        row = []
        for combo in itertools.product(*(rows[r] for rows, _ in feats)):
            if hashed:
                h = _DEFAULT_KEY if hash_key is None else int(hash_key)
                for v in combo:
                    h = fingerprint_cat64(h, fp(v) if isinstance(v, bytes) else int(v) & _M64)
                row.append(h % num_buckets if num_buckets > 0 else h % _INT64_MAX)
            else:
                row.append(sep.join(_as_string(v) for v in combo))
        out.append(row)
    return out


def _to_sparse(rows, hashed):
    idx = [[r, j] for r, row in enumerate(rows) for j in range(len(row))]
    vals = [v for row in rows for v in row]
    width = max((len(row) for row in rows), default=0)
    values = np.asarray(vals, np.int64) if hashed else np.asarray(vals, object).reshape(-1)
    return SparseTensor(np.asarray(idx, np.int64).reshape(-1, 2),
                        convert_to_tensor(values, dtype=D.int64 if hashed else D.string),
                        np.asarray([len(rows), width], np.int64))


def _to_ragged(rows, hashed):
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    vals = [v for row in rows for v in row]
    values = np.asarray(vals, np.int64) if hashed else np.asarray(vals, object).reshape(-1)
    return RaggedTensor.from_row_splits(convert_to_tensor(values, dtype=D.int64 if hashed else D.string), splits)


def _sparse_first(inputs):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    for x in inputs:
        if isinstance(x, RaggedTensor):
            raise TypeError("All inputs must be Tensor or SparseTensor.")
    return [x for x in inputs if isinstance(x, SparseTensor)] + [x for x in inputs if not isinstance(x, SparseTensor)]


@tf_export("sparse.cross")
def sparse_cross(inputs, name=None, separator=None):
    """String crosses of the rows of dense / sparse features, as a ``SparseTensor``.

    >>> tf.sparse.cross([tf.constant([["a"], ["b"]]), tf.constant([["x"], ["y"]])]).values.numpy()
    array([b'a_X_x', b'b_X_y'], dtype=object)
    """
    return _to_sparse(_crosses(_sparse_first(inputs), False, 0, None, "_X_" if separator is None else separator),
                      False)


@tf_export("sparse.cross_hashed")
def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses (int64, modulo ``num_buckets`` when positive) of the rows of dense / sparse features.

    >>> tf.sparse.cross_hashed([tf.constant([["a"]]), tf.constant([["b"]])], num_buckets=1000,
    ...                        hash_key=123).values.numpy()
    array([238])
    """
    return _to_sparse(_crosses(_sparse_first(inputs), True, int(num_buckets), hash_key, "_X_"), True)


@tf_export("ragged.cross")
def ragged_cross(inputs, name=None):
    """String crosses of the rows of ragged / sparse / dense features, as a ``RaggedTensor``.

    >>> tf.ragged.cross([tf.ragged.constant([["a", "b"], ["c"]]), tf.constant([["x"], ["y"]])]).to_list()
    [[b'a_X_x', b'b_X_x'], [b'c_X_y']]
    """
    return _to_ragged(_crosses(list(inputs), False, 0, None, "_X_"), False)


@tf_export("ragged.cross_hashed")
def ragged_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses of the rows of ragged / sparse / dense features, as a ``RaggedTensor``.

    >>> tf.ragged.cross_hashed([tf.ragged.constant([["a", "b"], ["c"]]), tf.constant([["x"], ["y"]])],
    ...                        num_buckets=10).to_list()
    [[2, 4], [0]]
    """
    return _to_ragged(_crosses(list(inputs), True, int(num_buckets), hash_key, "_X_"), True)
