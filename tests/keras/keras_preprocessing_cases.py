"""Preprocessing-layer cases shared by tests/keras/test_preprocessing_text.py and the recorder
tools/record_tf_goldens/keras_preprocessing.py (real Keras 3 on TF -> tests/goldens/keras_preprocessing.json).

A case: layer class, constructor kwargs, optional ``adapt`` data, the call input (a nested list; strings become
string tensors).  The recorder stores the output (dtype, shape, values), ``get_vocabulary()`` when the layer has one,
and the output of the layer rebuilt from its ``get_config()`` (checks that configs carry the vocabulary).
"""

import numpy as np

TEXT = ["The cat sat on the mat.", "The dog ate my homework!", "cat and dog", "A b c d, e f: g",
        "the THE The", ""]
WORDS = [["a", "b"], ["c", "a"], ["z", "b"]]
IMG = (np.arange(2 * 4 * 5 * 3) * 37 % 256).reshape(2, 4, 5, 3).astype("float32").tolist()
IMG01 = (np.arange(2 * 4 * 5 * 3) * 37 % 256 / 255.0).reshape(2, 4, 5, 3).astype("float32").tolist()


def C(cls, kwargs=None, inputs=None, adapt=None, dtype=None):
    return dict(cls=cls, kwargs=kwargs or {}, inputs=inputs, adapt=adapt, dtype=dtype)


