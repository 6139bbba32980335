"""TF1 graphs as TensorFlow ``GraphDef`` protos: ``tf.compat.v1.Graph.as_graph_def()`` and ``tf.io.write_graph``.

Each node of a compat.v1 graph becomes a ``NodeDef`` with TF's op name and attrs as TF's OpDefs declare them
(through the SavedModel exporter's ``tf_ops.node_to_tf``); variables are resource variables as TF 2 builds
them in graph mode: ``w`` (``VarHandleOp``), ``w/Initializer/initial_value``, ``w/IsInitialized/...``,
``w/Assign`` (the initializer) and ``w/Read/ReadVariableOp``; reads are ``ReadVariableOp`` nodes, assignments
``Assign{,Add,Sub}VariableOp``.  A ``Saver`` adds TF's ``save/`` subgraph (``SaveV2`` / ``RestoreV2`` /
``save/restore_all``), so that real TF's ``import_meta_graph`` + ``Saver.restore`` works on the result.
An op TF has no kernel for is refused with an error naming it.
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.compat.v1_graph import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER
from tensorlet._src.framework import errors
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import Unsupported
from tensorlet._src.saved_model.tf_ops import attr_value, node_to_tf, opdef, shape_proto, tensor_proto

PRODUCER, MIN_CONSUMER = GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER  # (TF 2.21's)
_ASSIGN_TF = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp",
              "assign_sub": "AssignSubVariableOp"}


def var_op_name(v) -> str:
    name = v.name
    return name[:-2] if name.endswith(":0") else name


def _ref(name, index):
    return name if index == 0 else f"{name}:{index}"


class _GraphFn:
    """What the SavedModel exporter's control-flow writers call to add nodes, adding them to a GraphDef."""

    def __init__(self, writer, node_name):
        self.w = writer
        self.node_name = node_name

    def node(self, base, op, inputs=(), attrs=None, control=()):
        name = base if base == self.node_name else self.w.fresh(base)
        nd = self.w.node(name, op, inputs, attrs, control)
        return name, opdef(op), nd

    def const(self, base, value):
        return self.w.const(self.w.fresh(base), value)


