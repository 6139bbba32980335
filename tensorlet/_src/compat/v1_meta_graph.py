"""TF1 ``MetaGraphDef`` files: ``tf.compat.v1.train.export_meta_graph`` / ``import_meta_graph`` and the ``.meta``
file ``Saver.save`` writes.

A MetaGraphDef written here holds what TF's holds: ``meta_info_def`` (TF's ``stripped_op_list``, the OpDefs of
the ops the graph uses, and ``tensorflow_version``), the ``graph_def`` (``v1_graph_def``), the ``saver_def``
with TF's tensor and op names (the ``save/`` subgraph is in the graph), and ``collection_def`` entries
(``variables`` / ``trainable_variables`` as ``VariableDef`` protos, ``train_op`` and other op / tensor
collections as node lists, plain values as value lists).  Reading parses the proto (binary, else text format)
after a size check, imports the graph (``v1_import``), rebuilds the collections, and returns a ``Saver`` that
restores the imported variables by name.  Nothing in the file runs as Python.
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model import protos as P

MAX_BYTES = 1 << 30
_VAR_COLLECTIONS = ("variables", "trainable_variables", "local_variables", "model_variables")


def read_proto(path, cls, text=None):
    """A ``cls`` proto from ``path``: binary, or text format (``text=True``, or when binary parsing fails)."""
    from google.protobuf import text_format

    path = os.fspath(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise errors.DataLossError(None, None, f"{path} is {size} bytes; the limit is {MAX_BYTES}")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
    msg = cls()
    if text is not True:
        try:
            msg.ParseFromString(data)
            return msg
        except Exception:  # noqa: BLE001 - protobuf raises DecodeError / RecursionError on hostile bytes
            if text is False:
                raise errors.DataLossError(None, None, f"Cannot parse file {path} as a binary "
                                                       f"{cls.DESCRIPTOR.name}") from None
    try:
        text_format.Parse(data.decode("utf-8"), msg)
    except Exception as e:  # noqa: BLE001 - text_format.ParseError, UnicodeDecodeError
        raise errors.DataLossError(None, None, f"Cannot parse file {path}: not a {cls.DESCRIPTOR.name} in binary "
                                               f"or text format ({type(e).__name__})") from None
    return msg


# --- OpDefs for stripped_op_list -------------------------------------------------------------------------------
def _attr_default(av, kind, v):
    if kind == "list":
        av.list.SetInParent()
        return
    if kind == "s":
        av.s = v.encode()
    elif kind == "shape":
        av.shape.SetInParent()
        if v == "unknown":
            av.shape.unknown_rank = True
        else:
            for d in v:
                av.shape.dim.add(size=d)
    elif kind in ("tensor", "func", "placeholder"):
        return False
    else:
        setattr(av, kind, v)
    return True


def op_def_proto(name):
    """TF's OpDef of ``name`` (from the recorded OpDefs), descriptions stripped as in ``stripped_op_list``."""
    from tensorboard.compat.proto import op_def_pb2

    from tensorlet._src.saved_model.tf_ops import opdef

    od = opdef(name)
    if od is None:
        return None
    out = op_def_pb2.OpDef(name=name, is_stateful=bool(od.get("stateful")))
    for src, dst in ((od["inputs"], out.input_arg), (od["outputs"], out.output_arg)):
        for a in src:
            arg = dst.add(name=a["name"])
            if "type" in a:
                arg.type = a["type"]
            for f in ("type_attr", "number_attr", "type_list_attr"):
                if f in a:
                    setattr(arg, f, a[f])
            arg.is_ref = bool(a.get("ref"))
    for a in od["attrs"]:
        at = out.attr.add(name=a["name"], type=a["type"])
        d = a.get("default")
        if d is not None:
            (kind, v), = d.items()
            if kind == "list" and v:
                field = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type"}.get(a["type"][5:-1])
                if field:
                    getattr(at.default_value.list, field).extend(x.encode() if field == "s" else x for x in v)
            elif _attr_default(at.default_value, kind, v) is False:
                at.ClearField("default_value")
        if "min" in a:
            at.has_minimum = True
            at.minimum = a["min"]
        allowed = a.get("allowed")
        if allowed is not None:
            vals = allowed.get("list", [])
            if a["type"] == "type":
                at.allowed_values.list.type.extend(vals)
            elif a["type"] == "string":
                at.allowed_values.list.s.extend(x.encode() for x in vals)
    return out


