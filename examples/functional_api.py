"""A Keras functional-API model: two branches over the same input, merged, with a residual connection.

Classifies MNIST digits from flattened pixels; prints the summary, trains with ``fit``, evaluates, and checks
that a model rebuilt from its config gives the same predictions once the weights are copied.

    tensorlet run examples/functional_api.py [--epochs 5]
"""

import argparse

import numpy as np
import tensorflow as tf

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=5)
args = ap.parse_args()

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype("float32") / 255
x_test = x_test.reshape(-1, 784).astype("float32") / 255

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(784,), name="pixels")
wide = tf.keras.layers.Dense(128, activation="relu", name="wide")(inputs)
narrow = tf.keras.layers.Dense(32, activation="tanh", name="narrow")(inputs)
merged = tf.keras.layers.concatenate([wide, narrow], name="merge")
hidden = tf.keras.layers.Dense(160, activation="relu", name="hidden")(merged)
residual = tf.keras.layers.Add(name="residual")([merged, hidden])
dropped = tf.keras.layers.Dropout(0.2)(residual)
outputs = tf.keras.layers.Dense(10, activation="softmax", name="digit")(dropped)
model = tf.keras.Model(inputs=inputs, outputs=outputs, name="two_branch_mlp")
model.summary()

model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=64, epochs=args.epochs, validation_data=(x_test, y_test), verbose=2)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)

clone = tf.keras.Model.from_config(model.get_config())
clone.set_weights(model.get_weights())
same = np.allclose(clone.predict(x_test[:8], verbose=0), model.predict(x_test[:8], verbose=0), atol=1e-6)
print(f"rebuilt from config, same predictions: {same}")
print(f"test accuracy: {accuracy:.3f}")
