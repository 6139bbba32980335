"""Reading CIFAR's ``cifar-*-python`` batch files (Python pickles of dicts of arrays) without unpickling."""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.datasets import _safe_pickle
from tensorlet._src.keras import backend


def load_batch(fpath, label_key="labels"):
    """``(data (n, 3, 32, 32) uint8, labels)`` of one CIFAR batch file."""
    with open(fpath, "rb") as f:
        d = _safe_pickle.loads(f.read(), encoding="bytes")
    d = {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in d.items()}
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def channels_last():
    return backend.image_data_format() == "channels_last"
