"""WAV, crosses, string hashing and Sobol against results recorded from real TF
(tests/goldens/feature_ops.json; cases feature_cases.py)."""

import pytest
import value_cases
from feature_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("feature_ops.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


