"""TextVectorization / StringLookup / IntegerLookup / Hashing / Discretization against Keras 3 on TF
(tests/goldens/keras_preprocessing.json), TF's hash values, and use inside models, tf.data maps and .keras files."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_preprocessing_cases as P  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_preprocessing.json")) as f:
    GOLD = json.load(f)


def check(got, want, name):
    assert got["dtype"] == want["dtype"], f"{name}: dtype {got['dtype']} != Keras's {want['dtype']}"
    assert got["shape"] == want["shape"], f"{name}: shape {got['shape']} != Keras's {want['shape']}"
    if want["dtype"] == "string":
        assert got["values"] == want["values"], name
    else:
        np.testing.assert_allclose(got["values"], want["values"], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(P.CASES))
def test_matches_keras(name):
    want = GOLD[name]
    got = P.run(tf, keras, P.CASES[name])
    check(got["out"], want["out"], name)
    if "vocab" in want:
        assert got["vocab"] == want["vocab"], name
    # our configs carry adapted vocabularies too, so the rebuilt layer always equals the original
    check(got["rebuilt"], want.get("rebuilt", want["out"]), name + " (from get_config)")


# (string, to_hash_bucket_fast(s, 2**62), to_hash_bucket_strong(s, 2**62, [17, 42])) recorded from TF 2.21
_ALPHA = b"abcdefghijklmnopqrstuvwxyz0123456789" * 8
TF_HASHES = [
    (b'', 1936946117179621455, 3627081988506686864),
    (b'a', 3694432073954588131, 3731156112118173500),
    (b'abcd', 1897425971756105985, 4604166643537030904),
    (b'abcdefghi', 3687479239766293058, 4184377179467303444),
    (b'abcdefghijklmnopq', 2171023947900359592, 248624747914090805),
    (b'abcdefghijklmnopqrstuvwxyz0123456', 3791661765545721355, 3588714730459190702),
    (b'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012', 3889391544646074891, 3655112070439525228),
    (_ALPHA[:129], 75942203635086806, 1509510687568676236),
    (_ALPHA[:257], 474181135333679536, 3147388818713560035),
    (b'h\xc3\xa9llo w\xc3\xb6rld', 4390285103997208723, 2490989172513048007),
]


def test_hashing_buckets_equal_tf():
    """Hashing uses TF's Fingerprint64 (and SipHash with a salt): huge bucket counts expose the hash values."""
    strs = [r[0] for r in TF_HASHES]
    fast = keras.layers.Hashing(num_bins=2**62)(tf.constant(strs)).numpy().tolist()
    strong = keras.layers.Hashing(num_bins=2**62, salt=(17, 42))(tf.constant(strs)).numpy().tolist()
    assert fast == [r[1] for r in TF_HASHES]
    assert strong == [r[2] for r in TF_HASHES]


@pytest.mark.slow
def test_text_vectorization_in_model_fit_and_keras_file(tmp_path):
    text = np.array(P.TEXT[:5], dtype=object)
    tv = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=6)
    tv.adapt(text)
    inp = keras.Input(shape=(1,), dtype="string")
    x = tv(inp)
    x = keras.layers.Embedding(20, 4)(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    out = keras.layers.Dense(1)(x)
    model = keras.Model(inp, out)
    model.compile(optimizer="sgd", loss="mse")
    data = tf.constant(text.reshape(-1, 1))
    model.fit(data, np.arange(5.0, dtype="float32"), epochs=1, verbose=0)
    before = model.predict(data, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), before, rtol=1e-5)
    assert loaded.layers[1].get_vocabulary() == tv.get_vocabulary()


def test_lookup_in_tf_data_map_and_tf_function():
    sl = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([["a", "c"], ["q", "b"]])).map(sl)
    assert [v.numpy().tolist() for v in ds] == [[1, 3], [0, 2]]
    tv = keras.layers.TextVectorization(vocabulary=["the", "cat"], output_mode="multi_hot")

    @tf.function
    def f(x):
        return tv(x)

    np.testing.assert_array_equal(f(tf.constant(["the dog", "cat cat"])).numpy(), [[1, 1, 0], [0, 0, 1]])


def test_vocabulary_file_and_errors(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("x\ny\nz\n")
    sl = keras.layers.StringLookup(vocabulary=str(vocab))
    assert sl.get_vocabulary() == ["[UNK]", "x", "y", "z"]
    with pytest.raises(ValueError, match="repeated term"):
        keras.layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="`output_mode` must be `'int'` when `invert` is true"):
        keras.layers.StringLookup(invert=True, output_mode="multi_hot")
    with pytest.raises(tf.errors.InvalidArgumentError, match="out-of-vocabulary"):
        keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)(tf.constant(["b"]))
    with pytest.raises(ValueError, match="num_bins"):
        keras.layers.Hashing(num_bins=0)


