"""tf.debugging.enable_check_numerics against messages recorded from real TF (tests/goldens/check_numerics.json;
cases check_numerics_cases.py)."""

import threading

import pytest
import value_cases
from check_numerics_cases import CASES as GOLDEN_CASES

import tensorlet as tf
from tensorlet._src.framework.context import ctx

GOLDEN = value_cases.load("check_numerics.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)
    assert ctx.interp is None  # disabled again: nothing left on the eager path


def test_off_leaves_the_eager_path_untouched():
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()  # idempotent
    assert ctx.interp is not None
    tf.debugging.disable_check_numerics()
    tf.debugging.disable_check_numerics()
    assert ctx.interp is None
    assert tf.executing_eagerly()


def test_per_thread_and_inside_compiled_functions():
    errors = []

    def other():
        errors.append(tf.math.log(tf.constant([0.0])).numpy()[0])  # not enabled in this thread

    tf.debugging.enable_check_numerics()
    try:
        assert tf.executing_eagerly()
        th = threading.Thread(target=other)
        th.start()
        th.join()
        f = tf.function(lambda x: tf.math.log(x * 1.0 + 0.0))
        for _ in range(3):  # later calls would be compiled: the checked graph stays on NumPy so the check runs
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"graph op \"Log\""):
                f(tf.constant([0.0, 1.0]))
        assert float(f(tf.constant([2.0]))[0]) == pytest.approx(0.6931472)
        x = tf.Variable([1.0, 4.0])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.sqrt(x))
        assert tape.gradient(y, x).numpy().tolist() == pytest.approx([0.5, 0.25])
    finally:
        tf.debugging.disable_check_numerics()
    assert errors == [float("-inf")]


# --- the op the mode inserts: its output is its input (checked); gradients pass through, themselves checked -------
from opcheck import Case, op_tests  # noqa: E402

from tensorlet._src.ops import check_numerics_mode as cnm  # noqa: E402
from tensorlet._src.ops.registry import bind  # noqa: E402

CASES = [Case(lambda x: bind(cnm.CHECK_NUMERICS_V2, x, message="m"), lambda x: x, [((2, 3),), ((0,),)],
              ("float32", "float64"), ops=("CheckNumericsV2",), jax=False, graph=False)]
test_values, test_lowering, _ = op_tests(CASES)


def test_v2_op_message_names_every_anomaly():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"m : Tensor had -Inf and NaN values"):
        bind(cnm.CHECK_NUMERICS_V2, tf.constant([float("-inf"), float("nan"), 1.0]), message="m")
