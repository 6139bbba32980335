"""``tf.saved_model.save`` in TensorFlow's format: ``saved_model.pb``, ``variables/``, ``fingerprint.pb``.

What is written (docs/formats.md, "SavedModel"):

- a ``SavedModel`` with one ``MetaGraphDef`` (tags ``{"serve"}``) whose ``GraphDef`` holds a ``VarHandleOp``
  per variable, a ``Placeholder`` per signature input, a ``StatefulPartitionedCall`` (``PartitionedCall``
  without variables) per signature, and the saver: ``saver_filename`` with save/restore calls, so TF1-style
  loaders (``saved_model_cli run``, TF Serving) restore the variables;
- the function library: one ``FunctionDef`` per concrete function (variables are captured ``DT_RESOURCE``
  inputs, read with ``ReadVariableOp`` and written with ``AssignVariableOp``), a signature wrapper per
  signature (calls the function, returns the outputs by sorted key), ``__inference__traced_save`` /
  ``__inference__traced_restore`` (``SaveV2`` / ``RestoreV2``);
- ``SignatureDef``s named as TF names them (``serving_default_x:0`` in, ``StatefulPartitionedCall:0`` out);
- the ``SavedObjectGraph`` (user objects, variables, functions with their concrete functions' structured
  input signatures and outputs, the ``signatures`` map); ``variables/`` a TensorBundle whose object graph
  mirrors it node for node.

Graph nodes go through ``tf_ops.node_to_tf`` and TF's recorded OpDefs; an op TF has no kernel for is refused
with an error naming it.
"""

from __future__ import annotations

import re

import numpy as np

from tensorlet._src.graph.concrete import _Leaf
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, GraphTensor
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model import tf_struct
from tensorlet._src.saved_model.codec import Unsupported
from tensorlet._src.saved_model.tf_ops import (attr_value, dtype_enum, node_to_tf, opdef,
                                               output_counts, shape_proto, tensor_proto)
from tensorlet._src.train import trackable as _tr
from tensorlet._src.util import nest

PRODUCER, MIN_CONSUMER = 2474, 12  # the GraphDef versions TF 2.21 writes
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_SAN = re.compile(r"[^a-z0-9_]")


def _sanitize(name):
    s = _SAN.sub("_", name.lower()).strip("_") or "arg"
    return s if not s[0].isdigit() else f"_{s}"


class _Names:
    def __init__(self):
        self.used = set()

    def __call__(self, base):
        name, n = base, 0
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


def _set_defaults(od, nd):
    for a in od["attrs"]:
        d = a.get("default")
        if a["name"] in nd.attr or d is None:
            continue
        (kind, v), = d.items()
        if kind in ("shape", "tensor", "func", "placeholder"):
            continue
        av = nd.attr[a["name"]]
        if kind == "list":
            av.list.SetInParent()
            if v:
                field = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type"}.get(
                    a["type"][5:-1])
                if field is None:
                    continue
                getattr(av.list, field).extend(x.encode() if field == "s" else x for x in v)
        elif kind == "s":
            av.s = v.encode()
        else:
            setattr(av, kind, v)


