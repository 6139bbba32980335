"""RaggedTensor against real TF: values, dtypes, shapes, printed forms and error classes recorded by
tools/record_tf_goldens/ragged.py over the shared case table ragged_cases.py."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from ragged_cases import CASES  # noqa: E402

GOLDEN = value_cases.load("ragged.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_ragged_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_table_is_recorded():
    assert set(CASES) == set(GOLDEN), "re-run tools/record_tf_goldens/ragged.py"
