"""``keras.datasets.cifar10``: 50,000 + 10,000 32x32 colour images in 10 classes (Keras's cache
``~/.keras/datasets/cifar-10-batches-py-target/cifar-10-batches-py/``)."""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.keras.datasets.cifar import channels_last, load_batch
from tensorlet._src.keras.utils import file_utils
from tensorlet._src.ops.registry import tf_export

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


@tf_export("keras.datasets.cifar10.load_data")
def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 ``(n, 32, 32, 3)`` (channels-last) and uint8 ``(n, 1)``."""
    path = file_utils.get_file(fname="cifar-10-batches-py-target", origin=ORIGIN, extract=True, file_hash=FILE_HASH)
    path = os.path.join(path, "cifar-10-batches-py")
    n = 50000
    x_train = np.empty((n, 3, 32, 32), dtype="uint8")
    y_train = np.empty((n,), dtype="uint8")
    for i in range(1, 6):
        x_train[(i - 1) * 10000: i * 10000], y_train[(i - 1) * 10000: i * 10000] = \
            load_batch(os.path.join(path, f"data_batch_{i}"))
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(np.asarray(y_test), (len(y_test), 1))
    if channels_last():
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))
