"""tensorlet writes SavedModels in TF's format: every node checked against TF's OpDefs, the structure compared
with a SavedModel real TF wrote for the same module (tests/goldens/tf_saved_model/module), values round trip."""

import json
import os

import numpy as np
import pytest
import sm_tf_checks as chk

import tensorlet as tf

GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens", "tf_saved_model")


class Module(tf.Module):  # the module tools/record_tf_goldens/tf_saved_models.py saves with real TF
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, -1.0], [2.0, 0.5], [0.25, 3.0]], name="w")
        self.b = tf.Variable([0.5, -0.25], name="b")
        self.steps = tf.Variable(0.0, name="steps", trainable=False)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32, name="d")])
    def bump(self, d):
        self.steps.assign_add(d)
        return self.steps * 2.0


def _arr(d):
    return np.array(d["values"], dtype=d["dtype"]).reshape(d["shape"])


@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    m = Module()
    path = str(tmp_path_factory.mktemp("tfexp") / "module")
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__.get_concrete_function(),
                                             "bump": m.bump.get_concrete_function()})
    return path


def _fn(mg, prefix):
    return [f for f in mg.graph_def.library.function if f.signature.name.startswith(prefix)]


def _compute_ops(fd):
    return sorted(n.op for n in fd.node_def if n.op not in ("Identity", "NoOp", "Const"))


def test_every_node_matches_tf_opdefs(module_dir):
    chk.check_saved_model(chk.parse(os.path.join(module_dir, "saved_model.pb")))
    # the checker itself accepts what real TF writes
    for name in ("module", "mlp", "cnn", "mlp_saved"):
        chk.check_saved_model(chk.parse(os.path.join(GOLD, name, "saved_model.pb")))


def test_structure_matches_what_tf_writes(module_dir):
    ours = chk.parse(os.path.join(module_dir, "saved_model.pb")).meta_graphs[0]
    gold = chk.parse(os.path.join(GOLD, "module", "saved_model.pb")).meta_graphs[0]
    assert list(ours.meta_info_def.tags) == list(gold.meta_info_def.tags) == ["serve"]
    assert sorted(ours.signature_def) == sorted(gold.signature_def)
    for key in gold.signature_def:
        a, b = ours.signature_def[key], gold.signature_def[key]
        assert sorted(a.inputs) == sorted(b.inputs) and sorted(a.outputs) == sorted(b.outputs)
        assert a.method_name == b.method_name
        for k in b.inputs:
            assert a.inputs[k].name == b.inputs[k].name  # serving_default_x:0, bump_d:0
            assert a.inputs[k].dtype == b.inputs[k].dtype and a.inputs[k].tensor_shape == b.inputs[k].tensor_shape
        for k in b.outputs:
            assert a.outputs[k].name.split("_")[0] == b.outputs[k].name.split("_")[0]  # StatefulPartitionedCall..
            assert a.outputs[k].dtype == b.outputs[k].dtype
    for prefix in ("__inference___call__", "__inference_bump"):
        (fa,), fb = _fn(ours, prefix), _fn(gold, prefix)[0]  # TF writes a second, identical trace too
        if prefix == "__inference___call__":
            assert _compute_ops(fa) == _compute_ops(fb) == ["AddV2", "MatMul", "ReadVariableOp", "ReadVariableOp",
                                                            "Relu"]
        else:  # TF: AssignAddVariableOp; tensorlet: the new value computed, then AssignVariableOp
            assert "Mul" in _compute_ops(fa) and "Mul" in _compute_ops(fb)
            assert {"AssignVariableOp", "AssignAddVariableOp"} & set(_compute_ops(fa))
        assert [a.type for a in fa.signature.input_arg] == [a.type for a in fb.signature.input_arg]
        assert [a.type for a in fa.signature.output_arg] == [a.type for a in fb.signature.output_arg]
    assert ours.saver_def.version == gold.saver_def.version
    assert ours.saver_def.filename_tensor_name == gold.saver_def.filename_tensor_name == "saver_filename:0"
    for mg in (ours, gold):
        restore = [n for n in mg.graph_def.node if n.name == mg.saver_def.restore_op_name]
        assert restore and restore[0].op == "StatefulPartitionedCall"
    # the object graph: same named children of the root, same variables
    def kids(mg, i=0):
        return sorted(c.local_name for c in mg.object_graph_def.nodes[i].children)

    assert kids(ours) == kids(gold)

    def variables(mg):
        return sorted((n.variable.name, n.variable.dtype, n.variable.trainable, str(n.variable.shape))
                      for n in mg.object_graph_def.nodes if n.WhichOneof("kind") == "variable")

    assert variables(ours) == variables(gold)
    cf_a = {k[: k.rindex("_")]: v for k, v in ours.object_graph_def.concrete_functions.items()}
    cf_b = {k[: k.rindex("_")]: v for k, v in gold.object_graph_def.concrete_functions.items()}
    for k in ("__inference___call__", "__inference_bump"):
        assert cf_a[k].canonicalized_input_signature == cf_b[k].canonicalized_input_signature
        assert cf_a[k].output_signature == cf_b[k].output_signature
        assert len(cf_a[k].bound_inputs) == len(cf_b[k].bound_inputs)


def test_round_trip_values_and_state(module_dir):
    with open(os.path.join(GOLD, "values.json")) as f:
        want = json.load(f)["module"]
    loaded = tf.saved_model.load(module_dir)
    x = tf.constant(_arr(want["x"]))
    np.testing.assert_allclose(loaded(x).numpy(), _arr(want["call"]), rtol=1e-6)
    np.testing.assert_allclose(loaded.signatures["serving_default"](x=x)["output_0"].numpy(),
                               _arr(want["serving_default"]["output_0"]), rtol=1e-6)
    assert float(loaded.bump(tf.constant(1.5))) == float(_arr(want["bump_1"]))
    assert float(loaded.bump(tf.constant(1.0))) == float(_arr(want["bump_2"]))


def test_keras_exports_are_tf_format(tmp_path):
    keras = tf.keras
    mlp = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                            keras.layers.Dense(3, activation="softmax")])
    cnn = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(2, 3, activation="relu"),
                            keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dropout(0.5),
                            keras.layers.Dense(3, activation="softmax")])
    rng = np.random.default_rng(0)
    for name, model, shape in (("mlp", mlp, (3, 4)), ("cnn", cnn, (2, 8, 8, 1))):
        x = rng.normal(size=shape).astype(np.float32)
        path = str(tmp_path / name)
        model.export(path, verbose=False)
        mg = chk.check_saved_model(chk.parse(os.path.join(path, "saved_model.pb")))
        assert sorted(mg.signature_def) == ["__saved_model_init_op", "serve", "serving_default"]
        loaded = tf.saved_model.load(path)
        np.testing.assert_allclose(loaded.serve(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
    path = str(tmp_path / "saved")
    tf.saved_model.save(mlp, path)
    mg = chk.check_saved_model(chk.parse(os.path.join(path, "saved_model.pb")))
    sig = tf.saved_model.load(path).signatures["serving_default"]
    x = rng.normal(size=(2, 4)).astype(np.float32)
    (out,) = sig(**{sig._input_keys[0]: tf.constant(x)}).values()
    np.testing.assert_allclose(out.numpy(), mlp(x).numpy(), rtol=1e-5, atol=1e-6)


def test_op_without_tf_kernel_is_refused_by_name(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def f(self, x):
            return tf.argsort(x)

    with pytest.raises(ValueError, match="ArgSort"):
        tf.saved_model.save(M(), str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")
