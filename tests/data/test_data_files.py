"""tf.data files: Dataset.save/load round trips (no pickle), cache (memory/file), readers' errors, TFRecordDataset's
call into tensorlet._src.io.tfrecord."""

from __future__ import annotations

import collections
import importlib.util
import os

import numpy as np
import pytest

import tensorlet as tf

D = tf.data.Dataset


def _vals(ds):
    return [tuple(np.asarray(v).tolist() for v in tf.nest.flatten(e)) for e in ds]


def test_save_load_round_trip(tmp_path):
    Point = collections.namedtuple("Point", ["x", "y"])
    ds = D.from_tensor_slices({"img": np.arange(24, dtype=np.float32).reshape(6, 4),
                               "name": [f"n{i}" for i in range(6)],
                               "pt": Point(np.arange(6), np.ones(6, np.bool_))})
    ds = ds.concatenate(ds.take(2))  # varying content, same shapes
    path = str(tmp_path / "saved")
    ds.save(path)
    files = sorted(os.listdir(path))  # TF's snapshot layout (tests/data/test_snapshot.py checks it in detail)
    assert files[1:] == ["dataset_spec.pb", "snapshot.metadata"] and files[0].isdigit()
    assert os.listdir(os.path.join(path, files[0], "00000000.shard")) == ["00000000.snapshot"]
    back = D.load(path)
    assert repr(back.element_spec) == repr(ds.element_spec)
    assert type(back.element_spec["pt"]).__name__ == "Point"
    assert int(back.cardinality()) == 8
    assert _vals(back) == _vals(ds)


def test_save_load_ragged_shapes_compression_and_shards(tmp_path):
    ds = D.range(7).map(lambda x: tf.range(x))
    path = str(tmp_path / "r")
    ds.save(path, compression="GZIP", shard_func=lambda x: tf.shape(x)[0] % 2)
    back = D.load(path, element_spec=tf.TensorSpec([None], tf.int64))
    got = sorted(v.numpy().tolist() for v in back)
    assert got == sorted(list(range(i)) for i in range(7))
    with pytest.raises(ValueError, match="not compatible"):
        D.load(path, element_spec=tf.TensorSpec([None], tf.float32))
    with pytest.raises(tf.errors.NotFoundError):
        D.load(str(tmp_path / "missing"))
    tf.data.experimental.save(D.range(2), str(tmp_path / "e"))
    assert [int(x) for x in tf.data.experimental.load(str(tmp_path / "e"))] == [0, 1]


def test_memory_cache_runs_upstream_once():
    calls = []

    def gen():
        calls.append(1)
        yield from range(5)

    src = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
    ds = src.map(lambda x: x * 3).cache()
    assert [int(x) for x in ds] == [0, 3, 6, 9, 12]
    assert [int(x) for x in ds] == [0, 3, 6, 9, 12]
    assert len(calls) == 1
    partial = src.cache()
    it = iter(partial)
    next(it)  # an unfinished pass caches nothing
    assert [int(x) for x in partial] == list(range(5)) and len(calls) == 3
    assert [int(x) for x in partial] == list(range(5)) and len(calls) == 3


def test_file_cache_is_reused_across_datasets(tmp_path):
    fn = str(tmp_path / "cache")
    assert [int(x) for x in D.range(4).cache(fn)] == [0, 1, 2, 3]
    assert os.path.isdir(fn + ".tlcache")
    other = D.range(100).cache(fn)  # reads the existing cache file, as TF does
    assert [int(x) for x in other] == [0, 1, 2, 3]


def test_text_line_errors_and_dataset_of_names(tmp_path):
    p = tmp_path / "x.txt"
    p.write_bytes(b"a\nb")
    names = D.from_tensor_slices([str(p), str(p)])
    assert [x.numpy() for x in tf.data.TextLineDataset(names)] == [b"a", b"b", b"a", b"b"]
    with pytest.raises(tf.errors.NotFoundError, match="No such file"):
        list(tf.data.TextLineDataset(str(tmp_path / "nope.txt")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        D.list_files(str(tmp_path / "zz*"))


def test_csv_errors(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("1,x\n,y\nq,z\n")
    ds = tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.string])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing in record 1"):
        list(ds)
    ds = tf.data.experimental.CsvDataset(str(p), [tf.constant(7), tf.string])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 in record 2 is not a valid int32: q"):
        list(ds)
    assert [(int(a), b.numpy()) for a, b in ds.ignore_errors()] == [(1, b"x"), (7, b"y")]


@pytest.mark.skipif(importlib.util.find_spec("tensorlet._src.io") is None, reason="tensorlet._src.io not present yet")
def test_tfrecord_dataset_reads_through_io(tmp_path, monkeypatch):
    mod = pytest.importorskip("tensorlet._src.io.tfrecord")
    seen = []

    def fake(path, compression_type):
        seen.append((path, compression_type))
        yield b"r1"
        yield b"r2"

    monkeypatch.setattr(mod, "iter_records", fake)
    ds = tf.data.TFRecordDataset([str(tmp_path / "a"), str(tmp_path / "b")], compression_type="GZIP")
    assert repr(ds) == "<TFRecordDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>"
    assert [x.numpy() for x in ds] == [b"r1", b"r2", b"r1", b"r2"]
    assert seen == [(str(tmp_path / "a"), "GZIP"), (str(tmp_path / "b"), "GZIP")]


def test_tfrecord_round_trip_and_corruption(tmp_path):
    if not hasattr(tf.io, "TFRecordWriter"):
        pytest.skip("tf.io.TFRecordWriter not available")
    good, bad = str(tmp_path / "g.tfrecord"), str(tmp_path / "b.tfrecord")
    with tf.io.TFRecordWriter(good) as w:
        for i in range(3):
            w.write(b"rec%d" % i)
    with open(good, "rb") as f:
        data = f.read()
    with open(bad, "wb") as f:
        f.write(data[:-3])  # the last record is truncated
    assert [x.numpy() for x in tf.data.TFRecordDataset([good, good], num_parallel_reads=2)] == \
        [b"rec0", b"rec0", b"rec1", b"rec1", b"rec2", b"rec2"]
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.TFRecordDataset(bad))
    assert [x.numpy() for x in tf.data.TFRecordDataset([bad, good]).ignore_errors()] == \
        [b"rec0", b"rec1", b"rec0", b"rec1", b"rec2"]


def test_experimental_tfrecord_writer(tmp_path):
    p = str(tmp_path / "w.tfrecord")
    tf.data.experimental.TFRecordWriter(p, "GZIP").write(D.from_tensor_slices(["a", "bc"]))
    assert [x.numpy() for x in tf.data.TFRecordDataset(p, "GZIP")] == [b"a", b"bc"]
    with pytest.raises(TypeError, match="scalar `tf.string`"):
        tf.data.experimental.TFRecordWriter(p).write(D.range(2))