def test_whitespace_split_rows_match_per_string_reference():
    # the batch path splits all rows at once; rows with tabs/newlines, empty rows, punctuation-only rows and
    # non-ASCII bytes must give what splitting each string alone gives
    texts = ["a\tb\nc", "", "   ", "!!", "Äb, C. a", "b\x0bc\x0cd\re", "x" * 40, "a a a"]
    vocab = ["a", "b", "c", "d", "äb", "Äb"]
    tv = keras.layers.TextVectorization(vocabulary=vocab)
    got = tv(tf.constant(texts)).numpy()
    index = {t.encode(): i + 2 for i, t in enumerate(vocab)}
    rows = [[index.get(t, 1) for t in s.encode().lower().translate(None, b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
             .split()] for s in texts]
    width = max(len(r) for r in rows)
    np.testing.assert_array_equal(got, [r + [0] * (width - len(r)) for r in rows])
    tv2 = keras.layers.TextVectorization()
    tv2.adapt(texts)
    assert tv2.get_vocabulary()[:4] == ["", "[UNK]", "a", "c"]


def _reference_tokens(row, standardize):
    if standardize in ("lower", "lower_and_strip_punctuation"):
        row = row.lower()
    if standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
        row = row.translate(None, b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    return row.split()


def test_text_kernels_match_per_row_reference():
    """The all-rows kernels (one buffer; tokens under 8 bytes as uint64 keys, counted and looked up with NumPy;
    longer ones as bytes) against bytes.split of each row and a dict: every kind of whitespace, rows holding
    newlines, empty rows, the 7/8-byte boundary, UTF-8, NULs, and a vocabulary large enough for hash collisions."""
    import collections

    from tensorlet._src.keras.layers import preprocessing_text_kernels as K

    rng = np.random.RandomState(7)
    alphabet = list(b"aAbZ.,!'\n\t\x0b\x0c\r\x1c\x00 ") + [0xc3, 0xa9]
    rows = [bytes(rng.choice(alphabet, size=rng.randint(0, 30)).tolist()) for _ in range(300)]
    rows += [b"", b"abcdefg abcdefgh Abcdefghi", b"a\x00 a \x00", b"\n\nx\n", b"   "]
    for std in (None, "lower", "strip_punctuation", "lower_and_strip_punctuation"):
        ref = [_reference_tokens(r, std) for r in rows]
        flat = [t for r in ref for t in r]
        toks, lens = K.split_rows(rows, std)
        assert toks == flat and lens.tolist() == [len(r) for r in ref], std
        for few in (rows[:1], rows[:2], []):  # the single-row and empty cases
            assert K.split_rows(few, std)[1].tolist() == [len(_reference_tokens(r, std)) for r in few]
        raw, joined = K.standardize_join(rows, std)
        counts = collections.Counter()
        K.count_tokens(joined, counts)
        assert counts == collections.Counter(flat), std
        vocab = sorted(set(flat))[::2] + [b"x" * 9, b"q"]
        table = {t: i + 2 for i, t in enumerate(vocab)}
        starts, ends = K.token_spans(joined)
        assert K.KeyTable(table).lookup(joined, starts, ends, 1).tolist() == [table.get(t, 1) for t in flat], std
    # 20k vocabulary entries, half the queries out of vocabulary
    table = {b"w%d" % i: i + 2 for i in range(20000)}
    queries = [b"w%d" % i for i in rng.randint(0, 40000, size=5000)]
    joined = K.standardize_join([b" ".join(queries)], None)[1]
    starts, ends = K.token_spans(joined)
    assert K.KeyTable(table).lookup(joined, starts, ends, 1).tolist() == [table.get(t, 1) for t in queries]


def test_text_vectorization_adapt_and_outputs_match_reference():
    # vocabulary order (count descending, ties by token descending) and every output mode, with tokens on both
    # sides of the 8-byte key limit, against a per-row reference
    import collections

    words = [b"a", b"bb", b"seven77", b"eight888", b"nineteen-letters-xy", b"caf\xc3\xa9"]
    rng = np.random.RandomState(3)
    text = [b" ".join(rng.choice(words, size=rng.randint(0, 12)).tolist()) for _ in range(200)]
    ref = [_reference_tokens(r, "lower_and_strip_punctuation") for r in text]
    counts = collections.Counter(t for r in ref for t in r)
    order = [t for t, _ in sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)][:4]
    index = {t: i + 2 for i, t in enumerate(order)}
    ids = [[index.get(t, 1) for t in r] for r in ref]
    tv = keras.layers.TextVectorization(max_tokens=6, output_sequence_length=5)
    tv.adapt(np.array(text, dtype=object))
    assert tv.get_vocabulary() == ["", "[UNK]"] + [t.decode() for t in order]
    np.testing.assert_array_equal(tv(tf.constant(text)).numpy(), [(r + [0] * 5)[:5] for r in ids])
    depth = 6
    hot = np.zeros((len(text), depth), np.int64)
    for i, r in enumerate(ids):
        for j in r:
            hot[i, j - 1] += 1  # multi_hot/count have no mask index: OOV is 0
    for mode, want in (("count", hot), ("multi_hot", np.minimum(hot, 1))):
        tv = keras.layers.TextVectorization(max_tokens=5, output_mode=mode)
        tv.adapt(text)
        got = tv(tf.constant(text))
        assert got.dtype == tf.int64
        np.testing.assert_array_equal(got.numpy(), want[:, :5])
