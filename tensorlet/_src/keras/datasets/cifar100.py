"""``keras.datasets.cifar100``: 50,000 + 10,000 32x32 colour images in 100 fine / 20 coarse classes."""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.keras.datasets.cifar import channels_last, load_batch
from tensorlet._src.keras.utils import file_utils
from tensorlet._src.ops.registry import tf_export

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


@tf_export("keras.datasets.cifar100.load_data")
def load_data(label_mode="fine"):
    """``(x_train, y_train), (x_test, y_test)`` with ``label_mode`` ``"fine"`` (100) or ``"coarse"`` (20)."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    path = file_utils.get_file(fname="cifar-100-python-target", origin=ORIGIN, extract=True, file_hash=FILE_HASH)
    path = os.path.join(path, "cifar-100-python")
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if channels_last():
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
