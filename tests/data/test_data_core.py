"""tf.data: TensorSpec, iterators (OutOfRange, numpy, checkpoint hooks), fused batch path == element path,
parallel map/interleave, prefetch, thread release and bounded buffers, ignore_errors, options."""

from __future__ import annotations

import gc
import pickle
import threading
import time

import numpy as np
import pytest

import tensorlet as tf

D = tf.data.Dataset


# --- TensorSpec ---------------------------------------------------------------------------------

def test_tensor_spec_basics():
    s = tf.TensorSpec(shape=(None, 28), dtype=tf.float32)
    assert repr(s) == str(s) == "TensorSpec(shape=(None, 28), dtype=tf.float32, name=None)"
    assert repr(tf.TensorSpec(None, tf.int32, name="x")) == "TensorSpec(shape=<unknown>, dtype=tf.int32, name='x')"
    assert repr(tf.TensorSpec([2, 3])) == "TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)"
    assert s.is_compatible_with(tf.zeros([3, 28])) and not s.is_compatible_with(tf.zeros([3, 27]))
    assert not s.is_compatible_with(tf.zeros([3, 28], tf.float64))
    assert not s.is_compatible_with(np.zeros([3, 28], np.float32))  # TF: plain arrays are not compatible
    assert s.is_compatible_with(tf.TensorSpec([5, 28], name="other"))
    assert s == tf.TensorSpec((None, 28)) and hash(s) == hash(tf.TensorSpec((None, 28)))
    assert tf.TensorSpec([2], name="a") != tf.TensorSpec([2], name="b")
    assert repr(tf.TensorSpec.from_tensor(tf.constant([1, 2]), name="q")) == \
        "TensorSpec(shape=(2,), dtype=tf.int32, name='q')"
    assert tf.TensorSpec.from_spec(s, name="z").name == "z"
    assert pickle.loads(pickle.dumps(s)) == s


def test_tensor_spec_relaxing():
    a, b = tf.TensorSpec([3, 28]), tf.TensorSpec([4, 28])
    assert a.most_specific_common_supertype([b]) == tf.TensorSpec([None, 28])
    assert a.most_specific_common_supertype([tf.TensorSpec([4])]) == tf.TensorSpec(None)
    assert a.most_specific_common_supertype([tf.TensorSpec([4], tf.int32)]) is None
    assert a.is_subtype_of(tf.TensorSpec([None, 28])) and not tf.TensorSpec([None, 28]).is_subtype_of(a)
    assert a._batch(4) == tf.TensorSpec([4, 3, 28]) and a._unbatch() == tf.TensorSpec([28])
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.TensorSpec([2], "foo")
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.TensorSpec([-2])
    assert repr(tf.type_spec_from_value(tf.constant(1.0))) == "TensorSpec(shape=(), dtype=tf.float32, name=None)"


# --- iterators ---------------------------------------------------------------------------------------

def test_iterator_protocol():
    it = iter(D.range(2))
    assert isinstance(it, tf.data.Iterator)
    assert repr(next(it)) == "<tf.Tensor: shape=(), dtype=int64, numpy=0>"
    assert int(it.get_next()) == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)
    opt = iter(D.range(1)).get_next_as_optional()
    assert bool(opt.has_value()) and int(opt.get_value()) == 0
    it = iter(D.range(0))
    assert not bool(it.get_next_as_optional().has_value())


def test_numpy_iterator_values():
    ds = D.from_tensor_slices(({"a": [1, 2]}, ["x", "y"]))
    got = list(ds.as_numpy_iterator())
    assert got[0][0]["a"] == 1 and got[1][1] == b"y" and isinstance(got[0][0]["a"], np.int32)
    b = next(ds.batch(2).as_numpy_iterator())
    b[0]["a"][0] = 99  # a copy: the source must not change
    assert list(ds.as_numpy_iterator())[0][0]["a"] == 1
    with pytest.raises(TypeError, match="as_numpy_iterator"):
        D.range(3).window(2).as_numpy_iterator()


def test_len_bool_and_cardinality_tensor():
    assert len(D.range(7).batch(2)) == 4 and bool(D.range(0))
    c = D.range(3).repeat().cardinality()
    assert c.dtype == tf.int64 and int(c) == tf.data.INFINITE_CARDINALITY == -1
    assert int(tf.data.experimental.cardinality(D.range(3).filter(lambda x: True))) == tf.data.UNKNOWN_CARDINALITY


