"""The TF eager guide's custom training loop (seed 000): a ``GradientTape`` step over a ``tf.data`` pipeline.

The guide's loop, written with TF 2 names: ``tf.data`` shuffles and batches MNIST, each step computes the loss
under a ``GradientTape`` and applies the gradients; the step is compiled with ``tf.function``.  Prints the loss
as it goes down, then the test accuracy.  (The model pools and flattens instead of the guide's global average
pooling, which learns too slowly to show anything in a minute.)

    tensorlet run examples/custom_training_loop.py [--steps 600]
"""

import argparse

import tensorflow as tf

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=600)
args = ap.parse_args()

(mnist_images, mnist_labels), (test_images, test_labels) = tf.keras.datasets.mnist.load_data()
dataset = tf.data.Dataset.from_tensor_slices(
    (tf.cast(mnist_images[..., tf.newaxis] / 255, tf.float32), tf.cast(mnist_labels, tf.int64)))
dataset = dataset.shuffle(10000, seed=0).batch(32).repeat()

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([
    tf.keras.Input(shape=(28, 28, 1)),
    tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Conv2D(32, [3, 3], activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(10),
])
optimizer = tf.keras.optimizers.Adam(0.001)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss_value = loss_fn(labels, logits)
    grads = tape.gradient(loss_value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss_value


loss_history = []
for batch, (images, labels) in enumerate(dataset.take(args.steps)):
    loss_history.append(float(train_step(images, labels)))
    if batch % 100 == 0:
        print(f"step {batch:4d}: loss {loss_history[-1]:.3f}")

first, last = sum(loss_history[:20]) / 20, sum(loss_history[-20:]) / 20
print(f"mean loss of the first 20 steps {first:.3f}, of the last 20 steps {last:.3f}")
logits = model(tf.cast(test_images[..., tf.newaxis] / 255, tf.float32))
accuracy = tf.reduce_mean(tf.cast(tf.argmax(logits, axis=1) == tf.cast(test_labels, tf.int64), tf.float32))
print(f"test accuracy: {float(accuracy):.3f}")
