"""Candidate samplers and sampled losses against results recorded from real TF (tests/goldens/nn_sampled.json; cases
nn_sampled_cases.py)."""

import numpy as np
import pytest
import value_cases
from nn_sampled_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("nn_sampled.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)




# --- reference cases for the op table --------------------------------------------------------------------------
from opcheck import Case, compiled_tests, op_tests  # noqa: E402

_TC = np.array([[1, 2], [3, 1]], np.int64)
_S = np.array([1, 5, 3, 2], np.int64)
RANDOM = dict(jax=False,  # sampling runs on the host (rejection loop), never compiled
              grad=False)  # candidates are integers: nothing to differentiate
OP_CASES = [
    Case(lambda x: x + tf.random.uniform_candidate_sampler(_TC, 2, 3, False, 10, seed=1).true_expected_count,
         lambda x: x + np.float32(0.3), [((2, 2),)], ("float32",), ops=("CandidateSampler",), **RANDOM),
    Case(lambda x: x + tf.cast(tf.nn.compute_accidental_hits(_TC, _S, 2)[1], x.dtype),
         lambda x: x + np.array([0, 3, 2, 0], x.dtype), [((4,),)], ("float32",), ops=("ComputeAccidentalHits",),
         **RANDOM),
]
CASES = OP_CASES
test_values, test_lowering, _ = op_tests(OP_CASES)
test_compiled = compiled_tests(OP_CASES)
