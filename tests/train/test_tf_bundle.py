"""Checkpoints in TF's TensorBundle format: byte-identical to what TF's BundleWriter writes, TF's files read back,
every checksum checked, damaged and hostile files refused with DataLossError, stale temporaries cleaned up.

Goldens: tools/record_tf_goldens/tf_bundle.py -> tests/goldens/ckpt/bundle/ (files TF's SaveV2 and
MergeV2Checkpoints wrote, SHA-256 of the large ones, TF's error messages) and tools/record_tf_goldens/checkpoints.py
-> tests/goldens/ckpt/tf_ckpt/ (a tf.train.Checkpoint TF wrote).
"""

import hashlib
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from bundle_cases import CASES, case_tensors
from hostile import damage

import tensorlet as tf
from tensorlet._src.train import sstable
from tensorlet._src.train import tf_bundle as B

HERE = os.path.dirname(__file__)
GOLD = os.path.join(HERE, "..", "goldens", "ckpt", "bundle")
META = json.load(open(os.path.join(GOLD, "bundle.json")))
TFCK = os.path.join(HERE, "..", "goldens", "ckpt", "tf_ckpt", "tfck")
DATA = ".data-00000-of-00001"


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_files_are_byte_identical_to_tf(tmp_path, name):
    prefix = B.write_bundle(str(tmp_path / name), case_tensors(name))
    for suffix in (".index", DATA):
        size, digest = META["cases"][name][suffix]
        assert os.path.getsize(prefix + suffix) == size, suffix
        assert sha(prefix + suffix) == digest, suffix
    if CASES[name][0]:
        assert META["cases"][name]["keys"] == list(case_tensors(name))


def test_tf_checkpoint_object_is_byte_identical(tmp_path):
    """The same tf.train.Checkpoint as tools/record_tf_goldens/checkpoints.py: identical .index and data."""
    from test_checkpoint import M  # the module tools/record_tf_goldens/checkpoints.py saves with real TF

    ck = tf.train.Checkpoint(
        f=tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3)), i=tf.Variable(np.int64(-7)),
        s=tf.Variable([b"a", b"", b"xyz" * 50]), b=tf.Variable(tf.constant([1.5, -2.25], tf.bfloat16)),
        t=tf.Variable([True, False, True]), h=tf.Variable(np.float16(0.5)), m=M())
    path = ck.write(str(tmp_path / "tfck"))
    for suffix in (".index", DATA):
        assert open(path + suffix, "rb").read() == open(TFCK + suffix, "rb").read(), suffix


def test_reads_what_tf_wrote():
    reader = tf.train.load_checkpoint(os.path.join(GOLD, "dtypes"))
    want = case_tensors("dtypes")
    assert sorted(k for k, _ in tf.train.list_variables(os.path.join(GOLD, "dtypes"))) == sorted(want)
    for key, value in want.items():
        got = np.asarray(reader.get_tensor(key))
        assert got.shape == value.shape and (got.dtype == value.dtype or value.dtype == object), key
        if value.dtype == object:
            assert got.reshape(-1).tolist() == value.reshape(-1).tolist(), key
        else:
            np.testing.assert_array_equal(got, value)
    assert reader.get_variable_to_dtype_map()["t/bool"] == tf.bool


def test_reads_tf_merged_shards():
    prefix = os.path.join(GOLD, "sharded")
    assert META["sharded"][-3:] == ["sharded.data-00000-of-00002", "sharded.data-00001-of-00002", "sharded.index"]
    r = tf.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(r.get_tensor("x"), np.arange(4, dtype=np.float32))
    assert r.get_tensor("s").tolist() == [b"one", b"two"] and r.get_tensor("y") == 42
    np.testing.assert_array_equal(r.get_tensor("z"), np.array([[1, 2], [3, 4]], np.int16))


def test_round_trip_of_every_dtype(tmp_path):
    want = case_tensors("dtypes")
    want["bf16"] = np.array([1.5, -2.25], tf.bfloat16.as_numpy_dtype)
    prefix = B.write_bundle(str(tmp_path / "c"), want)
    r = B.read_bundle(prefix)
    for key, value in want.items():
        got = r.get(key)
        assert got.shape == value.shape and r.dtype(key) == ("string" if value.dtype == object else
                                                                  tf.as_dtype(value.dtype).name)
        assert got.reshape(-1).tolist() == value.reshape(-1).tolist(), key


