"""Sparse (``sparse=True``) and ragged (``TextVectorization(ragged=True)``) outputs of the preprocessing layers, run
on Keras 3 by tools/record_tf_goldens/keras_sparse_ragged.py (into tests/goldens/keras_sparse_ragged.json) and on
tensorlet by tests/keras/test_sparse_ragged_outputs.py.  ``run(keras, tf)``: ``tf`` supplies ``tf.data``."""

import numpy as np


def _sparse(s):
    return {"type": type(s).__name__, "indices": np.asarray(s.indices).tolist(),
            "values": np.asarray(s.values).astype("float64").tolist(),
            "dense_shape": np.asarray(s.dense_shape).tolist(),
            "dtype": str(s.values.dtype.name)}


def _ragged(r):
    return {"type": type(r).__name__, "list": r.to_list(), "dtype": str(r.dtype.name),
            "row_lengths": np.asarray(r.row_lengths()).tolist()}


def _error(fn):
    try:
        fn()
    except Exception as e:  # the error class and the start of its message are the recorded outcome
        return [type(e).__name__, str(e)[:70]]
    return "no error"


def run(keras, tf):
    L = keras.layers
    data = {}
    ints = np.array([[0, 1], [2, 2]])
    for mode in ("multi_hot", "count", "one_hot"):
        x = ints if mode != "one_hot" else np.array([0, 3, 1])
        data[f"category_{mode}"] = _sparse(L.CategoryEncoding(num_tokens=4, output_mode=mode, sparse=True)(x))
    data["category_count_weights"] = _sparse(L.CategoryEncoding(num_tokens=4, output_mode="count", sparse=True)(
        ints, count_weights=np.array([[0.5, 2.0], [1.0, 3.0]], "float32")))
    strs = np.array([["a", "b"], ["b", "z"]])
    for mode in ("multi_hot", "count", "one_hot"):
        x = strs if mode != "one_hot" else np.array(["a", "z", "b"])
        data[f"string_{mode}"] = _sparse(L.StringLookup(vocabulary=["a", "b"], output_mode=mode, sparse=True)(x))
    data["string_tf_idf"] = _sparse(L.StringLookup(vocabulary=["a", "b"], idf_weights=[0.5, 0.25],
                                                   output_mode="tf_idf", sparse=True)(np.array(["a", "b", "b", "z"])))
    data["integer_one_hot"] = _sparse(L.IntegerLookup(vocabulary=[1, 2], output_mode="one_hot",
                                                      sparse=True)(np.array([1, 5, 2])))
    data["hashing_multi_hot"] = _sparse(L.Hashing(num_bins=4, output_mode="multi_hot", sparse=True)(
        np.array([["a", "b"], ["c", "a"]])))
    data["discretization_one_hot"] = _sparse(L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot",
                                                              sparse=True)(np.array([-1.0, 0.5, 2.0])))
    data["crossing_one_hot"] = _sparse(L.HashedCrossing(num_bins=5, output_mode="one_hot", sparse=True)(
        (np.array(["A", "B", "A"]), np.array([1, 2, 3]))))
    tv = L.TextVectorization(output_mode="multi_hot", sparse=True)
    tv.adapt(["a b c", "a b", "d"])
    data["text_multi_hot"] = _sparse(tv(np.array(["a b", "c z"])))
    tvr = L.TextVectorization(ragged=True)
    tvr.adapt(["a b c", "a b", "d"])
    data["text_ragged_vocab"] = tvr.get_vocabulary()
    data["text_ragged"] = _ragged(tvr(np.array(["a b c", "d", "", "zz a"])))
    tvn = L.TextVectorization(ragged=True, ngrams=2, vocabulary=["a", "b", "a b"])
    data["text_ragged_ngrams"] = _ragged(tvn(np.array(["a b", "b a b", "a"])))
    data["text_ragged_config"] = tvr.get_config()["ragged"]
    data["err_lookup_int"] = _error(lambda: L.StringLookup(output_mode="int", sparse=True))
    data["err_ragged_mode"] = _error(lambda: L.TextVectorization(output_mode="count", ragged=True))
    return data


def run_ragged_map(keras, tf):
    """A ragged TextVectorization inside ``tf.data`` (ragged dataset elements)."""
    tvr = keras.layers.TextVectorization(ragged=True)
    tvr.adapt(["a b c", "a b", "d"])
    ds = tf.data.Dataset.from_tensor_slices(np.array(["a b c", "d", "b"])).batch(2).map(tvr)
    return [_ragged(b) for b in ds]
