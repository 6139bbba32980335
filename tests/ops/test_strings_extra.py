"""Reference cases for the op table: tf.strings.to_hash_bucket (TF's Hash64 re-stated in Python),
unsorted_segment_join and tf.math.sobol_sample (scipy's unscrambled Sobol); TF's own values are in
tests/io/test_features.py."""

import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

M = (1 << 64) - 1


def _hash64(data, seed=0xDECAFCAFFE):
    # MurmurHash64A as in tensorflow/core/lib/hash/hash.cc, written independently of the kernel
    m, h = 0xC6A4A7935BD1E995, seed ^ ((len(data) * 0xC6A4A7935BD1E995) & M)
    body, tail = data[:len(data) // 8 * 8], data[len(data) // 8 * 8:]
    for i in range(0, len(body), 8):
        k = (int.from_bytes(body[i:i + 8], "little") * m) & M
        k = ((k ^ (k >> 47)) * m) & M
        h = ((h ^ k) * m) & M
    if tail:
        h = ((h ^ int.from_bytes(tail, "little")) * m) & M
    h = ((h ^ (h >> 47)) * m) & M
    return h ^ (h >> 47)


def _bucket_ref(x):
    return np.vectorize(lambda s: _hash64(s) % 97, otypes=[np.int64])(x)


def _join_ref(x):
    ids = [1, 0, 1]
    return np.array([b",".join(x[i] for i in range(3) if ids[i] == s) for s in range(2)], object)


def _sobol_ref(x):
    from scipy.stats import qmc

    eng = qmc.Sobol(3, scramble=False)
    return x + eng.random(8)[1:5].astype(np.float32)


NOJAX = dict(jax=False,  # strings and host-side sequences: no XLA lowering, as in TF
             grad=False)  # integer / string outputs
CASES = [
    Case(lambda x: tf.strings.to_hash_bucket(x, 97), _bucket_ref, [((5,),), ((2, 3),)], ("object",),
         ops=("StringToHashBucket",), check_dtype=False, **NOJAX),
    Case(lambda x: tf.strings.unsorted_segment_join(x, [1, 0, 1], 2, separator=","), _join_ref, [((3,),)],
         ("object",), ops=("UnsortedSegmentJoin",), check_dtype=False, **NOJAX),
    Case(lambda x: x + tf.math.sobol_sample(3, 4), _sobol_ref, [((4, 3),)], ("float32",), ops=("SobolSample",),
         **NOJAX),
]

ERRORS = [
    Err(lambda: tf.strings.to_hash_bucket(["a"], 0), tf.errors.InvalidArgumentError, "num_buckets"),
    Err(lambda: tf.math.sobol_sample(0, 3), tf.errors.InvalidArgumentError, "dim must be at least one"),
    Err(lambda: tf.strings.unsorted_segment_join(["a", "b"], [0], 1), tf.errors.InvalidArgumentError,
        "segment_ids should be the same shape"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)
