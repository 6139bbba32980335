"""tf.io file and byte ops and tf.io.gfile: TF's TensorProto bytes (recorded), TF's error classes and messages
(observed with TF 2.21), atomic writes."""

import os
import zlib

import numpy as np
import pytest
from _goldens import array, b64, load

import tensorlet as tf

SER = load("tfrecord/expected.json")["serialized_tensors"]


@pytest.mark.parametrize("name", sorted(SER))
def test_serialize_tensor_bytes_like_tf(name):
    e = SER[name]
    value = array(e["tensor"])
    t = tf.constant(value.astype(tf.as_dtype(e["dtype"]).as_numpy_dtype) if e["dtype"] != "string" else value,
                    dtype=tf.as_dtype(e["dtype"]))
    assert tf.io.serialize_tensor(t).numpy() == b64(e["bytes"])
    back = tf.io.parse_tensor(b64(e["bytes"]), tf.as_dtype(e["dtype"]))
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy().astype(object) if e["dtype"] == "string" else back.numpy(), t.numpy())


def test_parse_tensor_errors():
    s = tf.io.serialize_tensor(tf.constant([1.5, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Type mismatch between parsed tensor \(float\) and "
                                                             r"dtype \(int32\)"):
        tf.io.parse_tensor(s, tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Could not parse `serialized` as TensorProto, base64: "
                                                             "Z2FyYmFnZf8="):
        tf.io.parse_tensor(b"garbage\xff", tf.int32)


def test_read_and_write_file(tmp_path):
    path = str(tmp_path / "new" / "sub" / "x.bin")
    tf.io.write_file(path, b"hello\x00")  # creates the directories, as TF does
    assert tf.io.read_file(path).numpy() == b"hello\x00"
    assert not [n for n in os.listdir(tmp_path / "new" / "sub") if n != "x.bin"]  # no temporary left behind
    with pytest.raises(tf.errors.NotFoundError, match="^/nonexistent/x; No such file or directory"):
        tf.io.read_file("/nonexistent/x")
    with pytest.raises(tf.errors.FailedPreconditionError, match="; Is a directory"):
        tf.io.read_file(str(tmp_path))
    names = tf.io.matching_files(str(tmp_path / "new" / "*" / "*.bin"))
    assert names.numpy().tolist() == [path.encode()]


def test_read_file_in_a_graph(tmp_path):
    path = str(tmp_path / "a.txt")
    tf.io.write_file(path, "one")
    f = tf.function(lambda p: tf.strings.length(tf.io.read_file(p)))
    assert int(f(tf.constant(path))) == 3
    tf.io.write_file(path, "three")  # read at every call, never folded into a constant
    assert int(f(tf.constant(path))) == 5


def test_decode_raw():
    x = tf.io.decode_raw(tf.constant([b"abcd", b"efgh"]), tf.int16)
    assert x.numpy().tolist() == [[25185, 25699], [26213, 26727]]
    assert tf.io.decode_raw(b"abcd", tf.int16, little_endian=False).numpy().tolist() == [24930, 25444]
    assert tf.io.decode_raw([b"ab", b"abcd"], tf.uint8, fixed_length=4).numpy().tolist() == [[97, 98, 0, 0],
                                                                                              [97, 98, 99, 100]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="^DecodeRaw requires input strings to all be the same "
                                                             "size, but element 1 has size 4 != 3"):
        tf.io.decode_raw([b"abcd", b"efg"], tf.int8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Input to DecodeRaw has length 5 that is not a "
                                                             "multiple of 4, the size of float"):
        tf.io.decode_raw(b"abcde", tf.float32)


def test_decode_csv():
    a, b, c = tf.io.decode_csv(["1,2.5,a", "3,,b"], [[0], [1.0], ["z"]])
    assert a.dtype == tf.int32 and a.numpy().tolist() == [1, 3]
    assert b.numpy().tolist() == [2.5, 1.0] and c.numpy().tolist() == [b"a", b"b"]
    q = tf.io.decode_csv(['"a,b",2,"c""d"'], [[""], [0], [""]])
    assert q[0].numpy().tolist() == [b"a,b"] and q[2].numpy().tolist() == [b'c"d']
    assert [t.numpy().tolist() for t in tf.io.decode_csv(["1;NA"], [[0], [7]], field_delim=";", na_value="NA")] == \
        [[1], [7]]
    assert [t.numpy().tolist() for t in tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2])] == [[1], [3]]
    for rec, defaults, message in [
        (["1,2.5"], [[0], [1.0], ["z"]], "Expect 3 fields but have 2 in record 0"),
        (["1,,a"], [[0], tf.constant([], tf.float32), ["z"]], "Field 1 is required but missing in record 0!"),
        (["x,2.5,a"], [[0], [1.0], ["z"]], "Field 0 in record 0 is not a valid int32: x"),
        (["1.5,2"], [[0], [0]], "Field 0 in record 0 is not a valid int32: 1.5"),
        (['a"b,2'], [[""], [0]], "Unquoted fields cannot have quotes/CRLFs inside"),
        (['"ab"c,2'], [[""], [0]], "Quote inside a string has to be escaped by another quote"),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.io.decode_csv(rec, defaults)
        assert str(info.value).startswith(message)


def test_base64_and_compressed():
    assert tf.io.encode_base64(b"hello??>").numpy() == b"aGVsbG8_Pz4"
    assert tf.io.encode_base64(b"hello??>", pad=True).numpy() == b"aGVsbG8_Pz4="
    assert tf.io.decode_base64(b"aGVsbG8_Pz4").numpy() == b"hello??>"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Base64 string length cannot be 1 modulo 4."):
        tf.io.decode_base64(b"a")
    assert tf.io.decode_compressed(zlib.compress(b"xyz"), "ZLIB").numpy() == b"xyz"


def test_gfile(tmp_path):
    g = tf.io.gfile
    d = str(tmp_path / "d")
    g.makedirs(d + "/sub")
    g.mkdir(d + "/sub")  # exists: no error, as TF
    with g.GFile(d + "/sub/x.txt", "w") as f:
        assert g.exists(d + "/sub/x.txt")  # created at once, like TF's
        f.write("hello\nworld\n")
    assert g.GFile(d + "/sub/x.txt").read() == "hello\nworld\n"
    assert g.GFile(d + "/sub/x.txt", "rb").read() == b"hello\nworld\n"
    assert list(g.GFile(d + "/sub/x.txt")) == ["hello\n", "world\n"]
    assert g.GFile(d + "/sub/x.txt").size() == 12 and g.stat(d + "/sub/x.txt").length == 12
    assert g.listdir(d) == ["sub"] and g.isdir(d + "/sub") and not g.isdir(d + "/sub/x.txt")
    assert list(g.walk(d)) == [(d, ["sub"], []), (d + "/sub", [], ["x.txt"])]
    assert g.glob(d + "/*/*.txt") == [d + "/sub/x.txt"]
    g.copy(d + "/sub/x.txt", d + "/y.txt")
    with pytest.raises(tf.errors.AlreadyExistsError, match="file already exists"):
        g.rename(d + "/y.txt", d + "/sub/x.txt")
    g.rename(d + "/y.txt", d + "/sub/x.txt", overwrite=True)
    g.remove(d + "/sub/x.txt")
    assert not g.exists(d + "/sub/x.txt")
    with pytest.raises(tf.errors.NotFoundError, match="^Could not find directory /nonexistent"):
        g.listdir("/nonexistent")
    with pytest.raises(tf.errors.NotFoundError, match="^/nonexistent/x; No such file or directory"):
        g.remove("/nonexistent/x")
    with pytest.raises(tf.errors.NotFoundError, match="^/nonexistent/x; No such file or directory"):
        g.GFile("/nonexistent/x").read()
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for writing"):
        g.GFile(_touch(d + "/t.txt")).write("x")
    g.rmtree(d)
    assert not g.exists(d)
    assert g.join("a", "b") == "a/b"


def _touch(path):
    open(path, "w").close()
    return path
