"""Checks of SavedModels in TF's format against TF's OpDefs (recorded by tools/record_tf_goldens/tf_saved_models.py):
every node's op exists, its required attrs are present with the declared types and allowed values, its input
arity matches, and every ``node:output:index`` reference names a real output."""

from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.tf_ops import attr_python, opdef, output_counts

_KIND_FIELD = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type", "shape": "shape",
               "tensor": "tensor", "func": "func"}


def _check_attr(where, spec, av):
    kind = spec["type"]
    if kind.startswith("list("):
        assert av.WhichOneof("value") == "list", f"{where}: attr {spec['name']} must be a {kind}"
        inner = _KIND_FIELD[kind[5:-1]]
        others = [f for f in ("s", "i", "f", "b", "type", "shape", "tensor", "func") if f != inner]
        assert not any(len(getattr(av.list, f)) for f in others), f"{where}: attr {spec['name']} is not a {kind}"
        n = len(getattr(av.list, inner))
        assert n >= spec.get("min", 0), f"{where}: attr {spec['name']} has {n} < {spec['min']} items"
        values = list(getattr(av.list, inner))
    else:
        assert av.WhichOneof("value") == _KIND_FIELD[kind], f"{where}: attr {spec['name']} must be a {kind}"
        if kind == "int" and "min" in spec:
            assert av.i >= spec["min"], f"{where}: attr {spec['name']}={av.i} < {spec['min']}"
        values = [getattr(av, _KIND_FIELD[kind])]
    allowed = spec.get("allowed")
    if allowed is not None:
        ok = allowed["list"]
        for v in values:
            v = v.decode() if isinstance(v, bytes) else v
            assert v in ok, f"{where}: attr {spec['name']}={v!r} not in TF's allowed values {ok}"


def check_node(nd, where, names):
    od = opdef(nd.op)
    assert od is not None, f"{where}: op {nd.op!r} is not a TF op"
    specs = {a["name"]: a for a in od["attrs"]}
    for k, av in nd.attr.items():
        if k.startswith("_"):
            continue
        assert k in specs, f"{where}: attr {k!r} is not declared by TF's {nd.op}"
        _check_attr(f"{where} ({nd.op})", specs[k], av)
    for name, spec in specs.items():
        assert name in nd.attr or "default" in spec, f"{where}: required attr {name!r} of {nd.op} missing"
    attrs = {k: attr_python(v, where) for k, v in nd.attr.items() if not k.startswith("_")}
    want = 0
    for a in od["inputs"]:
        if "number_attr" in a:
            want += attrs[a["number_attr"]]
        elif "type_list_attr" in a:
            want += len(attrs[a["type_list_attr"]])
        else:
            want += 1
    data = [i for i in nd.input if not i.startswith("^")]
    assert len(data) == want, f"{where}: {nd.op} takes {want} inputs, the node has {len(data)}"
    for i in nd.input:
        src = i[1:] if i.startswith("^") else i.split(":")[0]
        assert src in names, f"{where}: input {i!r} names nothing"
    return od, attrs


def check_function(fd):
    where = f"function {fd.signature.name}"
    if "_input_shapes" in fd.attr:  # TF's loader requires one shape per input arg
        assert len(fd.attr["_input_shapes"].list.shape) == len(fd.signature.input_arg), f"{where}: _input_shapes"
    names = {a.name for a in fd.signature.input_arg} | {n.name for n in fd.node_def}
    outs = {}
    for nd in fd.node_def:
        od, attrs = check_node(nd, f"{where}, node {nd.name}", names)
        outs[nd.name] = (od, output_counts(od, attrs))
    args = {a.name for a in fd.signature.input_arg}

    def check_ref(ref):
        parts = ref.split(":")
        if len(parts) == 1:
            assert parts[0] in args or parts[0] in outs, f"{where}: {ref!r} names nothing"
            return
        assert len(parts) == 3, f"{where}: bad reference {ref!r}"
        od, counts = outs[parts[0]]
        arg = [(a, c) for a, c in zip(od["outputs"], counts) if a["name"] == parts[1]]
        assert arg and int(parts[2]) < arg[0][1], f"{where}: {ref!r} is not an output of the node"

    for nd in fd.node_def:
        for i in nd.input:
            if not i.startswith("^"):
                check_ref(i)
    assert sorted(fd.ret) == sorted(a.name for a in fd.signature.output_arg), f"{where}: ret does not match"
    for ref in fd.ret.values():
        check_ref(ref)


def check_saved_model(sm):
    """Checks every node of the graph and of every library function; returns the MetaGraphDef."""
    assert sm.saved_model_schema_version == 1 and len(sm.meta_graphs) == 1
    mg = sm.meta_graphs[0]
    gd = mg.graph_def
    names = {n.name for n in gd.node}
    for nd in gd.node:
        check_node(nd, f"graph node {nd.name}", names)
    funcs = {f.signature.name for f in gd.library.function}
    for f in gd.library.function:
        check_function(f)
        for nd in f.node_def:
            for av in nd.attr.values():
                if av.WhichOneof("value") == "func":
                    assert av.func.name in funcs, f"{f.signature.name}: calls undefined {av.func.name}"
    for key, sd in mg.signature_def.items():
        for ti in list(sd.inputs.values()) + list(sd.outputs.values()):
            assert ti.name.split(":")[0] in names, f"signature {key}: tensor {ti.name} is not in the graph"
    og = mg.object_graph_def
    for name, cf in og.concrete_functions.items():
        assert name in funcs
        for i in cf.bound_inputs:
            assert 0 <= i < len(og.nodes)
    return mg


def parse(path):
    sm = P.SavedModel()
    with open(path, "rb") as f:
        sm.ParseFromString(f.read())
    return sm