class _Fn:
    """Builds one FunctionDef."""

    def __init__(self, name):
        self.fd = P.FunctionDef()
        self.fd.signature.name = name
        self.names = _Names()
        self.control = []
        self.stateful = False

    def arg(self, base, dtype_or_enum, shape=None, handle=None, user_name=None):
        name = self.names(_sanitize(base))
        a = self.fd.signature.input_arg.add(name=name)
        a.type = dtype_or_enum if isinstance(dtype_or_enum, int) else dtype_enum(dtype_or_enum)
        i = len(self.fd.signature.input_arg) - 1
        if handle is not None:
            hd = a.handle_data.add(dtype=dtype_enum(handle.dtype))
            shape_proto(handle.shape, hd.shape)
        if user_name is not None:
            self.fd.arg_attr[i].attr["_user_specified_name"].s = user_name.encode()
        if shape is not None:
            shape_proto(shape, self.fd.arg_attr[i].attr["_output_shapes"].list.shape.add())
        return name

    def node(self, base, op, inputs=(), attrs=None, control=()):
        od = opdef(op)
        if od is None:
            raise Unsupported(f"op {op} is not in TF's recorded OpDefs")
        name = self.names(base)
        nd = self.fd.node_def.add(name=name, op=op)
        nd.input.extend(inputs)
        nd.input.extend(f"^{c}" for c in control)
        for k, v in (attrs or {}).items():
            nd.attr[k].CopyFrom(v)
        _set_defaults(od, nd)
        if od.get("stateful"):
            self.stateful = True
        return name, od, nd

    def ref(self, name, od, nd, index):
        """``node:output_arg:k`` for flat output ``index`` of a node."""
        from tensorlet._src.saved_model.tf_ops import attr_python

        if isinstance(name, _Shifted):
            name, index = name.name, index + name.by

        attrs = {k: attr_python(v, name) for k, v in nd.attr.items()
                 if any(k == a.get("number_attr") or k == a.get("type_list_attr") for a in od["outputs"])}
        counts = output_counts(od, attrs)
        for a, c in zip(od["outputs"], counts):
            if index < c:
                return f"{name}:{a['name']}:{index}"
            index -= c
        raise Unsupported(f"node {name}: output {index} out of range")

    def const(self, base, value):
        value = np.asarray(value)
        av_v = P.AttrValue()
        tensor_proto(value, av_v.tensor)
        av_t = attr_value("type", _dtype_of_array(value), base)
        name, od, nd = self.node(base, "Const", attrs={"value": av_v, "dtype": av_t})
        return f"{name}:output:0"

    def output(self, ref, dtype, base="identity"):
        name = self.names(base if base else "identity")
        self.fd.signature.output_arg.add(name=name, type=dtype_enum(dtype))
        node, _, _ = self.node("Identity" if base == "identity" else base.capitalize(), "Identity", [ref],
                               {"T": attr_value("type", dtype, "Identity")}, control=self.control)
        self.fd.ret[name] = f"{node}:output:0"
        return name

    def finish(self, control_outputs=()):
        for c in control_outputs:
            self.fd.signature.control_output.append(c)
            self.fd.control_ret[c] = c
        if self.stateful or control_outputs:
            self.fd.signature.is_stateful = True
        return self.fd


def _nested_variables(graphs, handles, where):
    out = []
    for g in graphs:
        for v in g.variables:
            if id(v) not in handles:
                raise Unsupported(f"{where}: a branch reads variable {_var_name(v)!r}, which the function does not "
                                  "capture")
            if all(v is not x for x in out):
                out.append(v)
    return out


class _Shifted:
    """A node whose first ``by`` outputs are not the graph node's (a While's iteration counter)."""

    def __init__(self, name, by):
        self.name, self.by = name, by


def _dtype_of_array(value):
    from tensorlet._src.framework import dtypes as _dt

    return _dt.string if value.dtype.kind in "OSU" else _dt._FROM_NP[value.dtype]


