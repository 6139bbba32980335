"""String ops that split, decode and hash (they return RaggedTensors), and truncatediv/truncatemod.

Values, dtypes, shapes, printed forms and error classes against real TF (tests/goldens/strings_split.json,
recorded by tools/record_tf_goldens/strings_split.py over strings_split_cases.py); reference cases against
Python for the op table.
"""

import numpy as np
import pytest
import value_cases
from opcheck import Case, compiled_tests, op_tests
from strings_split_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("strings_split.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_table_is_recorded():
    assert set(GOLDEN_CASES) == set(GOLDEN), "re-run tools/record_tf_goldens/strings_split.py"


WORDS = [b"hello world", b"", b"  a b", "hé ß".encode()]


def _words(rng, shapes, dtype):
    out = []
    for s in shapes:
        a = np.empty(int(np.prod(s)), object)
        a[:] = [WORDS[i] for i in rng.integers(0, len(WORDS), a.size)]
        out.append(a.reshape(s))
    return out


def _flat(fn):
    return lambda a: np.asarray([p for s in a.reshape(-1).tolist() for p in fn(s)], dtype=object)


def _trunc_div(x, y):
    return (np.trunc(x / y) if x.dtype.kind == "f" else np.fix(x / y)).astype(x.dtype)


def _nonzero(rng, shapes, dtype):
    from opcheck import make

    x = make(rng, shapes[0], dtype, (-9, 9))
    y = make(rng, shapes[1], dtype, (1, 5)) * np.where(rng.random(shapes[1]) < 0.5, 1, -1).astype(dtype)
    return [x, y.astype(dtype)]


S = dict(gen=_words, jax=False, grad=False, check_dtype=False)
CASES = [
    Case(lambda x: tf.strings.split(x).flat_values, _flat(bytes.split), [((4,),)], ("object",),
         ops=("StringSplitV2",), **S),
    Case(lambda x: tf.strings.bytes_split(x).flat_values, _flat(lambda s: [s[i:i + 1] for i in range(len(s))]),
         [((4,),)], ("object",), ops=("StringBytesSplit",), **S),
    Case(lambda x: tf.strings.unicode_decode(x, "UTF-8").flat_values,
         lambda a: np.asarray([ord(c) for s in a.tolist() for c in s.decode()], np.int32), [((4,),)], ("object",),
         ops=("UnicodeDecodeWithOffsets",), **S),
    Case(lambda x: tf.strings.unicode_encode(tf.strings.unicode_decode(x, "UTF-8"), "UTF-8"), lambda a: a,
         [((4,),)], ("object",), ops=("UnicodeDecodeWithOffsets", "UnicodeEncode"), **S),
    Case(lambda x: tf.strings.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
         lambda a: np.asarray([s.decode().encode("utf-16-be") for s in a.tolist()], object), [((4,),)],
         ("object",), ops=("UnicodeTranscode",), **S),
    Case(lambda x: tf.strings.ngrams(x, 2), lambda a: np.asarray([b" ".join(a[i:i + 2]) for i in range(len(a) - 1)],
                                                                 object), [((5,),)], ("object",),
         ops=("StringNGrams",), **S),
    Case(lambda x: tf.strings.to_hash_bucket_fast(x, 10), None, [((4,),)], ("object",),
         ops=("StringToHashBucketFast",), **S),
    Case(lambda x: tf.strings.to_hash_bucket_strong(x, 10, [3, 4]), None, [((4,),)], ("object",),
         ops=("StringToHashBucketStrong",), **S),
    Case(lambda x: tf.fingerprint(x), None, [((4,),)], ("object",), ops=("Fingerprint",), **S),
    Case(tf.truncatediv, _trunc_div, [((4, 1), (3,))], ("int32", "float32"),
         ops=("TruncateDiv",), gen=_nonzero, grad=False),
    Case(tf.truncatemod, np.fmod, [((4, 1), (3,))], ("int64", "float64"),
         ops=("TruncateMod",), gen=_nonzero, grad=False),
]
# the hash cases have no NumPy reference: their values are checked against TF above; here they check the op runs
CASES = [c if c.ref is not None else Case(c.fn, lambda a, f=c.fn: np.asarray(f(tf.constant(a)).numpy()),
                                          c.shapes, c.dtypes, ops=c.ops, **S) for c in CASES]

test_values, test_lowering, test_errors = op_tests(CASES, [])
test_compiled = compiled_tests(CASES)


def test_hash_gradients_follow_tf():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        y = tf.reduce_sum(tf.truncatediv(x, 3.0))
        z = tf.reduce_sum(tf.truncatemod(x, 3.0))
    assert t.gradient(y, x) is None  # TF registers TruncateDiv's gradient as None
    with pytest.raises(LookupError):
        t.gradient(z, x)  # and none at all for TruncateMod


def test_split_traces_in_tf_function():
    @tf.function
    def f(x):
        return tf.strings.split(x).flat_values

    assert f(tf.constant(["a b", "c"])).numpy().tolist() == [b"a", b"b", b"c"]
