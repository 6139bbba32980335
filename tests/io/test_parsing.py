"""tf.train.Example protos and tf.io.parse_* on TF's records, against TF's parse results
(tests/goldens/tfrecord/expected.json); TF's error messages (observed with TF 2.21)."""

import numpy as np
import pytest
from _goldens import TFRECORD, assert_value, b64, load

import tensorlet as tf
from tensorlet._src.io.tfrecord import iter_records

G = load("tfrecord/expected.json")
EXS = [b64(r) for r in G["files"]["examples.tfrecord"]["records"]]
SEQS = [b64(r) for r in G["files"]["sequence.tfrecord"]["records"]]
F, V, S = tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.FixedLenSequenceFeature
SPEC = {"label": F([], tf.int64), "vec": F([3], tf.float32), "tags": V(tf.string), "name": F([1], tf.string),
        "opt": F([], tf.float32, default_value=-1.0), "opt_var": V(tf.float32)}


def _check(got, expected, where):
    assert sorted(got) == sorted(expected), f"{where}: keys {list(got)}, expected {list(expected)}"
    for k in expected:
        assert_value(got[k], expected[k], f"{where}[{k}]")


def test_protos_read_tf_bytes_and_round_trip():
    ex = tf.train.Example.FromString(EXS[1])
    assert list(ex.features.feature["vec"].float_list.value) == [0.5, -1.0, pytest.approx(1e-3)]
    assert ex.features.feature["tags"].bytes_list.value == [b"t0"]
    assert tf.train.Example.FromString(ex.SerializeToString()) == ex
    made = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))}))
    assert 'key: "x"' in str(made) and "int64_list" in repr(made)
    assert made.features.feature["x"].WhichOneof("kind") == "int64_list"
    seq = tf.train.SequenceExample.FromString(SEQS[2])
    assert len(seq.feature_lists.feature_list["frames"].feature) == 3
    assert tf.train.Example.DESCRIPTOR.full_name == "tensorflow.Example"


def test_records_from_the_file_parse():
    recs = list(iter_records(TFRECORD / "examples_gzip.tfrecord", "GZIP"))
    assert recs == EXS


@pytest.mark.parametrize("i", range(len(EXS)))
def test_parse_single_example(i):
    spec = dict(SPEC, vec_seq=S([], tf.float32, allow_missing=True))
    _check(tf.io.parse_single_example(EXS[i], spec), G["parsed"]["single"][i], f"example {i}")


def test_parse_example_batch():
    _check(tf.io.parse_example(EXS, dict(SPEC, vec_seq=S([], tf.float32, allow_missing=True))),
           G["parsed"]["batch"], "batch")
    _check(tf.io.parse_example(EXS, {"vec": S([3], tf.float32, allow_missing=True, default_value=9.0)}),
           G["parsed"]["batch_seq3"], "batch_seq3")


def test_parse_sequence_examples():
    ctx_spec = {"id": F([], tf.int64)}
    seq_spec = {"frames": S([2], tf.float32), "tokens": V(tf.string)}
    for i, s in enumerate(SEQS):
        c, f = tf.io.parse_single_sequence_example(s, ctx_spec, seq_spec)
        _check(c, G["parsed"]["sequence_single"][i]["context"], f"seq {i} context")
        _check(f, G["parsed"]["sequence_single"][i]["lists"], f"seq {i} lists")
    c, f, n = tf.io.parse_sequence_example(SEQS, ctx_spec, seq_spec)
    exp = G["parsed"]["sequence_batch"]
    _check(c, exp["context"], "context")
    _check(f, exp["lists"], "lists")
    _check(n, exp["lengths"], "lengths")


def _ex(**feats):
    kinds = {float: "float_list", int: "int64_list", bytes: "bytes_list"}
    e = tf.train.Example()
    for k, vals in feats.items():
        getattr(e.features.feature[k], kinds[type(vals[0])]).value.extend(vals)
    return e.SerializeToString()


S2 = _ex(f=[1.5, 2.5], i=[3], b=[b"x", b"yz"])