class Exporter:
    """Collects FunctionDefs for concrete functions (each once) and the variables they capture."""

    def __init__(self, var_index, uid, assets=None):
        self.assets = assets or {}  # path bytes -> Asset: string constants equal to one become captured inputs
        self.library = []
        self.names = {}  # id(cf) -> FunctionDef name
        self.captures = {}  # FunctionDef name -> [variable, ...] (its resource inputs, in order)
        self.outputs = {}  # FunctionDef name -> [(dtype, shape)]
        self.var_index = var_index
        self._keep = []
        self._uid = uid

    def fresh(self, base):
        return f"__inference_{base}_{next(self._uid)}"

    def function(self, cf) -> str:
        name = self.names.get(id(cf))
        if name is None:
            name = self.names[id(cf)] = self.fresh(_SAN.sub("_", cf.name) or "function")
            self._keep.append(cf)
            self.library.append(self._write(cf.graph, name))
        return name

    def _write(self, g, name):
        where = f"tf.function {g.name!r}"
        fn = _Fn(name)
        refs = {}
        for t in g.inputs:
            refs[id(t)] = fn.arg(t.node.name, t.dtype, shape=t.shape, user_name=t.node.name)
        handles = {}
        for v in g.variables:
            self.var_index(v)
            handles[id(v)] = fn.arg(f"{_var_name(v)}_resource", P.DT_RESOURCE, handle=v, user_name="resource")
        used = []
        for node in g.nodes:
            asset = self._asset_of(node)
            if asset is not None:
                if all(a is not asset for a in used):
                    used.append(asset)
                    handles[id(asset)] = fn.arg("asset_path", "string", user_name="asset_path")
                refs[id(node.outputs[0])] = handles[id(asset)]
        self.captures[name] = list(g.variables) + used
        reads = self._body(fn, g, refs, handles, where)
        assigns = []
        var_of = {id(v): v for v in g.variables}
        for vid, t in g.var_final.items():
            v = var_of[vid]
            n, _, _ = fn.node("AssignVariableOp", "AssignVariableOp", [handles[vid], refs[id(t)]],
                              {"dtype": attr_value("type", v.dtype, where)}, control=reads.get(vid, ()))
            assigns.append(n)
        fn.control = assigns
        outs = []
        for t in g.outputs:
            fn.output(refs[id(t)], t.dtype)
            outs.append((t.dtype, t.shape))
        self.outputs[name] = outs
        fd = fn.finish(assigns + [r for rs in reads.values() for r in rs])
        shapes = fd.attr["_input_shapes"].list
        for t in g.inputs:
            shape_proto(t.shape, shapes.shape.add())
        for _ in self.captures[name]:  # resource handles and asset paths are scalars
            shapes.shape.add()
        return fd

    def _asset_of(self, node):
        if node.op is not CONST or not self.assets:
            return None
        v = node.attrs["value"]
        if getattr(v, "dtype", None) is None or v.dtype.kind != "O" or v.shape:
            return None
        x = v[()]
        return self.assets.get(x if isinstance(x, bytes) else str(x).encode())

    def _body(self, fn, g, refs, handles, where):
        """Emits the nodes of ``g`` into ``fn``; returns {id(variable): [ReadVariableOp node names]}."""
        reads = {}
        for node in g.nodes:
            w = f"{where}, node {node.name} ({node.op.name})"
            if node.op is PLACEHOLDER:
                continue
            control = [refs[id(c)].split(":")[0] for c in node.control if id(c) in refs]
            if node.op is CONST:
                if id(node.outputs[0]) not in refs:  # (asset paths are inputs already)
                    refs[id(node.outputs[0])] = fn.const(node.name, node.attrs["value"])
                continue
            if node.op is READ_VAR:
                v = node.attrs["var"]
                if id(v) not in handles:
                    raise Unsupported(f"{w}: reads variable {_var_name(v)!r} inside a control-flow branch")
                n, od, nd = fn.node(node.name, "ReadVariableOp", [handles[id(v)]],
                                    {"dtype": attr_value("type", v.dtype, w)}, control)
                reads.setdefault(id(v), []).append(n)
                refs[id(node.outputs[0])] = f"{n}:value:0"
                continue
            for t in node.inputs:
                if id(t) not in refs:
                    raise Unsupported(f"{w}: input {t.name} is not computed earlier in the function")
            ins = [refs[id(t)] for t in node.inputs]
            if node.op.name in ("If", "While"):
                n, od, nd = (self._if if node.op.name == "If" else self._while)(fn, node, ins, control, w, handles)
            else:
                tf_name, consts, attrs = node_to_tf(node, [t.dtype for t in node.inputs],
                                                    [t.dtype for t in node.outputs], w)
                for k, (idx, value) in enumerate(consts):
                    ins.insert(idx, fn.const(f"{node.name}/{tf_name}_const{k}" if k else f"{node.name}/const",
                                             value))
                n, od, nd = fn.node(node.name, tf_name, ins, attrs, control)
            for i, t in enumerate(node.outputs):
                refs[id(t)] = fn.ref(n, od, nd, i)
        return reads

    def _branch(self, g, name, slots, variables, extra_out=(), where=""):
        """A FunctionDef for a nested graph.  ``slots``: one entry per TF argument, either a graph input index
        or ``(dtype, shape)`` for an argument the branch ignores; then one resource argument per variable in
        ``variables``; ``extra_out(fn, args, outs)`` adds outputs."""
        if g.var_final:
            raise Unsupported(f"{where}: a control-flow branch that writes variables directly is not written yet")
        fn = _Fn(name)
        refs, args = {}, []
        for k, slot in enumerate(slots):
            if isinstance(slot, int):
                t = g.inputs[slot]
                args.append(fn.arg(f"arg{k}", t.dtype, shape=t.shape))
                refs[id(t)] = args[-1]
            else:
                args.append(fn.arg(f"unused{k}", slot[0], shape=slot[1]))
        handles = {}
        for v in variables:
            args.append(fn.arg(f"{_var_name(v)}_resource", P.DT_RESOURCE, handle=v))
            handles[id(v)] = args[-1]
        self._body(fn, g, refs, handles, where)
        outs = [(refs[id(t)], t.dtype) for t in g.outputs]
        outs = extra_out(fn, args, outs) if extra_out else outs
        for ref, dtype in outs:
            fn.output(ref, dtype)
        self.library.append(fn.finish())
        return name

    def _if(self, fn, node, ins, control, where, handles):
        a = node.attrs
        tg, eg, n_then = a["then_graph"], a["else_graph"], a["n_then"]
        args = node.inputs[1:]
        specs = [(t.dtype, t.shape) for t in args]
        then_slots = list(range(n_then)) + specs[n_then:]
        else_slots = specs[:n_then] + list(range(len(args) - n_then))
        variables = _nested_variables((tg, eg), handles, where)
        then_f = self._branch(tg, self.fresh("cond_true"), then_slots, variables, where=where)
        else_f = self._branch(eg, self.fresh("cond_false"), else_slots, variables, where=where)
        ins = ins + [handles[id(v)] for v in variables]
        attrs = call_attrs(then_f, [t.dtype for t in args] + ["resource"] * len(variables),
                           [t.dtype for t in node.outputs])
        attrs = {"Tin": attrs["Tin"], "Tout": attrs["Tout"], "then_branch": P.AttrValue(),
                 "else_branch": P.AttrValue(), "Tcond": attr_value("type", node.inputs[0].dtype, where)}
        attrs["then_branch"].func.name = then_f
        attrs["else_branch"].func.name = else_f
        return fn.node(node.name, "StatelessIf", ins, attrs, control)

    def _while(self, fn, node, ins, control, where, handles):
        a = node.attrs
        cg, bg, n_vars, n_cond = a["cond_graph"], a["body_graph"], a["n_vars"], a["n_cond"]
        bound = a.get("max_static")
        args = list(node.inputs)
        n_body = len(args) - n_vars - n_cond
        specs = [(t.dtype, t.shape) for t in args]
        lead = [] if bound is None else [("int32", TensorShape([]))]
        off = len(lead)
        cond_slots = lead + list(range(n_vars)) + list(range(n_vars, n_vars + n_cond)) + specs[n_vars + n_cond:]
        body_slots = lead + list(range(n_vars)) + specs[n_vars:n_vars + n_cond] + list(
            range(n_vars, n_vars + n_body))

        def cond_extra(f, fargs, outs):
            if bound is None:
                return outs
            lim = f.const("maximum_iterations", np.asarray(bound, np.int32))
            less, _, _ = f.node("Less", "Less", [fargs[0], lim], {"T": attr_value("type", "int32", where)})
            both, _, _ = f.node("LogicalAnd", "LogicalAnd", [f"{less}:z:0", outs[0][0]])
            return [(f"{both}:z:0", outs[0][1])]

        variables = _nested_variables((cg, bg), handles, where)

        def body_extra(f, fargs, outs):
            passed = [(fargs[off + n_vars + k], args[n_vars + k].dtype) for k in range(n_cond + n_body)]
            passed += [(fargs[off + len(args) + k], "resource") for k in range(len(variables))]
            if bound is None:
                return outs + passed
            one = f.const("one", np.asarray(1, np.int32))
            inc, _, _ = f.node("add", "AddV2", [fargs[0], one], {"T": attr_value("type", "int32", where)})
            return [(f"{inc}:z:0", "int32")] + outs + passed

        cond_f = self._branch(cg, self.fresh("while_cond"), cond_slots, variables, cond_extra, where)
        body_f = self._branch(bg, self.fresh("while_body"), body_slots, variables, body_extra, where)
        dts = ["int32"] * off + [t.dtype for t in args] + ["resource"] * len(variables)
        attrs = {"T": call_attrs("x", dts, [])["Tin"], "cond": P.AttrValue(), "body": P.AttrValue(),
                 "output_shapes": P.AttrValue(), "parallel_iterations": attr_value("int", 10, where)}
        attrs["cond"].func.name = cond_f
        attrs["body"].func.name = body_f
        attrs["output_shapes"].list.SetInParent()
        for _, shape in ([("int32", TensorShape([]))] if off else []) + specs + [("r", [])] * len(variables):
            shape_proto(shape, attrs["output_shapes"].list.shape.add())
        ins = ins + [handles[id(v)] for v in variables]
        if off:
            ins = [fn.const(f"{node.name}/counter", np.asarray(0, np.int32))] + ins
        n, od, nd = fn.node(node.name, "StatelessWhile", ins, attrs, control)
        return _Shifted(n, off), od, nd

    def signature_wrapper(self, sig, inner):
        """A FunctionDef taking the signature's keys, calling ``inner``, returning outputs by sorted key."""
        cf = sig.cf
        label = getattr(sig, "label", None)
        name = self.fresh(f"signature_wrapper_{_SAN.sub('_', label)}" if label else "signature_wrapper")
        fn = _Fn(name)
        by_key = {}
        for k, t in sorted(zip(sig.inputs, cf.graph.inputs), key=lambda kt: kt[0]):  # TF flattens by sorted key
            by_key[k] = fn.arg(k, t.dtype, shape=t.shape, user_name=k)
        ins = [by_key[k] for k in sig.inputs]
        variables = self.captures[inner]
        handles = [fn.arg("unknown", "string") if is_asset(v) else
                   fn.arg("unknown", P.DT_RESOURCE, handle=v, user_name="resource") for v in variables]
        op = "StatefulPartitionedCall" if variables else "PartitionedCall"
        call, od, nd = fn.node(op, op, ins + handles, call_attrs(
            inner, [t.dtype for t in cf.graph.inputs] + capture_dtypes(variables), [t.dtype for t in cf.graph.outputs]))
        fn.control = [call] if variables else []
        order = sorted(sig.outputs, key=lambda kv: kv[0])
        for _, i in order:
            fn.output(f"{call}:output:{i}", cf.graph.outputs[i].dtype)
        self.captures[name] = variables
        self.library.append(fn.finish([call] if variables else []))
        return name, order