# --- damage -------------------------------------------------------------------------------------------------------
def copy_case(tmp_path, name="c"):
    dst = str(tmp_path / name)
    for suffix in (".index", DATA):
        open(dst + suffix, "wb").write(open(os.path.join(GOLD, "dtypes") + suffix, "rb").read())
    return dst


def read_all(prefix):
    r = tf.train.load_checkpoint(prefix)
    return {k: r.get_tensor(k) for k, _ in tf.train.list_variables(prefix)}


def test_tf_errors_for_damage(tmp_path):
    errors = META["errors"]
    p = copy_case(tmp_path, "flip")
    raw = bytearray(open(p + DATA, "rb").read())
    raw[1] ^= 1
    open(p + DATA, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match: stored") as e:
        read_all(p)
    assert errors["data_bitflip"][1].split(":")[1].strip() in str(e.value)
    for label, pos in [("index_bitflip_block", 20), ("index_magic", -1)]:
        p = copy_case(tmp_path, label)
        raw = bytearray(open(p + ".index", "rb").read())
        raw[pos] ^= 0x10
        open(p + ".index", "wb").write(bytes(raw))
        needle = errors[label][1].rsplit(": ", 1)[-1]  # "block checksum mismatch", "not an sstable (bad ...)"
        with pytest.raises(tf.errors.DataLossError, match=needle.replace("(", r"\(").replace(")", r"\)")):
            read_all(p)
    # TF ignores the footer's zero padding; so does tensorlet
    assert errors["index_bitflip_footer"] is None
    p = copy_case(tmp_path, "pad")
    raw = bytearray(open(p + ".index", "rb").read())
    raw[-20] ^= 0x10
    open(p + ".index", "wb").write(bytes(raw))
    assert read_all(p)["scalar"] == np.float32(1.25)


def test_fuzzed_files_fail_closed(tmp_path):
    """300 seeded bit flips, byte overwrites and truncations of TF's index and data: each either raises a TF
    error or (damage TF ignores too: footer padding) reads back exactly the recorded values."""
    want = case_tensors("dtypes")
    rng = random.Random(13)
    src = {s: open(os.path.join(GOLD, "dtypes") + s, "rb").read() for s in (".index", DATA)}
    outcomes = {"error": 0, "ok": 0}
    for i in range(300):
        suffix = ".index" if i % 3 else DATA
        raw, kind, pos = damage(src[suffix], rng, junk=16)
        p = str(tmp_path / f"f{i}")
        for s in (".index", DATA):
            open(p + s, "wb").write(raw if s == suffix else src[s])
        try:
            got = read_all(p)
        except (tf.errors.DataLossError, tf.errors.NotFoundError):
            outcomes["error"] += 1
            continue
        outcomes["ok"] += 1
        assert set(got) == set(want)
        for k, v in want.items():
            assert np.asarray(got[k]).reshape(-1).tolist() == v.reshape(-1).tolist(), (i, kind, pos, k)
    assert outcomes["error"] > 250, outcomes


def entry(dtype, shape, offset=0, size=0, crc=0, shard=0):
    return B._entry_proto(dtype, shape, shard, offset, size, crc)


def hostile(tmp_path, name, entries, header=None, data=b"\0" * 64):
    p = str(tmp_path / name)
    open(p + ".index", "wb").write(sstable.build([(b"", header or B._header_proto())] + sorted(entries)))
    open(p + DATA, "wb").write(data)
    return p


def test_hostile_indexes_fail_before_allocating(tmp_path):
    """Valid checksums, lying contents: huge shapes, sizes, offsets, shard counts; never a MemoryError."""
    cases = [
        ([(b"x", entry(1, [1 << 40, 1 << 20], size=1 << 62))], "points past the end"),
        ([(b"x", entry(1, [4], offset=1 << 62, size=16))], "points past the end"),
        ([(b"x", entry(1, [1 << 61, 8], size=64))], "too many elements"),
        ([(b"x", entry(1, [3], size=16))], "Invalid size in bundle entry"),
        ([(b"x", entry(7, [1 << 40], size=16))], "too small for"),
        ([(b"x", entry(20, [], size=16))], "dtype resource cannot be read"),
        ([(b"x", entry(1, [4], size=16, shard=3))], "shard 3 out of range"),
        ([(b"x", b"\x08\x01\x12\x04\x12\x02\x08\x7f\x22\x01")], "truncated"),
    ]
    for i, (entries, needle) in enumerate(cases):
        p = hostile(tmp_path, f"h{i}", entries)
        with pytest.raises(tf.errors.DataLossError, match=needle):
            read_all(p)
    for i, (header, needle) in enumerate([(b"\x08\xff\xff\xff\xff\x0f", "bad shard count"),
                                          (b"\x08\x01\x1a\x02\x10\x05", "not supported"),
                                          (b"\x08\x01\x10\x07", "unknown byte order")]):
        with pytest.raises(tf.errors.DataLossError, match=needle):
            read_all(hostile(tmp_path, f"hh{i}", [], header=header))
    # a string tensor whose declared lengths exceed the entry: refused before reading the strings
    lengths = sstable.varint(1 << 40) + b"\0\0\0\0"
    p = hostile(tmp_path, "s", [(b"x", entry(7, [1], size=len(lengths)))], data=lengths)
    with pytest.raises(tf.errors.DataLossError, match="do not add up"):
        read_all(p)


def test_keys_out_of_order_or_beyond_the_index_are_refused(tmp_path):
    p = hostile(tmp_path, "o", [])
    block = sstable._Block(16)
    block.add(b"", B._header_proto())
    block.add(b"b", entry(1, [], size=4))
    block.buf += b"\x00\x01\x00a"  # "a" after "b"
    raw = block.finish()
    table = raw + b"\0" + sstable.struct.pack("<I", sstable.mask(sstable.crc32c(raw + b"\0")))
    meta = sstable._Block(16).finish()
    m_off = len(table)
    table += meta + b"\0" + sstable.struct.pack("<I", sstable.mask(sstable.crc32c(meta + b"\0")))
    index = sstable._Block(1)
    index.add(b"c", sstable.varint(0) + sstable.varint(len(raw)))
    idx = index.finish()
    i_off = len(table)
    table += idx + b"\0" + sstable.struct.pack("<I", sstable.mask(sstable.crc32c(idx + b"\0")))
    foot = sstable.varint(m_off) + sstable.varint(len(meta)) + sstable.varint(i_off) + sstable.varint(len(idx))
    table += foot + b"\0" * (40 - len(foot)) + sstable.struct.pack("<Q", sstable.MAGIC)
    open(p + ".index", "wb").write(table)
    with pytest.raises(tf.errors.DataLossError, match="out of order"):
        read_all(p)


def test_legacy_and_tf_files_are_both_read(tmp_path):
    from tensorlet._src.train import format as F

    F.write(str(tmp_path / "old"), {"v": np.arange(3, dtype=np.float32)})
    B.write_bundle(str(tmp_path / "new"), {"v": np.arange(3, dtype=np.float32)})
    assert type(B.read_bundle(str(tmp_path / "old"))).__name__ == "Reader"
    for name in ("old", "new"):
        np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path / name), "v"), np.arange(3))


