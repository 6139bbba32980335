"""tf.nn.RNNCell*Wrapper against real TF (tests/goldens/rnn_cell_wrappers.json) and dropout masks by property."""

import numpy as np
import pytest
import value_cases
from rnn_cell_wrapper_cases import CASES, X, _cell

import tensorlet as tf

GOLDEN = value_cases.load("rnn_cell_wrappers.json")


@pytest.fixture(autouse=True, scope="module")
def _fresh_layer_names():
    yield
    tf.keras.backend.clear_session()  # later tests in this process see Keras's default layer names


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def _plain(tf):
    out, _ = tf.nn.RNNCellResidualWrapper(_cell(tf))(tf.constant(X), [tf.zeros([2, 3])])
    return out.numpy() - X  # the cell's own output


def test_output_dropout_zeroes_or_scales():
    ref = _plain(tf)
    out, state = tf.nn.RNNCellDropoutWrapper(_cell(tf), output_keep_prob=0.25, seed=5)(
        tf.constant(np.tile(X, (40, 1))), [tf.zeros([80, 3])])
    got, want = out.numpy(), np.tile(ref, (40, 1))
    kept = got != 0
    np.testing.assert_allclose(got[kept], want[kept] / 0.25, rtol=1e-6)
    assert 0.1 < kept.mean() < 0.4
    np.testing.assert_allclose(state[0].numpy(), want, rtol=1e-6)  # the state is not dropped


def test_variational_state_dropout_is_one_mask_per_sequence():
    w = tf.nn.RNNCellDropoutWrapper(_cell(tf), state_keep_prob=0.5, variational_recurrent=True, dtype=tf.float32,
                                    seed=2)
    x = tf.constant(np.tile(X, (4, 1)))
    masks = []
    for _ in range(2):  # the same noise at every step
        _, (s,) = w(x, [tf.zeros([8, 3])])
        masks.append(s.numpy() != 0)
    assert (masks[0] == masks[0][:1]).all()  # one mask shared by the batch
    assert (masks[0] == masks[1]).all()
