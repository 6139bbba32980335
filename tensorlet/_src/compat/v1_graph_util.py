"""``tf.compat.v1.graph_util``: GraphDef surgery of TF1's freezing workflow -- ``extract_sub_graph``,
``convert_variables_to_constants`` (variables become ``Const`` nodes holding the session's values),
``remove_training_nodes``, ``tensor_shape_from_node_def_name``, ``must_run_on_cpu``.  All work on
``GraphDef`` protos (TF's, or ``tf.compat.v1.Graph.as_graph_def()``) and return new ones."""

from __future__ import annotations

import logging

import numpy as np

from tensorlet._src.ops.registry import tf_export

_VARIABLE_OPS = frozenset(("Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub", "ScatterUpdate",
                           "TruncatedNormal", "Variable", "VariableV2"))
_RESOURCE_VARS = frozenset(("VarHandleOp",))
_REF_VARS = frozenset(("Variable", "VariableV2"))


def _graph_def_type():
    from tensorlet._src.saved_model import protos

    return protos.GraphDef


def _node_name(n):
    return n[1:] if n.startswith("^") else n.split(":")[0]


def _colocated(node):
    out = []
    if "_class" in node.attr:
        for s in node.attr["_class"].list.s:
            s = s.decode("utf-8", errors="replace")
            out.append(s[5:] if s.startswith("loc:@") else s)
    return out


@tf_export("compat.v1.graph_util.extract_sub_graph")
def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes from which any of ``dest_nodes`` can be reached (data, control and colocation
    inputs), in their original order, with the function library and versions."""
    GraphDef = _graph_def_type()
    if not isinstance(graph_def, GraphDef):
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}.")
    if isinstance(dest_nodes, str):
        raise TypeError(f"dest_nodes must be an iterable of strings, but got type {type(dest_nodes)}.")
    inputs, by_name, seq = {}, {}, {}
    for k, node in enumerate(graph_def.node):
        n = _node_name(node.name)
        by_name[n] = node
        inputs[n] = [_node_name(x) for x in node.input] + _colocated(node)
        seq[n] = k
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError(f"{d} is not in graph")
    keep, todo = set(), list(dest_nodes)
    while todo:
        n = todo.pop()
        if n in keep:
            continue
        keep.add(n)
        todo.extend(inputs.get(n, ()))
    out = GraphDef()
    for n in sorted((n for n in keep if n in seq), key=seq.__getitem__):
        out.node.add().CopyFrom(by_name[n])
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def _session_variables(sess):
    """{variable op name: variable} of a session's graph."""
    graph = getattr(sess, "graph", None)
    if graph is None or not hasattr(graph, "_ir"):
        raise TypeError(f"convert_variables_to_constants needs a tf.compat.v1.Session, got {type(sess).__name__}")
    found = {}
    for v in (list(graph.get_collection("variables")) + list(graph.get_collection("local_variables")) +
              list(graph._ir.variables) + list(graph._imported_variables.values())):
        name = v.name[:-2] if v.name.endswith(":0") else v.name
        found.setdefault(name, v)
    return found


@tf_export("compat.v1.graph_util.convert_variables_to_constants")
def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """``input_graph_def`` cut down to what ``output_node_names`` need, each variable replaced by a ``Const``
    holding its value in ``sess`` (resource reads become ``Identity`` nodes)."""
    from tensorlet._src.saved_model.tf_ops import tensor_proto

    sub = extract_sub_graph(input_graph_def, output_node_names)
    values = _session_variables(sess)
    allow = set(variable_names_whitelist) if variable_names_whitelist is not None else None
    deny = set(variable_names_blacklist or ())
    frozen = {}
    out = _graph_def_type()()
    for node in sub.node:
        if node.op in _RESOURCE_VARS | _REF_VARS and (allow is None or node.name in allow) and node.name not in deny:
            v = values.get(node.name)
            if v is None:
                raise ValueError(f"convert_variables_to_constants: the session's graph has no variable "
                                 f"{node.name!r}")
            value = np.asarray(v._v)
            c = out.node.add(name=node.name, op="Const")
            c.attr["dtype"].type = v.dtype.as_datatype_enum
            tensor_proto(value, c.attr["value"].tensor)
            frozen[node.name] = v
            continue
        new = out.node.add()
        new.CopyFrom(node)
        if node.op == "ReadVariableOp" and node.input and _node_name(node.input[0]) in frozen:
            dtype = node.attr["dtype"].type
            new.op = "Identity"
            new.ClearField("attr")
            new.attr["T"].type = dtype
        elif node.op == "Identity" and node.input and _node_name(node.input[0]) in frozen:
            new.attr["T"].type = frozen[_node_name(node.input[0])].dtype.as_datatype_enum  # (no longer a ref)
    out.library.CopyFrom(sub.library)
    out.versions.CopyFrom(sub.versions)
    logging.getLogger("tensorflow").info("Froze %d variables.", len(frozen))
    return out


@tf_export("compat.v1.graph_util.remove_training_nodes")
def remove_training_nodes(input_graph, protected_nodes=None):
    """``input_graph`` without ``CheckNumerics`` nodes, its ``Identity`` / ``StopGradient`` nodes spliced out
    (inputs wired through) unless protected, in a control edge, or colocated with."""
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    after = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = type(node)()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(i for i in node.input if _node_name(i) not in removed)
        after.append(new)
    control_inputs, has_control, colocated = set(), set(), set()
    for node in after:
        for i in node.input:
            if i.startswith("^"):
                control_inputs.add(i[1:])
                has_control.add(node.name)
        colocated.update(_colocated(node))
    splice = {n.name: n.input[0] for n in after
              if n.op in ("Identity", "StopGradient") and n.name not in protected and n.name not in colocated
              and n.name not in has_control and n.input and n.name not in control_inputs}
    out = _graph_def_type()()
    for node in after:
        if node.name in splice:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        del new.input[:]
        for i in node.input:
            ctl = i.startswith("^")
            name = _node_name(i)
            while name in splice:  # a chain of spliced nodes
                target = splice[name]
                i = ("^" + _node_name(target)) if ctl else target
                name = _node_name(target)
            new.input.append(i)
    out.library.CopyFrom(input_graph.library)
    out.versions.CopyFrom(input_graph.versions)
    return out


@tf_export("compat.v1.graph_util.tensor_shape_from_node_def_name")
def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of ``input_name`` (``"node"`` means ``"node:0"``) in ``graph``."""
    name = input_name if ":" in input_name else f"{input_name}:0"
    return graph.get_tensor_by_name(name).shape


@tf_export("compat.v1.graph_util.must_run_on_cpu")
def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """TF's placement rule: int32 / string constants, int32 ``DynamicStitch`` / ``Cast`` (and variable ops with
    ``pin_variables_on_cpu``) must run on the CPU."""
    from tensorlet._src.saved_model import protos

    node_def = node.node_def if hasattr(node, "node_def") and not isinstance(node, protos.NodeDef) else node
    if not isinstance(node_def, protos.NodeDef):
        raise TypeError(f"must_run_on_cpu needs an Operation or a NodeDef, got {type(node).__name__}")
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    string, int32 = protos.types_pb2.DT_STRING, protos.types_pb2.DT_INT32
    if node_def.op == "Const" and node_def.attr["dtype"].type in (string, int32):
        return True
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch") and node_def.attr["T"].type == int32:
        return True
    return node_def.op == "Cast" and node_def.attr["SrcT"].type == int32
