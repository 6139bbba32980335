"""tf.sets against results recorded from real TF (tests/goldens/sets.json; cases sets_cases.py)."""

import pytest
import value_cases
from sets_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("sets.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_errors_name_the_problem():
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least rank 2.*DenseToDenseSetOperation"):
        tf.sets.union(tf.constant([1, 2]), tf.constant([1]))
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        tf.sets.size(tf.constant([[1]]))
