"""A parallel map hands cheap functions to its workers in chunks of elements (parallel.CHUNK_S): order, errors
at their element and ``ignore_errors`` are as with one element per task, as in TF."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.data import parallel

D = tf.data.Dataset


def _checked(x):
    tf.debugging.assert_less(x, tf.constant(300, tf.int64), message="too big")
    return x * 3


def test_chunks_keep_order_and_values(monkeypatch):
    sizes = []
    submit = parallel.WorkerPool.submit
    monkeypatch.setattr(parallel.WorkerPool, "submit", lambda self, fn, arg: sizes.append(len(arg[0])) or
                        submit(self, fn, arg))
    ds = D.range(2000).map(lambda x: x * 3, num_parallel_calls=2)
    assert [int(v) for v in ds] == [3 * i for i in range(2000)]
    assert max(sizes) > 1  # a cheap function: several elements per task
    assert sum(sizes) == 2000


def test_error_raised_at_its_element():
    got = []
    with pytest.raises(tf.errors.InvalidArgumentError, match="too big"):
        for v in D.range(1000).map(_checked, num_parallel_calls=2):
            got.append(int(v))
    assert got == [3 * i for i in range(300)]


def _not_300(x):
    tf.debugging.assert_none_equal(x, tf.constant(300, tf.int64), message="is 300")
    return x * 3


def test_ignore_errors_skips_only_the_failing_elements():
    ds = D.range(1000).map(_not_300, num_parallel_calls=3).ignore_errors()
    assert np.array_equal([int(v) for v in ds], 3 * np.delete(np.arange(1000), 300))
    nd = D.range(600).map(lambda x: x + 1, num_parallel_calls=2, deterministic=False)
    assert sorted(int(v) for v in nd) == list(range(1, 601))


def test_workers_and_main_thread_share_a_written_variable():
    """A map's workers and the main thread run compiled functions that write the same variable (the global
    random generator's state): the main thread donates its buffers, the workers never see a donated one."""
    state = tf.Variable(tf.zeros([64]))

    @tf.function(jit_compile=True)
    def bump(x):
        state.assign_add(tf.ones([64]))
        return x + tf.reduce_sum(state)

    ds = D.range(400).map(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([]) + bump(0.0) * 0.0,
                          num_parallel_calls=2)
    got = []
    for v in ds:
        got.append(float(v))
        bump(tf.constant(1.0))  # the main thread: donates the variable's buffer
        tf.random.uniform([3])
    assert len(got) == 400
    np.testing.assert_array_less(np.asarray(got) - np.arange(400), 1.0 + 1e-6)
    assert (np.asarray(got) - np.arange(400) >= 0).all()


M = np.random.default_rng(0).normal(size=(96, 96)).astype(np.float32)


def _busy():  # a matmul between a variable's read and its write-back: workers racing would overlap there
    return tf.reduce_sum(tf.matmul(M, M)) * 0.0


def test_workers_do_not_lose_variable_updates():
    """Calls that write a variable run one at a time in the workers (a read-modify-write each): no update is lost
    and stateful random ops never draw the same numbers twice (without that: ~1/3 of the updates lost)."""
    total = tf.Variable(0.0)

    def add(x):
        total.assign_add(tf.cast(x, tf.float32))
        return x + tf.cast(_busy(), tf.int64)

    assert sorted(int(v) for v in D.range(600).map(add, num_parallel_calls=2)) == list(range(600))
    assert float(total.numpy()) == sum(range(600))
    opts = tf.data.Options()
    opts.experimental_optimization.apply_default_optimizations = False  # one call per element
    ds = D.range(600).map(lambda x: tf.random.uniform([2], dtype=tf.float64) + tf.cast(_busy(), tf.float64),
                          num_parallel_calls=2)
    draws = np.stack([v.numpy() for v in ds.with_options(opts)])
    assert len(np.unique(draws[:, 0])) == 600
