"""Attention layers against Keras 3 (tests/goldens/keras_layers.json) plus weight layout, masks, errors and
graph use."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.ATTN))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_mha_weight_layout():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, output_shape=6, name="mha")
    mha(C.det((1, 4, 5)), C.det((1, 2, 7)))
    assert [(w.path, tuple(w.shape)) for w in mha.weights] == [
        ("mha/query/kernel", (5, 2, 3)), ("mha/query/bias", (2, 3)), ("mha/key/kernel", (7, 2, 3)),
        ("mha/key/bias", (2, 3)), ("mha/value/kernel", (7, 2, 4)), ("mha/value/bias", (2, 4)),
        ("mha/attention_output/kernel", (2, 4, 6)), ("mha/attention_output/bias", (6,))]
    assert mha.compute_output_shape((1, 4, 5), (1, 2, 7)) == (1, 4, 6)
    assert mha.count_params() == sum(int(np.prod(w.shape)) for w in mha.weights)


def test_mha_numpy_reference():
    q, v = C.det((2, 3, 4)), C.det((2, 5, 4), k=0.9)
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2)
    mha(q, v)
    ws = [C.wdet(w.shape, i) for i, w in enumerate(mha.get_weights())]
    mha.set_weights(ws)
    qk, qb, kk, kb, vk, vb, ok, ob = ws
    pq = np.einsum("btd,dnh->btnh", q, qk) + qb
    pk = np.einsum("bsd,dnh->bsnh", v, kk) + kb
    pv = np.einsum("bsd,dnh->bsnh", v, vk) + vb
    s = np.einsum("bsnh,btnh->bnts", pk, pq / np.sqrt(2.0))
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("bnts,bsnh->btnh", p, pv)
    want = np.einsum("btnh,nhd->btd", o, ok) + ob
    np.testing.assert_allclose(mha(q, v).numpy(), want, rtol=1e-5, atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="Received an invalid value for argument `num_heads`"):
        L.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="Invalid value for argument score_mode"):
        L.Attention(score_mode="add")
    with pytest.raises(ValueError, match="Attention layer must be called on a list of inputs"):
        L.Attention()(C.det((2, 3, 4)))
    with pytest.raises(ValueError, match="All dimensions of `value` and `key`, except the last one, must be equal"):
        L.MultiHeadAttention(2, 2)(C.det((1, 3, 4)), C.det((1, 5, 4)), key=C.det((1, 4, 4)))


def test_attention_dropout_only_in_training():
    q = C.det((2, 3, 4))
    layer = L.Attention(dropout=0.5, seed=1)
    a = layer([q, q]).numpy()
    np.testing.assert_array_equal(layer([q, q], training=False).numpy(), a)
    assert not np.allclose(layer([q, q], training=True).numpy(), a)


def test_config_round_trip():
    mha = L.MultiHeadAttention(3, 4, value_dim=2, dropout=0.1, output_shape=(5,), attention_axes=1)
    clone = L.MultiHeadAttention.from_config(mha.get_config())
    assert clone.get_config() == {**mha.get_config(), "name": clone.name}
    att = L.Attention(use_scale=True, score_mode="concat")
    assert L.Attention.from_config(att.get_config()).score_mode == "concat"


@pytest.mark.parametrize("kwargs, weights", [
    ({}, []),
    ({"use_scale": True}, [("scale", ())]),
    ({"use_scale": True, "score_mode": "concat"}, [("scale", ()), ("concat_score_weight", ())]),
])
def test_attention_standard_layer_checks(kwargs, weights):
    """Attention on [query, value]: output shape, weights, config round trip, eager == tf.function, a training step."""
    run_layer_test(L.Attention, kwargs, input_shape=[(2, 3, 4), (2, 5, 4)], expected_output_shape=(2, 3, 4),
                   expected_num_trainable_weights=len(weights), expected_num_non_trainable_weights=0,
                   expected_weight_names=[n for n, _ in weights], expected_weight_shapes=[s for _, s in weights])


def test_mha_in_tf_function():
    if not C.graph_ready(tf):
        pytest.skip("tf.function is not available yet")
    q = tf.constant(C.det((2, 4, 5)))
    mha = L.MultiHeadAttention(2, 3)
    eager = mha(q, q, use_causal_mask=True).numpy()
    traced = tf.function(lambda x: mha(x, x, use_causal_mask=True))(q).numpy()
    np.testing.assert_allclose(traced, eager, rtol=1e-5, atol=1e-6)
