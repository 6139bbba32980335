"""tf.io.decode_proto / encode_proto programs run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/proto_codec.json) and by tensorlet (tests/io/test_proto_codec.py).

The test message type is built here as a FileDescriptorSet (every scalar type, repeated and packed fields, an
enum, a nested message, proto2 defaults) and written to a file, the ``descriptor_source`` TF reads; the same
descriptor set is passed as ``bytes://``; ``local://`` cases use ``tensorflow.Example``, in TF's pool and
tensorlet's."""

import os
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
SCALARS = [("d", _F.TYPE_DOUBLE), ("f", _F.TYPE_FLOAT), ("i64", _F.TYPE_INT64), ("u64", _F.TYPE_UINT64),
           ("i32", _F.TYPE_INT32), ("fx64", _F.TYPE_FIXED64), ("fx32", _F.TYPE_FIXED32), ("b", _F.TYPE_BOOL),
           ("s", _F.TYPE_STRING), ("by", _F.TYPE_BYTES), ("u32", _F.TYPE_UINT32), ("sf32", _F.TYPE_SFIXED32),
           ("sf64", _F.TYPE_SFIXED64), ("s32", _F.TYPE_SINT32), ("s64", _F.TYPE_SINT64)]


def _file():
    fd = descriptor_pb2.FileDescriptorProto(name="tensorlet_test/codec.proto", package="tltest", syntax="proto2")
    enum = fd.enum_type.add(name="Color")
    for i, n in enumerate(["RED", "GREEN", "BLUE"]):
        enum.value.add(name=n, number=i)
    inner = fd.message_type.add(name="Inner")
    inner.field.add(name="x", number=1, type=_F.TYPE_INT32, label=_F.LABEL_OPTIONAL)
    m = fd.message_type.add(name="AllTypes")
    num = 1
    for name, typ in SCALARS:
        m.field.add(name=name, number=num, type=typ, label=_F.LABEL_OPTIONAL)
        m.field.add(name="r_" + name, number=num + 1, type=typ, label=_F.LABEL_REPEATED)
        num += 2
    m.field.add(name="packed_i32", number=100, type=_F.TYPE_INT32, label=_F.LABEL_REPEATED).options.packed = True
    m.field.add(name="packed_d", number=101, type=_F.TYPE_DOUBLE, label=_F.LABEL_REPEATED).options.packed = True
    m.field.add(name="color", number=102, type=_F.TYPE_ENUM, type_name=".tltest.Color", label=_F.LABEL_OPTIONAL)
    m.field.add(name="r_color", number=103, type=_F.TYPE_ENUM, type_name=".tltest.Color", label=_F.LABEL_REPEATED)
    m.field.add(name="inner", number=104, type=_F.TYPE_MESSAGE, type_name=".tltest.Inner", label=_F.LABEL_OPTIONAL)
    m.field.add(name="r_inner", number=105, type=_F.TYPE_MESSAGE, type_name=".tltest.Inner",
                label=_F.LABEL_REPEATED)
    m.field.add(name="dflt_i32", number=106, type=_F.TYPE_INT32, label=_F.LABEL_OPTIONAL, default_value="42")
    m.field.add(name="dflt_s", number=107, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL, default_value="hi")
    m.field.add(name="dflt_f", number=108, type=_F.TYPE_FLOAT, label=_F.LABEL_OPTIONAL, default_value="2.5")
    m.field.add(name="dflt_color", number=109, type=_F.TYPE_ENUM, type_name=".tltest.Color",
                label=_F.LABEL_OPTIONAL, default_value="BLUE")
    return descriptor_pb2.FileDescriptorSet(file=[fd])


DESC_SET = _file()
DESC_BYTES = DESC_SET.SerializeToString()
DESC_PATH = os.path.join(tempfile.gettempdir(), "tensorlet_proto_codec_cases.desc")
with open(DESC_PATH + ".tmp", "wb") as _f:
    _f.write(DESC_BYTES)
