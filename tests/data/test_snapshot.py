"""Dataset.save / Dataset.load in TF's snapshot format: TF's saved datasets load here with TF's values and order,
tensorlet writes TF's bytes, and damaged or hostile directories fail closed with DataLossError.

Goldens: tools/record_tf_goldens/data_save.py -> tests/goldens/data_save/ (directories TF's Dataset.save wrote,
and what TF's Dataset.load yields from them)."""

from __future__ import annotations

import collections
import json
import os
import random
import shutil

import numpy as np
import pytest
from hostile import damage
from snapshot_cases import plain, spec_repr

import tensorlet as tf
from tensorlet._src.data import snapshot as S

D = tf.data.Dataset
GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens", "data_save")
META = json.load(open(os.path.join(GOLD, "data_save.json")))
P = collections.namedtuple("P", ["x", "y"])


def elements(ds):
    return [[plain(np.asarray(t.numpy() if hasattr(t, "numpy") else t)) for t in tf.nest.flatten(e)] for e in ds]


def gold_copy(tmp_path, name):
    dst = str(tmp_path / name)
    shutil.copytree(os.path.join(GOLD, name), dst)
    return dst


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_tf_saved_datasets_load(monkeypatch, name):
    case = META["cases"][name]
    monkeypatch.setattr(os, "cpu_count", lambda: META["cpu_count"])  # TF's interleave order depends on it
    ds = D.load(os.path.join(GOLD, name), compression=case["compression"])
    assert spec_repr(ds.element_spec) == case["element_spec"]
    assert int(ds.cardinality()) == case["cardinality"]
    got = elements(ds)
    assert got == case["elements"]
    if case["compression"] == "GZIP":  # also without saying so: the gzip stream is recognised
        assert elements(D.load(os.path.join(GOLD, name))) == case["elements"]


def structs():
    return D.from_tensor_slices({"img": np.arange(24, dtype=np.float32).reshape(6, 4),
                                 "name": [f"n{i}" for i in range(5)] + [""],
                                 "pt": P(np.arange(6), np.array([1, 0, 1, 1, 0, 1], np.bool_))})


def only_file(path, pattern=".snapshot"):
    out = []
    for root, _, files in os.walk(path):
        out += [os.path.join(root, f) for f in files if f.endswith(pattern)]
    assert len(out) == 1
    return out[0]


def test_written_files_match_tf(tmp_path):
    path = str(tmp_path / "s")
    structs().save(path)
    tf_dir = os.path.join(GOLD, "structs")
    # the shard file (TFRecords of TensorProtos) is byte-identical to TF's
    assert open(only_file(path), "rb").read() == open(only_file(tf_dir), "rb").read()
    # the element_spec proto is the same message (a protobuf map's serialized order is unspecified)
    from tensorboard.compat.proto import struct_pb2

    ours, theirs = struct_pb2.StructuredValue(), struct_pb2.StructuredValue()
    ours.ParseFromString(open(os.path.join(path, "dataset_spec.pb"), "rb").read())
    theirs.ParseFromString(open(os.path.join(tf_dir, "dataset_spec.pb"), "rb").read())
    assert ours == theirs
    m_ours, m_tf = S._meta_class()(), S._meta_class()()
    m_ours.ParseFromString(open(os.path.join(path, "snapshot.metadata"), "rb").read())
    m_tf.ParseFromString(open(os.path.join(tf_dir, "snapshot.metadata"), "rb").read())
    for field in ("version", "dtype", "num_elements", "finalized", "graph_hash"):
        assert getattr(m_ours, field) == getattr(m_tf, field), field
    assert os.path.isdir(os.path.join(path, m_ours.run_id, "00000000.shard"))


@pytest.mark.slow  # (the shard function is traced for each of the 7 element shapes)
def test_sharding_and_interleaved_order(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: META["cpu_count"])
    path = str(tmp_path / "r")
    D.range(7).map(lambda x: tf.range(x)).save(path, shard_func=lambda x: tf.shape(x, out_type=tf.int64)[0] % 3)
    run = [d for d in os.listdir(path) if d.isdigit()][0]
    assert sorted(os.listdir(os.path.join(path, run))) == [f"0000000{i}.shard" for i in range(3)]
    assert elements(D.load(path)) == META["cases"]["sharded"]["elements"]  # TF's order, from tensorlet's files


