"""sparse=True / ragged=True preprocessing outputs against Keras 3 (tests/goldens/keras_sparse_ragged.json,
recorded by tools/record_tf_goldens/keras_sparse_ragged.py from tests/keras/keras_sparse_ragged_cases.py)."""

import json
import os
import sys

import pytest

import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras_sparse_ragged_cases as C  # noqa: E402

with open(os.path.join(HERE, "..", "goldens", "keras_sparse_ragged.json")) as f:
    GOLDEN = json.load(f)
GOLDEN.pop("keras_version")
RAGGED_MAP = GOLDEN.pop("text_ragged_map")


@pytest.fixture(scope="module")
def got():
    return C.run(tf.keras, tf)


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_matches_keras(got, key):
    assert got[key] == GOLDEN[key], (key, got[key], GOLDEN[key])


def test_ragged_text_vectorization_in_dataset_map():
    assert C.run_ragged_map(tf.keras, tf) == RAGGED_MAP


def test_sparse_output_densifies_to_the_dense_layer():
    import numpy as np

    x = np.array([["a", "b"], ["b", "z"]])
    dense = tf.keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="count")(x)
    sparse = tf.keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="count", sparse=True)(x)
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse).numpy(), dense.numpy())


def test_symbolic_sparse_output_is_flagged_and_model_returns_sparse():
    import numpy as np

    inp = tf.keras.Input((2,), dtype="int64")
    out = tf.keras.layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot", sparse=True)(inp)
    assert out.sparse and tuple(out.shape) == (None, 4)  # as Keras's KerasTensor
    got = tf.keras.Model(inp, out)(np.array([[0, 1], [2, 2]]))
    assert isinstance(got, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(got).numpy(), [[1, 1, 0, 0], [0, 0, 1, 0]])