class _Writer:
    def __init__(self, v1graph, add_shapes):
        self.g = v1graph
        self.gd = P.GraphDef()
        self.add_shapes = add_shapes
        self.used = {n.name.lower() for n in v1graph._ir.nodes}
        self.refs = {}  # id(GraphTensor) -> "node[:k]"
        self.var_nodes = {}  # id(variable) -> {"handle", "assign", "read", "initial"}
        self.ops = set()
        self.exporter = None  # the SavedModel exporter, writing control-flow branches as FunctionDefs

    def fresh(self, base):
        name, n = base, 0
        while name.lower() in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name.lower())
        return name

    def node(self, name, op, inputs=(), attrs=None, control=(), shapes=None):
        od = opdef(op)
        if od is None:
            raise Unsupported(f"node {name}: op {op} is not in TF's recorded OpDefs")
        nd = self.gd.node.add(name=name, op=op)
        nd.input.extend(inputs)
        nd.input.extend(f"^{c}" for c in dict.fromkeys(control))
        for k, v in (attrs or {}).items():
            nd.attr[k].CopyFrom(v)
        from tensorlet._src.saved_model.tf_export import _set_defaults

        _set_defaults(od, nd)
        if self.add_shapes and shapes is not None:
            lst = nd.attr["_output_shapes"].list
            lst.SetInParent()
            for s in shapes:
                shape_proto(s, lst.shape.add())
        self.ops.add(op)
        return nd

    def const(self, name, value, control=()):
        value = np.asarray(value)
        av = P.AttrValue()
        tensor_proto(value, av.tensor)
        dt = P.DT_STRING if value.dtype.kind in "OSU" else None
        attrs = {"value": av, "dtype": P.AttrValue(type=dt) if dt else attr_value("type", _np_dtype(value), name)}
        self.node(name, "Const", attrs=attrs, control=control, shapes=[value.shape])
        return name

    # --- variables -------------------------------------------------------------------------------------------
    def variable(self, v):
        got = self.var_nodes.get(id(v))
        if got is not None:
            return got
        vn = var_op_name(v)
        where = f"variable {vn!r}"
        if vn.lower() in self.used:
            vn = self.fresh(vn)
        else:
            self.used.add(vn.lower())
        dt = attr_value("type", v.dtype, where)
        self.node(vn, "VarHandleOp", attrs={"dtype": dt, "shape": attr_value("shape", v.shape, where),
                                             "shared_name": attr_value("string", vn, where)}, shapes=[()])
        init = self.g._initial_values.get(id(v))
        initial = self.const(self.fresh(f"{vn}/Initializer/initial_value"), init if init is not None else v._v)
        self.node(self.fresh(f"{vn}/IsInitialized/VarIsInitializedOp"), "VarIsInitializedOp", [vn], shapes=[()])
        assign = self.fresh(f"{vn}/Assign")
        self.node(assign, "AssignVariableOp", [vn, initial], {"dtype": dt})
        read = self.fresh(f"{vn}/Read/ReadVariableOp")
        self.node(read, "ReadVariableOp", [vn], {"dtype": dt}, shapes=[v.shape])
        got = self.var_nodes[id(v)] = {"handle": vn, "assign": assign, "read": read, "initial": initial, "var": v}
        return got

    # --- graph nodes ---------------------------------------------------------------------------------------------
    def ref(self, t, consumer):
        """The input string for tensor ``t`` (an assignment's value is read back after it)."""
        r = self.refs.get(id(t))
        if r is not None:
            return r
        raise Unsupported(f"node {consumer}: input {t.name} is not computed earlier in the graph")

    def write_nodes(self):
        from tensorlet._src.compat.v1_graph import ASSIGN_VAR, NO_OP

        g = self.g
        for v in list(g.get_collection("variables")) + list(g._ir.variables):
            self.variable(v)
        for node in g._ir.nodes:
            where = f"node {node.name} ({node.op.name})"
            shapes = [t.shape for t in node.outputs]
            control = [c.name for c in node.control]
            if node.op is PLACEHOLDER:
                t = node.outputs[0]
                self.node(node.name, "Placeholder", attrs={"dtype": attr_value("type", t.dtype, where),
                                                            "shape": attr_value("shape", t.shape, where)},
                          shapes=shapes)
            elif node.op is CONST:
                self.const(node.name, node.attrs["value"], control)
            elif node.op is READ_VAR:
                v = node.attrs["var"]
                self.node(node.name, "ReadVariableOp", [self.variable(v)["handle"]],
                          {"dtype": attr_value("type", v.dtype, where)}, control, shapes)
            elif node.op is ASSIGN_VAR:
                v = node.attrs["var"]
                h = self.variable(v)["handle"]
                dt = {"dtype": attr_value("type", v.dtype, where)}
                self.node(node.name, _ASSIGN_TF[node.attrs["kind"]], [h, self.ref(node.inputs[0], node.name)], dt,
                          control)
                read = self.fresh(f"{node.name}/ReadVariableOp")  # TF: assign(read_value=True)
                self.node(read, "ReadVariableOp", [h], dt, [node.name], shapes)
                self.refs[id(node.outputs[0])] = read
                continue
            elif node.op is NO_OP:
                deps = [t.node.name if t.node.op is ASSIGN_VAR else self.ref(t, node.name).split(":")[0]
                        for t in node.inputs]
                deps += [d.name for d in node.attrs.get("deps", ())]
                self.node(node.name, "NoOp", control=control + deps)
            elif node.op.name in ("If", "While"):
                self.control_flow(node, where, control)
                continue
            else:
                self.generic(node, where, shapes, control)
            for t in node.outputs:
                self.refs[id(t)] = _ref(node.name, t.index)

    def control_flow(self, node, where, control):
        """``StatelessIf`` / ``StatelessWhile`` with branch functions in the GraphDef's library (the SavedModel
        exporter writes the FunctionDefs)."""
        import itertools

        from tensorlet._src.saved_model.tf_export import Exporter, _Shifted

        if self.exporter is None:
            self.exporter = Exporter(lambda v: None, itertools.count(1))
        handles = {vid: info["handle"] for vid, info in self.var_nodes.items()}
        ins = [self.ref(t, node.name) for t in node.inputs]
        shim = _GraphFn(self, node.name)
        make = self.exporter._if if node.op.name == "If" else self.exporter._while
        n, _, _ = make(shim, node, ins, control, where, handles)
        name, shift = (n.name, n.by) if isinstance(n, _Shifted) else (n, 0)
        for t in node.outputs:
            self.refs[id(t)] = _ref(name, t.index + shift)

    def finish_library(self):
        if self.exporter is None:
            return
        for fd in self.exporter.library:
            self.gd.library.function.add().CopyFrom(fd)
            self.ops.update(nd.op for nd in fd.node_def)

    def generic(self, node, where, shapes, control):
        tf_name, consts, attrs = node_to_tf(node, [t.dtype for t in node.inputs], [t.dtype for t in node.outputs],
                                            where)
        ins = [self.ref(t, node.name) for t in node.inputs]
        for k, (idx, value) in enumerate(consts):
            ins.insert(idx, self.const(self.fresh(f"{node.name}/Const" if k == 0 else f"{node.name}/Const_{k}"),
                                       value))
        self.node(node.name, tf_name, ins, attrs, control, shapes)

    # --- the saver's subgraph ------------------------------------------------------------------------------------
    def saver(self, names_vars, scope="save"):
        """TF's ``Saver`` nodes for {checkpoint key: variable}; returns the SaverDef's tensor and op names."""
        s, n = scope, 0
        while any(u == s.lower() or u.startswith(s.lower() + "/") for u in self.used):  # a free name scope
            n += 1
            s = f"{scope}_{n}"
        self.used.add(s.lower())
        items = sorted(names_vars.items())
        w = f"saver {s}"
        fn_in = self.const(f"{s}/filename/input", np.array(b"model", dtype=object))
        str_t = {"dtype": attr_value("type", "string", w), "shape": attr_value("shape", [], w)}
        self.used.update(x.lower() for x in (f"{s}/filename/input", f"{s}/filename", f"{s}/Const"))
        self.node(f"{s}/filename", "PlaceholderWithDefault", [fn_in], str_t)
        self.node(f"{s}/Const", "PlaceholderWithDefault", [f"{s}/filename"], str_t)
        keys = np.array([k.encode() for k, _ in items], dtype=object)
        slices = np.array([b""] * len(items), dtype=object)
        dtypes = attr_value("list(type)", [v.dtype for _, v in items], w)
        tensors = [self.variable(v)["read"] for _, v in items]
        names = self.const(self.fresh(f"{s}/SaveV2/tensor_names"), keys)
        sl = self.const(self.fresh(f"{s}/SaveV2/shape_and_slices"), slices)
        save = self.fresh(f"{s}/SaveV2")
        self.node(save, "SaveV2", [f"{s}/Const", names, sl] + tensors, {"dtypes": dtypes})
        ctl = self.fresh(f"{s}/control_dependency")
        self.node(ctl, "Identity", [f"{s}/Const"], {"T": attr_value("type", "string", w)}, [save])
        rnames = self.const(self.fresh(f"{s}/RestoreV2/tensor_names"), keys)
        rsl = self.const(self.fresh(f"{s}/RestoreV2/shape_and_slices"), slices)
        restore = self.fresh(f"{s}/RestoreV2")
        self.node(restore, "RestoreV2", [f"{s}/Const", rnames, rsl], {"dtypes": dtypes})
        assigns = []
        for k, (_, v) in enumerate(items):
            ident = self.fresh(f"{s}/Identity")
            self.node(ident, "Identity", [_ref(restore, k)], {"T": attr_value("type", v.dtype, w)})
            a = self.fresh(f"{s}/AssignVariableOp")
            self.node(a, "AssignVariableOp", [self.variable(v)["handle"], ident],
                      {"dtype": attr_value("type", v.dtype, w)})
            assigns.append(a)
        restore_all = self.fresh(f"{s}/restore_all")
        self.node(restore_all, "NoOp", control=assigns)
        return f"{s}/Const:0", f"{ctl}:0", restore_all


