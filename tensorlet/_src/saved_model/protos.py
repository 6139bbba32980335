"""TF's SavedModel protocol buffers: those that ship with ``tensorboard`` plus the two it lacks.

``tensorboard.compat.proto`` carries TF's GraphDef / FunctionDef / MetaGraphDef / SavedObjectGraph / struct /
TrackableObjectGraph messages (package ``tensorboard`` instead of ``tensorflow``; the wire format is the same).
``SavedModel`` (tensorflow/core/protobuf/saved_model.proto) and ``FingerprintDef`` (fingerprint.proto) are
declared here at import time with TF's field numbers.  ``tensorflow`` itself is never imported.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import (attr_value_pb2, function_pb2, graph_pb2, meta_graph_pb2, node_def_pb2,  # noqa: F401
                                      op_def_pb2, saved_object_graph_pb2, saver_pb2, struct_pb2, tensor_pb2,
                                      tensor_shape_pb2, trackable_object_graph_pb2, types_pb2, versions_pb2)

_F = descriptor_pb2.FieldDescriptorProto


def _declare():
    fd = descriptor_pb2.FileDescriptorProto(name="tensorlet/saved_model_extra.proto", package="tensorlet_tf",
                                            syntax="proto3")
    fd.dependency.extend([meta_graph_pb2.DESCRIPTOR.name, versions_pb2.DESCRIPTOR.name])
    sm = fd.message_type.add(name="SavedModel")
    sm.field.add(name="saved_model_schema_version", number=1, type=_F.TYPE_INT64, label=_F.LABEL_OPTIONAL)
    sm.field.add(name="meta_graphs", number=2, type=_F.TYPE_MESSAGE, label=_F.LABEL_REPEATED,
                 type_name=".tensorboard.MetaGraphDef")
    fp = fd.message_type.add(name="FingerprintDef")
    for i, n in enumerate(("saved_model_checksum", "graph_def_program_hash", "signature_def_hash",
                           "saved_object_graph_hash", "checkpoint_hash"), start=1):
        fp.field.add(name=n, number=i, type=_F.TYPE_UINT64, label=_F.LABEL_OPTIONAL)
    fp.field.add(name="uuid", number=7, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    fp.field.add(name="version", number=6, type=_F.TYPE_MESSAGE, label=_F.LABEL_OPTIONAL,
                 type_name=".tensorboard.VersionDef")
    pool = descriptor_pool.Default()
    try:
        file = pool.FindFileByName(fd.name)
    except KeyError:
        file = pool.Add(fd)
    return (message_factory.GetMessageClass(file.message_types_by_name["SavedModel"]),
            message_factory.GetMessageClass(file.message_types_by_name["FingerprintDef"]))


SavedModel, FingerprintDef = _declare()
GraphDef = graph_pb2.GraphDef
FunctionDef = function_pb2.FunctionDef
NodeDef = node_def_pb2.NodeDef
AttrValue = attr_value_pb2.AttrValue
MetaGraphDef = meta_graph_pb2.MetaGraphDef
SignatureDef = meta_graph_pb2.SignatureDef
TensorProto = tensor_pb2.TensorProto
TensorShapeProto = tensor_shape_pb2.TensorShapeProto
SavedObjectGraph = saved_object_graph_pb2.SavedObjectGraph
StructuredValue = struct_pb2.StructuredValue
TrackableObjectGraph = trackable_object_graph_pb2.TrackableObjectGraph
SaverDef = saver_pb2.SaverDef
DT_RESOURCE = types_pb2.DT_RESOURCE
DT_STRING = types_pb2.DT_STRING
