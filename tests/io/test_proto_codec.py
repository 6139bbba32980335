"""tf.io.decode_proto / encode_proto against results recorded from real TF (tests/goldens/proto_codec.json; cases
proto_codec_cases.py)."""

import pytest
import value_cases
from proto_codec_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("proto_codec.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)
