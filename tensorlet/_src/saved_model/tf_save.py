"""Assembles and writes a SavedModel directory in TF's format (see ``tf_export`` for what each part holds)."""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import uuid as _uuid

import numpy as np

from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model import signatures as _sigs
from tensorlet._src.saved_model import tf_struct
from tensorlet._src.saved_model.codec import Unsupported
from tensorlet._src.saved_model.tf_export import (MIN_CONSUMER, OBJECT_GRAPH_KEY, PRODUCER, Exporter, _Fn,
                                                  _Names, _set_defaults, _var_name, call_attrs, capture_dtypes,
                                                  concrete_proto, write_object_graph)
from tensorlet._src.saved_model.fingerprint import fingerprint_def
from tensorlet._src.saved_model.tf_ops import attr_value, dtype_enum, opdef, shape_proto
from tensorlet._src.train import format as _format
from tensorlet._src.train import tf_bundle

PB_NAME = "saved_model.pb"
METHOD = "tensorflow/serving/predict"
INIT_OP = "__saved_model_init_op"


def _graph_node(gd, names, base, op, inputs=(), attrs=None):
    nd = gd.node.add(name=names(base), op=op)
    nd.input.extend(inputs)
    for k, v in (attrs or {}).items():
        nd.attr[k].CopyFrom(v)
    _set_defaults(opdef(op), nd)
    return nd


def _saver_functions(exporter, variables, keys):
    """``__inference__traced_save`` / ``__inference__traced_restore`` over the variables, by checkpoint key."""
    save = _Fn(exporter.fresh("_traced_save"))
    prefix = save.arg("file_prefix", P.DT_STRING, user_name="file_prefix")
    handles = [save.arg(f"read_disablecopyonread_{_var_name(v)}", P.DT_RESOURCE, handle=v, user_name="resource")
               for v in variables]
    graph_arg = save.arg("savev2_const", P.DT_STRING, user_name="Const")
    reads = []
    for v, h in zip(variables, handles):
        n, _, _ = save.node("ReadVariableOp", "ReadVariableOp", [h], {"dtype": attr_value("type", v.dtype, "save")})
        reads.append(f"{n}:value:0")
    names = [keys[id(v)] for v in variables] + [OBJECT_GRAPH_KEY]
    tn = save.const("SaveV2/tensor_names", np.array([k.encode() for k in names], dtype=object))
    ss = save.const("SaveV2/shape_and_slices", np.array([b""] * len(names), dtype=object))
    dts = P.AttrValue()
    dts.list.type.extend([dtype_enum(v.dtype) for v in variables] + [P.DT_STRING])
    sv, _, _ = save.node("SaveV2", "SaveV2", [prefix, tn, ss] + reads + [graph_arg], {"dtypes": dts})
    save.control = [sv]
    save.output(prefix, "string")
    save_fd = save.finish([sv])

    restore = _Fn(exporter.fresh("_traced_restore"))
    prefix = restore.arg("file_prefix", P.DT_STRING, user_name="file_prefix")
    handles = [restore.arg(f"assignvariableop_{_var_name(v)}", P.DT_RESOURCE, handle=v, user_name="resource")
               for v in variables]
    assigns = []
    if variables:  # (RestoreV2 takes at least one tensor)
        tn = restore.const("RestoreV2/tensor_names", np.array([keys[id(v)].encode() for v in variables], dtype=object))
        ss = restore.const("RestoreV2/shape_and_slices", np.array([b""] * len(variables), dtype=object))
        dts = P.AttrValue()
        dts.list.type.extend(dtype_enum(v.dtype) for v in variables)
        rv, _, _ = restore.node("RestoreV2", "RestoreV2", [prefix, tn, ss], {"dtypes": dts})
    for i, (v, h) in enumerate(zip(variables, handles)):
        n, _, _ = restore.node("AssignVariableOp", "AssignVariableOp", [h, f"{rv}:tensors:{i}"],
                               {"dtype": attr_value("type", v.dtype, "restore")})
        assigns.append(n)
    restore.control = assigns
    restore.output(prefix, "string")
    restore_fd = restore.finish(assigns)
    return save_fd, restore_fd


