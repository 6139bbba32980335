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


def test_device_configuration_errors_as_tf():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(KeyError):
        tf.config.experimental.get_memory_growth(cpu)
    # TF 2.21's CPU allocator keeps no stats: zeros (recorded with real TF), and an absent CPU is refused
    assert tf.config.experimental.get_memory_info("CPU:0") == {"current": 0, "peak": 0}
    assert tf.config.experimental.get_memory_info("/device:CPU:0") == {"current": 0, "peak": 0}
    with pytest.raises(ValueError, match="No matching devices found for 'CPU:1'"):
        tf.config.experimental.get_memory_info("CPU:1")
    with pytest.raises(ValueError, match="No matching devices found for 'GPU:0'"):
        tf.config.experimental.get_memory_info("GPU:0")
    with pytest.raises(ValueError, match="LogicalDeviceConfiguration"):
        tf.config.set_logical_device_configuration(cpu, ["not a configuration"])
