"""tf.image gradients exactly where TF defines them (tests/goldens/image_gradients.json)."""

import numpy as np
import pytest
import value_cases
from image_gradient_cases import CASES as GOLDEN_CASES
from opcheck import Case, op_tests

import tensorlet as tf
from tensorlet._src.ops.gradient_marks import no_gradient_mark

GOLDEN = value_cases.load("image_gradients.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


CASES = [Case(lambda x: no_gradient_mark(x, "AdjustHue"), lambda a: a, [((2, 3),)], ("float32",),
              ops=("NoGradientMark",), grad=False)]
test_values, test_lowering, test_errors = op_tests(CASES, [])


def test_mark_raises_lookup_error():
    x = tf.Variable(np.ones(2, np.float32))
    with tf.GradientTape() as t:
        y = tf.reduce_sum(no_gradient_mark(x * 2.0, "AdjustHue"))
    with pytest.raises(LookupError):
        t.gradient(y, x)
