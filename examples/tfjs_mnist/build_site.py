"""Builds and serves the MNIST web page: trains the seed CNN briefly on the bundled MNIST sample, exports it in
TF.js's Layers format, and assembles a static site (index.html, app.js, model/, digits.json, tfjs/tf.min.js from a
local @tensorflow/tfjs copy: nothing is fetched from the network).

    python examples/tfjs_mnist/build_site.py SITE_DIR [--tfjs node_modules/@tensorflow/tfjs] [--serve PORT]

Then open http://localhost:PORT/ (``--serve``), or serve SITE_DIR with ``python -m http.server``.
"""

import argparse
import functools
import http.server
import json
import os
import shutil


import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TFJS = os.path.join(HERE, "..", "..", "tests", "tfjs", "node_modules", "@tensorflow", "tfjs")


def seed_cnn(keras):
    keras.utils.set_random_seed(0)
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dropout(0.25), keras.layers.Dense(10, activation="softmax")])


def build_site(site, model=None, samples=None, tfjs_dir=DEFAULT_TFJS, train_images=1600):
    """Writes the site into ``site``; returns (model, sample images, labels)."""
    keras = tf.keras
    (xt, yt), (xs, ys) = keras.datasets.mnist.load_data()
    if model is None:
        model = seed_cnn(keras)
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit((xt[:train_images, ..., None] / 255).astype("float32"), yt[:train_images], batch_size=32,
                  epochs=1, verbose=0)
    n = samples or 20
    x = (xs[:n, ..., None] / 255).astype("float32")
    y = ys[:n]
    src = os.path.join(tfjs_dir, "dist", "tf.min.js")
    if not os.path.exists(src):
        raise FileNotFoundError(f"{src} not found: run `npm ci` in tests/tfjs (or pass --tfjs DIR).")
    os.makedirs(os.path.join(site, "tfjs"), exist_ok=True)
    shutil.copy(src, os.path.join(site, "tfjs", "tf.min.js"))
    for f in ("index.html", "app.js"):
        shutil.copy(os.path.join(HERE, f), os.path.join(site, f))
    tf.tfjs.converters.save_keras_model(model, os.path.join(site, "model"))
    with open(os.path.join(site, "digits.json"), "w") as f:
        json.dump({"pixels": [round(float(v), 6) for v in x.reshape(-1)], "labels": [int(v) for v in y]}, f)
    return model, x, y


def serve(site, port):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
        print(f"serving {site} at http://127.0.0.1:{httpd.server_address[1]}/")
        httpd.serve_forever()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("site")
    ap.add_argument("--tfjs", default=DEFAULT_TFJS)
    ap.add_argument("--serve", type=int, default=None, metavar="PORT")
    a = ap.parse_args()
    _, x, _ = build_site(a.site, tfjs_dir=a.tfjs)
    print(f"wrote {a.site}")
    if a.serve is not None:
        serve(a.site, a.serve)
