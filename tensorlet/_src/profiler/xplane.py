"""TF's profiler data format (``tensorflow.profiler.XSpace``), declared here from its field numbers.

The proto is not shipped by our dependencies, so the message classes are built at first use from a
FileDescriptorProto assembled below (same package, names and field numbers as TF's ``xplane.proto``), which is
what makes the written ``.xplane.pb`` readable by TensorBoard's profile plugin and by TF.
"""

from __future__ import annotations

_classes = None

# message -> [(field, number, type, label, type_name, oneof)]; types: 1 double, 3 int64, 4 uint64, 9 string,
# 11 message, 12 bytes; labels: 1 optional, 3 repeated
_P = ".tensorflow.profiler."
_SCHEMA = {
    "XSpace": [("planes", 1, 11, 3, _P + "XPlane", None), ("errors", 2, 9, 3, "", None),
               ("warnings", 3, 9, 3, "", None), ("hostnames", 4, 9, 3, "", None)],
    "XPlane": [("id", 1, 3, 1, "", None), ("name", 2, 9, 1, "", None), ("lines", 3, 11, 3, _P + "XLine", None),
               ("event_metadata", 4, 11, 3, _P + "XPlane.EventMetadataEntry", None),
               ("stat_metadata", 5, 11, 3, _P + "XPlane.StatMetadataEntry", None),
               ("stats", 6, 11, 3, _P + "XStat", None)],
    "XLine": [("id", 1, 3, 1, "", None), ("display_id", 10, 3, 1, "", None), ("name", 2, 9, 1, "", None),
              ("display_name", 11, 9, 1, "", None), ("timestamp_ns", 3, 3, 1, "", None),
              ("duration_ps", 9, 3, 1, "", None), ("events", 4, 11, 3, _P + "XEvent", None)],
    "XEvent": [("metadata_id", 1, 3, 1, "", None), ("offset_ps", 2, 3, 1, "", 0),
               ("num_occurrences", 5, 3, 1, "", 0), ("duration_ps", 3, 3, 1, "", None),
               ("stats", 4, 11, 3, _P + "XStat", None)],
    "XStat": [("metadata_id", 1, 3, 1, "", None), ("double_value", 2, 1, 1, "", 0), ("uint64_value", 3, 4, 1, "", 0),
              ("int64_value", 4, 3, 1, "", 0), ("str_value", 5, 9, 1, "", 0), ("bytes_value", 6, 12, 1, "", 0),
              ("ref_value", 7, 4, 1, "", 0)],
    "XEventMetadata": [("id", 1, 3, 1, "", None), ("name", 2, 9, 1, "", None), ("display_name", 4, 9, 1, "", None),
                       ("metadata", 3, 12, 1, "", None), ("stats", 5, 11, 3, _P + "XStat", None),
                       ("child_id", 6, 3, 3, "", None)],
    "XStatMetadata": [("id", 1, 3, 1, "", None), ("name", 2, 9, 1, "", None), ("description", 3, 9, 1, "", None)],
}
_ONEOFS = {"XEvent": "data", "XStat": "value"}
_MAPS = {"XPlane": [("EventMetadataEntry", _P + "XEventMetadata"), ("StatMetadataEntry", _P + "XStatMetadata")]}


def classes():
    """``{"XSpace": class, "XPlane": class, ...}`` (built once)."""
    global _classes
    if _classes is None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        fd = descriptor_pb2.FileDescriptorProto(name="tsl/profiler/protobuf/xplane.proto",
                                                package="tensorflow.profiler", syntax="proto3")
        for name, fields in _SCHEMA.items():
            m = fd.message_type.add(name=name)
            if name in _ONEOFS:
                m.oneof_decl.add(name=_ONEOFS[name])
            for entry, value_type in _MAPS.get(name, ()):
                e = m.nested_type.add(name=entry)
                e.options.map_entry = True
                e.field.add(name="key", number=1, type=3, label=1)
                e.field.add(name="value", number=2, type=11, label=1, type_name=value_type)
            for fname, num, typ, label, tname, oneof in fields:
                f = m.field.add(name=fname, number=num, type=typ, label=label)
                if tname:
                    f.type_name = tname
                if oneof is not None:
                    f.oneof_index = oneof
        pool = descriptor_pool.DescriptorPool()
        fdesc = pool.Add(fd)
        del fdesc
        _classes = {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.profiler.{n}"))
                    for n in _SCHEMA}
    return _classes