@pytest.mark.parametrize("call,cls,message", [
    (lambda: tf.io.parse_single_example(S2, {"zz": F([], tf.int64)}), tf.errors.InvalidArgumentError,
     "Feature: zz (data type: int64) is required but could not be found."),
    (lambda: tf.io.parse_example([S2, S2], {"zz": F([], tf.int64)}), tf.errors.InvalidArgumentError,
     "Name: <unknown>, Feature: zz (data type: int64) is required but could not be found."),
    (lambda: tf.io.parse_single_example(S2, {"f": F([3], tf.float32)}), tf.errors.InvalidArgumentError,
     "Key: f.  Can't parse serialized Example: Some float_list slice was not parsed."),
    (lambda: tf.io.parse_example([S2], {"f": F([3], tf.float32)}), tf.errors.InvalidArgumentError,
     "Name: <unknown>, Key: f, Index: 0.  Number of float values != expected.  Values size: 2 but output shape: [3]"),
    (lambda: tf.io.parse_single_example(S2, {"f": F([], tf.int64)}), tf.errors.InvalidArgumentError,
     "Key: f.  Data types don't match. Data type: float but expected type: int64"),
    (lambda: tf.io.parse_example([S2], {"f": V(tf.int64)}), tf.errors.InvalidArgumentError,
     "Name: <unknown>, Key: f, Index: 0.  Data types don't match. Expected type: int64, Actual type: float"),
    (lambda: tf.io.parse_single_example(b"garbage", {"f": F([2], tf.float32)}), tf.errors.InvalidArgumentError,
     "Could not parse example input, value: 'garbage'"),
    (lambda: tf.io.parse_example([S2], {"f": S([3], tf.float32, allow_missing=True)}), tf.errors.InvalidArgumentError,
     "Name: <unknown>, Key: f, Index: 0.  Number of float values is not a multiple of stride length. Saw 2 values "
     "but output shape is: [?,3]"),
    (lambda: tf.io.parse_single_example(S2, {"f": S([3], tf.float32, allow_missing=True)}),
     tf.errors.InvalidArgumentError, "Error while parsing feature with key f: number of elements should be divisible "
                                     "by 3, found 2 instead"),
    (lambda: tf.io.parse_single_example(S2, {"f": F([2], tf.float32, default_value=5.0)}),
     tf.errors.InvalidArgumentError, "Input to reshape is a tensor with 1 values, but the requested shape has 2"),
    (lambda: tf.io.parse_single_example(S2, {"f": F([2], tf.float64)}), tf.errors.InvalidArgumentError,
     "Value for attr 'Tdense' of double is not in the list of allowed values: float, int64, string"),
    (lambda: tf.io.parse_single_example(S2, {"f": F(None, tf.float32)}), ValueError,
     "Missing shape for feature f. Received feature=FixedLenFeature(shape=None, dtype=tf.float32, "
     "default_value=None)."),
    (lambda: tf.io.parse_single_example([S2], {"f": F([2], tf.float32)}), ValueError,
     "Input serialized must be a scalar"),
    (lambda: tf.io.parse_example([S2], {"f": S([], tf.float32)}), ValueError,
     "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."),
    (lambda: tf.io.parse_example([S2], {}), ValueError, "Argument `features` cannot be None or falsy. Got {}"),
    (lambda: tf.io.parse_example([[S2]], {"f": F([2], tf.float32)}), tf.errors.InvalidArgumentError,
     "Expected serialized to be a scalar or vector, got shape: [1,1]"),
])
def test_errors_like_tf(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value).startswith(message)


def test_result_order_like_tf():
    """TF's dict lists the sparse results first, then the dense ones, each by key."""
    out = tf.io.parse_single_example(S2, {"f": F([2], tf.float32), "i": F([], tf.int64), "b": V(tf.string),
                                          "m": F([], tf.int64, default_value=-1), "mv": V(tf.float32)})
    assert list(out) == ["b", "mv", "f", "i", "m"]


def test_feature_reprs_and_names():
    assert repr(F([2], tf.float32)) == "FixedLenFeature(shape=[2], dtype=tf.float32, default_value=None)"
    assert repr(V(tf.string)) == "VarLenFeature(dtype=tf.string)"
    assert repr(S([], tf.float32, allow_missing=True)) == \
        "FixedLenSequenceFeature(shape=[], dtype=tf.float32, allow_missing=True, default_value=None)"
    out = tf.io.parse_example([S2, _ex(i=[1])], {"b": V(tf.string), "f": F([2], tf.float32, default_value=[0., 0.])},
                              example_names=["a", "b"])
    np.testing.assert_array_equal(out["f"].numpy(), [[1.5, 2.5], [0, 0]])
    assert out["b"].dense_shape.numpy().tolist() == [2, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Name: a, Feature: zz"):
        tf.io.parse_example([S2, _ex(i=[1])], {"zz": F([], tf.int64)}, example_names=["a", "b"])


def test_sparse_feature():
    st = tf.io.parse_single_example(_ex(ix=[5, 1], v=[0.5, 0.25]),
                                    {"sp": tf.io.SparseFeature("ix", "v", tf.float32, 8)})["sp"]
    assert st.indices.numpy().tolist() == [[1], [5]] and st.values.numpy().tolist() == [0.25, 0.5]
    assert st.dense_shape.numpy().tolist() == [8]


def test_parsing_in_a_graph_function():
    spec = {"f": F([2], tf.float32), "b": V(tf.string)}

    @tf.function
    def f(r):
        d = tf.io.parse_example(r, spec)
        return d["f"] * 2.0, tf.sparse.to_dense(d["b"]), d["b"].dense_shape

    dense, strings, shape = f(tf.constant([S2, S2, S2]))
    np.testing.assert_array_equal(dense.numpy(), [[3.0, 5.0]] * 3)
    assert strings.numpy().tolist() == [[b"x", b"yz"]] * 3 and shape.numpy().tolist() == [3, 2]


def test_tfrecord_dataset_pipeline():
    """The everyday pipeline: TF's GZIP file -> TFRecordDataset -> map(parse_single_example) -> batch."""
    spec = {"label": F([], tf.int64), "vec": F([3], tf.float32)}
    ds = tf.data.TFRecordDataset(str(TFRECORD / "examples_gzip.tfrecord"), compression_type="GZIP")
    ds = ds.map(lambda r: tf.io.parse_single_example(r, spec)).batch(6)
    (batch,) = list(ds)
    exp = G["parsed"]["batch"]
    assert_value(batch["label"], exp["label"], "label")
    assert_value(batch["vec"], exp["vec"], "vec")