def _tf_version():
    import json

    from tensorlet._src.saved_model import tf_ops

    path = os.path.join(os.path.dirname(tf_ops.__file__), "tf_opdefs.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("tensorflow", "2.21.0")


# --- export ------------------------------------------------------------------------------------------------------
def _variable_def(info, export_scope=None):
    from tensorboard.compat.proto import variable_pb2

    v = info["var"]
    vd = variable_pb2.VariableDef(variable_name=f"{info['handle']}:0", initializer_name=info["assign"],
                                  snapshot_name=f"{info['read']}:0", initial_value_name=f"{info['initial']}:0",
                                  is_resource=True, trainable=bool(v.trainable))
    return vd.SerializeToString()


def _collections(graph, writer, collection_list, cd):
    from tensorlet._src.compat.v1_graph import Operation

    keys = collection_list if collection_list is not None else sorted(graph._collections)
    for key in keys:
        items = graph._collections.get(key)
        if not items or not isinstance(key, str):
            continue
        if all(isinstance(x, Variable) for x in items):
            cd[key].bytes_list.value.extend(_variable_def(writer.variable(x)) for x in items)
        elif all(isinstance(x, (Operation, GraphTensor)) for x in items):
            names = []
            for x in items:
                if isinstance(x, Operation):
                    names.append(x.name)
                else:
                    names.append(writer.refs.get(id(x), x.name))
            cd[key].node_list.value.extend(n if ":" in n or any(
                isinstance(x, Operation) and x.name == n for x in items) else f"{n}:0" for n in names)
        elif all(isinstance(x, (bytes, str)) for x in items):
            cd[key].bytes_list.value.extend(x if isinstance(x, bytes) else x.encode() for x in items)
        elif all(isinstance(x, (bool, int, np.integer)) for x in items):
            cd[key].int64_list.value.extend(int(x) for x in items)
        elif all(isinstance(x, (float, np.floating)) for x in items):
            cd[key].float_list.value.extend(float(x) for x in items)
        # (collections of other Python objects are not written, as TF skips what it cannot serialize)


def _strip_default_attrs(gd):
    """Removes attrs equal to their OpDef default (TF's ``strip_default_attrs``)."""
    for nd in list(gd.node) + [n for f in gd.library.function for n in f.node_def]:
        od = op_def_proto(nd.op)
        if od is None:
            continue
        for a in od.attr:
            if a.HasField("default_value") and a.name in nd.attr and nd.attr[a.name] == a.default_value:
                del nd.attr[a.name]


def build_meta_graph(graph, saver=None, collection_list=None, clear_devices=False, strip_default_attrs=False):
    """A ``MetaGraphDef`` of a compat.v1 graph, with ``saver``'s SaverDef when given."""
    from tensorlet._src.compat import v1_graph_def

    gd, writer, savers = v1_graph_def.build(graph)
    if strip_default_attrs:
        _strip_default_attrs(gd)
    saver_names = savers.get(id(saver)) if saver is not None else None
    mg = P.MetaGraphDef()
    info = mg.meta_info_def
    for op in sorted(writer.ops):
        od = op_def_proto(op)
        if od is not None:
            info.stripped_op_list.op.add().CopyFrom(od)
    info.tensorflow_version = _tf_version()
    info.tensorflow_git_version = "unknown"
    info.stripped_default_attrs = bool(strip_default_attrs)
    mg.graph_def.CopyFrom(gd)
    if saver_names is not None:
        filename, save, restore = saver_names
        opts = saver._options()
        mg.saver_def.CopyFrom(P.SaverDef(filename_tensor_name=filename, save_tensor_name=save,
                                         restore_op_name=restore, max_to_keep=int(opts.get("max_to_keep", 5)),
                                         sharded=False, keep_checkpoint_every_n_hours=float(
                                             opts.get("keep_checkpoint_every_n_hours", 10000.0)),
                                         version=P.SaverDef.V2))
    _collections(graph, writer, collection_list, mg.collection_def)
    return mg


def write_meta_graph(mg, filename, as_text=False):
    from google.protobuf import text_format

    from tensorlet._src.compat.v1_graph_def import atomic_write

    atomic_write(os.fspath(filename), text_format.MessageToString(mg).encode() if as_text else
                 mg.SerializeToString(deterministic=True))


@tf_export("compat.v1.train.export_meta_graph")
def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """The ``MetaGraphDef`` of ``graph`` (default: the default graph), written to ``filename`` when given."""
    from tensorlet._src.compat import v1_graph as v1

    if export_scope is not None:
        raise errors.UnimplementedError(None, None, "export_meta_graph(export_scope=...) is not supported by "
                                                    "tensorlet")
    g = graph if graph is not None else v1.get_default_graph()
    saver = kwargs.pop("_saver", None)
    mg = build_meta_graph(g, saver, collection_list, clear_devices, strip_default_attrs)
    if saver_def is not None and saver is None:
        mg.saver_def.CopyFrom(saver_def)
    if meta_info_def is not None:
        mg.meta_info_def.MergeFrom(meta_info_def)
    if graph_def is not None:
        mg.graph_def.CopyFrom(graph_def)
    if filename:
        write_meta_graph(mg, filename, as_text)
    return mg


# --- import ------------------------------------------------------------------------------------------------------
@tf_export("compat.v1.train.import_meta_graph")
def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraphDef (a proto or a ``.meta`` file, TF's or tensorlet's) into the default graph and
    rebuilds its collections; returns a ``Saver`` for its variables (None when it has none)."""
    from tensorboard.compat.proto import variable_pb2

    from tensorlet._src.compat import v1_graph as v1
    from tensorlet._src.compat import v1_import
    from tensorlet._src.compat.v1_saver import Saver

    if isinstance(meta_graph_or_file, P.MetaGraphDef):
        mg = meta_graph_or_file
    else:
        mg = read_proto(meta_graph_or_file, P.MetaGraphDef)
    graph = v1.get_default_graph()
    with graph.as_default():
        imp = v1_import.run_import(mg.graph_def, kwargs.get("input_map"), import_scope or "")
        prefix = imp.prefix
        for key, col in sorted(mg.collection_def.items()):
            kind = col.WhichOneof("kind")
            if kind == "bytes_list" and key in _VAR_COLLECTIONS:
                for raw in col.bytes_list.value:
                    vd = variable_pb2.VariableDef()
                    try:
                        vd.ParseFromString(raw)
                    except Exception:  # noqa: BLE001
                        raise errors.DataLossError(None, None, f"collection {key!r}: a corrupt VariableDef") from None
                    v = graph._imported_variables.get(prefix + vd.variable_name)
                    if v is None:
                        continue
                    init = imp.nodes.get(vd.initializer_name.split(":")[0])
                    if init is not None:
                        graph._initializers[id(v)] = init
                    v._trainable = bool(vd.trainable) if key == "trainable_variables" or not vd.trainable else \
                        v._trainable
                    if all(x is not v for x in graph._collections.get(key, [])):
                        graph.add_to_collection(key, v)
            elif kind == "node_list":
                for name in col.node_list.value:
                    try:
                        graph.add_to_collection(key, imp.element(name))
                    except (ValueError, errors.OpError):
                        continue  # (a name tensorlet could not import: the collection leaves it out)
            elif kind == "bytes_list":
                for x in col.bytes_list.value:
                    graph.add_to_collection(key, x)
            elif kind == "int64_list":
                for x in col.int64_list.value:
                    graph.add_to_collection(key, int(x))
            elif kind == "float_list":
                for x in col.float_list.value:
                    graph.add_to_collection(key, float(x))
        variables = dict(imp.variables.items())
        if not variables:
            return None
        by_key = {}
        for name, v in variables.items():
            by_key[name] = v
        sd = mg.saver_def
        return Saver(by_key, max_to_keep=sd.max_to_keep if mg.HasField("saver_def") else 5,
                     keep_checkpoint_every_n_hours=sd.keep_checkpoint_every_n_hours or 10000.0)