def test_round_trips(tmp_path):
    path = str(tmp_path / "g")
    ds = D.range(20).map(lambda x: (x, tf.strings.as_string(x) + "s" * 40))
    ds.save(path, compression="GZIP")
    assert open(only_file(path), "rb").read(2) == b"\x1f\x8b"
    assert elements(D.load(path, compression="GZIP")) == META["cases"]["gzip"]["elements"]
    path = str(tmp_path / "sn")
    D.range(300).map(lambda x: (x % 7, tf.fill([x % 5], x))).save(path, compression="SNAPPY")
    assert elements(D.load(path, compression="SNAPPY")) == META["cases"]["snappy"]["elements"]
    with pytest.raises(ValueError, match="Unsupported compression 'LZ4'"):
        D.range(2).save(str(tmp_path / "lz"), compression="LZ4")
    D.range(3).save(path)  # replaces the earlier save
    assert [int(x) for x in D.load(path)] == [0, 1, 2]
    assert not [f for f in os.listdir(tmp_path) if f.startswith((".tmp", ".old"))]


# --- hostile and damaged directories --------------------------------------------------------------------------------
def rewrite_meta(path, **fields):
    meta = S._meta_class()()
    fn = os.path.join(path, "snapshot.metadata")
    meta.ParseFromString(open(fn, "rb").read())
    for k, v in fields.items():
        if k == "dtype":
            del meta.dtype[:]
            meta.dtype.extend(v)
        else:
            setattr(meta, k, v)
    open(fn, "wb").write(meta.SerializeToString())
    return meta


def load_all(path):
    return elements(D.load(path))


def test_paths_stay_inside_the_directory(tmp_path):
    outside = tmp_path / "outside"
    shutil.copytree(os.path.join(GOLD, "structs"), outside)
    run = [d for d in os.listdir(outside) if d.isdigit()][0]
    for bad in ["../outside/" + run, str(outside / run), "..", "a/b"]:
        p = gold_copy(tmp_path, "structs")
        rewrite_meta(p, run_id=bad)
        with pytest.raises(tf.errors.DataLossError, match="bad run id"):
            load_all(p)
        shutil.rmtree(p)
    p = gold_copy(tmp_path, "structs")  # a shard directory that is a symlink out of the dataset
    shard = os.path.join(p, run, "00000000.shard")
    shutil.rmtree(shard)
    os.symlink(outside / run / "00000000.shard", shard)
    with pytest.raises(tf.errors.DataLossError, match="not a shard directory"):
        load_all(p)


def test_declared_counts_are_checked(tmp_path):
    p = gold_copy(tmp_path, "structs")
    rewrite_meta(p, num_elements=1 << 62)
    with pytest.raises(tf.errors.DataLossError, match="more than the"):
        D.load(p)
    rewrite_meta(p, num_elements=10)  # plausible for the bytes, but only 6 are there
    ds = D.load(p)
    assert int(ds.cardinality()) == 10
    with pytest.raises(tf.errors.DataLossError, match="holds 6 elements but its metadata declares 10"):
        load_all(p)
    rewrite_meta(p, num_elements=4)
    with pytest.raises(tf.errors.DataLossError, match="more elements than the 4"):
        load_all(p)
    rewrite_meta(p, num_elements=6, finalized=False)
    with pytest.raises(tf.errors.DataLossError, match="did not finish"):
        D.load(p)
    rewrite_meta(p, finalized=True, version=1)
    with pytest.raises(tf.errors.DataLossError, match="version 1 is not supported"):
        D.load(p)
    rewrite_meta(p, version=2, dtype=[1, 1, 1, 1])
    with pytest.raises(tf.errors.DataLossError, match="do not match the element_spec"):
        D.load(p)


def test_damaged_shards_and_missing_files(tmp_path):
    p = gold_copy(tmp_path, "structs")
    f = only_file(p)
    raw = bytearray(open(f, "rb").read())
    raw[40] ^= 1
    open(f, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
        load_all(p)
    open(f, "wb").write(bytes(raw[:100]))
    with pytest.raises(tf.errors.DataLossError):
        load_all(p)
    os.remove(f)
    with pytest.raises(tf.errors.DataLossError, match="more than the"):
        D.load(p)
    run_dir = os.path.dirname(os.path.dirname(f))
    shutil.rmtree(run_dir)  # no run directory at all: TF reads no shards; 6 declared elements cannot be there
    with pytest.raises(tf.errors.DataLossError, match="more than the"):
        D.load(p)
    open(run_dir, "w").close()
    with pytest.raises(tf.errors.DataLossError, match="not a directory"):
        D.load(p)
    with pytest.raises(tf.errors.NotFoundError, match="Could not find metadata file"):
        D.load(str(tmp_path / "nothing"))
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "dataset_spec.json").write_text("{}")
    with pytest.raises(tf.errors.DataLossError, match="earlier tensorlet"):
        D.load(str(legacy))


