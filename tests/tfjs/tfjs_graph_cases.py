"""The models of the TF.js graph-model goldens, shared by tools/record_tf_goldens/tfjs_graph.py (real TF) and
tests/tfjs/test_graph_model.py (tensorlet): each function takes the framework module (``tf``)."""

import json

import numpy as np

NAMES = ("mlp", "cnn", "bn", "nobias")


def randomize(m):
    """Nonzero weights (grappler drops a zero bias), positive variances."""
    r = np.random.default_rng(0)
    m.set_weights([np.abs(r.normal(size=w.shape)).astype("f4") + 0.5 if "variance" in v.path
                   else (r.normal(size=w.shape) * 0.3).astype("f4") for v, w in zip(m.weights, m.get_weights())])
    return m


def build(tf, name):
    keras = tf.keras
    keras.utils.set_random_seed(0)
    if name == "mlp":
        return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                                 keras.layers.Dense(3, activation="softmax")])
    if name == "cnn":  # the seed MNIST CNN
        return keras.Sequential([
            keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.MaxPooling2D(), keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
            keras.layers.Flatten(), keras.layers.Dropout(0.5), keras.layers.Dense(10, activation="softmax")])
    if name == "bn":
        i = keras.Input((8, 8, 3))
        a = keras.layers.ReLU()(keras.layers.BatchNormalization()(keras.layers.Conv2D(4, 3, padding="same")(i)))
        b = keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6")(i)
        c = keras.layers.GlobalAveragePooling2D()(keras.layers.Concatenate()([a, b]))
        return keras.Model(i, keras.layers.BatchNormalization()(keras.layers.Dense(5)(c)))
    assert name == "nobias", name  # batch norm folded into a bias-free convolution
    j = keras.Input((6, 6, 2))
    h = keras.layers.BatchNormalization()(keras.layers.Conv2D(3, 3, use_bias=False)(j))
    h = keras.layers.Flatten()(keras.layers.Activation("relu")(h))
    return keras.Model(j, keras.layers.Dense(2, activation="sigmoid")(h))


def fused_bn(tf):
    """A tf.Module: Conv2D + bias + an inference FusedBatchNormV3 + Relu (tf.keras-style fused batch norm)."""

    class FusedBN(tf.Module):
        def __init__(self):
            super().__init__()
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

    return FusedBN()


def structure(doc):
    """Name-free description of a graph model: each output as [op, device, attrs, [inputs...]], recursively."""
    nodes = {n["name"]: n for n in doc["modelTopology"]["node"]}

    def desc(ref):
        n = nodes[ref.split(":")[0].lstrip("^")]
        attrs = {k: v for k, v in n.get("attr", {}).items() if k not in ("_input_shapes",)}
        return [n["op"], n.get("device", ""), json.dumps(attrs, sort_keys=True), [desc(i) for i in n.get("input", [])]]

    return [desc(o["name"]) for _, o in sorted(doc["signature"]["outputs"].items())]
