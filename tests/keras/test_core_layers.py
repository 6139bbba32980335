"""Core layers beyond the recorded goldens: shapes, errors, configs, dropout statistics, masking flow, clone_model."""

import numpy as np
import pytest

import tensorlet as tf

keras = tf.keras
L = keras.layers


def test_compute_output_shapes():
    assert L.Dense(2).compute_output_shape((None, 5)) == (None, 2)
    assert L.Flatten().compute_output_shape((None, 2, 3)) == (None, 6)
    assert L.Reshape((3, -1)).compute_output_shape((None, 2, 3)) == (None, 3, 2)
    assert L.Permute((2, 1)).compute_output_shape((None, 2, 3)) == (None, 3, 2)
    assert L.RepeatVector(4).compute_output_shape((None, 3)) == (None, 4, 3)
    assert L.Embedding(5, 2).compute_output_shape((None, 7)) == (None, 7, 2)
    assert L.Lambda(lambda x: x[:, :1] * 2).compute_output_shape((None, 3)) == (None, 1)
    assert L.Flatten()(keras.Input((None, 3))).shape == (None, None)


def test_constructor_errors():
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1. Received: rate=1.5"):
        L.Dropout(1.5)
    with pytest.raises(ValueError, match="must be consecutive and start from 1. Received dims=\\(1, 3\\)"):
        L.Permute((1, 3))
    with pytest.raises(ValueError, match="expected a positive integer"):
        L.Dense(0)
    with pytest.raises(ValueError, match="total size of the tensor must be unchanged"):
        L.Reshape((4,))(np.ones((2, 3), np.float32))


def test_dropout_training_statistics_and_seed_state():
    d = L.Dropout(0.25, seed=7)
    x = np.ones((400, 50), np.float32)
    y1 = d(x, training=True).numpy()
    y2 = d(x, training=True).numpy()
    np.testing.assert_allclose(np.unique(y1), [0.0, 1 / 0.75], rtol=1e-6)
    assert abs((y1 == 0).mean() - 0.25) < 0.02
    assert not np.array_equal(y1, y2)  # the seed generator advances
    np.testing.assert_array_equal(d(x).numpy(), x)  # inference: identity
    sd = L.SpatialDropout1D(0.5, seed=1)(np.ones((4, 6, 8), np.float32), training=True).numpy()
    assert np.all(sd == sd[:, :1, :])  # whole channels are dropped across steps
    f = tf.function(lambda t: d(t, training=True))
    a, b = f(tf.constant(x)).numpy(), f(tf.constant(x)).numpy()
    assert not np.array_equal(a, b)


def test_masking_flows_to_consumers():
    seen = {}

    class Probe(L.Layer):
        def call(self, x, mask=None):
            seen["mask"] = None if mask is None else mask.numpy().tolist()
            return x

    x = np.array([[[1.0], [0.0], [2.0]]], np.float32)
    inp = keras.Input((3, 1))
    model = keras.Model(inp, Probe()(L.Masking(0.0)(inp)))
    model(x)
    assert seen["mask"] == [[True, False, True]]


def test_lambda_and_identity():
    lam = L.Lambda(lambda x, k: x * k, arguments={"k": 3.0})
    np.testing.assert_allclose(lam(np.ones((1, 2), np.float32)).numpy(), [[3.0, 3.0]])
    with pytest.warns(UserWarning, match="includes a `lambda`"):
        cfg = L.Lambda(lambda x: x).get_config()
    with pytest.raises(ValueError, match="deserialization of a Python lambda"):
        L.Lambda.from_config(cfg)
    assert L.Identity()(np.ones((2,), np.float32)).shape == (2,)


def test_embedding_gradient_is_sparse_and_casts_indices():
    emb = L.Embedding(10, 3)
    ids = np.array([[1, 1, 4]], np.float32)  # float ids are cast to int32, as Keras does
    with tf.GradientTape() as tape:
        out = emb(ids)
        loss = tf.reduce_sum(out)
    g = tape.gradient(loss, emb.embeddings)
    dense = tf.convert_to_tensor(g).numpy()
    np.testing.assert_allclose(dense[1], [2.0] * 3)
    np.testing.assert_allclose(dense[4], [1.0] * 3)
    assert np.count_nonzero(dense.sum(axis=1)) == 2


def test_clone_model_and_json():
    keras.backend.clear_session()
    m = keras.Sequential([keras.Input((3,)), L.Dense(2, activation="relu")])
    c = keras.models.clone_model(m)
    assert [tuple(w.shape) for w in c.weights] == [(3, 2), (2,)] and c.weights[0] is not m.weights[0]
    m2 = keras.models.model_from_json(m.to_json())
    m2.set_weights(m.get_weights())
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(m2(x).numpy(), m(x).numpy(), rtol=1e-6)
