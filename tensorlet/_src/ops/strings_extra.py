"""``tf.strings.to_hash_bucket`` (TF's legacy 64-bit Murmur-style ``Hash64``) and
``tf.strings.unsorted_segment_join``; NumPy kernels (XLA has no strings)."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

_M64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995


def hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's ``Hash64`` (tensorflow/core/lib/hash/hash.cc): MurmurHash64A with TF's default seed."""
    n = len(data)
    h = seed ^ ((n * _MUL) & _M64)
    i = 0
    while n - i >= 8:
        k = int.from_bytes(data[i:i + 8], "little")
        i += 8
        k = (k * _MUL) & _M64
        k ^= k >> 47
        k = (k * _MUL) & _M64
        h ^= k
        h = (h * _MUL) & _M64
    rem = n - i
    if rem:
        for j in range(rem - 1, -1, -1):
            h ^= data[i + j] << (8 * j)
        h = (h * _MUL) & _M64
    h ^= h >> 47
    h = (h * _MUL) & _M64
    return h ^ (h >> 47)


def _bucket_kernel(xp, x, num_buckets):
    out = np.empty(x.shape, np.int64)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1).tolist()):
        flat[i] = hash64(s if isinstance(s, bytes) else str(s).encode()) % num_buckets
    return out


HASH_BUCKET = defop("StringToHashBucket", _bucket_kernel, dtypes=(D.string,), grad=NONDIFF, no_lowering=True,
                    no_lowering_reason="strings run on the host", shape=lambda x, num_buckets: Spec(x.shape, D.int64))


@tf_export("strings.to_hash_bucket")
def to_hash_bucket(string_tensor, num_buckets, name=None):
    """Hashes strings into ``num_buckets`` buckets with TF's legacy ``Hash64`` (stable across runs; prefer
    ``to_hash_bucket_fast``).

    >>> tf.strings.to_hash_bucket(["hello"], 1000000007).numpy()
    array([302950538])
    """
    x = t(string_tensor, dtype=D.string)
    n = int(num_buckets)
    if n < 1:
        raise errors.invalid_argument("StringToHashBucket", f"num_buckets must be >= 1, got {n}")
    return bind(HASH_BUCKET, x, num_buckets=n)


def _join_kernel(xp, inputs, segment_ids, num_segments, separator=""):
    n = int(num_segments)
    ids = np.asarray(segment_ids).astype(np.int64)
    lead = ids.ndim
    out_shape = (n,) + inputs.shape[lead:]
    parts = [[[] for _ in range(int(np.prod(inputs.shape[lead:], dtype=np.int64)))] for _ in range(n)]
    flat_in = inputs.reshape((-1, int(np.prod(inputs.shape[lead:], dtype=np.int64))))
    for row, sid in zip(flat_in, ids.reshape(-1).tolist()):
        if sid < 0:
            continue
        if sid >= n:
            raise errors.invalid_argument("UnsortedSegmentJoin", f"segment_ids[{sid}] > num_segments")
        for j, s in enumerate(row.tolist()):
            parts[sid][j].append(s)
    sep = separator.encode() if isinstance(separator, str) else separator
    out = np.empty(out_shape, object)
    flat_out = out.reshape((n, -1))
    for i in range(n):
        for j in range(flat_out.shape[1]):
            flat_out[i, j] = sep.join(parts[i][j])
    return out


def _join_check(inputs, segment_ids, num_segments, separator=""):
    if tuple(inputs.shape[:segment_ids.shape.rank]) != tuple(segment_ids.shape):
        raise errors.invalid_argument("UnsortedSegmentJoin", "segment_ids should be the same shape as the prefix "
                                                             f"of inputs, got {segment_ids.shape} and {inputs.shape}")


UNSORTED_SEGMENT_JOIN = defop("UnsortedSegmentJoin", _join_kernel, dtypes=(D.string,), grad=NONDIFF,
                              check=_join_check, no_lowering=True, no_lowering_reason="strings run on the host",
                              shape=lambda x, ids, n, separator="": Spec(None, D.string))


@tf_export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of each segment (in input order) with ``separator``; empty segments give ``b""``.

    >>> tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 2, separator="-").numpy()
    array([b'b', b'a-c'], dtype=object)
    """
    x = t(inputs, dtype=D.string)
    ids = t(segment_ids)
    if ids.dtype not in (D.int32, D.int64):
        raise TypeError(f"segment_ids must be int32 or int64, got {ids.dtype.name}")
    return bind(UNSORTED_SEGMENT_JOIN, x, ids, t(num_segments), separator=separator)
