"""tf.nn.ctc_beam_search_decoder against results recorded from real TF (tests/goldens/ctc_beam.json; cases
ctc_beam_cases.py)."""

import pytest
import value_cases
from ctc_beam_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("ctc_beam.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


