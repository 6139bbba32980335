"""The TF eager guide's MNIST CNN (seed 000), trained with Keras ``fit``.

Conv2D 16 -> Conv2D 16 -> GlobalAveragePooling2D -> Dense 10, as in the guide.  Prints the test accuracy and
writes ``loss.png`` (matplotlib) and TensorBoard logs under ``logs/mnist_cnn``.  This small global-pooling
network learns slowly (the guide's point is the API, not the score); ``tensorlet demo`` trains the classic
Conv-Pool-Conv-Pool-Dense CNN to >= 95%.

    tensorlet run examples/mnist_cnn.py [--epochs 8]      # or: python examples/mnist_cnn.py with TensorFlow
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import tensorflow as tf  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=8)
ap.add_argument("--train-images", type=int, default=None, help="use only the first N training images")
args = ap.parse_args()

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
x_train, y_train = x_train[:args.train_images], y_train[:args.train_images]
x_train = (x_train[..., tf.newaxis] / 255).astype("float32")
x_test = (x_test[..., tf.newaxis] / 255).astype("float32")

tf.keras.utils.set_random_seed(1)
model = tf.keras.Sequential([
    tf.keras.Input(shape=(None, None, 1)),
    tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
    tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dense(10),
])
model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
history = model.fit(x_train, y_train, batch_size=32, epochs=args.epochs, validation_data=(x_test, y_test),
                    callbacks=[tf.keras.callbacks.TensorBoard(log_dir="logs/mnist_cnn")], verbose=2)

plt.plot(history.history["loss"], label="train")
plt.plot(history.history["val_loss"], label="test")
plt.xlabel("Epoch")
plt.ylabel("Loss [entropy]")
plt.legend()
plt.savefig("loss.png")

loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy: {accuracy:.3f}")
