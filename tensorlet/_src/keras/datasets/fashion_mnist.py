"""``keras.datasets.fashion_mnist``: 60,000 + 10,000 28x28 clothing images (Keras's four gzip'ed IDX files in
``~/.keras/datasets/fashion-mnist/``)."""

from __future__ import annotations

import gzip
import os

import numpy as np

from tensorlet._src.keras.utils import file_utils
from tensorlet._src.ops.registry import tf_export

BASE = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FILES = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz"]


@tf_export("keras.datasets.fashion_mnist.load_data")
def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(n, 28, 28)`` and uint8 labels ``(n,)``."""
    dirname = os.path.join("datasets", "fashion-mnist")
    paths = [file_utils.get_file(fname, origin=BASE + fname, cache_subdir=dirname) for fname in FILES]
    with gzip.open(paths[0], "rb") as f:
        y_train = np.frombuffer(f.read(), np.uint8, offset=8)
    with gzip.open(paths[1], "rb") as f:
        x_train = np.frombuffer(f.read(), np.uint8, offset=16).reshape(len(y_train), 28, 28)
    with gzip.open(paths[2], "rb") as f:
        y_test = np.frombuffer(f.read(), np.uint8, offset=8)
    with gzip.open(paths[3], "rb") as f:
        x_test = np.frombuffer(f.read(), np.uint8, offset=16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
