"""tf.function's API against real TF (tests/goldens/function_api.json, cases function_api_cases.py)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from function_api_cases import CASES  # noqa: E402

GOLDEN = value_cases.load("function_api.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)