CASES = {
    "tv_int_adapt": C("TextVectorization", {}, TEXT, adapt=TEXT),
    "tv_int_len": C("TextVectorization", {"output_sequence_length": 4}, TEXT, adapt=TEXT),
    "tv_max_tokens": C("TextVectorization", {"max_tokens": 6, "output_sequence_length": 6}, TEXT, adapt=TEXT),
    "tv_vocab": C("TextVectorization", {"vocabulary": ["the", "cat", "dog"]}, TEXT),
    "tv_lower": C("TextVectorization", {"standardize": "lower", "output_sequence_length": 5}, TEXT, adapt=TEXT),
    "tv_nostd": C("TextVectorization", {"standardize": None, "output_sequence_length": 5}, TEXT, adapt=TEXT),
    "tv_strip": C("TextVectorization", {"standardize": "strip_punctuation", "output_sequence_length": 5}, TEXT,
                  adapt=TEXT),
    "tv_char": C("TextVectorization", {"split": "character", "output_sequence_length": 8}, TEXT[:3],
                 adapt=TEXT),
    "tv_ngrams2": C("TextVectorization", {"ngrams": 2, "output_sequence_length": 10}, TEXT[:3], adapt=TEXT),
    "tv_ngrams_tuple": C("TextVectorization", {"ngrams": (2, 3), "output_sequence_length": 6}, TEXT[:3],
                         adapt=TEXT),
    "tv_multi_hot": C("TextVectorization", {"output_mode": "multi_hot"}, TEXT, adapt=TEXT),
    "tv_count": C("TextVectorization", {"output_mode": "count", "max_tokens": 8}, TEXT, adapt=TEXT),
    "tv_count_pad": C("TextVectorization", {"output_mode": "count", "max_tokens": 30, "pad_to_max_tokens": True},
                      TEXT[:2], adapt=TEXT),
    "tv_tf_idf": C("TextVectorization", {"output_mode": "tf_idf"}, TEXT, adapt=TEXT),
    "tv_tf_idf_vocab": C("TextVectorization", {"output_mode": "tf_idf", "vocabulary": ["the", "cat"],
                                               "idf_weights": [0.5, 1.5]}, TEXT),
    "tv_column": C("TextVectorization", {"output_sequence_length": 3}, [[t] for t in TEXT[:3]], adapt=TEXT),
    "sl_vocab": C("StringLookup", {"vocabulary": ["a", "b", "c"]}, WORDS),
    "sl_adapt": C("StringLookup", {}, WORDS, adapt=[["a", "b", "a"], ["c", "c", "a"], ["d", "b", "d"]]),
    "sl_mask": C("StringLookup", {"vocabulary": ["a", "b", "c"], "mask_token": ""}, [["a", ""], ["", "q"]]),
    "sl_oov2": C("StringLookup", {"vocabulary": ["a", "b"], "num_oov_indices": 2}, [["a", "x", "y", "zz"]]),
    "sl_oov0": C("StringLookup", {"vocabulary": ["a", "b"], "num_oov_indices": 0}, [["b", "a"]]),
    "sl_one_hot": C("StringLookup", {"vocabulary": ["a", "b", "c"], "output_mode": "one_hot"}, ["a", "c", "q"]),
    "sl_multi_hot": C("StringLookup", {"vocabulary": ["a", "b", "c"], "output_mode": "multi_hot"}, WORDS),
    "sl_count": C("StringLookup", {"vocabulary": ["a", "b", "c"], "output_mode": "count"}, [["a", "a", "q"]]),
    "sl_tf_idf": C("StringLookup", {"output_mode": "tf_idf"}, WORDS, adapt=[["a", "b", "a"], ["c", "a", "a"],
                                                                             ["d", "b", "d"]]),
    "sl_invert": C("StringLookup", {"vocabulary": ["a", "b", "c"], "invert": True}, [[1, 3], [0, 2]]),
    "sl_max_tokens": C("StringLookup", {"max_tokens": 3}, WORDS, adapt=[["a", "b", "a"], ["c", "c", "a"]]),
    "sl_pad": C("StringLookup", {"vocabulary": ["a", "b"], "output_mode": "multi_hot", "max_tokens": 5,
                                 "pad_to_max_tokens": True}, WORDS),
    "il_vocab": C("IntegerLookup", {"vocabulary": [12, 36, 1138, 42]}, [[12, 1138, 42], [42, 1000, 36]]),
    "il_adapt": C("IntegerLookup", {}, [[3, 1], [9, 2]], adapt=[[1, 2, 2, 3], [3, 3, 1, 7]]),
    "il_mask": C("IntegerLookup", {"vocabulary": [5, 6], "mask_token": 0}, [[5, 0, 6, 7]]),
    "il_oov2": C("IntegerLookup", {"vocabulary": [5, 6], "num_oov_indices": 2}, [[5, 9, 10, 6]]),
    "il_multi_hot": C("IntegerLookup", {"vocabulary": [5, 6, 7], "output_mode": "multi_hot"}, [[5, 7], [6, 9]]),
    "il_invert": C("IntegerLookup", {"vocabulary": [5, 6, 7], "invert": True}, [[1, 2, 0]]),
    "hash": C("Hashing", {"num_bins": 5}, [["A"], ["B"], ["C"], ["D"], ["E"], ["hello world"]]),
    "hash_big": C("Hashing", {"num_bins": 1000003}, ["x" * n for n in (0, 3, 9, 17, 40, 70, 140)]),
    "hash_mask": C("Hashing", {"num_bins": 5, "mask_value": ""}, [["A", ""], ["", "B"]]),
    "hash_salt": C("Hashing", {"num_bins": 7, "salt": 133}, [["A"], ["B"], ["C"]]),
    "hash_salt_pair": C("Hashing", {"num_bins": 7, "salt": (1, 2)}, [["A"], ["B"], ["C"]]),
    "hash_int": C("Hashing", {"num_bins": 11}, [[1, 2], [300, -5]], dtype="int64"),
    "hash_one_hot": C("Hashing", {"num_bins": 4, "output_mode": "one_hot"}, ["a", "b", "c"]),
    "hash_multi_hot": C("Hashing", {"num_bins": 4, "output_mode": "multi_hot"}, [["a", "b"], ["c", "c"]]),
    "hash_count": C("Hashing", {"num_bins": 4, "output_mode": "count"}, [["a", "a", "b"]]),
    "disc": C("Discretization", {"bin_boundaries": [0.0, 1.0, 2.0]}, [[-1.5, 1.0, 0.5], [2.0, 3.0, 0.0]],
              dtype="float32"),
    "disc_one_hot": C("Discretization", {"bin_boundaries": [0.0, 1.0], "output_mode": "one_hot"},
                      [-1.0, 0.5, 2.0], dtype="float32"),
    "disc_count": C("Discretization", {"bin_boundaries": [0.0, 1.0], "output_mode": "count"},
                    [[-1.0, 0.5, 2.0, 0.7]], dtype="float32"),
    "disc_adapt": C("Discretization", {"num_bins": 4}, [[0.5, 2.5, 7.0]], adapt=np.arange(16.0).reshape(4, 4),
                    dtype="float32"),
    "random_contrast": C("RandomContrast", {"factor": 0.5, "seed": 3}, IMG, dtype="float32"),
    "random_contrast_pair": C("RandomContrast", {"factor": (0.2, 0.8), "seed": 5, "value_range": (0, 1)}, IMG01,
                              dtype="float32"),
    "random_brightness": C("RandomBrightness", {"factor": 0.3, "seed": 3}, IMG, dtype="float32"),
    "random_brightness_pair": C("RandomBrightness", {"factor": (-0.1, 0.4), "seed": 9, "value_range": (0, 1)},
                                IMG01, dtype="float32"),
    "random_crop": C("RandomCrop", {"height": 2, "width": 3, "seed": 4}, IMG, dtype="float32"),
    "random_crop_small": C("RandomCrop", {"height": 6, "width": 6, "seed": 4}, IMG, dtype="float32"),
    "hashed_crossing": C("HashedCrossing", {"num_bins": 5}, ("T", [["A", "B", "A", "C"], [1, 2, 3, -4]])),
    "hashed_crossing_big": C("HashedCrossing", {"num_bins": 2**62}, ("T", [["A", "xyz" * 30], ["x", "q"],
                                                                          [7, 8]])),
    "hashed_crossing_one_hot": C("HashedCrossing", {"num_bins": 5, "output_mode": "one_hot"},
                                 ("T", [["A", "B"], ["x", "y"]])),
    "category_count": C("CategoryEncoding", {"num_tokens": 4, "output_mode": "count"}, [[0, 1], [3, 3]],
                        dtype="int32"),
    "normalization": C("Normalization", {}, [[1.0, 2.0], [3.0, 5.0]], adapt=np.array([[0.0, 1.0], [2.0, 5.0],
                                                                                         [4.0, 3.0]], "float32"),
                       dtype="float32"),
}