def test_element_tensors_receive_unpacked_tuples():
    seen = []
    ds = D.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: (seen.append((type(a), type(b))) or a + b))
    assert [int(x) for x in ds] == [4, 6]
    assert seen and all(issubclass(a, tf.Tensor) and issubclass(b, tf.Tensor) for a, b in seen)
    # a dict element is one argument; a list return becomes a tuple
    ds = D.from_tensor_slices({"x": [1., 2.]}).map(lambda d: [d["x"], d["x"] * 2])
    assert ds.element_spec == (tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))


# --- fused gather path == element path -------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda d: d.shuffle(5000, seed=3).batch(32),
    lambda d: d.shuffle(17, seed=3).batch(10, drop_remainder=True),
    lambda d: d.skip(5).take(70).shard(3, 2).shuffle(9, seed=1).repeat(3).batch(7),
    lambda d: d.repeat(2).shuffle(40, seed=0).batch(13),
])
def test_fused_batch_equals_elementwise(build):
    x = np.arange(100 * 6, dtype=np.float32).reshape(100, 2, 3)
    y = np.arange(100)
    fused = build(D.from_tensor_slices((x, y)))
    plain = build(D.from_tensor_slices((x, y)).map(lambda a, b: (a, b)))  # map disables the index plan
    assert fused._index_plan is not None
    a = [(u.numpy(), v.numpy()) for u, v in fused]
    b = [(u.numpy(), v.numpy()) for u, v in plain]
    assert len(a) == len(b) and all(np.array_equal(p[0], q[0]) and np.array_equal(p[1], q[1]) for p, q in zip(a, b))
    assert fused.element_spec == plain.element_spec


def test_shuffle_same_seed_same_order_and_reshuffle():
    ds = D.range(50).shuffle(50, seed=42)
    e1, e2 = [int(x) for x in ds], [int(x) for x in ds]
    assert e1 != e2 and sorted(e1) == list(range(50))
    assert [int(x) for x in D.range(50).shuffle(50, seed=42)] == e1
    unseeded = D.range(50).shuffle(50)
    assert sorted(int(x) for x in unseeded) == list(range(50))


# --- parallel work and threads -----------------------------------------------------------------------------

def test_parallel_map_order_and_values():
    ds = D.range(200).map(lambda x: x * x, num_parallel_calls=4)
    assert [int(v) for v in ds] == [i * i for i in range(200)]
    nd = D.range(100).map(lambda x: x + 1, num_parallel_calls=3, deterministic=False)
    assert sorted(int(v) for v in nd) == list(range(1, 101))
    pi = D.range(10).interleave(lambda x: D.range(x % 4), cycle_length=3, block_length=2, num_parallel_calls=3)
    si = D.range(10).interleave(lambda x: D.range(x % 4), cycle_length=3, block_length=2)
    assert [int(v) for v in pi] == [int(v) for v in si]


def test_errors_propagate_from_workers():
    def bad(x):
        if int(x) == 5:
            raise ValueError("boom")
        return x

    for ds in (D.range(10).map(bad, num_parallel_calls=2), D.range(10).map(bad).prefetch(3)):
        with pytest.raises(ValueError, match="boom"):
            list(ds)


def _wait_threads(base, timeout=5.0):
    deadline = time.time() + timeout
    while threading.active_count() > base and time.time() < deadline:
        time.sleep(0.02)
    return threading.active_count()


def test_abandoned_iterator_releases_threads():
    gc.collect()
    base = _wait_threads(threading.active_count(), 0.5)
    ds = D.range(100000).map(lambda x: x + 1, num_parallel_calls=2).prefetch(4).map(lambda x: x).prefetch(2)
    it = iter(ds)
    next(it)
    next(it)
    assert threading.active_count() > base
    del it
    gc.collect()
    assert _wait_threads(base) == base


def test_prefetch_buffer_is_bounded():
    produced = []

    def gen():
        for i in range(1000):
            produced.append(i)
            yield i

    ds = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int32)).prefetch(3)
    it = iter(ds)
    next(it)
    time.sleep(0.3)
    # consumed 1, at most 3 buffered, 1 in the worker's hand waiting for space
    assert len(produced) <= 1 + 3 + 1
    del it


def test_finished_iteration_stops_threads():
    gc.collect()
    base = _wait_threads(threading.active_count(), 0.5)
    assert [int(x) for x in D.range(20).map(lambda x: x, num_parallel_calls=2).prefetch(2)] == list(range(20))
    assert _wait_threads(base) == base