os.replace(DESC_PATH + ".tmp", DESC_PATH)

_pool = descriptor_pool.DescriptorPool()
_pool.Add(DESC_SET.file[0])
AllTypes = message_factory.GetMessageClass(_pool.FindMessageTypeByName("tltest.AllTypes"))


def _msgs():
    a = AllTypes(d=1.5, f=-2.25, i64=-(2 ** 40), u64=2 ** 63 + 5, i32=-7, fx64=2 ** 60, fx32=4000000000, b=True,
                 s="héllo", by=b"\x00\xff", u32=3000000000, sf32=-5, sf64=-(2 ** 50), s32=-9, s64=-(2 ** 45),
                 color=2)
    for name, vals in (("r_d", [0.5, -1.0]), ("r_f", [1.0]), ("r_i64", [1, -2, 3]), ("r_u64", [2 ** 64 - 1]),
                       ("r_i32", [4, 5]), ("r_b", [True, False, True]), ("r_s", ["a", "bc"]), ("r_by", [b"x"]),
                       ("r_u32", [7]), ("r_sf32", [-1, -2]), ("r_s32", [-3]), ("r_s64", [8, -8]), ("r_fx32", [9]),
                       ("r_fx64", [10, 11]), ("r_sf64", [-12]), ("packed_i32", [1, 2, 3, 4]),
                       ("packed_d", [0.25, 0.75]), ("r_color", [1, 0, 2])):
        getattr(a, name).extend(vals)
    a.inner.x = 3
    a.r_inner.add(x=1)
    a.r_inner.add(x=-2)
    b = AllTypes(i32=11, s="second", dflt_i32=7)
    b.r_i64.extend([100])
    b.packed_i32.extend([9])
    c = AllTypes()
    return [a.SerializeToString(), b.SerializeToString(), c.SerializeToString()]


MSGS = _msgs()
NAMES = [n for n, _ in SCALARS]


def _types(tf, names):
    table = {"d": tf.float64, "f": tf.float32, "i64": tf.int64, "u64": tf.uint64, "i32": tf.int32,
             "fx64": tf.uint64, "fx32": tf.uint32, "b": tf.bool, "s": tf.string, "by": tf.string, "u32": tf.uint32,
             "sf32": tf.int32, "sf64": tf.int64, "s32": tf.int32, "s64": tf.int64, "packed_i32": tf.int32,
             "packed_d": tf.float64, "color": tf.int32, "r_color": tf.int32, "inner": tf.string,
             "r_inner": tf.string, "dflt_i32": tf.int32, "dflt_s": tf.string, "dflt_f": tf.float32,
             "dflt_color": tf.int32}
    return [table[n[2:] if n.startswith("r_") else n] for n in names]


def _dec(tf, names, msgs=None, source=None, **kw):
    msgs = MSGS if msgs is None else msgs
    return tf.io.decode_proto(msgs, "tltest.AllTypes", names, _types(tf, names),
                              descriptor_source=DESC_PATH if source is None else source, **kw)


def _roundtrip(tf, names):
    sizes, values = _dec(tf, names)
    enc = tf.io.encode_proto(sizes, values, names, "tltest.AllTypes", descriptor_source=DESC_PATH)
    return [enc, _dec(tf, names, msgs=enc)]