def _np_dtype(value):
    from tensorlet._src.framework import dtypes as _dt

    return _dt._FROM_NP[value.dtype]


def build(v1graph, add_shapes=False):
    """``(GraphDef, writer, {id(saver): (filename tensor, save tensor, restore op)})`` of a compat.v1 graph; each
    ``Saver`` built in the graph adds its ``save/`` nodes, as in TF."""
    w = _Writer(v1graph, add_shapes)
    savers = {}
    try:
        w.write_nodes()
        w.finish_library()
        for s in v1graph._savers:
            names = s._vars()
            if names:
                savers[id(s)] = w.saver(names)
    except Unsupported as e:
        raise errors.UnimplementedError(None, None, f"Cannot write this graph as a TensorFlow GraphDef: {e}") from None
    w.gd.versions.producer = PRODUCER
    w.gd.versions.min_consumer = MIN_CONSUMER
    return w.gd, w, savers


def as_graph_def(v1graph, from_version=None, add_shapes=False):
    return build(v1graph, add_shapes)[0]


def _graph_def_of(graph_or_graph_def):
    if isinstance(graph_or_graph_def, P.GraphDef):
        return graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        return graph_or_graph_def.as_graph_def()
    raise TypeError(f"Expected a tf.Graph or a GraphDef proto, got {type(graph_or_graph_def).__name__}")


def atomic_write(path, data: bytes):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


@tf_export("io.write_graph", "compat.v1.train.write_graph")
def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph's ``GraphDef`` to ``logdir/name`` (text format by default); returns the path."""
    from google.protobuf import text_format

    gd = _graph_def_of(graph_or_graph_def)
    path = os.path.join(os.fspath(logdir), name)
    atomic_write(path, text_format.MessageToString(gd).encode() if as_text else gd.SerializeToString(
        deterministic=True))
    return path
