"""tf.nn additions against results recorded from real TF (tests/goldens/nn_extra.json; cases
nn_extra_cases.py)."""

import numpy as np
import pytest
import value_cases
from nn_extra_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("nn_extra.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)




# --- reference case for the op table: the min-max formula of isotonic regression -------------------------------
from opcheck import Case, compiled_tests, op_tests  # noqa: E402


def _iso_ref(x):
    def row(y):  # non-increasing fit: f_i = min_{j<=i} max_{k>=i} mean(y[j..k])
        n = len(y)
        return [min(max(np.mean(y[j:k + 1]) for k in range(i, n)) for j in range(i + 1)) for i in range(n)]
    flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
    return np.array([row(r) for r in flat]).reshape(x.shape).astype(x.dtype)


OP_CASES = [
    Case(lambda x: tf.nn.isotonic_regression(x)[0], _iso_ref, [((2, 5),), ((7,),)], ("float32", "float64"),
         ops=("IsotonicRegression",)),
]
CASES = OP_CASES
test_values, test_lowering, _ = op_tests(OP_CASES)
test_compiled = compiled_tests(OP_CASES)


def test_ctc_loss_impossible_alignment_is_inf():
    # 3 distinct-by-blank labels "1 1 1" need 5 frames; with 3 the likelihood is 0
    loss = tf.nn.ctc_loss(tf.constant([[1, 1, 1]]), tf.zeros([3, 1, 3]), [3], [3])
    assert np.isinf(loss.numpy()[0])
