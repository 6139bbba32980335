"""tf.distribute strategies (single replica): scope, run, reduce, datasets, Keras fit under a scope."""

import numpy as np
import pytest

import tensorlet as tf


def test_mirrored_strategy_single_replica_runs_keras_fit():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
        model.compile(optimizer="sgd", loss="mse")
    assert not tf.distribute.has_strategy()
    xs = np.linspace(-1, 1, 64).astype(np.float32)[:, None]
    ds = tf.data.Dataset.from_tensor_slices((xs, 3 * xs + 1)).batch(16)
    hist = model.fit(strategy.experimental_distribute_dataset(ds), epochs=3, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_run_and_reduce():
    s = tf.distribute.MirroredStrategy()
    per_replica = s.run(lambda x: x * 2.0, args=(tf.constant([1.0, 2.0, 3.0]),))
    np.testing.assert_allclose(s.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None).numpy(), [2, 4, 6])
    assert float(s.reduce("SUM", per_replica, axis=0)) == 12.0
    assert float(s.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=0)) == 4.0
    ctx = tf.distribute.InputContext(num_replicas_in_sync=2)
    assert ctx.get_per_replica_batch_size(64) == 32
    with pytest.raises(ValueError):
        ctx.get_per_replica_batch_size(63)


def test_multi_worker_without_cluster_is_one_worker(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert tf.distribute.MultiWorkerMirroredStrategy().num_replicas_in_sync == 1
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0}}')
    with pytest.raises(NotImplementedError, match="multi-worker"):
        tf.distribute.MultiWorkerMirroredStrategy()
