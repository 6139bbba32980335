"""The SavedObjectGraph tensorlet writes for a Keras model, against what real TF 2.21 / Keras 3 writes for the same
model (tests/goldens/keras_object_graph.json, recorded by tools/record_tf_goldens/keras_object_graph.py)."""

import json
import os

import numpy as np
import pytest
from sm_object_graph import summarize

import tensorlet as tf
from tensorlet._src.saved_model import protos as P
from tensorlet._src.train import tf_bundle

with open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_object_graph.json")) as _f:
    GOLD = json.load(_f)

# Keras 3's TF-backend Layer internals that TF's object walk finds on every Keras model and layer (empty tracked
# lists/dicts, the layer list kept twice) and tensorlet's Keras does not track
KERAS_INTERNALS = {"_inbound_nodes", "_outbound_nodes", "_losses", "_loss_ids", "_losses_override",
                   "call_signature_parameters", "_call_context_args", "_call_has_context_arg", "_layers",
                   "_build_shapes_dict", "_tracked", "output_names"}


def _mlp():
    keras = tf.keras
    keras.utils.set_random_seed(1)
    # the names TF's recorder got from Keras's counters (the first model of its process), given explicitly here
    return keras.Sequential([keras.Input((4,), name="features"), keras.layers.Dense(5, activation="relu", name="dense"),
                             keras.layers.Dense(3, activation="softmax", name="dense_1")], name="sequential")


def _read(path):
    sm = P.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    reader = tf_bundle.read_bundle(os.path.join(path, "variables", "variables"))
    ck = P.TrackableObjectGraph()
    ck.ParseFromString(bytes(reader.get("_CHECKPOINTABLE_OBJECT_GRAPH").reshape(())[()]))
    return summarize(sm, ck), reader


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("keras_og")
    model = _mlp()
    model.export(str(tmp / "export"), verbose=False)
    tf.saved_model.save(model, str(tmp / "saved"))
    return {"export": _read(str(tmp / "export")), "saved_model_save": _read(str(tmp / "saved")), "model": model}


def _all_variables_apart(summary):
    """TF lists ``_all_variables`` in the iteration order of an object-identity set (memory addresses: it differs
    from run to run); tensorlet in capture order.  Returns the summary with those nodes' variables taken out, and
    them sorted."""
    s = json.loads(json.dumps(summary))
    (ids,) = [[j for _, j in s["nodes"][i]["children"]] for n, i in s["nodes"][0]["children"] if n == "_all_variables"]
    taken = sorted(s["nodes"][j].pop("variable") for j in ids)
    return s, taken


def test_model_export_object_graph_is_tfs(written):
    ours, reader = written["export"]
    gold = GOLD["export"]
    a, va = _all_variables_apart(ours)
    b, vb = _all_variables_apart(gold)
    assert va == vb
    assert a == b  # nodes, children and their order, names, specs, signatures, checkpoint graph and keys
    # the checkpoint holds both copies, as TF's does, with the same values
    nodes = ours["nodes"]
    kids = dict(nodes[0]["children"])
    where = {nodes[j]["variable"][0]: k for k, j in nodes[kids["variables"]]["children"]}
    for k, j in nodes[kids["_all_variables"]]["children"]:
        np.testing.assert_array_equal(reader.get(f"_all_variables/{k}/.ATTRIBUTES/VARIABLE_VALUE"),
                                      reader.get(f"variables/{where[nodes[j]['variable'][0]]}/.ATTRIBUTES/"
                                                 "VARIABLE_VALUE"))


def _paths(summary, depth=8):
    """Every path (child names from the root, up to ``depth`` long) -> the node it reaches."""
    nodes, out, queue = summary["nodes"], {(): 0}, [()]
    while queue:
        p = queue.pop(0)
        if len(p) < depth:
            for name, j in nodes[out[p]]["children"]:
                out[p + (name,)] = j
                queue.append(p + (name,))
    return out


def _content(summary, i):
    n = dict(summary["nodes"][i])
    n.pop("children")
    n.pop("dependencies", None)
    return n


def test_tf_saved_model_save_of_keras_model_is_tfs_less_keras_internals(written):
    ours, _ = written["saved_model_save"]
    gold = GOLD["saved_model_save"]
    po, pg = _paths(ours), _paths(gold)
    for path, i in po.items():  # everything tensorlet writes is where TF writes it, and the same
        assert path in pg, path
        assert _content(ours, i) == _content(gold, pg[path]), path
        names = [n for n, _ in ours["nodes"][i]["children"]]
        tf_names = [n for n, _ in gold["nodes"][pg[path]]["children"]]
        assert names == [n for n in tf_names if n in names], path  # the same relative order
    # what TF has beyond that: Keras 3's layer internals only (and what hangs below them)
    missing = {p for p in pg if p not in po}
    assert missing and all(any(x in KERAS_INTERNALS for x in p) for p in missing), sorted(missing)
    assert ours["signature_def"] == gold["signature_def"]
    assert ours["library"] == gold["library"]
    for name, cf in gold["concrete_functions"].items():  # bound inputs: node ids differ (fewer nodes here)
        mine = ours["concrete_functions"][name]
        assert (mine["input"], mine["output"]) == (cf["input"], cf["output"]), name
        assert [ours["nodes"][i]["variable"] for i in mine["bound_inputs"]] == \
            [gold["nodes"][i]["variable"] for i in cf["bound_inputs"]], name


def test_loaded_back_here_the_export_computes_the_model(written, tmp_path):
    model = written["model"]
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    want = model(x).numpy()
    for kind in ("export", "saved"):
        path = os.path.join(str(tmp_path), kind)
        if kind == "export":
            model.export(path, verbose=False)
        else:
            tf.saved_model.save(model, path)
        loaded = tf.saved_model.load(path)
        sig = loaded.signatures["serving_default"]
        (key,) = sig.structured_input_signature[1]
        np.testing.assert_allclose(sig(**{key: tf.constant(x)})["output_0"].numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded._default_save_signature(tf.constant(x)).numpy(), want, rtol=1e-6)
