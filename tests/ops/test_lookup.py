"""tf.lookup tables against results recorded from real TF (tests/goldens/lookup.json; cases lookup_cases.py)."""

import pytest
import value_cases
from lookup_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("lookup.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_duplicate_keys_and_reserved_keys_raise():
    init = tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.lookup.StaticHashTable(init, -1)
    t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0, deleted_key=-1)
    t.insert(tf.constant([5], tf.int64), tf.constant([50], tf.int64))
    assert t.lookup(tf.constant([5, 6], tf.int64)).numpy().tolist() == [50, -1]
    with pytest.raises(tf.errors.InvalidArgumentError):
        t.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64))


# --- reference cases for the op table ----------------------------------------------------------------
import numpy as np  # noqa: E402
from opcheck import Case, compiled_tests, op_tests  # noqa: E402

_KEYS = [b"a", b"b", b"c"]
_TABLE = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([k.decode() for k in _KEYS], [7, 8, 9]), -1)
_VOCAB = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([0, 1],
                                                                                                    tf.int64)), 3)


def _keys(rng, shapes, dtype):
    pool = _KEYS + [b"x", b"zz"]
    out = []
    for s in shapes:
        a = np.empty(int(np.prod(s)), object)
        a[:] = [pool[i] for i in rng.integers(0, len(pool), a.size)]
        out.append(a.reshape(s))
    return out


_S = dict(gen=_keys, jax=False, grad=False)
CASES = [
    Case(lambda x: _TABLE.lookup(x), np.vectorize(lambda k: {b"a": 7, b"b": 8, b"c": 9}.get(k, -1), otypes=[np.int32]),
         [((5,),), ((2, 3),)], ("object",), ops=("LookupTableFindV2",), **_S),
    Case(lambda x: _VOCAB.lookup(x), lambda a: np.asarray(_VOCAB.lookup(tf.constant(a)).numpy()), [((6,),)],
         ("object",), ops=("LookupTableFindV2", "LookupTableOOVBuckets"), **_S),
]
test_values, test_lowering, test_errors = op_tests(CASES, [])
test_compiled = compiled_tests(CASES)