def make_input(tf, case):
    x = case["inputs"]
    if isinstance(x, tuple) and x[0] == "T":  # a tuple of feature tensors (HashedCrossing)
        return tuple(tf.constant(v) for v in x[1])
    if case["dtype"] is not None:
        return tf.constant(np.asarray(x, dtype=case["dtype"]))
    return tf.constant(x)


def build(keras, case):
    layer = getattr(keras.layers, case["cls"])(**case["kwargs"])
    if case["adapt"] is not None:
        data = case["adapt"]
        layer.adapt(np.asarray(data) if not isinstance(data, np.ndarray) else data)
    return layer


def encode(value):
    a = np.asarray(value)
    if a.dtype.kind in "OSU":
        vals = np.vectorize(lambda v: v.decode("utf-8") if isinstance(v, bytes) else str(v), otypes=[object])(a)
        return {"dtype": "string", "shape": list(a.shape), "values": vals.tolist()}
    dt = getattr(getattr(value, "dtype", None), "name", str(a.dtype))
    return {"dtype": dt, "shape": list(a.shape), "values": a.astype(np.float64).tolist()}


def run(tf, keras, case):
    layer = build(keras, case)
    out = layer(make_input(tf, case))
    rec = {"out": encode(out)}
    if hasattr(layer, "get_vocabulary"):
        rec["vocab"] = [v if isinstance(v, (int, str)) else (v.decode() if isinstance(v, bytes) else int(v))
                        for v in layer.get_vocabulary()]
    try:  # Keras keeps an adapted vocabulary out of the config (it goes to the .keras assets)
        rebuilt = type(layer).from_config(layer.get_config())
        if case["cls"] == "Normalization":
            rebuilt.adapt(np.asarray(case["adapt"]))
        rec["rebuilt"] = encode(rebuilt(make_input(tf, case)))
    except Exception as e:  # noqa: BLE001
        rec["rebuilt_error"] = type(e).__name__
    return rec