def build(obj, signatures=None):
    """The SavedModel proto, the variables bundle contents and the asset copies for ``obj``."""
    from tensorlet._src.saved_model.save import _Builder

    b = _Builder(obj)
    sig_specs = _sigs.resolve(obj, signatures, b)
    b.walk(sig_specs)
    node_of_var = {}
    for i, (o, entry) in enumerate(zip(b._queue, b.objects)):
        if entry["kind"] == "variable":
            node_of_var.setdefault(id(o), i)
    captured = []

    def var_index(v):
        if id(v) not in node_of_var:
            raise Unsupported(f"Tried to export a function which references an 'untracked' resource: variable "
                              f"{_var_name(v)!r} is used by a tf.function but is not reachable from the saved "
                              "object. Track it by assigning it to an attribute of the saved object.")
        if all(c is not v for c in captured):
            captured.append(v)

    ex = Exporter(var_index, itertools.count(1), {a._path.encode(): a for a, _ in b.assets})
    node_of_asset = {id(o): i for i, (o, e) in enumerate(zip(b._queue, b.objects)) if e["kind"] == "asset"}
    sm = P.SavedModel(saved_model_schema_version=1)
    mg = sm.meta_graphs.add()
    mg.meta_info_def.tags.append("serve")
    mg.meta_info_def.tensorflow_version = "2.21.0"
    mg.meta_info_def.tensorflow_git_version = "tensorlet"
    og = mg.object_graph_def
    ckpt = P.TrackableObjectGraph()
    wrappers = {}  # signature key -> (wrapper FunctionDef name, output order, SignatureSpec), in the map's order

    # first the signatures' functions, then their wrappers: the order TF has traced them in before it walks the
    # objects (its FunctionDef names carry that order)
    inner = {name: ex.function(spec.cf) for name, spec in sig_specs.items()}
    for name, spec in sig_specs.items():
        wrappers[name] = ex.signature_wrapper(spec, inner[name]) + (spec,)

    def on_signature(spec, bc):  # the signature_map's child for one signature: its wrapper function
        bc.concrete_function_name = wrappers[spec.name][0]
        bc.argument_keywords.extend(spec.inputs)
        bc.allowed_positional_arguments = len(spec.inputs)
        tf_struct.fullargspec([], out=bc.function_spec.fullargspec, kwonly=spec.inputs)
        bc.function_spec.input_signature.none_value.SetInParent()

    keys = write_object_graph(b, ex, og, ckpt, on_signature)
    _mark_values(ckpt)
    # concrete function table
    by_name = {ex.names[id(c)]: c for c in ex._keep}
    for fd in ex.library:
        fname = fd.signature.name
        sig = next((w for w in wrappers.values() if w[0] == fname), None)
        if sig is None and fname not in by_name:
            continue  # a control-flow branch: called from a function body, not an object
        bound = [node_of_asset[id(v)] if id(v) in node_of_asset else node_of_var[id(v)]
                 for v in ex.captures.get(fname, [])]
        cfp = og.concrete_functions[fname]
        if sig is None:
            concrete_proto(by_name[fname], fname, bound, cfp)
        else:
            _, order, spec = sig
            cfp.bound_inputs.extend(bound)
            g = spec.cf.graph
            ins = {k: t for k, t in zip(spec.inputs, g.inputs)}
            tf_struct.encode(((), ins), _keyed_spec(ins), "signature", cfp.canonicalized_input_signature)
            outs = {k: g.outputs[i] for k, i in order}
            tf_struct.encode(outs, _keyed_spec(outs), "signature outputs", cfp.output_signature)
    variables = [o for o, e in zip(b._queue, b.objects) if e["kind"] == "variable"]
    seen, uniq = set(), []
    for v in variables:
        if id(v) not in seen:
            seen.add(id(v))
            uniq.append(v)
    variables = uniq
    save_fd, restore_fd = _saver_functions(ex, variables, keys)

    gd = mg.graph_def
    gd.versions.producer = PRODUCER
    gd.versions.min_consumer = MIN_CONSUMER
    names = _Names()
    handle = {}
    for v in variables:
        vn = names(_var_name(v))
        nd = _graph_node(gd, lambda x: x, vn, "VarHandleOp",
                         attrs={"dtype": attr_value("type", v.dtype, vn), "shape": attr_value("shape", v.shape, vn),
                                "shared_name": attr_value("string", vn, vn)})
        handle[id(v)] = nd.name
    for asset, aname in b.assets:
        af = mg.asset_file_def.add(filename=aname)
        nd = _graph_node(gd, names, "asset_path_initializer", "Const", attrs={
            "value": attr_value("tensor", np.array(aname.encode(), dtype=object), aname),
            "dtype": attr_value("type", "string", aname)})
        af.tensor_info.name = f"{nd.name}:0"
        handle[id(asset)] = nd.name
    for name in sorted(wrappers):  # the GraphDef's signature nodes: by key (the map's children: as given)
        wname, order, spec = wrappers[name]
        sd = mg.signature_def[name]
        sd.method_name = METHOD
        ph = []
        for key, t in sorted(zip(spec.inputs, spec.cf.graph.inputs), key=lambda kt: kt[0]):
            attrs = {"dtype": attr_value("type", t.dtype, key), "shape": attr_value("shape", t.shape, key)}
            nd = _graph_node(gd, names, f"{name}_{key}", "Placeholder", attrs=attrs)
            ph.append(nd.name)
            ti = sd.inputs[key]
            ti.name, ti.dtype = f"{nd.name}:0", dtype_enum(t.dtype)
            shape_proto(t.shape, ti.tensor_shape)
        caps = ex.captures[wname]
        op = "StatefulPartitionedCall" if caps else "PartitionedCall"
        call = _graph_node(gd, names, op, op, ph + [handle[id(v)] for v in caps], call_attrs(
            wname, [t.dtype for _, t in sorted(zip(spec.inputs, spec.cf.graph.inputs), key=lambda kt: kt[0])]
            + capture_dtypes(caps),
            [spec.cf.graph.outputs[i].dtype for _, i in order]))
        for j, (key, i) in enumerate(order):
            t = spec.cf.graph.outputs[i]
            ti = sd.outputs[key]
            ti.name, ti.dtype = f"{call.name}:{j}", dtype_enum(t.dtype)
            shape_proto(t.shape, ti.tensor_shape)
    _graph_node(gd, names, "NoOp", "NoOp")
    mg.collection_def["saved_model_main_op"].node_list.value.append("NoOp")
    init = mg.signature_def[INIT_OP].outputs[INIT_OP]
    init.name = "NoOp"
    init.tensor_shape.unknown_rank = True
    graph_bytes = ckpt.SerializeToString()
    cattrs = {"value": P.AttrValue(), "dtype": attr_value("type", "string", "Const")}
    cattrs["value"].tensor.dtype = P.DT_STRING
    cattrs["value"].tensor.tensor_shape.SetInParent()
    cattrs["value"].tensor.string_val.append(graph_bytes)
    const = _graph_node(gd, names, "Const", "Const", attrs=cattrs)
    fname = _graph_node(gd, names, "saver_filename", "Placeholder",
                        attrs={"dtype": attr_value("type", "string", "f"), "shape": attr_value("shape", [], "f")})
    hs = [handle[id(v)] for v in variables]
    s = _graph_node(gd, names, "StatefulPartitionedCall", "StatefulPartitionedCall", [fname.name] + hs + [const.name],
                    call_attrs(save_fd.signature.name, ["string"] + ["resource"] * len(hs) + ["string"], ["string"]))
    r = _graph_node(gd, names, "StatefulPartitionedCall", "StatefulPartitionedCall", [fname.name] + hs,
                    call_attrs(restore_fd.signature.name, ["string"] + ["resource"] * len(hs), ["string"]))
    mg.saver_def.filename_tensor_name = f"{fname.name}:0"
    mg.saver_def.save_tensor_name = f"{s.name}:0"
    mg.saver_def.restore_op_name = r.name
    mg.saver_def.version = 2  # V2
    gd.library.function.extend(ex.library + [save_fd, restore_fd])
    tensors = {keys[id(v)]: np.asarray(v.numpy()) for v in variables}
    tensors[OBJECT_GRAPH_KEY] = np.array(graph_bytes, dtype=object)
    return sm, tensors, b.assets