# --- temporaries ---------------------------------------------------------------------------------------------------
def dead_pid():
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def test_stale_temporaries_of_the_same_prefix_are_removed(tmp_path):
    pid = dead_pid()
    ours = [f"ckpt-2.index.tmp{pid}_0badf00d", f"ckpt-2{DATA}.tmp{pid}_deadbeef",
            f"ckpt-2{DATA}.tmp{os.getpid()}_12345678"]  # this process, no save writing it: stale too
    kept = [f"ckpt-2.index.tmp{os.getppid()}_0badf00d",  # a live process may still be writing it
            f"ckpt-20.index.tmp{pid}_0badf00d", f"ckpt-2.index.tmp{pid}_0badf00", f"ckpt-2.index.tmp{pid}_0BADF00D",
            f"ckpt-2.index.tempstate{pid}", "ckpt-2.notes.tmp1_0badf00d", f"other.index.tmp{pid}_0badf00d"]
    for name in ours + kept:
        (tmp_path / name).write_bytes(b"x" * 10)
    tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "ckpt-2"))
    names = set(os.listdir(tmp_path))
    assert not names & set(ours)
    assert set(kept) <= names and {"ckpt-2.index", "ckpt-2" + DATA} <= names


# --- TF1 Saver (name-based checkpoints) -----------------------------------------------------------------------------
SAVER = os.path.join(GOLD, META["saver"]["path"])
SAVER_VALUES = {"dense/kernel": np.arange(6, dtype=np.float32).reshape(2, 3),
                "dense/bias": np.array([0.5, -1.0, 2.0], np.float32),
                "emb": np.array([[1, 2], [3, 4]], np.int64), "global_step": np.int64(7)}


