"""``keras.datasets.imdb``: 25,000 + 25,000 movie reviews as word-index sequences (Keras's ``imdb.npz``, whose
object arrays are read without unpickling), with Keras's shuffling, offsets, ``num_words`` and ``maxlen``."""

from __future__ import annotations

import json

import numpy as np

from tensorlet._src.keras.datasets import _safe_pickle
from tensorlet._src.keras.utils import file_utils
from tensorlet._src.ops.registry import tf_export

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"


def remove_long_seq(maxlen, seq, label):
    """Drops the sequences longer than ``maxlen`` (and their labels)."""
    new_seq, new_label = [], []
    for x, y in zip(seq, label):
        if len(x) < maxlen:
            new_seq.append(x)
            new_label.append(y)
    return new_seq, new_label


@tf_export("keras.datasets.imdb.load_data")
def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
              index_from=3, **kwargs):
    """``(x_train, y_train), (x_test, y_test)``: object arrays of int lists and 0/1 labels."""
    del kwargs  # accepted for backwards compatibility, as in Keras
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}imdb.npz", file_hash=FILE_HASH)
    f = _safe_pickle.load_npz(path)
    x_train, labels_train = f["x_train"], f["y_train"]
    x_test, labels_test = f["x_test"], f["y_test"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]
    if start_char is not None:
        x_train = [[start_char] + [w + index_from for w in x] for x in x_train]
        x_test = [[start_char] + [w + index_from for w in x] for x in x_test]
    elif index_from:
        x_train = [[w + index_from for w in x] for x in x_train]
        x_test = [[w + index_from for w in x] for x in x_test]
    else:
        x_train = [list(x) for x in x_train]
        x_test = [list(x) for x in x_test]
    if maxlen:
        x_train, labels_train = remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. "
                             "Increase maxlen.")
    xs = x_train + x_test
    labels = np.concatenate([labels_train, labels_test])
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    idx = len(x_train)
    x_train_arr = np.empty(idx, dtype="object")
    x_train_arr[:] = xs[:idx]
    x_test_arr = np.empty(len(xs) - idx, dtype="object")
    x_test_arr[:] = xs[idx:]
    return (x_train_arr, labels[:idx]), (x_test_arr, labels[idx:])


@tf_export("keras.datasets.imdb.get_word_index")
def get_word_index(path="imdb_word_index.json"):
    """The ``{word: index}`` dictionary of the IMDB dataset."""
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}imdb_word_index.json", file_hash=WORD_INDEX_HASH)
    with open(path) as f:
        return json.load(f)
