"""Peer files for benchmarks/bench_lite.py: the same seed CNN, with the same weights, converted by real
TensorFlow's TFLiteConverter (float, dynamic range, float16, full int8).  Run by hand with TensorFlow:

    python benchmarks/bench_lite.py --save-weights /tmp/lite_peer/weights.npz
    /path/to/tf/python tools/record_tf_goldens/lite_peer.py /tmp/lite_peer
    python benchmarks/bench_lite.py --peer-dir /tmp/lite_peer
"""

import os
import sys

import numpy as np
import tensorflow as tf

out = sys.argv[1]
w = np.load(os.path.join(out, "weights.npz"))
keras = tf.keras
model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
    keras.layers.Dropout(0.25), keras.layers.Dense(10, activation="softmax")])
model.set_weights([w[f"w{i}"] for i in range(len(w.files) - 1)])
calib = w["calib"]


def rep():
    for i in range(0, len(calib), 10):
        yield [calib[i:i + 10]]


def convert(mode):
    c = tf.lite.TFLiteConverter.from_keras_model(model)
    if mode != "float":
        c.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode == "float16":
        c.target_spec.supported_types = [tf.float16]
    if mode == "int8":
        c.representative_dataset = rep
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    return c.convert()


for mode in ("float", "dynamic", "float16", "int8"):
    with open(os.path.join(out, f"{mode}.tflite"), "wb") as f:
        f.write(convert(mode))
print("wrote", out)
