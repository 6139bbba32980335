"""Map-and-batch fusion and vectorized parallel-map chunks (data/vectorize.py, data/map_batch.py): a traced
function runs once over stacked elements where that gives the per-element results, and per element otherwise
(TF's ``map_and_batch_fusion`` option, asserts, py_function, variables written, unknown shapes)."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.data import vectorize

D = tf.data.Dataset
X = np.random.default_rng(0).normal(size=(70, 4, 3)).astype(np.float32)


@pytest.fixture
def calls(monkeypatch):
    """Vectorize from the first element on; counts the vectorized calls and their elements."""
    monkeypatch.setattr(vectorize, "MIN_ELEMENTS", 0)
    got = []
    orig = vectorize.Vectorized.call_stacked

    def counted(self, cols, size=None):
        got.append(len(cols[0]))
        return orig(self, cols, size)

    monkeypatch.setattr(vectorize.Vectorized, "call_stacked", counted)
    return got


def _f(a):
    return tf.reduce_sum(tf.square(a), axis=0) / (1.0 + tf.reduce_mean(a)), tf.cast(tf.argmax(a[0]), tf.int32)


def _ref(a):
    return np.sum(a * a, 0) / (1.0 + a.mean()), np.int32(np.argmax(a[0]))


def _no_fusion():
    o = tf.data.Options()
    o.experimental_optimization.map_and_batch_fusion = False
    return o


@pytest.mark.parametrize("drop,plan", [(False, True), (True, True), (False, False)])
def test_map_batch_fused_matches_numpy_and_unfused(calls, drop, plan):
    src = D.from_tensor_slices(X)  # an index plan: each batch's inputs gathered at once
    ds = (src if plan else src.map(tf.identity)).map(_f).batch(16, drop_remainder=drop)
    assert ds.element_spec[0].shape.as_list() == [16 if drop else None, 3]
    got = list(ds)
    assert calls == [16, 16, 16, 16, 6]  # one call per batch, the short one padded (and dropped with drop)
    n = 64 if drop else 70
    assert [int(b[0].shape[0]) for b in got] == [16] * 4 + ([] if drop else [6])
    ref = [_ref(a) for a in X[:n]]
    np.testing.assert_allclose(np.concatenate([b[0].numpy() for b in got]), np.stack([r[0] for r in ref]),
                               rtol=1e-5)
    idx = np.concatenate([b[1].numpy() for b in got])
    assert idx.dtype == np.int32 and np.array_equal(idx, [r[1] for r in ref])
    calls.clear()
    plain = list(ds.with_options(_no_fusion()))
    assert calls == []
    np.testing.assert_allclose(np.concatenate([b[0].numpy() for b in plain]),
                               np.concatenate([b[0].numpy() for b in got]), rtol=1e-6)


def test_options_turn_fusion_off_as_tf_does(calls):
    ds = D.from_tensor_slices(X).map(_f).batch(8)
    off = tf.data.Options()
    off.experimental_optimization.apply_default_optimizations = False
    list(ds.with_options(off))  # default optimizations off: map_and_batch_fusion is too
    list(D.from_tensor_slices(X).with_options(_no_fusion()).map(_f).batch(8))  # upstream of the map
    assert calls == []
    on = tf.data.Options()
    on.experimental_optimization.apply_default_optimizations = False
    on.experimental_optimization.map_and_batch_fusion = True  # explicitly enabled
    list(ds.with_options(on))
    assert len(calls) == 9


def test_parallel_map_batch_and_parallel_chunks(calls):
    ds = D.from_tensor_slices(X).map(_f, num_parallel_calls=2).batch(10)
    got = np.concatenate([b[0].numpy() for b in ds])
    assert calls == [10] * 7
    np.testing.assert_allclose(got, np.stack([_ref(a)[0] for a in X]), rtol=1e-5)
    calls.clear()
    el = D.from_tensor_slices(X).map(_f, num_parallel_calls=2)
    vals = [v[0].numpy() for v in el]
    assert calls == [16, 16, 16, 16, 6]  # chunks of elements, each one call
    np.testing.assert_allclose(np.stack(vals), np.stack([_ref(a)[0] for a in X]), rtol=1e-5)


def test_random_draws_as_sequential_calls_and_distinct_in_workers(calls):
    ds = D.range(100).map(lambda v: tf.random.uniform([3]) + tf.cast(v, tf.float32)).batch(32)
    counter = ds._input._fn._concrete.graph.variables[0]
    runs = []
    for opts in (None, _no_fusion()):
        counter.assign(np.uint64(7 << 20))
        runs.append(np.concatenate([b.numpy() for b in (ds if opts is None else ds.with_options(opts))]))
        runs[-1] = (runs[-1], int(counter.numpy()))
    (fused, c1), (plain, c2) = runs
    assert calls == [32, 32, 32, 4]
    assert np.array_equal(fused, plain) and c1 == c2  # the same numbers, the counter advanced alike
    par = D.range(2000).map(lambda v: tf.random.uniform([2], dtype=tf.float64), num_parallel_calls=2)
    draws = np.stack([v.numpy() for v in par])
    assert len(np.unique(draws[:, 0])) == 2000


def _checked(a):
    tf.debugging.assert_less(tf.reduce_max(a), 2.5, message="too big")
    return a * 2.0


def test_functions_with_effects_or_state_run_per_element(calls):
    bad = int(np.argmax(X.reshape(70, -1).max(1) >= 2.5))
    assert X[:bad].max() < 2.5
    got = []
    with pytest.raises(tf.errors.InvalidArgumentError, match="too big"):
        for b in D.from_tensor_slices(X).map(_checked).batch(8):
            got.append(b)
    assert len(got) == bad // 8  # the error comes with the batch holding its element
    kept = np.concatenate([b.numpy() for b in D.from_tensor_slices(X).map(_checked).batch(8).ignore_errors()])
    ok = X.reshape(70, -1).max(1) < 2.5
    np.testing.assert_allclose(kept, 2.0 * X[ok])  # only the failing elements dropped

    total = tf.Variable(0.0)

    def count(a):
        total.assign_add(tf.reduce_sum(a))
        return a

    list(D.from_tensor_slices(X).map(count).batch(8))
    np.testing.assert_allclose(total.numpy(), X.sum(), rtol=1e-4)
    py = D.from_tensor_slices(X).map(lambda a: tf.py_function(lambda t: t * 2, [a], tf.float32)).batch(8)
    assert sum(int(b.shape[0]) for b in py) == 70
    ragged = D.from_generator(lambda: (np.ones([i % 3 + 1], np.float32) for i in range(20)),
                              output_signature=tf.TensorSpec([None], tf.float32)).map(tf.reduce_sum).batch(4)
    assert np.array_equal(np.concatenate([b.numpy() for b in ragged]), [i % 3 + 1 for i in range(20)])
    assert calls == []


def test_variables_read_at_each_batch(calls):
    w = tf.Variable(2.0)
    ds = D.from_tensor_slices(X).map(lambda a: a * w).batch(35)
    first = np.concatenate([b.numpy() for b in ds])
    w.assign(3.0)
    second = np.concatenate([b.numpy() for b in ds])
    np.testing.assert_allclose(first, 2.0 * X)
    np.testing.assert_allclose(second, 3.0 * X)
    assert calls == [35, 35, 35, 35]


def test_a_function_jax_cannot_batch_falls_back(calls, monkeypatch):
    def fail(self):
        raise RuntimeError("no batching rule")

    monkeypatch.setattr(vectorize.Vectorized, "_compile", fail)
    ds = D.from_tensor_slices(X).map(_f).batch(16)
    got = np.concatenate([b[0].numpy() for b in ds])
    np.testing.assert_allclose(got, np.stack([_ref(a)[0] for a in X]), rtol=1e-5)
    assert calls == [16]  # tried once, then element by element
    assert vectorize.vectorized(ds._input._fn) is None


def test_short_datasets_are_not_vectorized():
    ds = D.from_tensor_slices(X[:40]).map(_f).batch(8)
    list(ds)
    v = vectorize.vectorized(ds._input._fn)
    assert v is not None and not v.ready  # fewer than MIN_ELEMENTS elements: no extra compilation
    for _ in range(2):  # from the 64th element on (in the second epoch): vectorized
        np.testing.assert_allclose(np.concatenate([b[0].numpy() for b in ds]),
                                   np.stack([_ref(a)[0] for a in X[:40]]), rtol=1e-5)
        assert v.ready and v._jitted is not None


def test_large_batches_run_in_pieces(calls, monkeypatch):
    monkeypatch.setattr(vectorize, "MAX_GROUP", 16)
    ds = D.from_tensor_slices(X).map(_f).batch(40)
    got = list(ds)
    assert [int(b[0].shape[0]) for b in got] == [40, 30]
    assert calls == [40, 16, 16, 8, 30, 16, 14]  # each batch: its pieces of at most 16 (the last one padded)
    np.testing.assert_allclose(np.concatenate([b[0].numpy() for b in got]), np.stack([_ref(a)[0] for a in X]),
                               rtol=1e-5)


def test_shuffled_plan_keeps_the_unfused_order(calls):
    def make():  # the first iteration of a fresh pipeline: the same seeds
        return D.from_tensor_slices(X).shuffle(50, seed=3).map(_f).batch(16)

    fused = np.concatenate([b[0].numpy() for b in make()])
    assert len(calls) == 5
    plain = np.concatenate([b[0].numpy() for b in make().with_options(_no_fusion())])
    np.testing.assert_allclose(fused, plain, rtol=1e-6)
    assert not np.allclose(fused, np.stack([_ref(a)[0] for a in X]))  # shuffled


@pytest.mark.parametrize("workers", [None, 2])
def test_input_error_after_the_batches_read_before_it(calls, workers):
    def gen():
        yield from X[:40]
        raise ValueError("input broke")

    src = D.from_generator(gen, output_signature=tf.TensorSpec([4, 3], tf.float32))
    got = []
    with pytest.raises(Exception, match="input broke"):
        for b in src.map(_f, num_parallel_calls=workers).batch(16):
            got.append(b[0].numpy())
    assert len(got) == 2  # the two full batches before the failing read, in order
    np.testing.assert_allclose(np.concatenate(got), np.stack([_ref(a)[0] for a in X[:32]]), rtol=1e-5)
