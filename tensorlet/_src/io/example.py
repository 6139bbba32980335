"""``tf.train.Example`` and friends: real protobuf messages (TF's ``feature.proto`` / ``example.proto``).

TF's schema (package ``tensorflow``: ``BytesList``, ``FloatList``, ``Int64List``, ``Feature`` with a
``kind`` oneof, ``Features``/``FeatureLists`` maps, ``FeatureList``, ``Example``, ``SequenceExample``)
is declared here as a ``FileDescriptorProto`` and turned into message classes by protobuf itself, so
serialization, parsing, text format and equality are protobuf's own.  The descriptors live in a private
descriptor pool, so they never clash with TensorFlow's generated modules if both are imported.

>>> ex = tf.train.Example(features=tf.train.Features(feature={
...     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
>>> tf.train.Example.FromString(ex.SerializeToString()) == ex
True
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tensorlet._src.ops.registry import export_value

_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED


def _message(fd, name, fields, oneof=None):
    m = fd.message_type.add(name=name)
    if oneof:
        m.oneof_decl.add(name=oneof)
    for fname, number, ftype, label, type_name, in_oneof in fields:
        f = m.field.add(name=fname, number=number, type=ftype, label=label, json_name=_camel(fname))
        if type_name:
            f.type_name = type_name
        if in_oneof:
            f.oneof_index = 0
    return m


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _map(parent, field_name, number, value_type):
    entry = parent.nested_type.add(name=_camel(field_name)[0].upper() + _camel(field_name)[1:] + "Entry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_OPT, json_name="key")
    entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=_OPT, type_name=value_type,
                    json_name="value")
    parent.field.add(name=field_name, number=number, type=_F.TYPE_MESSAGE, label=_REP,
                     type_name=f".tensorflow.{parent.name}.{entry.name}", json_name=_camel(field_name))


def _files():
    feature = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/example/feature.proto", package="tensorflow",
                                                 syntax="proto3")
    _message(feature, "BytesList", [("value", 1, _F.TYPE_BYTES, _REP, None, False)])
    fl = _message(feature, "FloatList", [("value", 1, _F.TYPE_FLOAT, _REP, None, False)])
    il = _message(feature, "Int64List", [("value", 1, _F.TYPE_INT64, _REP, None, False)])
    for m in (fl, il):
        m.field[0].options.packed = True
    _message(feature, "Feature", [("bytes_list", 1, _F.TYPE_MESSAGE, _OPT, ".tensorflow.BytesList", True),
                                  ("float_list", 2, _F.TYPE_MESSAGE, _OPT, ".tensorflow.FloatList", True),
                                  ("int64_list", 3, _F.TYPE_MESSAGE, _OPT, ".tensorflow.Int64List", True)],
             oneof="kind")
    _map(_message(feature, "Features", []), "feature", 1, ".tensorflow.Feature")
    _message(feature, "FeatureList", [("feature", 1, _F.TYPE_MESSAGE, _REP, ".tensorflow.Feature", False)])
    _map(_message(feature, "FeatureLists", []), "feature_list", 1, ".tensorflow.FeatureList")

    example = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/example/example.proto", package="tensorflow",
                                                 syntax="proto3", dependency=[feature.name])
    _message(example, "Example", [("features", 1, _F.TYPE_MESSAGE, _OPT, ".tensorflow.Features", False)])
    _message(example, "SequenceExample", [("context", 1, _F.TYPE_MESSAGE, _OPT, ".tensorflow.Features", False),
                                          ("feature_lists", 2, _F.TYPE_MESSAGE, _OPT, ".tensorflow.FeatureLists",
                                           False)])
    return feature, example


POOL = descriptor_pool.DescriptorPool()
for _fd in _files():
    POOL.Add(_fd)


def _cls(name):
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"tensorflow.{name}"))


BytesList = _cls("BytesList")
FloatList = _cls("FloatList")
Int64List = _cls("Int64List")
Feature = _cls("Feature")
Features = _cls("Features")
FeatureList = _cls("FeatureList")
FeatureLists = _cls("FeatureLists")
Example = _cls("Example")
SequenceExample = _cls("SequenceExample")

for _name in ("BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList", "FeatureLists", "Example",
              "SequenceExample"):
    export_value(f"train.{_name}", __name__, _name)
