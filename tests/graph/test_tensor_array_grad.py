"""Gradients through growing TensorArrays against real TF (tests/goldens/tensor_array_grad.json)."""

import pytest
import value_cases
from tensor_array_grad_cases import CASES

import tensorlet as tf

GOLDEN = value_cases.load("tensor_array_grad.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)
