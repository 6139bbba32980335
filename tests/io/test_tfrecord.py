"""TFRecord files: reading TF's files (plain, GZIP, ZLIB), writing byte-identical ones, corruption handling
with TF's DataLossError messages, offsets and resuming."""

import os
import struct

import numpy as np
import pytest
from _goldens import TFRECORD, b64, recorder

import tensorlet as tf
from tensorlet._src.io import tfrecord as R

G = __import__("_goldens").load("tfrecord/expected.json")


def _records(name):
    e = G["files"][name]
    if "records" in e:
        return [b64(r) for r in e["records"]]
    return recorder("tfrecord").big_records()


@pytest.mark.parametrize("name", sorted(G["files"]))
def test_reads_tf_files(name):
    e = G["files"][name]
    got = list(R.iter_records(TFRECORD / name, e["compression"]))
    assert got == _records(name)


@pytest.mark.parametrize("name", sorted(G["files"]))
def test_writes_byte_identical_files(name, tmp_path):
    e = G["files"][name]
    path = tmp_path / name
    with tf.io.TFRecordWriter(str(path), tf.io.TFRecordOptions(compression_type=e["compression"])) as w:
        for k, r in enumerate(_records(name)):
            w.write(r)
            if e["flush_after"] is not None and k == e["flush_after"]:
                w.flush()
    assert path.read_bytes() == (TFRECORD / name).read_bytes()


def _plain(tmp_path, records=(b"hello", b"", b"x" * 100)):
    path = tmp_path / "a.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return path, path.read_bytes()


def _read(path, comp=""):
    out = []
    try:
        for r in R.iter_records(path, comp):
            out.append(r)
    except tf.errors.DataLossError as e:
        return out, str(e)
    return out, None


# offsets: record 0 at 0 (data at 12), record 1 at 21, record 2 at 37 (data at 49); TF's messages for each
@pytest.mark.parametrize("flip,good,message", [
    (12, 0, "corrupted record at 12"),  # data of record 0
    (2, 0, "corrupted record at 0 (Is this even a TFRecord file?)"),  # length of record 0
    (21 + 2, 1, "corrupted record at 21"),  # length of record 1
    (21 + 9, 1, "corrupted record at 21"),  # length checksum of record 1
    (-1, 2, "corrupted record at 49"),  # data checksum of record 2
])
def test_corruption(tmp_path, flip, good, message):
    path, data = _plain(tmp_path)
    d = bytearray(data)
    d[flip] ^= 1
    path.write_bytes(bytes(d))
    got, err = _read(path)
    assert got == [b"hello", b"", b"x" * 100][:good]
    assert err == f"{path}; {message}"


@pytest.mark.parametrize("cut,good,message", [
    (-3, 2, "truncated record at 37' failed with Read less bytes than requested"),
    (12, 0, "truncated record at 0' failed with Read less bytes than requested"),
    (5, 0, None),  # a partial header ends the file silently, as in TF
    (21 + 5, 1, None),
])
def test_truncation(tmp_path, cut, good, message):
    path, data = _plain(tmp_path)
    path.write_bytes(data[:cut])
    got, err = _read(path)
    assert got == [b"hello", b"", b"x" * 100][:good]
    assert err == (None if message is None else f"{path}; {message}")


def test_corrupted_and_truncated_compressed(tmp_path):
    path = tmp_path / "z.tfrecord"
    with tf.io.TFRecordWriter(str(path), "ZLIB") as w:
        for r in (b"hello", b"", b"x" * 100):
            w.write(r)
    data = path.read_bytes()
    d = bytearray(data)
    d[-10] ^= 0xFF
    path.write_bytes(bytes(d))
    _, err = _read(path, "ZLIB")
    assert err == f"{path}; inflate() failed with error -3: invalid distance too far back"
    path.write_bytes(data[:-6])
    got, err = _read(path, "ZLIB")
    assert got == [b"hello", b""] and err == f"{path}; truncated record at 37' failed with EOF reached"


