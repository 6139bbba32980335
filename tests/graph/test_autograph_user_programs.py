"""AutoGraph bugs met by tutorial-style programs.  Loops with only ``break`` (or only ``continue``) followed by
more statements read only the flags they define.  AutoGraph converts the code object it is given: a
``functools.wraps`` wrapper is not given its wrapped function's source (``inspect.getsource`` follows
``__wrapped__``), and tensorlet's own wrappers, which carry the user's ``__module__``, are left alone."""

import functools

import numpy as np

import tensorlet as tf


def _logged(fn):
    calls = []

    @functools.wraps(fn)
    def wrapper(x):
        calls.append(1)
        return fn(x) + 1.0

    wrapper.calls = calls
    return wrapper


@_logged
def _branchy(x):
    if tf.reduce_sum(x) > 0:
        return x * 2.0
    return -x


def test_wrapped_user_function_keeps_its_wrapper():
    @tf.function
    def f(x):
        return _branchy(x)

    np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    np.testing.assert_allclose(f(tf.constant([-1.0, -2.0])).numpy(), [2.0, 3.0])  # same trace, tensor `if`


def test_tensorlet_wrapper_is_not_converted():
    from tensorlet._src.graph import autograph

    @tf.custom_gradient
    def ident(x):
        return tf.identity(x), lambda dy: dy
    assert ident.__module__ == __name__  # functools.wraps copied it
    assert autograph.convert(ident) is ident


def _break_only_for(x):
    s = 0
    for i in tf.range(10):
        if i > x:
            break
        s += i  # guarded by the break flag alone: there is no continue flag to read
    return s


def _continue_only_while(x):
    i = tf.constant(0)
    s = tf.constant(0)
    while i < 10:
        i += 1
        if i % x == 0:
            continue
        s += i
    return s


def _break_only_while(x):
    i = tf.constant(0)
    s = tf.constant(0)
    while i < 10:
        i += 1
        if i > x:
            break
        s += i
    return s


def test_loop_with_only_break_or_only_continue_then_more_statements():
    for fn, expected in ((_break_only_for, lambda n: sum(range(n + 1))),
                         (_continue_only_while, lambda n: sum(i for i in range(1, 11) if i % n)),
                         (_break_only_while, lambda n: sum(range(1, n + 1)))):
        f = tf.function(fn)
        for n in (3, 4):
            assert int(f(tf.constant(n))) == expected(n), (fn.__name__, n)
