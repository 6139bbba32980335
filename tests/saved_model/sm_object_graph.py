"""A structural summary of a SavedModel's object graph, shared by the recorder
(tools/record_tf_goldens/keras_object_graph.py, run with real TF) and tests/saved_model/test_sm_object_graph.py.

It reads only protobuf fields, so the same code runs on TF's generated classes and on tensorlet's.  Function
names keep TF's form with the process-wide uid replaced by its rank among the file's uids
(``__inference___call___414`` -> ``__inference___call___1`` when it was created first); everything else (node
kinds, children names and order, variable names, function specs, bare concrete functions, signature defs,
concrete-function signatures, the checkpoint's object graph and keys) is kept as written.
"""

import re

_UID = re.compile(r"_(\d+)$")


def _namer(names):
    """Function names with the uid replaced by its rank among the file's uids (creation order)."""
    uids = sorted({int(m.group(1)) for m in map(_UID.search, names) if m})
    rank = {u: i + 1 for i, u in enumerate(uids)}
    return lambda name: _UID.sub(lambda m: f"_{rank.get(int(m.group(1)), '?')}", name)


def _struct(v):
    """A StructuredValue as plain JSON-able data (kind-tagged where kinds could be confused)."""
    kind = v.WhichOneof("kind")
    if kind is None:
        return None
    if kind == "none_value":
        return None
    if kind in ("list_value", "tuple_value"):
        return {kind[:-6]: [_struct(x) for x in getattr(v, kind).values]}
    if kind == "dict_value":
        return {"dict": {k: _struct(x) for k, x in sorted(v.dict_value.fields.items())}}
    if kind == "named_tuple_value":
        return {"named_tuple": v.named_tuple_value.name,
                "values": [[p.key, _struct(p.value)] for p in v.named_tuple_value.values]}
    if kind == "tensor_spec_value":
        t = v.tensor_spec_value
        return {"tensor_spec": [t.name, _shape(t.shape), int(t.dtype)]}
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return {kind: getattr(v, kind)}
    return {kind: str(getattr(v, kind))}


def _shape(s):
    return None if s.unknown_rank else [d.size for d in s.dim]


def _spec(fs):
    return {"fullargspec": _struct(fs.fullargspec), "is_method": fs.is_method,
            "input_signature": _struct(fs.input_signature), "jit_compile": int(fs.jit_compile)}


def summarize(sm, ckpt=None):
    """``sm``: a parsed SavedModel message; ``ckpt``: the TrackableObjectGraph from ``variables/``, or None."""
    mg = sm.meta_graphs[0]
    og = mg.object_graph_def
    fname = _namer([f.signature.name for f in mg.graph_def.library.function])
    nodes = []
    for n in og.nodes:
        kind = n.WhichOneof("kind")
        d = {"kind": kind, "children": [[c.local_name, c.node_id] for c in n.children]}
        if n.dependencies:
            d["dependencies"] = [[c.local_name, c.node_id] for c in n.dependencies]
        if kind == "user_object":
            u = n.user_object
            d["identifier"] = u.identifier
            d["version"] = [u.version.producer, u.version.min_consumer]
        elif kind == "variable":
            v = n.variable
            d["variable"] = [v.name, v.trainable, int(v.dtype), _shape(v.shape), int(v.synchronization),
                             int(v.aggregation)]
        elif kind == "function":
            d["concrete_functions"] = [fname(x) for x in n.function.concrete_functions]
            d["function_spec"] = _spec(n.function.function_spec)
        elif kind == "bare_concrete_function":
            b = n.bare_concrete_function
            d["concrete_function"] = fname(b.concrete_function_name)
            d["argument_keywords"] = list(b.argument_keywords)
            d["allowed_positional_arguments"] = b.allowed_positional_arguments
            d["function_spec"] = _spec(b.function_spec) if b.HasField("function_spec") else None
        elif kind == "asset":
            d["asset"] = n.asset.asset_file_def_index
        nodes.append(d)
    cfs = {}
    for name, c in og.concrete_functions.items():
        cfs[fname(name)] = {"bound_inputs": list(c.bound_inputs),
                            "input": _struct(c.canonicalized_input_signature), "output": _struct(c.output_signature)}
    sigs = {}
    for key, s in mg.signature_def.items():
        sigs[key] = {"method_name": s.method_name,
                     "inputs": {k: [t.name, int(t.dtype), _shape(t.tensor_shape)] for k, t in sorted(s.inputs.items())},
                     "outputs": {k: [t.name, int(t.dtype), _shape(t.tensor_shape)]
                                 for k, t in sorted(s.outputs.items())}}
    out = {"nodes": nodes, "concrete_functions": dict(sorted(cfs.items())), "signature_def": dict(sorted(sigs.items())),
           "library": sorted(fname(f.signature.name) for f in mg.graph_def.library.function),
           "tags": list(mg.meta_info_def.tags)}
    if ckpt is not None:
        out["checkpoint"] = [{"children": [[c.local_name, c.node_id] for c in n.children],
                              "keys": [a.checkpoint_key for a in n.attributes],
                              "has_values": n.has_checkpoint_values.value if n.HasField("has_checkpoint_values")
                              else None} for n in ckpt.nodes]
    return out
