"""Run by test_mirrored.py in a fresh process whose CPU is split into 4 logical devices (before jax starts).

Prints one JSON object of results; the test compares them with single-replica runs and with TF's semantics.
"""

import json
import os
import tempfile

import numpy as np

import tensorlet as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
out = {"logical": [d.name for d in tf.config.list_logical_devices("CPU")]}


def strategy(n):
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])


def custom_loop(n, steps=10):
    """Linear regression with SGD: per-replica losses scaled to the global batch, gradients summed over replicas."""
    s = strategy(n)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y = (x @ np.arange(5.0) + 1).astype(np.float32)[:, None]
    with s.scope():
        w = tf.Variable(np.ones((5, 1), np.float32))
        b = tf.Variable(np.zeros((1,), np.float32))
        opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    it = iter(s.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(16, drop_remainder=True).repeat()))

    def step(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((tf.matmul(xb, w) + b - yb) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss

    losses = []
    for _ in range(steps):
        per_replica = s.run(step, args=next(it))
        losses.append(float(s.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)))
    return {"w": w.numpy().ravel().tolist(), "b": b.numpy().tolist(), "losses": losses,
            "iterations": int(opt.iterations.numpy())}


def keras_fit(n, steps=10):
    """Keras compile/fit/evaluate/predict under scope(): the seed's MNIST-style MLP on a fixed global batch."""
    s = strategy(n)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(160, 12)).astype(np.float32)
    y = rng.integers(0, 3, size=(160,)).astype(np.int32)
    with s.scope():
        tf.keras.utils.set_random_seed(3)
        model = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(16, activation="relu"),
                                     tf.keras.layers.Dense(3)])
        model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    hist = model.fit(x, y, batch_size=16, epochs=1, steps_per_epoch=steps, shuffle=False, verbose=0)
    ev = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
    pred = model.predict(x[:40], batch_size=20, verbose=0)
    return {"weights": [w.numpy().ravel().tolist() for w in model.weights], "history": hist.history,
            "evaluate": ev, "predict": pred.ravel().tolist(), "strategy_ok": model.distribute_strategy is s}


def sync_batchnorm(n):
    """BatchNormalization(synchronized=True): statistics of the global batch, so the same as one replica."""
    s = strategy(n)
    rng = np.random.default_rng(2)
    x = (rng.normal(size=(32, 6)) * np.arange(1, 7) + np.arange(6)).astype(np.float32)
    y = rng.normal(size=(32, 1)).astype(np.float32)
    with s.scope():
        tf.keras.utils.set_random_seed(4)
        model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.BatchNormalization(synchronized=True),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    return [w.numpy().ravel().tolist() for w in model.weights]


def function_loop(n, steps=5):
    """strategy.run inside a tf.function (the replica program compiled into the outer function)."""
    s = strategy(n)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)
    with s.scope():
        w = tf.Variable(np.ones((3, 1), np.float32))
        opt = tf.keras.optimizers.Adam(0.1)

    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((tf.matmul(xb, w) - yb) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    @tf.function
    def train(xg, yg):
        k = 16 // n
        per_replica = s.experimental_distribute_values_from_function(
            lambda ctx: (xg[ctx.replica_id_in_sync_group * k:(ctx.replica_id_in_sync_group + 1) * k],
                         yg[ctx.replica_id_in_sync_group * k:(ctx.replica_id_in_sync_group + 1) * k]))
        return s.reduce(tf.distribute.ReduceOp.SUM, s.run(replica_step, args=per_replica), axis=None)

    losses = [float(train(x, y)) for _ in range(steps)]
    # TF's distributed custom-training-loop idiom: next() of a distributed iterator inside the tf.function
    batches = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16, drop_remainder=True)
    it = iter(s.experimental_distribute_dataset(batches))

    @tf.function
    def train_from_iterator(iterator):
        return s.reduce(tf.distribute.ReduceOp.SUM, s.run(replica_step, args=next(iterator)), axis=None)

    losses += [float(train_from_iterator(it)) for _ in range(steps)]

    # ... and the other idiom: per-replica batches passed into the tf.function (composite arguments)
    @tf.function
    def train_batch(batch):
        return s.reduce(tf.distribute.ReduceOp.SUM, s.run(replica_step, args=batch), axis=None)

    for batch in s.experimental_distribute_dataset(batches.take(steps)):
        losses.append(float(train_batch(batch)))
    return {"w": w.numpy().ravel().tolist(), "losses": losses,
            "traces": [f.experimental_get_tracing_count() for f in (train, train_from_iterator, train_batch)]}


