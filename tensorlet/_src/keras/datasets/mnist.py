"""``keras.datasets.mnist``: 60,000 + 10,000 handwritten digits from Keras's ``mnist.npz``.

Offline with no cached ``mnist.npz``, ``load_data()`` falls back to the real 5,000-image MNIST sample shipped
with tensorlet (4,000 train / 1,000 test, 400 / 100 per digit) and says so once.
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.keras.utils import file_utils
from tensorlet._src.ops.registry import tf_export

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data",
                      "mnist_5k.npz")
_NOTICE = {"shown": False}


@tf_export("keras.datasets.mnist.load_data")
def load_data(path="mnist.npz"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(n, 28, 28)`` and uint8 labels ``(n,)``.

    >>> (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()  # doctest: +SKIP
    """
    try:
        path = file_utils.get_file(fname=path, origin=ORIGIN, file_hash=FILE_HASH)
    except file_utils.DownloadError as e:
        return _sample(str(e))
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])


def _sample(reason):
    if not _NOTICE["shown"]:
        _NOTICE["shown"] = True
        from tensorlet._src.framework.context import get_logger

        get_logger().warning(
            "Could not download mnist.npz (%s). Using the 5,000-image real MNIST sample shipped with tensorlet "
            "instead: 4,000 training and 1,000 test images (400 and 100 per digit). Put Keras's mnist.npz in "
            "~/.keras/datasets/ for the full 70,000.", reason)
    with np.load(SAMPLE, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    test = np.zeros(len(y), dtype=bool)
    for digit in range(10):
        idx = np.flatnonzero(y == digit)
        test[idx[len(idx) - len(idx) // 5:]] = True  # the last fifth of each digit
    # the sample file is sorted by digit; MNIST's own files are not: a fixed permutation restores a natural order
    # (so shuffle buffers, validation_split and the first batches see every digit, as with the real data)
    rng = np.random.default_rng(20121114)
    tr, te = np.flatnonzero(~test), np.flatnonzero(test)
    tr, te = tr[rng.permutation(len(tr))], te[rng.permutation(len(te))]
    return (x[tr], y[tr]), (x[te], y[te])
