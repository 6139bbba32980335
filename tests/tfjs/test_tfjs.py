"""TF.js Layers export checked by real TF.js: @tensorflow/tfjs under Node loads model.json + shards
(tests/tfjs/predict.js) and its predictions must equal Keras's.  `npm ci` in tests/tfjs installs it (.ci/run)."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src import cli

keras = tf.keras
HERE = os.path.dirname(os.path.abspath(__file__))
NODE = shutil.which("node")
TFJS = os.path.join(HERE, "node_modules", "@tensorflow", "tfjs")
pytestmark = pytest.mark.skipif(
    NODE is None or not os.path.isdir(TFJS),
    reason="needs node and @tensorflow/tfjs (run `npm ci` in tests/tfjs)" if NODE else "node is not installed")


def tfjs_predict(model_dir, x):
    inp = os.path.join(model_dir, "..", os.path.basename(model_dir) + "_x.bin")
    np.ascontiguousarray(x, "<f4").tofile(inp)
    r = subprocess.run([NODE, os.path.join(HERE, "predict.js"), model_dir, inp, json.dumps(list(x.shape))],
                       capture_output=True, text=True, cwd=HERE, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    return np.asarray(out["values"], np.float32).reshape(out["shape"])


def seed_cnn():
    keras.utils.set_random_seed(0)
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dropout(0.5), keras.layers.Dense(10, activation="softmax")])


def functional():
    keras.utils.set_random_seed(1)
    i = keras.Input(shape=(12, 12, 2))
    a = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(i)
    b = keras.layers.DepthwiseConv2D(3, padding="same")(i)
    c = keras.layers.BatchNormalization()(keras.layers.Concatenate()([a, b]))
    c = keras.layers.GlobalAveragePooling2D()(c)
    return keras.Model(i, keras.layers.Dense(3, activation="tanh")(c))


@pytest.mark.parametrize("build", [seed_cnn, functional])
@pytest.mark.parametrize("quant,tol", [(None, 1e-5), ({"float16": True}, 2e-3), ({"uint16": True}, 1e-3),
                                       ({"uint8": True}, 0.05)])
def test_tfjs_predictions_equal_keras(tmp_path, build, quant, tol):
    model = build()
    x = np.random.default_rng(2).random((3,) + tuple(model.inputs[0].shape[1:]), dtype=np.float32)
    out = str(tmp_path / "web")
    tf.tfjs.converters.save_keras_model(model, out, quantization_dtype_map=quant)
    doc = json.load(open(os.path.join(out, "model.json")))
    assert doc["format"] == "layers-model"
    specs = doc["weightsManifest"][0]["weights"]
    assert [s["name"] for s in specs][:2] == [f"{model.layers[0 if build is seed_cnn else 1].name}/kernel",
                                             f"{model.layers[0 if build is seed_cnn else 1].name}/bias"]
    if quant:
        assert all(s["quantization"]["dtype"] == next(iter(quant)) for s in specs)
    np.testing.assert_allclose(tfjs_predict(out, x), model.predict(x, verbose=0), atol=tol)


def test_cli_shards_and_uint8(tmp_path):
    model = seed_cnn()
    src = str(tmp_path / "m.keras")
    model.save(src)
    out = str(tmp_path / "web")
    rc = cli.main(["export", "tfjs", "--input_format", "keras", "--quantize_uint8", "conv2d*/kernel",
                   "--weight_shard_size_bytes", "8192", src, out])
    assert rc == 0
    doc = json.load(open(os.path.join(out, "model.json")))
    group = doc["weightsManifest"][0]
    total = sum(os.path.getsize(os.path.join(out, p)) for p in group["paths"])
    assert len(group["paths"]) == -(-total // 8192) > 1
    assert all(os.path.getsize(os.path.join(out, p)) == 8192 for p in group["paths"][:-1])
    q = {s["name"]: s.get("quantization", {}).get("dtype") for s in group["weights"]}
    conv, dense = model.layers[0].name, model.layers[-1].name
    assert q[f"{conv}/kernel"] == "uint8" and q[f"{conv}/bias"] is None and q[f"{dense}/kernel"] is None
    x = np.random.default_rng(3).random((2, 28, 28, 1), dtype=np.float32)
    np.testing.assert_allclose(tfjs_predict(out, x), model.predict(x, verbose=0), atol=0.02)
    assert cli.main(["export", "tfjs", "--output_format", "keras", src, out]) == 2