def call_attrs(f, tin, tout):
    """``f`` / ``Tin`` / ``Tout`` of a (Stateful)PartitionedCall; dtypes may be ``"resource"``."""
    attrs = {"f": P.AttrValue(), "Tin": P.AttrValue(), "Tout": P.AttrValue()}
    attrs["f"].func.name = f
    for key, dts in (("Tin", tin), ("Tout", tout)):
        attrs[key].list.SetInParent()
        attrs[key].list.type.extend(P.DT_RESOURCE if d == "resource" else dtype_enum(d) for d in dts)
    return attrs


def is_asset(x):
    return type(x).__name__ == "Asset" and hasattr(x, "_path")


def capture_dtypes(captured):
    """Tin entries of captured values: variables are resources, assets their path strings."""
    return ["string" if is_asset(c) else "resource" for c in captured]


def _var_name(v):
    path = getattr(v, "path", None)
    name = path if isinstance(path, str) and path else getattr(v, "name", "Variable")
    return name[:-2] if name.endswith(":0") else name


# --- the object graph ---------------------------------------------------------------------------------------
def _spec_of_tensor(x):
    if isinstance(x, GraphTensor):
        return x.shape, x.dtype, x.node.name
    return None


def _spec_of_value(x):
    if isinstance(x, GraphTensor):
        return x.shape, x.dtype, x.node.name
    if hasattr(x, "shape") and hasattr(x, "dtype") and type(x).__name__ == "TensorSpec":
        return x.shape, x.dtype, getattr(x, "name", None)
    return None