def _mark_values(ckpt):
    """TrackableObjectGraph's ``has_checkpoint_values``: whether a node or anything below it saves a value."""
    nodes = ckpt.nodes
    parents = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        for c in n.children:
            if 0 <= c.node_id < len(nodes):
                parents[c.node_id].append(i)
    has = [bool(n.attributes) for n in nodes]
    todo = [i for i, h in enumerate(has) if h]
    while todo:  # up from every node that saves a value
        for p in parents[todo.pop()]:
            if not has[p]:
                has[p] = True
                todo.append(p)
    for n, h in zip(nodes, has):
        n.has_checkpoint_values.value = h


def _keyed_spec(d):
    """spec_of for tf_struct.encode: a signature tensor's spec is named after its key."""
    keys = {id(v): k for k, v in d.items()}
    return lambda x: (x.shape, x.dtype, keys[id(x)]) if id(x) in keys else None


def _write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def write(obj, export_dir, signatures=None):
    from tensorlet._src.saved_model.save import _place

    sm, tensors, assets = build(obj, signatures)
    export_dir = os.fspath(export_dir)
    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    inside = os.path.isdir(export_dir)
    tmp = os.path.join(export_dir if inside else parent,
                       f".tmp-{os.path.basename(os.path.abspath(export_dir))}-{secrets.token_hex(4)}")
    try:
        os.makedirs(os.path.join(tmp, "assets"))
        os.makedirs(os.path.join(tmp, "variables"))
        tf_bundle.write_bundle(os.path.join(tmp, "variables", "variables"), tensors)
        for asset, name in assets:
            src, dst = asset._path, os.path.join(tmp, "assets", name)
            shutil.copytree(src, dst) if os.path.isdir(src) else shutil.copyfile(src, dst)
        data = sm.SerializeToString(deterministic=True)
        with open(os.path.join(tmp, "variables", "variables.index"), "rb") as f:
            index = f.read()
        fp = fingerprint_def(sm, index, str(_uuid.uuid4().int))
        with open(os.path.join(tmp, "fingerprint.pb"), "wb") as f:
            f.write(fp.SerializeToString())
        _write_file(os.path.join(tmp, PB_NAME), data)
        _place(tmp, export_dir, final=PB_NAME, stale=("constants", "saved_model.json"))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _format._fsync_dir(os.path.join(export_dir, PB_NAME))
