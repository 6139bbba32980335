"""WebP decoding against results recorded from real TF (tests/goldens/webp.json; cases webp_cases.py)."""

import pytest
import value_cases
from webp_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("webp.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)




def test_animated_webp_gives_every_frame():
    # (TF 2.21 crashes in libwebp on this Pillow-written animation, so it is checked here only)
    from webp_cases import ANIMATED

    x = tf.io.decode_webp(ANIMATED).numpy()
    assert x.shape == (2, 3, 3, 3) and x.dtype.name == "uint8"
    assert (x[0] == 10).all() and (x[1] == 200).all()
