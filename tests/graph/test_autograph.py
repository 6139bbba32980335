"""AutoGraph: Python control flow on tensors inside tf.function, against the same Python run eagerly."""

import sys
import traceback

import numpy as np
import pytest

import tensorlet as tf


def check(fn, *args):
    """The converted, traced function gives what the plain Python function gives eagerly."""
    expected = fn(*args)
    traced = tf.function(fn)
    for _ in range(2):
        got = traced(*args)
        for g, e in zip(tf.nest.flatten(got), tf.nest.flatten(expected)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6)
    return traced


def collatz(n):
    steps = tf.constant(0)
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_while_and_if_on_tensors():
    for n in (1, 6, 27):
        check(collatz, tf.constant(n))
    g = tf.function(collatz).get_concrete_function(tf.constant(6)).graph
    assert any(node.op.name == "While" for node in g.nodes)


def early_return(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    return -x


def test_early_return():
    check(early_return, tf.constant([1.0, 2.0]))
    check(early_return, tf.constant([-1.0, -2.0]))


def break_continue(n):
    total = tf.constant(0)
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if total > 20:
            break
        total += i
    return total, i


def test_break_and_continue():
    for n in (2, 10, 50):
        check(break_continue, tf.constant(n))


def for_range(n):
    s = tf.constant(0.0)
    for i in tf.range(n):
        s += tf.cast(i, tf.float32) ** 2
    return s


def for_tensor(x):
    best = tf.constant(-1e9)
    for v in x:
        if v > best:
            best = v
    return best


def test_for_loops_over_tensors():
    check(for_range, tf.constant(5))
    check(for_tensor, tf.constant([3.0, 9.0, -1.0, 4.0]))


def logic(x, y):
    a = (x > 0) and (y > 0)
    b = (x > 0) or (y > 0)
    c = not (x > 0)
    return a, b, c


def test_and_or_not():
    for xv, yv in ((1, 1), (1, -1), (-1, -1)):
        check(logic, tf.constant(xv), tf.constant(yv))


def python_control_flow_untouched(x, n):
    for _ in range(n):  # Python ints: an unrolled Python loop
        x = x + 1
    if n > 2:  # Python condition: plain Python
        x = x * 10
    return x


def test_python_values_keep_python_semantics():
    t = check(python_control_flow_untouched, tf.constant(1.0), 3)
    g = t.get_concrete_function(tf.constant(1.0), 3).graph
    assert not any(node.op.name in ("While", "If") for node in g.nodes)


def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("FizzBuzz", output_stream=sys.stdout)
        elif i % 3 == 0:
            tf.print("Fizz", output_stream=sys.stdout)
        elif i % 5 == 0:
            tf.print("Buzz", output_stream=sys.stdout)
        else:
            tf.print(i, output_stream=sys.stdout)


def test_fizzbuzz_prints_at_run_time(capsys):
    f = tf.function(fizzbuzz)
    f(tf.constant(15))
    lines = capsys.readouterr().out.split()
    assert lines == ["1", "2", "Fizz", "4", "Buzz", "Fizz", "7", "8", "Fizz", "Buzz", "11", "Fizz", "13", "14",
                     "FizzBuzz"]
    f(tf.constant(3))
    assert capsys.readouterr().out.split() == ["1", "2", "Fizz"]


def helper_with_if(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def calls_helper(x):
    return helper_with_if(x) + 1


def test_called_user_functions_are_converted():
    check(calls_helper, tf.constant(-3.0))
    check(calls_helper, tf.constant(3.0))


def undefined_in_branch(x):
    if x > 0:
        y = x
    return y  # noqa: F821 - y is undefined when x <= 0


def test_variable_defined_in_one_branch_only_is_an_error():
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        tf.function(undefined_in_branch)(tf.constant(1.0))


def bad_reshape(x):
    y = x + 1
    return tf.reshape(y, [7])


def test_errors_point_at_the_users_line():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(bad_reshape)(tf.constant([1.0, 2.0]))
    assert "test_autograph.py" in str(info.value) and "tf.reshape(y, [7])" in str(info.value)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and f.line.strip() == "return tf.reshape(y, [7])" for f in frames)


def test_for_over_dataset_iterates_at_run_time():
    ds = tf.data.Dataset.range(5).map(lambda v: tf.cast(v, tf.float32))
    seen = tf.Variable(0.0)

    @tf.function
    def total(scale):
        s = tf.constant(0.0)
        for v in ds:
            s += v * scale
            seen.assign_add(1.0)
        return s

    assert float(total(tf.constant(1.0))) == 10.0
    assert float(total(tf.constant(2.0))) == 20.0  # the dataset is iterated again on each call
    assert total.experimental_get_tracing_count() == 1
    assert float(seen.numpy()) == 10.0
