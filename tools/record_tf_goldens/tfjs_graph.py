"""Records what tensorflowjs_converter writes for TF-format SavedModels (tests/goldens/tfjs_graph.json): for an
MLP, the seed MNIST CNN and a conv/depthwise/batch-norm model, the graph-model's structure with node names
abstracted away (each output described recursively as op, device, attrs and inputs), the signature's dtypes and
shapes, and the weights manifest's shapes and dtypes.  Run by hand with TensorFlow 2.21, Keras 3 and
`pip install --no-deps tensorflowjs==4.22.0` (its converter module is imported without its optional
dependencies: tensorflow_decision_forests, tensorflow_hub, the TF1 Keras helpers and jax are stubbed out):

    /path/to/tf/python tools/record_tf_goldens/tfjs_graph.py tests/goldens/tfjs_graph.json
"""

import importlib.util
import json
import os
import sys
import tempfile
import types

import numpy as np

for _m in ("tensorflow_decision_forests", "tensorflow_hub"):
    sys.modules[_m] = types.ModuleType(_m)
import tensorflow as tf  # noqa: E402

for _m in ("tensorflow.python.keras", "tensorflow.python.keras.saving", "tensorflow.python.keras.saving.saving_utils"):
    sys.modules.setdefault(_m, types.ModuleType(_m))
_su = sys.modules["tensorflow.python.keras.saving.saving_utils"]
_su.trace_model_call = _su.def_function = _su.model_input_signature = None
_root = os.path.dirname(importlib.util.find_spec("tensorflowjs").origin)
for _name, _path in (("tensorflowjs", _root), ("tensorflowjs.converters", os.path.join(_root, "converters"))):
    _pkg = types.ModuleType(_name)
    _pkg.__path__ = [_path]
    sys.modules[_name] = _pkg
from tensorflowjs.converters import tf_saved_model_conversion_v2 as conv  # noqa: E402

keras = tf.keras


def randomize(m):
    """Nonzero weights (grappler drops a zero bias), positive variances."""
    r = np.random.default_rng(0)
    m.set_weights([np.abs(r.normal(size=w.shape)).astype("f4") + 0.5 if "variance" in v.path
                   else (r.normal(size=w.shape) * 0.3).astype("f4") for v, w in zip(m.weights, m.get_weights())])
    return m


def models():
    keras.utils.set_random_seed(0)
    mlp = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                            keras.layers.Dense(3, activation="softmax")])
    cnn = keras.Sequential([
        keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dropout(0.5), keras.layers.Dense(10, activation="softmax")])
    i = keras.Input((8, 8, 3))
    a = keras.layers.ReLU()(keras.layers.BatchNormalization()(keras.layers.Conv2D(4, 3, padding="same")(i)))
    b = keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6")(i)
    c = keras.layers.GlobalAveragePooling2D()(keras.layers.Concatenate()([a, b]))
    bn = keras.Model(i, keras.layers.BatchNormalization()(keras.layers.Dense(5)(c)))
    j = keras.Input((6, 6, 2))
    h = keras.layers.BatchNormalization()(keras.layers.Conv2D(3, 3, use_bias=False)(j))
    h = keras.layers.Flatten()(keras.layers.Activation("relu")(h))
    nobias = keras.Model(j, keras.layers.Dense(2, activation="sigmoid")(h))
    return {"mlp": mlp, "cnn": cnn, "bn": bn, "nobias": nobias}


class FusedBN(tf.Module):
    """Conv2D + bias + an inference FusedBatchNormV3 + Relu (tf.keras-style fused batch norm)."""

    def __init__(self):
        r = np.random.default_rng(7)
        self.w = tf.Variable(r.normal(size=(3, 3, 2, 4)).astype("f4"))
        self.b = tf.Variable(r.normal(size=(4,)).astype("f4"))
        self.gamma = tf.Variable(r.normal(size=(4,)).astype("f4"))
        self.beta = tf.Variable(r.normal(size=(4,)).astype("f4"))
        self.mean = tf.Variable(r.normal(size=(4,)).astype("f4"))
        self.var = tf.Variable((np.abs(r.normal(size=(4,))) + 0.5).astype("f4"))

    @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 2], tf.float32, name="x")])
    def __call__(self, x):
        y = tf.nn.bias_add(tf.nn.conv2d(x, self.w, 1, "SAME"), self.b)
        y, _, _ = tf.compat.v1.nn.fused_batch_norm(y, self.gamma, self.beta, self.mean, self.var, epsilon=0.001,
                                                   is_training=False)
        return {"y": tf.nn.relu(y)}


def structure(doc):
    """Name-free description of a graph model (the same function is in tests/tfjs/test_graph_model.py)."""
    nodes = {n["name"]: n for n in doc["modelTopology"]["node"]}

    def desc(ref):
        n = nodes[ref.split(":")[0].lstrip("^")]
        attrs = {k: v for k, v in n.get("attr", {}).items() if k not in ("_input_shapes",)}
        return [n["op"], n.get("device", ""), json.dumps(attrs, sort_keys=True), [desc(i) for i in n.get("input", [])]]

    return [desc(o["name"]) for _, o in sorted(doc["signature"]["outputs"].items())]


def main(out):
    rec = {}
    goldens = os.path.join(os.path.dirname(os.path.abspath(out)), "tf_saved_model")
    with tempfile.TemporaryDirectory() as d:
        todo = [(name, m) for name, m in models().items()] + [(f"tf_{n}", n) for n in ("mlp", "cnn", "mlp_saved")]
        todo.append(("fused_bn", FusedBN()))
        for name, m in todo:
            if isinstance(m, str):  # the TF-written SavedModels of tools/record_tf_goldens/tf_saved_models.py
                src = os.path.join(goldens, m)
            elif isinstance(m, tf.Module) and not isinstance(m, keras.Model):
                src = os.path.join(d, name + "_sm")
                tf.saved_model.save(m, src, signatures=m.__call__.get_concrete_function())
            else:
                randomize(m)
                src = os.path.join(d, name + "_sm")
                m.export(src, verbose=False)
            conv.convert_tf_saved_model(src, os.path.join(d, name + "_web"))
            doc = json.load(open(os.path.join(d, name + "_web", "model.json")))
            sig = {side: {k: [v["dtype"], v["tensorShape"]] for k, v in doc["signature"][side].items()}
                   for side in ("inputs", "outputs")}
            rec[name] = {"format": doc["format"], "structure": structure(doc), "signature": sig,
                         "output_names": sorted(v["name"] for v in doc["signature"]["outputs"].values()),
                         "weights": [[w["shape"], w["dtype"]] for g in doc["weightsManifest"] for w in g["weights"]],
                         "versions": doc["modelTopology"]["versions"], "library": doc["modelTopology"]["library"],
                         "keys": sorted(doc)}
    with open(out, "w") as f:
        json.dump({"tensorflow": tf.__version__, "models": rec}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
