"""Compiled programs that call back into Python (asserts, tf.print) from several threads at once: each call's
failure is reported to that call, as TF's error, and a program that does not call Python neither sees nor
clears another's error."""

import threading

import numpy as np

import tensorlet as tf


def _checked():
    @tf.function(jit_compile=True)
    def checked(x):
        tf.debugging.Assert(tf.reduce_all(x < 10.0), [x])
        return x * 2.0

    return checked


def test_each_failing_call_gets_its_own_invalid_argument_error():
    checked, passing = _checked(), _checked()

    @tf.function(jit_compile=True)
    def plain(x):
        return x + 1.0

    bad, good = tf.constant([20.0, 1.0]), tf.constant([1.0, 2.0])
    checked(good), passing(good), plain(good)  # compiled before the threads start
    results, barrier = {"bad": [], "good": [], "plain": []}, threading.Barrier(3)

    def run(kind, n=60):
        barrier.wait()
        for _ in range(n):
            try:
                if kind == "bad":
                    checked(bad)
                    results[kind].append("no error")
                elif kind == "good":
                    results[kind].append(passing(good).numpy())
                else:
                    results[kind].append(plain(good).numpy())
            except Exception as e:  # noqa: BLE001 - what each call raised is the result
                results[kind].append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results["bad"]) == 60
    for e in results["bad"]:
        assert isinstance(e, tf.errors.InvalidArgumentError), repr(e)
        assert "assertion failed" in str(e).lower()
    for v in results["good"]:
        np.testing.assert_array_equal(v, [2.0, 4.0])
    for v in results["plain"]:
        np.testing.assert_array_equal(v, [2.0, 3.0])


def test_a_passing_assert_after_a_failing_one_in_the_same_thread():
    checked = _checked()
    try:
        checked(tf.constant([11.0]))
    except tf.errors.InvalidArgumentError:
        pass
    np.testing.assert_array_equal(checked(tf.constant([1.0])).numpy(), [2.0])
