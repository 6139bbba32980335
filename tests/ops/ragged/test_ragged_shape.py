"""RowPartition, DynamicRaggedShape and StructuredTensor against real TF (tests/goldens/ragged_shape.json)."""

import pytest
import value_cases
from ragged_shape_cases import CASES

import tensorlet as tf

GOLDEN = value_cases.load("ragged_shape.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)
