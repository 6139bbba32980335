"""keras.utils: to_categorical, normalize, pad_sequences, set_random_seed, get_file (network mocked)."""

import hashlib
import io
import os
import random
import tarfile
import urllib.error

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.utils import file_utils


@pytest.fixture(autouse=True)
def no_network(monkeypatch, tmp_path):
    def refuse(url, filename, reporthook=None):
        raise urllib.error.URLError("network disabled in tests")

    monkeypatch.setattr(file_utils, "_urlretrieve", refuse)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))


def test_to_categorical_numpy_and_tensor():
    y = tf.keras.utils.to_categorical([[1], [0], [3]])
    assert y.dtype == np.float64 and y.shape == (3, 4)
    np.testing.assert_array_equal(y, np.eye(4)[[1, 0, 3]])
    y3 = tf.keras.utils.to_categorical(np.array([[0, 1], [2, 2]]), num_classes=3)
    assert y3.shape == (2, 2, 3) and y3[1, 0, 2] == 1.0
    t = tf.keras.utils.to_categorical(tf.constant([[2], [0]]), num_classes=3)
    assert isinstance(t, tf.Tensor) and t.dtype == tf.float32
    np.testing.assert_array_equal(t.numpy(), [[0, 0, 1], [1, 0, 0]])


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(tf.keras.utils.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(tf.keras.utils.normalize(x, order=1), [[3 / 7, 4 / 7], [0.0, 0.0]])
    t = tf.keras.utils.normalize(tf.constant([[3.0, 4.0]]))
    np.testing.assert_allclose(t.numpy(), [[0.6, 0.8]], rtol=1e-6)


def test_pad_sequences_as_keras():
    seqs = [[1], [2, 3], [4, 5, 6, 7]]
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs, maxlen=3),
                                  [[0, 0, 1], [0, 2, 3], [5, 6, 7]])
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs, maxlen=3, padding="post", truncating="post",
                                                               value=-1), [[1, -1, -1], [2, 3, -1], [4, 5, 6]])
    assert tf.keras.utils.pad_sequences(seqs).dtype == np.int32
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        tf.keras.utils.pad_sequences(seqs, padding="middle")
    with pytest.raises(ValueError, match="must be a list of iterables"):
        tf.keras.utils.pad_sequences([1, 2])


def test_set_random_seed_makes_runs_reproducible():
    def draw():
        return random.random(), np.random.rand(), float(tf.random.uniform([]))

    tf.keras.utils.set_random_seed(123)
    a = draw()
    tf.keras.utils.set_random_seed(123)
    assert draw() == a
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        tf.keras.utils.set_random_seed(1.5)


def _serve(content, calls):
    def fake(url, filename, reporthook=None):
        calls.append(url)
        with open(filename, "wb") as f:
            f.write(content)
        if reporthook:
            reporthook(1, len(content), len(content))

    return fake


def test_get_file_downloads_checks_hash_and_reuses_cache(monkeypatch, tmp_path, capsys):
    content = b"hello keras" * 100
    calls = []
    monkeypatch.setattr(file_utils, "_urlretrieve", _serve(content, calls))
    sha = hashlib.sha256(content).hexdigest()
    path = tf.keras.utils.get_file("data.bin", origin="https://example.com/x/data.bin", file_hash=sha)
    assert path == os.path.join(str(tmp_path / "keras_home"), "datasets", "data.bin")
    assert open(path, "rb").read() == content and len(calls) == 1
    assert "Downloading data from https://example.com/x/data.bin" in capsys.readouterr().out
    assert tf.keras.utils.get_file("data.bin", origin="https://example.com/x/data.bin", file_hash=sha) == path
    assert len(calls) == 1  # cached, hash ok
    md5 = hashlib.md5(content).hexdigest()
    assert tf.keras.utils.get_file(origin="https://example.com/x/data.bin", md5_hash=md5) == path
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected. The auto file hash"):
        tf.keras.utils.get_file("other.bin", origin="https://example.com/other.bin", file_hash="0" * 64)
    assert not os.path.exists(os.path.join(os.path.dirname(path), "other.bin.part"))


def test_get_file_extracts_archives(monkeypatch, tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"payload"
        info = tarfile.TarInfo("inner/file.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    calls = []
    monkeypatch.setattr(file_utils, "_urlretrieve", _serve(buf.getvalue(), calls))
    d = tf.keras.utils.get_file("thing-target", origin="https://example.com/thing.tar.gz", extract=True,
                                cache_dir=str(tmp_path / "c"))
    assert d == str(tmp_path / "c" / "datasets" / "thing-target")
    assert open(os.path.join(d, "inner", "file.txt"), "rb").read() == b"payload"
    assert os.path.exists(d + "_archive")


def test_get_file_offline_names_url_and_cache_path():
    with pytest.raises(Exception, match=r"URL fetch failure on https://example.com/y.npz.*put the file at .*y.npz"):
        tf.keras.utils.get_file("y.npz", origin="https://example.com/y.npz")
    with pytest.raises(ValueError, match='Please specify the "origin" argument'):
        tf.keras.utils.get_file("y.npz")
    with pytest.raises(ValueError, match="Paths are no longer accepted as the `fname` argument"):
        tf.keras.utils.get_file("a/b.npz", origin="https://example.com/b.npz")
