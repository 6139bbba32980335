"""A worker of a 2-process cluster training with BackupAndRestore (test_multi_worker.py runs it twice).

argv: backup_dir, "die" (worker 1 dies when epoch 2 begins: the chief must fail with a clear UnavailableError
within a bounded time, never hang) or "resume".  Prints the final weights (or the chief's error) as JSON.
"""

import json
import os
import sys
import time

import numpy as np

import tensorlet as tf

backup_dir, mode = sys.argv[1], sys.argv[2]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
me = strategy.cluster_resolver.task_id
rng = np.random.default_rng(7)
x = rng.normal(size=(64, 6)).astype(np.float32)
y = rng.normal(size=(64, 1)).astype(np.float32)
with strategy.scope():
    tf.keras.utils.set_random_seed(11)
    model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")


class DieAtEpoch2(tf.keras.callbacks.Callback):
    """Worker 1 dies without a word when epoch 2 begins; the chief times its failing step."""

    def on_epoch_begin(self, epoch, logs=None):
        if mode == "die" and me == 1 and epoch == 2:
            os._exit(0)

    def on_train_batch_begin(self, batch, logs=None):
        self.started = time.time()


clock = DieAtEpoch2()
try:
    model.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0,
              callbacks=[tf.keras.callbacks.BackupAndRestore(backup_dir), clock])
except tf.errors.UnavailableError as e:
    print(json.dumps({"error": str(e)[:300], "seconds": time.time() - clock.started}), flush=True)
    os._exit(3)
print(json.dumps({"weights": [w.numpy().ravel().tolist() for w in model.weights]}), flush=True)
os._exit(0)