# --- checkpoint hooks ---------------------------------------------------------------------------------------

def test_iterator_state_resume_mid_epoch():
    ds = D.range(30).shuffle(10, seed=7).map(lambda x: x * 2).batch(4)
    it = iter(ds)
    first = [next(it).numpy().tolist() for _ in range(3)]
    state = it._save_state()
    import json

    state = json.loads(json.dumps(state))  # JSON-able
    rest = [b.numpy().tolist() for b in it]
    it2 = iter(ds)
    it2._restore_state(state)
    assert [b.numpy().tolist() for b in it2] == rest
    assert first + rest == [b.numpy().tolist() for b in iter(D.range(30).shuffle(10, seed=7).map(
        lambda x: x * 2).batch(4))]


def test_iterator_state_unseeded_shuffle_in_fresh_pipeline():
    ds = D.range(40).shuffle(40)
    it = iter(ds)
    _ = [int(next(it)) for _ in range(11)]
    state = it._save_state()
    rest = [int(x) for x in it]
    other = iter(D.range(40).shuffle(40))  # a new program's dataset: seeds come from the state
    other._restore_state(state)
    assert [int(x) for x in other] == rest


# --- ignore_errors / options / misc ------------------------------------------------------------------------

def test_ignore_errors_drops_failing_elements():
    ds = D.from_tensor_slices([1., 0., 2.]).map(lambda x: tf.debugging.check_numerics(1. / x, "bad"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(ds)
    assert [float(x) for x in ds.ignore_errors()] == [1.0, 0.5]
    assert [float(x) for x in ds.apply(tf.data.experimental.ignore_errors())] == [1.0, 0.5]


def test_options_merge():
    o = tf.data.Options()
    o.deterministic = False
    o.threading.private_threadpool_size = 3
    ds = D.range(3).with_options(o)
    o2 = tf.data.Options()
    o2.experimental_optimization.map_parallelization = True
    ds2 = ds.map(lambda x: x).with_options(o2)
    got = ds2.options()
    assert got.deterministic is False and got.threading.private_threadpool_size == 3
    assert got.experimental_optimization.map_parallelization is True
    assert D.range(1).options() == tf.data.Options()
    with pytest.raises(AttributeError):
        o.not_an_option = 1


def test_from_generator_checks_and_args():
    ds = D.from_generator(lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec([2], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="yielded an element of shape"):
        list(ds)
    ds = D.from_generator(lambda: iter([1.5]), output_signature=tf.TensorSpec([], tf.int32))
    assert [int(x) for x in ds] == [1]
    gen = D.from_generator(lambda n: iter(range(int(n))), output_types=tf.int64, args=(4,))
    assert [int(x) for x in gen] == [0, 1, 2, 3] and [int(x) for x in gen] == [0, 1, 2, 3]
    assert repr(gen.element_spec) == "TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)"


def test_assert_cardinality_and_experimental_aliases():
    ds = D.range(3).apply(tf.data.experimental.assert_cardinality(3))
    assert int(ds.cardinality()) == 3 and [int(x) for x in ds] == [0, 1, 2]
    bad = D.range(3).filter(lambda x: True).apply(tf.data.experimental.assert_cardinality(5))
    with pytest.raises(tf.errors.FailedPreconditionError, match="expected to contain 5 elements"):
        list(bad)
    assert [int(x) for x in D.range(5).apply(tf.data.experimental.take_while(lambda x: x < 2))] == [0, 1]
    assert tf.data.experimental.AUTOTUNE == tf.data.AUTOTUNE == -1
    assert [int(x) for x in tf.data.experimental.Counter().take(2)] == [0, 1]
    assert [x.numpy().tolist() for x in tf.data.experimental.from_list([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def test_dataset_spec():
    spec = D.range(3).window(2).element_spec
    assert repr(spec) == "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    assert spec.is_compatible_with(D.range(9)) and not spec.is_compatible_with(D.from_tensor_slices([1.]))
    assert tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)) == spec


def test_reduce_and_single_element():
    s = D.from_tensor_slices([1., 2., 3.]).reduce((0., 0), lambda st, x: (st[0] + x, st[1] + 1))
    assert float(s[0]) == 6.0 and int(s[1]) == 3
    assert D.from_tensors({"a": 1}).get_single_element()["a"].numpy() == 1