def concrete_proto(cf, name, bound, out):
    """A ``SavedConcreteFunction`` for ``cf`` (FunctionDef ``name``) into ``out``."""
    out.bound_inputs.extend(bound)
    names = _input_names(cf)

    def spec_of(x):
        if isinstance(x, GraphTensor):
            return x.shape, x.dtype, names.get(id(x), x.node.name)
        return None

    tf_struct.encode(cf._structured_inputs, spec_of, f"concrete function {name}", out.canonicalized_input_signature)
    graph_outs = cf.graph.outputs

    def spec(x):
        if isinstance(x, _Leaf):
            t = graph_outs[x.i]
            return t.shape, t.dtype, "unknown"
        return None

    tf_struct.encode(cf._out_template, spec, f"concrete function {name} outputs", out.output_signature)


def _identifier(obj):
    if isinstance(obj, list):
        return "trackable_list_wrapper"
    if isinstance(obj, tuple):
        return "trackable_tuple_wrapper"
    if isinstance(obj, dict):
        return "trackable_dict_wrapper"
    return "_generic_user_object"


def write_object_graph(builder, exporter, og, ckpt, on_signature):
    """Fills ``og`` (SavedObjectGraph) and ``ckpt`` (TrackableObjectGraph) from the builder's object walk, in its
    breadth-first order (the root's ``signatures`` map among the objects, as TF numbers it); ``on_signature(spec,
    bare_concrete_function)`` writes one signature's wrapper."""
    from tensorlet._src.saved_model.save import _concretes

    paths = {0: []}
    keys = {}
    for i, (obj, entry) in enumerate(zip(builder._queue, builder.objects)):
        node = og.nodes.add()
        cnode = ckpt.nodes.add()
        for name, j in entry.get("children", []):
            node.children.add(node_id=j, local_name=name)
            cnode.children.add(node_id=j, local_name=name)
            paths.setdefault(j, paths[i] + [name])
        kind = entry["kind"]
        if kind == "variable":
            v = obj
            sv = node.variable
            sv.dtype = dtype_enum(v.dtype)
            shape_proto(v.shape, sv.shape)
            sv.trainable = bool(v.trainable)
            sv.name = _var_name(v)
            key = "/".join(_tr.escape_local_name(p) for p in paths[i]) + "/.ATTRIBUTES/VARIABLE_VALUE"
            keys[id(v)] = key
            cnode.attributes.add(name="VARIABLE_VALUE", full_name=sv.name, checkpoint_key=key)
        elif kind == "function":
            for name, j in entry.get("children", []):  # its trace_<k> concrete functions
                node.dependencies.add(node_id=j, local_name=name)
            sf = node.function
            cfs = _concretes(obj)
            for cf in cfs:
                sf.concrete_functions.append(exporter.function(cf))
            jit = getattr(obj, "_jit_compile", None)
            if jit is not None:
                sf.function_spec.jit_compile = 1 if jit else 2  # FunctionSpec.JitCompile ON / OFF
            params, defaults = _params(obj)
            tf_struct.fullargspec(params, defaults, out=sf.function_spec.fullargspec)
            sig = getattr(obj, "input_signature", None)
            if sig is not None:
                tf_struct.encode(tuple(sig), _spec_of_value, "input_signature", sf.function_spec.input_signature)
            else:
                sf.function_spec.input_signature.none_value.SetInParent()
        elif kind == "concrete_function":
            bc = node.bare_concrete_function
            bc.concrete_function_name = exporter.function(obj)
            bare_function(obj, entry.get("of"), bc)
        elif kind == "asset":
            node.asset.asset_file_def_index = entry["asset"]
        elif kind == "signature":
            on_signature(entry["spec"], node.bare_concrete_function)
        else:
            uo = node.user_object
            uo.identifier = "signature_map" if kind == "signature_map" else _identifier(obj)
            uo.version.producer = 1
            uo.version.min_consumer = 1
    return keys


