"""Keras recurrent layers (SimpleRNN, LSTM, GRU, RNN with cells, StackedRNNCells, Bidirectional, TimeDistributed).

Forward outputs and gradients (inputs, initial states and weights) are compared with Keras 3 / TF 2.21 values
recorded by tools/record_tf_goldens/keras_rnn.py from the cases in keras_rnn_cases.py (same weights via
``set_weights``) into tests/goldens/keras_rnn.json.
"""

import json
import pathlib

import numpy as np
import pytest

import keras_rnn_cases as cases

import tensorlet as tf
from tensorlet._src.keras.layers import conv_lstm, recurrent, rnn, rnn_cells, wrappers

GOLDENS = json.loads((pathlib.Path(__file__).parent.parent / "goldens" / "keras_rnn.json").read_text())
L = tf.keras.layers
TFL = tf  # the cases call tf.keras.layers.<Name>, tf.GradientTape, ... as a user program would


def test_public_names():
    assert L.LSTM is recurrent.LSTM and L.GRU is recurrent.GRU and L.SimpleRNN is recurrent.SimpleRNN
    assert L.LSTMCell is rnn_cells.LSTMCell and L.GRUCell is rnn_cells.GRUCell
    assert L.SimpleRNNCell is rnn_cells.SimpleRNNCell
    assert L.RNN is rnn.RNN and L.StackedRNNCells is rnn.StackedRNNCells
    assert L.Bidirectional is wrappers.Bidirectional and L.TimeDistributed is wrappers.TimeDistributed
    assert L.Wrapper is wrappers.Wrapper
    assert (L.ConvLSTM1D, L.ConvLSTM2D, L.ConvLSTM3D) == (conv_lstm.ConvLSTM1D, conv_lstm.ConvLSTM2D,
                                                          conv_lstm.ConvLSTM3D)


def _check(got, expected, where):
    if expected is None:
        assert got is None, f"{where}: Keras gives None"
        return
    assert got is not None, f"{where}: Keras gives a value, got None"
    got = np.asarray(got)
    assert list(got.shape) == expected["shape"], f"{where}: shape {got.shape}, expected {expected['shape']}"
    np.testing.assert_allclose(got.ravel(), expected["v"], rtol=1e-5, atol=1e-5, err_msg=where)


@pytest.mark.parametrize("name", list(cases.CASES))
def test_matches_keras(name):
    outs, grads = cases.run_case(TFL, name)
    rec = GOLDENS[name]
    assert len(outs) == len(rec["outputs"])
    for i, (o, e) in enumerate(zip(outs, rec["outputs"])):
        _check(o, e, f"{name} output {i}")
    assert len(grads) == len(rec["grads"])
    for i, (g, e) in enumerate(zip(grads, rec["grads"])):
        _check(g, e, f"{name} gradient {i}")


@pytest.mark.parametrize("name", list(cases.CONFIGS))
def test_get_config_matches_keras(name):
    got = cases.configs(TFL)[name]
    assert got == GOLDENS["_configs"][name]


@pytest.mark.parametrize("name", ["lstm", "gru", "simple_rnn", "lstm_cell", "gru_cell", "simple_rnn_cell",
                                  "rnn_stacked", "bidirectional", "bidirectional_backward_layer", "conv_lstm2d"])
def test_from_config_round_trip(name):
    layer = cases.CONFIGS[name](L)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert type(clone) is type(layer)
    assert cases._plain(clone.get_config()) == cases._plain(config)


@pytest.mark.parametrize("name", list(cases.OUTPUT_SHAPES))
def test_compute_output_shape_matches_keras(name):
    make, shape = cases.OUTPUT_SHAPES[name]
    assert cases._plain(make(L).compute_output_shape(shape)) == GOLDENS["_output_shapes"][name]