def test_tf1_saver_files_are_read():
    assert [[k, s] for k, s in tf.train.list_variables(SAVER)] == META["saver"]["keys"]
    for k, v in SAVER_VALUES.items():
        np.testing.assert_array_equal(tf.train.load_variable(SAVER, k), v)
    with pytest.raises(ValueError, match="no object graph"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(SAVER)


def test_saver_round_trip_is_byte_identical_to_tf1(tmp_path):
    variables = [tf.Variable(np.zeros_like(v), name=k) for k, v in SAVER_VALUES.items()]
    saver = tf.compat.v1.train.Saver(variables, max_to_keep=2)
    saver.restore(None, SAVER)
    for var, want in zip(variables, SAVER_VALUES.values()):
        np.testing.assert_array_equal(var.numpy(), want)
    path = saver.save(None, str(tmp_path / "model"), global_step=7)
    assert path == str(tmp_path / "model-7")
    for suffix in (".index", DATA):  # same names and values as TF1's Saver: the same bytes
        assert open(path + suffix, "rb").read() == open(SAVER + suffix, "rb").read(), suffix
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    for step in (8, 9):
        saver.save(None, str(tmp_path / "model"), global_step=step)
    assert saver.last_checkpoints == [str(tmp_path / "model-8"), str(tmp_path / "model-9")]
    assert not os.path.exists(path + ".index")  # max_to_keep=2
    with pytest.raises(tf.errors.NotFoundError, match="Key missing not found"):
        tf.compat.v1.train.Saver({"missing": variables[0]}).restore(None, SAVER)
    with pytest.raises(ValueError, match="not a valid checkpoint"):
        saver.restore(None, str(tmp_path / "nope"))


def test_big_endian_bundle_is_read(tmp_path):
    """A bundle whose header says BIG (as TF writes on big-endian machines): numbers and string checksums swap."""
    value = np.arange(6, dtype=">i4").reshape(2, 3)
    raw = value.tobytes()
    strings = [b"ab", b""]
    lengths = b"".join(sstable.varint(len(x)) for x in strings)
    crc = sstable.crc32c(b"".join(sstable.struct.pack(">I", len(x)) for x in strings))
    check = sstable.struct.pack(">I", sstable.mask(crc))
    crc_all = sstable.crc32c(b"".join(sstable.struct.pack(">I", len(x)) for x in strings) + check + b"ab")
    sblob = lengths + check + b"ab"
    header = b"\x08\x01\x10\x01\x1a\x02\x08\x01"
    p = hostile(tmp_path, "be", [(b"i", entry(3, [2, 3], size=24, crc=sstable.mask(sstable.crc32c(raw)))),
                                 (b"s", entry(7, [2], offset=24, size=len(sblob), crc=sstable.mask(crc_all)))],
                header=header, data=raw + sblob)
    got = read_all(p)
    np.testing.assert_array_equal(got["i"], np.arange(6).reshape(2, 3))
    assert got["i"].dtype == np.int32 and got["s"].tolist() == strings


def test_saver_in_a_tf1_graph_session(tmp_path):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        k = v1.get_variable("dense/kernel", initializer=np.zeros((2, 3), np.float32))
        step = v1.train.get_or_create_global_step()
        inc = k.assign_add(tf.ones([2, 3]))
        saver = v1.train.Saver()  # the graph's global variables, fixed now
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(inc)
            path = saver.save(sess, str(tmp_path / "m"), global_step=step)
            sess.run(inc)
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(k), np.ones((2, 3)))
    assert [k for k, _ in tf.train.list_variables(path)] == ["dense/kernel", "global_step"]
    assert path == str(tmp_path / "m-0")


def test_large_values_checked_while_written_and_read(tmp_path):
    """Values of several MiB take the threaded CRC paths (CRC computed beside the write / the chunked read)."""
    big = np.random.default_rng(0).standard_normal(900_000).astype(np.float32)  # 3.6 MB
    prefix = B.write_bundle(str(tmp_path / "big"), {"big": big, "small": np.int32(1)})
    np.testing.assert_array_equal(B.read_bundle(prefix).get("big"), big)
    entry_crc = B.read_bundle(prefix)._entries["big"][5]
    assert sstable.unmask(entry_crc) == sstable.crc32c(big.tobytes())
    raw = bytearray(open(prefix + DATA, "rb").read())
    raw[2_000_000] ^= 4
    open(prefix + DATA, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        tf.train.load_checkpoint(prefix).get_tensor("big")
