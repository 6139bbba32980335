"""``tensorlet demo``: the README's main job -- a Keras CNN learns MNIST offline, on the bundled 5,000 images.

Conv2D 32 -> MaxPool -> Conv2D 64 -> MaxPool -> Flatten -> Dropout -> Dense 10, trained with ``model.fit`` on
4,000 images (Keras progress bar), tested on the 1,000 held out; writes the loss/accuracy plot and TensorBoard
logs.  ``tensorlet tour`` is the short tour of tensors, dtype rules and errors.
"""

from __future__ import annotations

import os
import time

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mnist_5k.npz")


def load_sample(path=None):
    """The bundled MNIST sample split as ``keras.datasets.mnist.load_data()`` splits it offline: the last fifth
    of each digit is the test set.  Images are float32 in [0, 1], shape ``(n, 28, 28, 1)``."""
    import numpy as np

    with np.load(path or SAMPLE, allow_pickle=False) as f:
        x, y = f["x"], f["y"].astype(np.int64)
    test = np.zeros(len(y), dtype=bool)
    for digit in range(10):
        idx = np.flatnonzero(y == digit)
        test[idx[len(idx) - len(idx) // 5:]] = True
    x = (x[..., None] / 255.0).astype(np.float32)
    return (x[~test], y[~test]), (x[test], y[test])


def build_model(keras):
    """The demo's CNN (the classic Keras MNIST convnet)."""
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        keras.layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        keras.layers.MaxPooling2D(pool_size=(2, 2)),
        keras.layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        keras.layers.MaxPooling2D(pool_size=(2, 2)),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(10, activation="softmax"),
    ], name="mnist_cnn")


def save_plot(history, path):
    """Loss and accuracy per epoch (training and test) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = history.history
    epochs = range(1, len(h["loss"]) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, key, title in ((ax1, "loss", "loss"), (ax2, "accuracy", "accuracy")):
        ax.plot(epochs, h[key], "o-", label="train")
        if "val_" + key in h:
            ax.plot(epochs, h["val_" + key], "s--", label="test")
        ax.set_xlabel("epoch")
        ax.set_title(title)
        ax.legend()
    fig.suptitle("tensorlet: Keras CNN on MNIST")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def demo(out_dir=None, epochs=5, batch_size=32, data=None, seed=0) -> int:
    """Trains and reports; the last line is ``test accuracy: 0.9xx``."""
    t0 = time.perf_counter()
    import tensorlet as tf

    keras = tf.keras
    out_dir = os.path.abspath(out_dir or "tensorlet_demo_out")
    logdir = os.path.join(out_dir, "logs")
    plot = os.path.join(out_dir, "training.png")
    os.makedirs(out_dir, exist_ok=True)

    (x_train, y_train), (x_test, y_test) = load_sample(data)
    print(f"tensorlet {tf.__tensorlet_version__}: a Keras CNN learns MNIST, offline, on {len(x_train):,} images of the "
          f"bundled sample ({len(x_test):,} held out)")
    keras.utils.set_random_seed(seed)
    model = build_model(keras)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.summary()
    history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_data=(x_test, y_test),
                        callbacks=[keras.callbacks.TensorBoard(log_dir=logdir)])
    loss, acc = model.evaluate(x_test, y_test, verbose=0)
    save_plot(history, plot)
    print(f"\nplot:             {plot}")
    print(f"TensorBoard logs: {logdir}   (tensorboard --logdir {logdir})")
    print(f"test loss: {loss:.4f}   time: {time.perf_counter() - t0:.1f} s")
    print(f"test accuracy: {acc:.3f}")
    return 0


def tour(data=None) -> int:
    """A short tour: TF's tensors and dtype rules, errors that point at your line, gradients, and speed."""
    import numpy as np

    import tensorlet as tf

    print(f"tensorlet {tf.__tensorlet_version__}: TensorFlow's API, eager on NumPy\n")
    a = tf.constant([[1, 2], [3, 4]])
    print(a)
    print(a * (a + 1))
    print("matmul:", repr(tf.matmul([[2.0]], [[2.0]])))
    print("int / int is float64, as in TF:", repr(tf.constant(1) / tf.constant(2)))
    try:
        a + tf.constant(1.0)
    except tf.errors.InvalidArgumentError as e:
        print("\nmixing dtypes raises TF's error, naming the op:\n ", type(e).__name__ + ":", e)

    x = tf.Variable([1.0, 2.0, 3.0])
    x.assign_add([0.5, 0.5, 0.5])
    print("\nvariable:", x)

    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((784, 10)).astype(np.float32))
    with np.load(data or SAMPLE, allow_pickle=False) as f:
        images = f["x"][:256].reshape(256, 784).astype(np.float32) / 255.0
    logits = tf.matmul(tf.constant(images), w)
    print("logits for 256 MNIST images:", logits.shape, logits.dtype.name, "\n")

    # gradients: fit y = 3x + 2 with a GradientTape (seed 000's linear regression)
    xs = tf.constant(rng.standard_normal(1000).astype(np.float32))
    ys = xs * 3.0 + 2.0 + tf.constant(rng.standard_normal(1000).astype(np.float32) * 0.1)
    w, b = tf.Variable(5.0), tf.Variable(10.0)
    for step in range(200):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(xs * w + b - ys))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * dw)
        b.assign_sub(0.05 * db)
        if step % 50 == 0:
            print(f"  step {step:3d}: loss {float(loss):.4f}")
    print(f"fitted W = {float(w):.3f}, B = {float(b):.3f} (true 3, 2)")

    p, q = tf.constant(np.ones((2, 2), np.float32)), tf.constant(np.ones((2, 2), np.float32))
    n = 100_000
    t = time.perf_counter()
    for _ in range(n):
        p + q
    print(f"\neager a + b (2x2 float32): {(time.perf_counter() - t) / n * 1e6:.2f} us per op (TensorFlow: ~16 us)")
    return 0
