"""keras.utils.FeatureSpace against Keras 3 (tests/goldens/keras_feature_space.json, recorded by
tools/record_tf_goldens/keras_feature_space.py from tests/keras/keras_feature_space_cases.py)."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import keras_feature_space_cases as C  # noqa: E402

with open(os.path.join(HERE, "..", "goldens", "keras_feature_space.json")) as f:
    GOLDEN = json.load(f)
GOLDEN.pop("keras_version")
# Errors raised by the inner layers carry each library's own wrapping: compare their class only.
CLASS_ONLY = {"err_one_hot_float"}


@pytest.fixture(scope="module")
def got(tmp_path_factory):
    return C.run(tf.keras, tf, str(tmp_path_factory.mktemp("fs")))


def _close(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return abs(a - b) <= 1e-4 * max(1.0, abs(b))
    return a == b


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_matches_keras(got, key):
    want = GOLDEN[key]
    if key in CLASS_ONLY:
        assert got[key][0] == want[0], (got[key], want)
    else:
        assert _close(got[key], want), (key, got[key], want)


def test_saved_config_is_keras_form(tmp_path):
    import zipfile

    fs = tf.keras.utils.FeatureSpace({"s": "string_categorical", "x": "float_normalized"}, crosses=[("s", "s")],
                                     crossing_dim=4)
    fs.adapt({"s": np.array(["a", "b", "a"]), "x": np.array([1.0, 2.0, 3.0], "float32")})
    path = str(tmp_path / "fs.keras")
    fs.save(path)
    cfg = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert (cfg["module"], cfg["class_name"]) == ("keras.utils", "FeatureSpace")
    feat = cfg["config"]["features"]["s"]
    assert (feat["module"], feat["class_name"], feat["registered_name"]) == \
        ("keras.src.layers.preprocessing.feature_space", "Feature", "Feature")  # what Keras 3 writes
    assert feat["config"]["preprocessor"]["class_name"] == "StringLookup"
    # A config that smuggles another class in place of a Feature is refused in safe mode.
    feat["class_name"] = "Sequential"
    bad = str(tmp_path / "bad.keras")
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.namelist():
            zout.writestr(item, json.dumps(cfg) if item == "config.json" else zin.read(item))
    with pytest.raises((ValueError, TypeError)):
        tf.keras.models.load_model(bad)


def test_model_from_intermediate_tensors_matches_keras_layers():
    # Keras 3's clone_graph_nodes: a model whose inputs are intermediate tensors gets `<name>CLONE` Input layers.
    x = tf.keras.Input((3,))
    h = tf.keras.layers.Dense(4, name="a")(x)
    out = tf.keras.layers.Dense(2, name="b")(h)
    model = tf.keras.Model(h, out)
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense"]
    assert model.layers[0].name == f"{h.name}CLONE" and model.count_params() == 10
    full = tf.keras.Model(x, out)
    hv = full.get_layer("a")(np.ones((2, 3), "float32"))
    np.testing.assert_allclose(model(hv).numpy(), full(np.ones((2, 3), "float32")).numpy(), rtol=1e-6)


FILES = os.path.join(HERE, "..", "goldens", "keras_files")


@pytest.mark.parametrize("name", ["string_int", "integer_one_hot", "text_tf_idf", "string_oov2", "feature_space"])
def test_loads_lookup_files_written_by_keras(name):
    # Keras keeps adapted vocabularies in assets/<layer path>/vocabulary.txt and tf_idf weights as variables
    # (tools/record_tf_goldens/keras_lookup_files.py).
    with open(os.path.join(FILES, "lookup_outputs.json")) as f:
        recorded = json.load(f)
    model = tf.keras.models.load_model(os.path.join(FILES, f"lookup_{name}.keras"))
    x = C.RAW if name == "feature_space" else np.array(recorded["inputs"][name])
    np.testing.assert_allclose(np.asarray(model(x), np.float64), np.asarray(recorded[name], np.float64),
                               rtol=1e-5, atol=1e-5)


def test_tf_idf_layer_round_trip_keeps_idf(tmp_path):
    tv = tf.keras.layers.TextVectorization(output_mode="tf_idf")
    tv.adapt(["x y", "y z z"])
    inp = tf.keras.Input((), dtype="string")
    model = tf.keras.Model(inp, tv(inp))
    path = str(tmp_path / "tv.keras")
    model.save(path)
    import h5py
    import io
    import zipfile

    with h5py.File(io.BytesIO(zipfile.ZipFile(path).read("model.weights.h5")), "r") as f:
        assert "layers/text_vectorization/vars/idf_weights" in f  # where Keras reads it from
    x = np.array(["x z", "y"])
    np.testing.assert_allclose(tf.keras.models.load_model(path)(x).numpy(), model(x).numpy(), rtol=1e-6)
