"""``tf.saved_model.load`` of a TF1 SavedModel (``tf.compat.v1.saved_model.Builder``: a MetaGraphDef with
SignatureDefs and no object graph), the way TF 2 loads one: the graph is imported into a compat.v1 graph, its
variables restored by name from ``variables/``, its table initializers / main op run, and each SignatureDef
becomes a signature function (keyword inputs named by the SignatureDef's keys, a dict of outputs) pruned out of
the graph.  A signature also keeps the SignatureDef's ``method_name`` (classify / regress / predict), which TF
Serving routes on.
"""

from __future__ import annotations

import os

from tensorlet._src.saved_model.codec import CorruptSavedModel

_INIT_KEYS = ("saved_model_main_op", "legacy_init_op")


def _spec(info, where):
    from tensorlet._src.data.structure import TensorSpec
    from tensorlet._src.saved_model.tf_ops import dtype_of, shape_from

    return TensorSpec(shape_from(info.tensor_shape, where), dtype_of(info.dtype, where))


def load_v1(export_dir, mg):
    from tensorlet._src.compat import v1_graph as v1
    from tensorlet._src.compat.v1_meta_graph import import_meta_graph
    from tensorlet._src.compat.v1_wrap_function import WrappedFunction
    from tensorlet._src.graph.function import Function
    from tensorlet._src.saved_model.load import SignatureFunction, _SignatureMap, _UserObject

    g = v1.Graph()
    with g.as_default():
        saver = import_meta_graph(mg)
    prefix = os.path.join(export_dir, "variables", "variables")
    if saver is not None:
        saver.restore(None, prefix)
    wrapped = WrappedFunction(g, [], None, name="load_v1")
    inits = [g.as_graph_element(n) for n in g.get_collection("table_initializer")]
    for key in _INIT_KEYS:
        col = mg.collection_def.get(key) if key in mg.collection_def else None
        if col is not None and col.WhichOneof("kind") == "node_list":
            inits.extend(g.as_graph_element(n) for n in col.node_list.value)
    if inits:
        wrapped.prune([], inits)()
    sigs = {}
    for key in sorted(mg.signature_def):
        sd = mg.signature_def[key]
        where = f"{export_dir}: signature {key!r}"
        in_keys, out_keys = sorted(sd.inputs), sorted(sd.outputs)
        for k in in_keys + out_keys:
            info = sd.inputs[k] if k in sd.inputs else sd.outputs[k]
            if info.WhichOneof("encoding") != "name":
                raise CorruptSavedModel(f"{where}: tensor {k!r} is not a dense tensor (composite signature tensors "
                                        "are not supported)")
        try:
            feeds = [g.as_graph_element(sd.inputs[k].name) for k in in_keys]
            fetches = [g.as_graph_element(sd.outputs[k].name) for k in out_keys]
        except (KeyError, ValueError) as e:
            raise CorruptSavedModel(f"{where} names a tensor the graph lacks: {e}") from None
        pruned = wrapped.prune(feeds, fetches)
        specs = [_spec(sd.inputs[k], where) for k in in_keys]

        def body(*xs, _p=pruned):
            return list(_p(*xs))

        traced = Function(body, name=key, input_signature=specs, autograph=False).get_concrete_function()
        sf = SignatureFunction(traced.graph, in_keys, [(k, i) for i, k in enumerate(out_keys)], key)
        sf.method_name = sd.method_name
        sigs[key] = sf
    root = _UserObject("load_v1_in_v2")
    root.__dict__["signatures"] = _SignatureMap(sigs)
    root.__dict__["graph"] = g
    root.__dict__["prune"] = wrapped.prune
    root.__dict__["tensorflow_version"] = mg.meta_info_def.tensorflow_version
    return root