def test_a_record_that_is_not_the_declared_tensor_is_refused(tmp_path):
    from tensorlet._src.io.tfrecord import TFRecordWriter

    p = gold_copy(tmp_path, "structs")
    f = only_file(p)
    bad = [S.tensor_record(np.zeros(4, np.float32), 1, False), S.tensor_record(np.array(b"x", object), 7, True),
           S.tensor_record(np.int64(1), 9, False), S.tensor_record(np.zeros(3, np.bool_), 10, False)]
    for records, needle in [(bad, "does not match the element_spec"), (bad[:2], "ends inside an element"),
                            ([b"\xff\xff"] + bad[1:], "not a TensorProto"),
                            ([S.tensor_record(np.zeros(4, np.int32), 3, False)] + bad[1:], "dtype enum 3")]:
        with TFRecordWriter(f) as w:
            for r in records:
                w.write(r)
        rewrite_meta(p, num_elements=1)
        with pytest.raises(tf.errors.DataLossError, match=needle):
            load_all(p)


def test_fuzzed_directories_fail_closed(tmp_path):
    """250 seeded mutations of every file of TF's saved dataset: a DataLossError/NotFoundError, or exactly TF's
    elements; never another exception, never a hang."""
    src = os.path.join(GOLD, "structs")
    names = [os.path.relpath(os.path.join(r, f), src) for r, _, fs in os.walk(src) for f in fs]
    want = META["cases"]["structs"]["elements"]
    rng = random.Random(5)
    errors = 0
    p = str(tmp_path / "f")
    shutil.copytree(src, p)
    for i in range(250):
        target = os.path.join(p, rng.choice(names))
        original = open(target, "rb").read()
        raw, kind, pos = damage(original, rng, junk=8)
        open(target, "wb").write(raw)
        try:  # (the snapshot reader directly: the Dataset wrapper adds nothing to check here)
            got = [[plain(np.asarray(t)) for t in el] for el in S.Snapshot(p).elements()]
        except (tf.errors.DataLossError, tf.errors.NotFoundError, tf.errors.UnimplementedError):
            errors += 1
        else:
            assert got == want, (i, target, kind, pos)
        open(target, "wb").write(original)
    assert errors > 150


def test_tensor_protos_in_other_layouts_are_read():
    """Records laid out differently from TF's writer (typed string_val, fields reordered) take the full parser."""
    from tensorboard.compat.proto import tensor_pb2

    spec = tf.TensorSpec([], tf.string)
    typed = tensor_pb2.TensorProto(dtype=7, string_val=[b"abc"])
    typed.tensor_shape.SetInParent()
    assert S.parse_tensor(typed.SerializeToString(), spec, "x")[()] == b"abc"
    fast = S.tensor_record(np.arange(3, dtype=np.int32), 3, False)
    reordered = fast[fast.index(b"\x22"):] + fast[:fast.index(b"\x22")]  # content first, then dtype and shape
    spec = tf.TensorSpec([3], tf.int32)
    np.testing.assert_array_equal(S.parse_tensor(reordered, spec, "x"), np.arange(3))
    np.testing.assert_array_equal(S.parse_tensor(fast, spec, "x", {}), np.arange(3))


def test_snappy_blocks_fail_closed():
    from tensorlet._src.data import snappy

    data = bytes(range(256)) * 9000  # more than one block
    stream = snappy.compress_stream(data)
    assert snappy.decompress_stream(stream) == data
    # a TF-style block with back references (tag 01 and 10 copies), decoded exactly
    block = bytes([14, 0b00001000]) + b"abc" + bytes([0b00010001, 3]) + bytes([0b00001010, 4, 0])
    assert snappy.decompress_block(block) == b"abc" + b"abcabcab" + b"bca"  # overlapping copy, then a 2-byte one
    for bad, needle in [(b"\xff\xff\xff\xff\x0f", "more than its"), (bytes([20, 0b00001000]) + b"abc", "holds 3"),
                        (bytes([9, 0b00001000]) + b"abc" + bytes([0b00010101, 9]), "back reference"),
                        (bytes([3, 0b11110000]), "truncated")]:
        with pytest.raises(snappy.SnappyError, match=needle):
            snappy.decompress_block(bad)
    with pytest.raises(snappy.SnappyError, match="truncated snappy block"):
        snappy.decompress_stream(stream[:100])
