"""SavedModels written by real TF 2.21 (tests/goldens/tf_saved_model, recorded by
tools/record_tf_goldens/tf_saved_models.py) load here and compute what TF computed."""

import json
import os
import shutil

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.saved_model import protos as P

GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens", "tf_saved_model")
with open(os.path.join(GOLD, "values.json")) as _f:
    VALUES = json.load(_f)


def _arr(d):
    return np.array(d["values"], dtype=d["dtype"]).reshape(d["shape"])


def _copy(tmp_path, name):
    dst = str(tmp_path / name)
    shutil.copytree(os.path.join(GOLD, name), dst)
    return dst


def test_tf_module_calls_signatures_state(tmp_path):
    want = VALUES["module"]
    m = tf.saved_model.load(_copy(tmp_path, "module"))
    x = tf.constant(_arr(want["x"]))
    np.testing.assert_allclose(m(x).numpy(), _arr(want["call"]), rtol=1e-6)  # callable, as TF's object
    np.testing.assert_allclose(m.__call__(x).numpy(), _arr(want["call"]), rtol=1e-6)
    assert sorted(m.signatures) == ["bump", "serving_default"]
    out = m.signatures["serving_default"](x=x)
    assert list(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"].numpy(), _arr(want["serving_default"]["output_0"]), rtol=1e-6)
    assert float(m.bump(tf.constant(1.5))) == float(_arr(want["bump_1"]))
    assert float(m.bump(tf.constant(1.0))) == float(_arr(want["bump_2"]))  # the variable write persisted
    assert sorted(v.name for v in m.variables) == ["b:0", "steps:0", "w:0"]
    assert sorted(v.name for v in m.trainable_variables) == ["b:0", "w:0"]
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        m.signatures["serving_default"]()


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_keras3_export(name):
    want = VALUES[name]
    m = tf.saved_model.load(os.path.join(GOLD, name))
    x = tf.constant(_arr(want["x"]))
    np.testing.assert_allclose(m.serve(x).numpy(), _arr(want["serve"]), rtol=1e-5, atol=1e-7)
    out = m.signatures["serving_default"](x)
    np.testing.assert_allclose(out["output_0"].numpy(), _arr(want["serving_default"]["output_0"]), rtol=1e-5,
                               atol=1e-7)
    assert len(m.variables) > 0 and all(v.trainable for v in m.trainable_variables)


def test_keras_saved_with_tf_saved_model_save():
    want = VALUES["mlp_saved"]
    sig = tf.saved_model.load(os.path.join(GOLD, "mlp_saved")).signatures["serving_default"]
    (key,) = sig.structured_input_signature[1]
    out = sig(**{key: tf.constant(_arr(want["x"]))})
    np.testing.assert_allclose(out["output_0"].numpy(), _arr(want["serving_default"]["output_0"]), rtol=1e-5)


def test_keras2_tf_keras_savedmodel():
    if "tf_keras" not in VALUES:
        pytest.skip("recorded without tf_keras")
    want = VALUES["tf_keras"]
    m = tf.saved_model.load(os.path.join(GOLD, "tf_keras"))
    x = tf.constant(_arr(want["x"]))
    np.testing.assert_allclose(m(x).numpy(), _arr(want["call"]), rtol=1e-5, atol=1e-6)
    out = m.signatures["serving_default"](**{want["input_key"]: x})
    for k, v in want["serving_default"].items():
        np.testing.assert_allclose(out[k].numpy(), _arr(v), rtol=1e-5, atol=1e-6)


def test_loaded_functions_compile_and_fine_tune():
    want = VALUES["mlp"]
    m = tf.saved_model.load(os.path.join(GOLD, "mlp"))
    x = tf.constant(_arr(want["x"]))
    compiled = tf.function(lambda t: m.serve(t), jit_compile=True)
    np.testing.assert_allclose(compiled(x).numpy(), _arr(want["serve"]), rtol=1e-5, atol=1e-7)
    var = m.trainable_variables[0]
    labels = tf.constant([0, 1, 2])

    def loss():
        p = m.serve(x)
        return -tf.reduce_mean(tf.math.log(tf.gather(p, labels, axis=1, batch_dims=1)))

    with tf.GradientTape() as tape:
        l0 = loss()
    grads = tape.gradient(l0, m.trainable_variables)
    assert all(g is not None for g in grads)
    # the gradient of one weight, against a central finite difference of the loaded function
    g0 = grads[0].numpy().reshape(-1)[0]
    base = var.numpy()
    eps = 1e-2
    for sign, store in ((1, []), (-1, [])):
        bumped = base.copy()
        bumped.reshape(-1)[0] += sign * eps
        var.assign(bumped)
        store.append(float(loss()))
        if sign == 1:
            up = store[0]
        else:
            down = store[0]
    var.assign(base)
    assert g0 == pytest.approx((up - down) / (2 * eps), rel=2e-2, abs=1e-4)
    opt = tf.keras.optimizers.SGD(0.5)
    for _ in range(5):
        with tf.GradientTape() as tape:
            lv = loss()
        opt.apply_gradients(zip(tape.gradient(lv, m.trainable_variables), m.trainable_variables))
    assert float(loss()) < float(l0)


def test_tfsm_layer_wraps_tf_export():
    want = VALUES["cnn"]
    layer = tf.keras.layers.TFSMLayer(os.path.join(GOLD, "cnn"), call_endpoint="serve")
    x = _arr(want["x"])
    np.testing.assert_allclose(layer(x).numpy(), _arr(want["serve"]), rtol=1e-5, atol=1e-7)
    assert len(layer.trainable_weights) == 4
    inp = tf.keras.Input((8, 8, 1))
    model = tf.keras.Model(inp, tf.keras.layers.Dense(2)(layer(inp)))
    assert model(x).shape == (2, 2)


def _mutate(tmp_path, name, edit):
    path = _copy(tmp_path, name)
    pb = os.path.join(path, "saved_model.pb")
    sm = P.SavedModel()
    with open(pb, "rb") as f:
        sm.ParseFromString(f.read())
    edit(sm.meta_graphs[0])
    with open(pb, "wb") as f:
        f.write(sm.SerializeToString())
    return path


def test_unknown_op_names_op_and_function(tmp_path):
    def edit(mg):
        for f in mg.graph_def.library.function:
            for nd in f.node_def:
                if nd.op == "Relu":
                    nd.op = "FancyReluV9"

    path = _mutate(tmp_path, "module", edit)
    with pytest.raises(tf.errors.NotFoundError, match=r"__inference___call___\d+.*FancyReluV9"):
        tf.saved_model.load(path)


def test_function_cycle_is_refused(tmp_path):
    def edit(mg):
        inner = next(f for f in mg.graph_def.library.function if f.signature.name.startswith("__inference___call__"))
        call = inner.node_def.add(name="loop", op="StatefulPartitionedCall")
        call.attr["f"].func.name = inner.signature.name  # the function calls itself
        call.input.extend(a.name for a in inner.signature.input_arg)
        call.attr["Tin"].list.type.extend(a.type for a in inner.signature.input_arg)
        call.attr["Tout"].list.type.append(1)
        inner.node_def[-1].input.append("^loop")

    path = _mutate(tmp_path, "module", edit)
    with pytest.raises(tf.errors.DataLossError, match="calls itself|cycle"):
        tf.saved_model.load(path)
