"""One worker of a 2-process MultiWorkerMirroredStrategy (TF_CONFIG set by test_multi_worker.py).

Trains the same linear model as mirrored_program.py's custom loop on its slice of each global batch and prints
the final weights and the globally reduced losses as JSON.
"""

import json
import sys

import numpy as np

import tensorlet as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 5)).astype(np.float32)
y = (x @ np.arange(5.0) + 1).astype(np.float32)[:, None]
with strategy.scope():
    w = tf.Variable(np.ones((5, 1), np.float32))
    b = tf.Variable(np.zeros((1,), np.float32))
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
it = iter(strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(16, drop_remainder=True).repeat()))


def step(xb, yb):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum((tf.matmul(xb, w) + b - yb) ** 2, axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b]))
    return loss


losses = []
for _ in range(10):
    per_replica = strategy.run(step, args=next(it))
    losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)))
resolver = strategy.cluster_resolver
result = {"w": w.numpy().ravel().tolist(), "b": b.numpy().tolist(), "losses": losses,
          "replicas": strategy.num_replicas_in_sync, "task": [resolver.task_type, resolver.task_id],
          "chief": strategy.should_checkpoint}

# Keras fit / evaluate / predict across the two workers (each passes the whole data; each takes its replicas'
# slice of every global batch)
rng = np.random.default_rng(1)
kx = rng.normal(size=(96, 12)).astype(np.float32)
ky = rng.integers(0, 3, size=(96,)).astype(np.int32)
with strategy.scope():
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
hist = model.fit(kx, ky, batch_size=16, epochs=2, shuffle=False, verbose=0)
result["fit"] = {"weights": [v.numpy().ravel().tolist() for v in model.weights], "history": hist.history,
                 "evaluate": model.evaluate(kx, ky, batch_size=32, verbose=0, return_dict=True),
                 "predict": model.predict(kx[:32], batch_size=16, verbose=0).ravel().tolist()}
print(json.dumps(result))
sys.stdout.flush()
