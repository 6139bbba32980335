"""Keras and SavedModel: export (``serve`` endpoint), tf.saved_model.save(model), keras.layers.TFSMLayer."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.saved_model.keras_export import export_keras_model

keras = tf.keras


def _model():
    inp = keras.Input((3,), name="feats")
    out = keras.layers.Dense(2, name="d1")(inp)
    model = keras.Model(inp, out)
    model.set_weights([np.arange(6, dtype=np.float32).reshape(3, 2), np.array([0.5, -0.5], np.float32)])
    return model


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("keras") / "artifact")
    export_keras_model(_model(), path, verbose=False)
    return path


X = np.ones((2, 3), np.float32)
WANT = [[6.5, 8.5], [6.5, 8.5]]  # recorded from Keras 3.15 (same weights)


def test_export_endpoints_like_keras(exported):
    loaded = tf.saved_model.load(exported)
    assert sorted(loaded.signatures) == ["serve", "serving_default"]
    for name in ("serve", "serving_default"):
        sig = loaded.signatures[name]
        assert list(sig.structured_input_signature[1]) == ["feats"]
        assert list(sig.structured_outputs) == ["output_0"]
        np.testing.assert_allclose(sig(feats=tf.constant(X))["output_0"].numpy(), WANT)
    np.testing.assert_allclose(loaded.serve(tf.constant(X)).numpy(), WANT)
    assert sorted(v.name for v in loaded.trainable_variables) == ["d1/bias:0", "d1/kernel:0"]


def test_export_prints_endpoints(tmp_path, capsys):
    export_keras_model(_model(), str(tmp_path / "a"))
    out = capsys.readouterr().out
    assert out.startswith(f"Saved artifact at '{tmp_path / 'a'}'. The following endpoints are available:\n\n"
                          "* Endpoint 'serve'\n  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(None, 3), "
                          "dtype=tf.float32, name='feats')\nOutput Type:\n  TensorSpec(shape=(None, 2), "
                          "dtype=tf.float32, name=None)\nCaptures:\n")


def test_saved_model_save_of_a_keras_model(tmp_path):
    path = str(tmp_path / "m")
    model = _model()
    tf.saved_model.save(model, path)
    loaded = tf.saved_model.load(path)
    sig = loaded.signatures["serving_default"]
    assert list(sig.structured_input_signature[1]) == ["inputs"]  # TF/Keras name the key after call's argument
    np.testing.assert_allclose(sig(inputs=tf.constant(X))["output_0"].numpy(), WANT)
    # the object graph follows the checkpoint's dependency names (the model's layer list, then each layer)
    dense = loaded._operations[1]
    weights = sorted((v.numpy().tolist() for v in vars(dense).values() if isinstance(v, tf.Variable)), key=len)
    assert weights == [[0.5, -0.5], [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]]
    assert sorted(v.name for v in loaded.variables) == ["d1/bias:0", "d1/kernel:0"]


def test_tfsm_layer_endpoints_and_weights(exported):
    layer = keras.layers.TFSMLayer(exported)  # call_endpoint="serve"
    np.testing.assert_allclose(layer(tf.constant(X)).numpy(), WANT)
    sd = keras.layers.TFSMLayer(exported, call_endpoint="serving_default")
    out = sd(tf.constant(X))
    assert list(out) == ["output_0"]
    assert len(sd.trainable_weights) == 2 and not sd.non_trainable_weights
    cfg = sd.get_config()
    assert cfg["filepath"] == exported and cfg["call_endpoint"] == "serving_default"
    assert cfg["call_training_endpoint"] is None
    with pytest.raises(ValueError, match="The endpoint 'nope' is neither an attribute of the reloaded SavedModel"):
        keras.layers.TFSMLayer(exported, call_endpoint="nope")
    with pytest.raises(ValueError, match="Requested the deserialization of a `TFSMLayer`"):
        keras.layers.TFSMLayer.from_config(cfg)
    assert isinstance(keras.layers.TFSMLayer.from_config(cfg, safe_mode=False), keras.layers.TFSMLayer)


def test_tfsm_layer_fine_tunes_in_a_model(exported):
    model = keras.Sequential([keras.Input((3,)), keras.layers.TFSMLayer(exported)])
    np.testing.assert_allclose(model(tf.constant(X)).numpy(), WANT)
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
    y = np.zeros((8, 2), np.float32)
    x = np.ones((8, 3), np.float32)
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=3, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before * 0.9