def test_missing_file_and_bad_options(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        list(R.iter_records(tmp_path / "nope.tfrecord"))
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.io.TFRecordWriter(str(tmp_path / "no" / "dir.tfrecord"))
    with pytest.raises(ValueError, match='Not a valid compression_type: "gzip"'):
        tf.io.TFRecordWriter(str(tmp_path / "x"), "gzip")
    assert [tf.io.TFRecordOptions.get_compression_type_string(o) for o in
            (None, "", "ZLIB", 2, tf.io.TFRecordOptions("GZIP"), tf.io.TFRecordOptions())] == \
        ["", "", "ZLIB", "GZIP", "GZIP", ""]


def test_writer_semantics(tmp_path):
    path = tmp_path / "w.tfrecord"
    w = tf.io.TFRecordWriter(str(path))
    assert path.exists() and path.stat().st_size == 0  # created at once, like TF
    w.write("text record")  # str is written as UTF-8
    w.flush()
    assert path.stat().st_size == 16 + len("text record")
    w.close()
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
        w.write(b"x")
    assert list(R.iter_records(path)) == [b"text record"]
    with pytest.raises(TypeError):
        tf.io.TFRecordWriter(str(tmp_path / "other.tfrecord")).write(1.5)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_round_trip_many_sizes(tmp_path, compression):
    rng = np.random.default_rng(0)
    records = [rng.integers(0, 256, int(n), dtype=np.uint8).tobytes() for n in rng.integers(0, 3000, 400)]
    records += [b"big" * 700_000]  # larger than a read block
    path = tmp_path / "r.tfrecord"
    with tf.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)
    assert list(R.iter_records(path, compression, block_size=1 << 16)) == records
    assert list(R.iter_records(path, compression)) == records


def test_offsets_and_resume(tmp_path):
    path, _ = _plain(tmp_path)
    assert list(R.iter_records(path, offsets=True)) == [(0, b"hello"), (21, b""), (37, b"x" * 100)]
    assert list(R.iter_records(path, offsets=True, start_offset=21)) == [(21, b""), (37, b"x" * 100)]
    gz = tmp_path / "g.tfrecord"
    with tf.io.TFRecordWriter(str(gz), "GZIP") as w:
        for r in (b"hello", b"", b"x" * 100):
            w.write(r)
    assert list(R.iter_records(gz, "GZIP", offsets=True, start_offset=37)) == [(37, b"x" * 100)]


def test_framing_by_hand(tmp_path):
    """The format itself: uint64 length, masked crc32c of it, data, masked crc32c of the data."""
    from tensorlet._src.io.crc32c import masked_crc32c

    path, data = _plain(tmp_path, [b"abc"])
    head = struct.pack("<Q", 3)
    assert data == head + struct.pack("<I", masked_crc32c(head)) + b"abc" + struct.pack("<I", masked_crc32c(b"abc"))
    assert os.path.getsize(path) == 19


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_huge_declared_length_fails_before_allocating(tmp_path, compression):
    """A header declaring a 2**62-byte record with a valid CRC: DataLossError (as TF), never MemoryError."""
    import zlib

    from tensorlet._src.io import crc32c

    good = R.frame_records([b"first"])
    head = struct.pack("<Q", 1 << 62)
    raw = good + head + struct.pack("<I", crc32c.masked_crc32c(head)) + b"x" * 100
    if compression:
        z = zlib.compressobj(9, zlib.DEFLATED, 31 if compression == "GZIP" else 15)
        raw = z.compress(raw) + z.flush()
    path = tmp_path / "huge.tfrecord"
    path.write_bytes(raw)
    got = []
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 21"):
        for rec in tf.data.TFRecordDataset(str(path), compression_type=compression):
            got.append(rec.numpy())
    assert got == [b"first"]


def test_fuzzed_files_fail_closed(tmp_path):
    """300 seeded bit flips, overwrites, truncations and junk, plain and GZIP: the records read are always a
    prefix of the real ones, and anything else is a DataLossError (never another exception, never a hang)."""
    import gzip
    import random

    from hostile import damage

    records = [bytes([i]) * (i * 7 % 50) for i in range(40)]
    plain = R.frame_records(records)
    rng = random.Random(11)
    errors = 0
    for i in range(300):
        compression = "GZIP" if i % 2 else ""
        raw, kind, pos = damage(gzip.compress(plain) if compression else plain, rng)
        path = tmp_path / f"f{i}.tfrecord"
        path.write_bytes(raw)
        got = []
        try:
            for rec in R.iter_records(str(path), compression):
                got.append(bytes(rec))
        except tf.errors.DataLossError:
            errors += 1
        assert got == records[:len(got)], (i, kind, pos)
    assert errors > 150


def test_v1_tf_record_iterator(tmp_path):
    # TensorBoard's event-file loader reads through it under the tensorflow alias
    p = str(tmp_path / "v1.tfrecord")
    with tf.io.TFRecordWriter(p, "GZIP") as w:
        for r in (b"a", b"", b"xyz"):
            w.write(r)
    assert list(tf.compat.v1.io.tf_record_iterator(p, tf.io.TFRecordOptions("GZIP"))) == [b"a", b"", b"xyz"]
    assert list(tf.compat.v1.python_io.tf_record_iterator(p, "GZIP")) == [b"a", b"", b"xyz"]
    with pytest.raises(tf.errors.DataLossError):
        list(tf.compat.v1.io.tf_record_iterator(p))  # a gzip stream read as an uncompressed file