def _input_names(cf):
    """id(placeholder) -> the name TF gives that input: the TensorSpec's name, else the parameter's."""
    from tensorlet._src.saved_model.signatures import input_keys

    return {id(ph): k for ph, k in zip(cf.graph.inputs, input_keys(cf))}


def bare_function(cf, fn, bc):
    """A bare concrete function node as TF writes one: the names of its inputs (``argument_keywords``), how many
    may be passed by position, and the Python parameters of the tf.function it traces (``fn``, when it is one of
    that function's ``trace_<k>`` children)."""
    args, kwargs = cf._structured_inputs
    flat_args = [t for t in nest.flatten(args) if isinstance(t, GraphTensor)]
    flat_kw = [t for t in nest.flatten(kwargs) if isinstance(t, GraphTensor)]
    names = _input_names(cf)
    bc.argument_keywords.extend(names.get(id(t), t.node.name) for t in flat_args + flat_kw)
    bc.allowed_positional_arguments = len(flat_args)
    names, defaults = _params(fn) if fn is not None else ([f"args_{i}" for i in range(len(args))], ())
    tf_struct.fullargspec(names, defaults, out=bc.function_spec.fullargspec)
    bc.function_spec.input_signature.none_value.SetInParent()


def _params(fn):
    """Positional parameter names and the defaults of the trailing ones (TF's FullArgSpec args/defaults)."""
    import inspect

    sig = getattr(fn, "_signature", None)
    if sig is None:
        params = getattr(fn, "_params", None) or ()  # a loaded function being saved again
        names = [p[0] for p in params]
        from tensorlet._src.saved_model.load import _NO_DEFAULT

        defaults = [p[2] for p in params if p[2] is not _NO_DEFAULT]
        return names, tuple(defaults)
    names, defaults = [], []
    for p in sig.parameters.values():
        if p.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            continue
        names.append(p.name)
        if p.default is not inspect.Parameter.empty:
            defaults.append(p.default)
    ok = all(d is None or isinstance(d, (bool, int, float, str)) for d in defaults)
    return names, tuple(defaults) if ok else ()
