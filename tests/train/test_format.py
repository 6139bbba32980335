"""tensorlet's earlier checkpoint format (JSON index), still read: layout, versioning, failing closed on damaged
or hostile files.  (The format written today, TF's TensorBundle, is tested in test_tf_bundle.py.)"""

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorlet as tf
from tensorlet._src.train import format as F


def make(tmp_path, name="c"):
    """A checkpoint as earlier tensorlet versions wrote it (the same tensors, the legacy writer)."""
    from tensorlet._src.train import trackable

    ck = tf.train.Checkpoint(a=tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4)),
                             s=tf.Variable([b"x", b"yy"]), n=tf.Variable(7, dtype=tf.int64))
    tensors, proto = trackable.ObjectGraph(ck._graph_root()).serialize()
    tensors[F.OBJECT_GRAPH_KEY] = np.array(proto.SerializeToString(), dtype=object)
    return F.write(str(tmp_path / name), tensors)


def fresh():
    return tf.train.Checkpoint(a=tf.Variable(np.zeros((3, 4), np.float32)), s=tf.Variable([b"", b""]),
                               n=tf.Variable(0, dtype=tf.int64))


def test_layout_is_documented_json_and_raw_bytes(tmp_path):
    path = make(tmp_path)
    index = json.loads(open(path + ".index").read())
    assert index["format"] == "tensorlet-checkpoint" and index["version"] == 1 and index["data_files"] == 1
    e = index["tensors"]["a/.ATTRIBUTES/VARIABLE_VALUE"]
    assert (e["dtype"], e["shape"], e["size"]) == ("float32", [3, 4], 48) and e["offset"] % 64 == 0
    raw = open(path + ".data-00000-of-00001", "rb").read()
    assert os.path.getsize(path + ".data-00000-of-00001") == index["data_size"]
    np.testing.assert_array_equal(np.frombuffer(raw[e["offset"]:e["offset"] + 48], "<f4").reshape(3, 4),
                                  np.arange(12).reshape(3, 4))
    s = index["tensors"]["s/.ATTRIBUTES/VARIABLE_VALUE"]
    blob = raw[s["offset"]:s["offset"] + s["size"]]
    assert np.frombuffer(blob[:16], "<u8").tolist() == [1, 2] and blob[16:] == b"xyy"
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]  # temporaries renamed away


def damaged(path):
    with pytest.raises(tf.errors.DataLossError) as e:
        fresh().read(path)
    return str(e.value)


def test_damage_is_detected(tmp_path):
    path = make(tmp_path)
    data = path + ".data-00000-of-00001"
    raw = bytearray(open(data, "rb").read())
    raw[3] ^= 0x40  # inside the first tensor
    open(data, "wb").write(bytes(raw))
    assert "checksum mismatch" in damaged(path)
    path = make(tmp_path, "t")
    with open(path + ".data-00000-of-00001", "r+b") as f:
        f.truncate(10)
    assert "has 10 bytes" in damaged(path)
    for text, needle in [(b"{broken", "not valid JSON"),
                         (b"[]", "too short to be an sstable"),
                         (b'{"format": "tensorlet-checkpoint", "version": 2}',
                          "unsupported checkpoint format version 2")]:
        path = make(tmp_path, "j")
        open(path + ".index", "wb").write(text)
        assert needle in damaged(path)


def edit_index(path, fn):
    index = json.loads(open(path + ".index").read())
    fn(index)
    open(path + ".index", "w").write(json.dumps(index))


def test_hostile_index_entries_fail_before_allocating(tmp_path):
    cases = [
        (lambda e: e.update(shape=[1 << 40, 1 << 20]), "does not match shape"),
        (lambda e: e.update(offset=1 << 50), "points past the end"),
        (lambda e: e.update(dtype="object"), "unknown dtype"),
        (lambda e: e.update(size=-1), "bad size"),
        (lambda e: e.update(shape="3,4"), "bad shape"),
    ]
    for i, (mutate, needle) in enumerate(cases):
        path = make(tmp_path, f"h{i}")
        edit_index(path, lambda idx, m=mutate: m(idx["tensors"]["a/.ATTRIBUTES/VARIABLE_VALUE"]))
        assert needle in damaged(path), needle
    path = make(tmp_path, "strings")
    edit_index(path, lambda idx: idx["tensors"]["s/.ATTRIBUTES/VARIABLE_VALUE"].update(shape=[1000]))
    assert "too small" in damaged(path)


def test_reader_rejects_oversized_index(tmp_path, monkeypatch):
    path = make(tmp_path)
    monkeypatch.setattr(F, "MAX_INDEX_BYTES", 16)
    assert "too large" in damaged(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["index", "data"]), pos=st.floats(0, 1), byte=st.integers(0, 255),
       cut=st.booleans())
def test_fuzzed_files_fail_closed(tmp_path_factory, which, pos, byte, cut):
    """Any damage either restores correct values or raises a TF error; never another exception or a crash."""
    tmp = tmp_path_factory.mktemp("fuzz")
    path = make(tmp)
    name = path + (".index" if which == "index" else ".data-00000-of-00001")
    raw = bytearray(open(name, "rb").read())
    i = min(int(pos * len(raw)), len(raw) - 1)
    if cut:
        raw = raw[:i]
    else:
        raw[i] = byte
    open(name, "wb").write(bytes(raw))
    ck = fresh()
    try:
        ck.read(path)
    except (tf.errors.DataLossError, tf.errors.NotFoundError, tf.errors.InvalidArgumentError, ValueError):
        return
    # it loaded: whatever was restored must be the original values (damage was in padding or irrelevant JSON)
    for v, want in ((ck.a, np.arange(12).reshape(3, 4)), (ck.n, 7)):
        if np.any(v.numpy() != 0):
            np.testing.assert_array_equal(v.numpy(), want)



TF_CKPT = os.path.join(os.path.dirname(__file__), "..", "goldens", "ckpt", "tf_ckpt", "tfck")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pos=st.floats(0, 1), byte=st.integers(0, 255), cut=st.booleans())
def test_fuzzed_tf_index_fails_closed(tmp_path_factory, pos, byte, cut):
    """The TF-format reader on a damaged index: a TF error or a correct read, never anything else."""
    tmp = tmp_path_factory.mktemp("tffuzz")
    raw = bytearray(open(TF_CKPT + ".index", "rb").read())
    i = min(int(pos * len(raw)), len(raw) - 1)
    if cut:
        raw = raw[:i]
    else:
        raw[i] = byte
    open(str(tmp / "c.index"), "wb").write(bytes(raw))
    open(str(tmp / "c.data-00000-of-00001"), "wb").write(open(TF_CKPT + ".data-00000-of-00001", "rb").read())
    try:
        reader = tf.train.load_checkpoint(str(tmp / "c"))
        for key, _ in tf.train.list_variables(str(tmp / "c")):
            reader.get_tensor(key)
    except (tf.errors.DataLossError, tf.errors.NotFoundError, ValueError):
        return