R = ["r_" + n for n in NAMES]
EXTRA = ["packed_i32", "packed_d", "color", "r_color", "inner", "r_inner"]
DEFAULTS = ["dflt_i32", "dflt_s", "dflt_f", "dflt_color"]
CASES = {
    "singular": lambda tf: _dec(tf, NAMES),
    "repeated": lambda tf: _dec(tf, R),
    "packed_enum_message": lambda tf: _dec(tf, EXTRA),
    "defaults": lambda tf: _dec(tf, DEFAULTS),
    "batch_2d": lambda tf: _dec(tf, ["i32", "r_i64", "s"], msgs=[MSGS[:2], MSGS[1:]]),
    "scalar_batch": lambda tf: _dec(tf, ["i32", "r_s"], msgs=MSGS[0]),
    "bytes_source": lambda tf: _dec(tf, ["i32", "r_i64"], source=b"bytes://" + DESC_BYTES),
    "int32_as_int64": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["i32", "sf32", "s32", "u32", "fx32"],
                                                    [tf.int64] * 5, descriptor_source=DESC_PATH),
    "float_as_double": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["f", "d"], [tf.float64, tf.float32],
                                                     descriptor_source=DESC_PATH),
    "uint64_as_int64": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["u64", "fx64"], [tf.int64] * 2,
                                                     descriptor_source=DESC_PATH),
    "wrong_type": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["i32"], [tf.string],
                                                descriptor_source=DESC_PATH),
    "unknown_field": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["nope"], [tf.int32],
                                                   descriptor_source=DESC_PATH),
    "unknown_message": lambda tf: tf.io.decode_proto(MSGS, "tltest.Nope", ["i32"], [tf.int32],
                                                     descriptor_source=DESC_PATH),
    "length_mismatch": lambda tf: tf.io.decode_proto(MSGS, "tltest.AllTypes", ["i32", "s"], [tf.int32],
                                                     descriptor_source=DESC_PATH),
    "corrupt_message": lambda tf: _dec(tf, ["i32"], msgs=[b"\x08"]),
    "text_format": lambda tf: tf.io.decode_proto(["i32: 5 r_s: 'a' r_s: 'b'", "s: 'z'"], "tltest.AllTypes",
                                                 ["i32", "r_s", "s"], [tf.int32, tf.string, tf.string],
                                                 descriptor_source=DESC_PATH, message_format="text"),
    "local_example": lambda tf: tf.io.decode_proto(
        [tf.train.Example(features=tf.train.Features(feature={"a": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[1, 2]))})).SerializeToString()],
        "tensorflow.Example", ["features"], [tf.string]),
    "local_feature": lambda tf: tf.io.decode_proto(
        [tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5])).SerializeToString()],
        "tensorflow.Feature", ["float_list"], [tf.string]),
    "roundtrip_singular": lambda tf: _roundtrip(tf, NAMES),
    "roundtrip_repeated": lambda tf: _roundtrip(tf, R + EXTRA),
    "encode_partial_sizes": lambda tf: tf.io.encode_proto(
        tf.constant([[2, 1], [0, 0]]), [tf.constant([[1, 2], [3, 4]], tf.int64), tf.constant([["a"], ["b"]])],
        ["r_i64", "s"], "tltest.AllTypes", descriptor_source=DESC_PATH),
    "encode_size_too_big": lambda tf: tf.io.encode_proto(
        tf.constant([[3]]), [tf.constant([[1, 2]], tf.int64)], ["r_i64"], "tltest.AllTypes",
        descriptor_source=DESC_PATH),
    "encode_singular_two": lambda tf: tf.io.encode_proto(
        tf.constant([[2]]), [tf.constant([[1, 2]])], ["i32"], "tltest.AllTypes", descriptor_source=DESC_PATH),
    "encode_wrong_dtype": lambda tf: tf.io.encode_proto(
        tf.constant([[1]]), [tf.constant([[1.0]])], ["i32"], "tltest.AllTypes", descriptor_source=DESC_PATH),
    "decode_singular_twice": lambda tf: _dec(tf, ["i32", "r_i32"], msgs=[b"H\x01H\x02P\x03"]),
    "decode_unpacked_and_packed": lambda tf: _dec(tf, ["r_i32", "packed_i32"],
                                                  msgs=[b"P\x01R\x02\x02\x03\xa0\x06\x07"]),
    "decode_group_skipped": lambda tf: _dec(tf, ["i32"], msgs=[b"\x0b\x08\x01\x0cH\x05"]),
    "in_function": lambda tf: tf.function(lambda m: _dec(tf, ["i32", "r_s"], msgs=m))(tf.constant(MSGS)),
}
