"""Sparse extras against results recorded from real TF
(tests/goldens/sparse_extra.json; cases sparse_extra_cases.py)."""

import pytest
import value_cases
from sparse_extra_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("sparse_extra.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