def checkpoint_roundtrip():
    """Variables updated under the strategy save and restore through checkpoints."""
    s = strategy(2)
    with s.scope():
        v = tf.Variable(np.zeros((2,), np.float32))
    s.run(lambda: v.assign_add([1.0, 2.0]))
    path = tf.train.Checkpoint(v=v).save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    restored = tf.Variable(np.zeros((2,), np.float32))
    tf.train.Checkpoint(v=restored).restore(path)
    return restored.numpy().tolist()


out["checkpoint"] = checkpoint_roundtrip()
for n in (1, 2, 4):
    out[f"fn{n}"] = function_loop(n)
    out[f"loop{n}"] = custom_loop(n)

    out[f"fit{n}"] = keras_fit(n)
    out[f"bn{n}"] = sync_batchnorm(n)

s = strategy(2)
values = s.experimental_distribute_values_from_function(
    lambda ctx: tf.constant([float(ctx.replica_id_in_sync_group)]))


def collectives(x):
    ctx = tf.distribute.get_replica_context()
    summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, x)
    mean = ctx.all_reduce("MEAN", x)
    gathered = ctx.all_gather(x, axis=0)
    rid = ctx.replica_id_in_sync_group
    return {"sum": summed + tf.cast(rid, tf.float32), "mean": mean, "gathered": gathered,
            "cross": tf.constant(tf.distribute.in_cross_replica_context())}


def merged(x):
    ctx = tf.distribute.get_replica_context()
    return ctx.merge_call(lambda strategy, v: strategy.reduce("SUM", v, axis=None) + strategy.gather(v, 0)[1],
                          args=(x * 2.0,))


out["merge_call"] = [v.numpy().tolist() for v in s.run(merged, args=(values,)).values]
r = s.run(collectives, args=(values,))
out["values_repr"] = repr(values)
out["sum"] = [v.numpy().tolist() for v in s.experimental_local_results(r["sum"])]
out["mean"] = [v.numpy().tolist() for v in r["mean"].values]
out["gathered"] = [v.numpy().tolist() for v in r["gathered"].values]
out["cross_in_run"] = [bool(v.numpy()) for v in r["cross"].values]
out["reduce_sum"] = s.reduce("SUM", r["sum"], axis=None).numpy().tolist()
out["reduce_mean_axis0"] = float(s.reduce("MEAN", r["sum"], axis=0).numpy())
out["gather"] = s.gather(r["sum"], axis=0).numpy().tolist()
with s.scope():
    out["scope_ctx"] = [tf.distribute.get_replica_context() is None, tf.distribute.in_cross_replica_context()]
out["outside_ctx"] = [tf.distribute.get_replica_context() is not None, tf.distribute.in_cross_replica_context()]

# a variable with aggregation MEAN assigned per replica takes the mean of the replicas' values
with s.scope():
    m = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
s.run(lambda v: m.assign(tf.reduce_sum(v) * 10.0), args=(values,))
out["mean_var"] = float(m.numpy())

try:
    next(iter(s.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(5))))
except tf.errors.InvalidArgumentError as e:
    out["uneven"] = str(e)
try:
    tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:7"]).run(lambda: tf.constant(1.0))
except ValueError as e:
    out["missing_device"] = str(e)

print(json.dumps(out))
