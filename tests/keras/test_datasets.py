"""keras.datasets: Keras's cache files (synthetic ones in a temporary KERAS_HOME), the MNIST sample fallback, safe
reading of pickled dataset files.  The network is never touched (the one download function is replaced)."""

import gzip
import hashlib
import json
import logging
import os
import pickle
import urllib.error

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.datasets import _safe_pickle, boston_housing, cifar, imdb, mnist
from tensorlet._src.keras.utils import file_utils

GOLDENS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "keras_metrics_utils.json")


@pytest.fixture(autouse=True)
def offline_home(monkeypatch, tmp_path):
    def refuse(url, filename, reporthook=None):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(file_utils, "_urlretrieve", refuse)
    home = tmp_path / "keras_home"
    monkeypatch.setenv("KERAS_HOME", str(home))
    (home / "datasets").mkdir(parents=True)
    return home / "datasets"


def _sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_mnist_reads_keras_cache(offline_home, monkeypatch):
    rng = np.random.RandomState(0)
    arrays = {"x_train": rng.randint(0, 255, (6, 28, 28)).astype(np.uint8), "y_train": np.arange(6, dtype=np.uint8),
              "x_test": rng.randint(0, 255, (2, 28, 28)).astype(np.uint8), "y_test": np.array([7, 8], np.uint8)}
    path = offline_home / "mnist.npz"
    np.savez(path, **arrays)
    monkeypatch.setattr(mnist, "FILE_HASH", _sha256(path))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    np.testing.assert_array_equal(y_test, arrays["y_test"])


def test_mnist_offline_falls_back_to_shipped_sample_once(monkeypatch, caplog):
    monkeypatch.setitem(mnist._NOTICE, "shown", False)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
        tf.keras.datasets.mnist.load_data()
    notices = [r for r in caplog.records if "5,000-image real MNIST sample" in r.getMessage()]
    assert len(notices) == 1 and "mnist.npz" in notices[0].getMessage()
    assert x_train.shape == (4000, 28, 28) and x_test.shape == (1000, 28, 28)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8
    np.testing.assert_array_equal(np.bincount(y_train), [400] * 10)
    np.testing.assert_array_equal(np.bincount(y_test), [100] * 10)
    assert x_train.max() == 255 and 0.05 < (x_train > 0).mean() < 0.4  # real digits, not noise


def test_other_datasets_offline_name_the_missing_file():
    with pytest.raises(Exception, match=r"cifar-10-python.tar.gz.*cifar-10-batches-py-target_archive"):
        tf.keras.datasets.cifar10.load_data()
    with pytest.raises(Exception, match=r"URL fetch failure on .*imdb.npz.*put the file at .*imdb.npz"):
        tf.keras.datasets.imdb.load_data()
    with pytest.raises(Exception, match=r"train-labels-idx1-ubyte.gz"):
        tf.keras.datasets.fashion_mnist.load_data()


def test_fashion_mnist_reads_gzipped_idx(offline_home):
    d = offline_home / "fashion-mnist"
    d.mkdir()
    rng = np.random.RandomState(1)
    for prefix, n in (("train", 5), ("t10k", 3)):
        labels = rng.randint(0, 10, n).astype(np.uint8)
        images = rng.randint(0, 255, (n, 28, 28)).astype(np.uint8)
        with gzip.open(d / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(b"\0" * 8 + labels.tobytes())
        with gzip.open(d / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(b"\0" * 16 + images.tobytes())
        if prefix == "train":
            train = (images, labels)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, train[0])
    np.testing.assert_array_equal(y_train, train[1])
    assert x_test.shape == (3, 28, 28)


def test_imdb_matches_keras_on_a_synthetic_file(offline_home, monkeypatch):
    with open(GOLDENS, encoding="utf-8") as f:
        rec = json.load(f)["imdb"]
    data = rec["data"]

    def obj(lists):
        a = np.empty(len(lists), dtype=object)
        a[:] = [list(x) for x in lists]
        return a

    path = offline_home / "imdb.npz"
    np.savez(path, x_train=obj(data["x_train"]), y_train=np.array(data["y_train"]), x_test=obj(data["x_test"]),
             y_test=np.array(data["y_test"]))
    monkeypatch.setattr(imdb, "FILE_HASH", _sha256(path))
    for r in rec["results"]:
        (xtr, ytr), (xte, yte) = tf.keras.datasets.imdb.load_data(**r["kwargs"])
        assert xtr.dtype == object and [list(x) for x in xtr] == r["x_train"], r["kwargs"]
        assert [list(x) for x in xte] == r["x_test"] and ytr.tolist() == r["y_train"] and yte.tolist() == r["y_test"]


def test_boston_housing_split(offline_home, monkeypatch):
    x = np.arange(50, dtype=np.float64).reshape(10, 5)
    y = np.arange(10, dtype=np.float64)
    path = offline_home / "boston_housing.npz"
    np.savez(path, x=x, y=y)
    monkeypatch.setattr(boston_housing, "FILE_HASH", _sha256(path))
    (xtr, ytr), (xte, yte) = tf.keras.datasets.boston_housing.load_data(test_split=0.3)
    idx = np.arange(10)
    np.random.RandomState(113).shuffle(idx)
    np.testing.assert_array_equal(ytr, y[idx[:7]])
    np.testing.assert_array_equal(xte, x[idx[7:]])


def test_cifar_batch_read_without_unpickling(tmp_path):
    data = np.arange(2 * 3072, dtype=np.uint8).reshape(2, 3072)
    for proto, keys in ((2, str), (2, bytes), (4, bytes)):
        batch = {keys("batch_label") if keys is str else b"batch_label": b"training batch 1 of 5",
                 (b"data" if keys is bytes else "data"): data,
                 (b"labels" if keys is bytes else "labels"): [3, 9]}
        p = tmp_path / f"data_batch_{proto}_{keys.__name__}"
        p.write_bytes(pickle.dumps(batch, protocol=proto))
        x, labels = cifar.load_batch(str(p))
        assert x.shape == (2, 3, 32, 32) and x.dtype == np.uint8 and labels == [3, 9]
        np.testing.assert_array_equal(x.reshape(2, -1), data)


def test_python2_style_strings_decode_as_bytes():
    # PROTO 2, {}, 'labels' as a py2 str (SHORT_BINSTRING), [1, 2], SETITEM  -> {b'labels': [1, 2]}
    raw = b"\x80\x02}q\x00U\x06labelsq\x01]q\x02(K\x01K\x02es."
    assert _safe_pickle.loads(raw) == {b"labels": [1, 2]}
    assert _safe_pickle.loads(raw, encoding="latin1") == {"labels": [1, 2]}


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("proto", [0, 2, 4])
def test_code_in_a_dataset_pickle_is_refused(proto):
    with pytest.raises(_safe_pickle.UnsafePickleError, match="Refusing to load `(posix|os).system`"):
        _safe_pickle.loads(pickle.dumps({"data": _Evil()}, protocol=proto))


def test_object_npz_members_read_safely(tmp_path):
    a = np.empty(3, dtype=object)
    a[:] = [[1, 2], [3], [4, 5, 6]]
    np.savez(tmp_path / "o.npz", seqs=a, plain=np.arange(4))
    out = _safe_pickle.load_npz(tmp_path / "o.npz")
    assert [list(x) for x in out["seqs"]] == [[1, 2], [3], [4, 5, 6]]
    np.testing.assert_array_equal(out["plain"], np.arange(4))
