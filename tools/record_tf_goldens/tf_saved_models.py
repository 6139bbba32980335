"""Records small SavedModels written by real TensorFlow, their inputs/outputs, and TF's OpDefs (run outside CI).

    /work/tfvenv/bin/python tools/record_tf_goldens/tf_saved_models.py

Writes, under tests/goldens/tf_saved_model/:

- ``module/``      a ``tf.Module`` with variables, a ``__call__`` and a state-changing ``bump`` tf.function
- ``mlp/``         Keras 3 ``model.export()`` of a Dense MLP
- ``cnn/``         Keras 3 ``model.export()`` of Conv2D / MaxPool / Flatten / Dropout / Dense softmax
- ``mlp_saved/``   ``tf.saved_model.save(keras_model)`` of the same MLP
- ``tf_keras/``    a Keras 2 (tf_keras) SavedModel, when tf_keras is installed
- ``values.json``  inputs and the outputs real TF computes for every signature / function called
- ``cli.json``     ``saved_model_cli show --all`` text of ``module/`` and ``mlp/``

and tensorlet/_src/saved_model/tf_opdefs.json: the OpDefs (as TF's registry declares them) of every TF op
named in tensorlet's sources plus the ops the SavedModel exporter writes, in a compact JSON form.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "goldens", "tf_saved_model")
OPDEFS = os.path.join(ROOT, "tensorlet", "_src", "saved_model", "tf_opdefs.json")
# ops the exporter writes beyond the ones tensorlet defines, and the ones TF-written files commonly hold
EXTRA_OPS = ["Placeholder", "Const", "NoOp", "Identity", "IdentityN", "VarHandleOp", "ReadVariableOp",
             "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "VarIsInitializedOp",
             "DisableCopyOnRead", "StatefulPartitionedCall", "PartitionedCall", "SaveV2", "RestoreV2",
             "MergeV2Checkpoints", "ShardedFilename", "StringJoin", "StaticRegexFullMatch", "Select", "Reshape",
             "Slice", "Fill", "BroadcastTo", "Range", "If", "StatelessIf", "While", "StatelessWhile", "Sum",
             "Mean", "Max", "Min", "Prod", "All", "Any", "BiasAdd", "ConcatV2", "Pack", "StridedSlice", "Squeeze",
             "ExpandDims", "Transpose", "Cast", "ArgMax", "ArgMin", "GatherV2", "Tile", "Pad", "Split", "Shape",
             "Einsum", "BatchMatMulV2", "BatchMatMulV3", "Rsqrt", "SquaredDifference", "SelectV2", "ZerosLike",
             "OnesLike", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Relu6", "Elu", "Selu", "Softplus",
             "LeakyRelu", "Erf", "FusedBatchNormV3", "AvgPool", "MaxPool", "Conv2D", "DepthwiseConv2dNative",
             "StopGradient", "Mul", "Sub", "RealDiv", "AddV2", "Square", "Sqrt", "Exp", "Log", "Neg", "Maximum",
             "Minimum", "Equal", "Greater", "Less", "Pow", "Abs", "Relu", "MatMul", "PreventGradient", "LogicalAnd",
             "Snapshot"]


def _tensorlet_op_names():
    """Every capitalized string literal in tensorlet's sources; TF's registry then keeps the op names among them
    (op families declare ops through several helpers, so no single call pattern finds them all)."""
    names = set()
    pat = re.compile(r"""["']([A-Z][A-Za-z0-9]{1,40})["']""")
    for dirpath, _, files in os.walk(os.path.join(ROOT, "tensorlet", "_src")):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    names.update(pat.findall(fh.read()))
    return names


def _default(av):
    kind = av.WhichOneof("value")
    if kind is None:
        return None
    if kind == "list":
        lst = av.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            vals = list(getattr(lst, field))
            if vals:
                if field == "s":
                    vals = [v.decode() for v in vals]
                elif field in ("shape", "tensor", "func"):
                    vals = [str(v) for v in vals]
                return {"list": vals}
        return {"list": []}
    v = getattr(av, kind)
    if kind == "s":
        v = v.decode()
    elif kind == "f":
        v = float(v)
    elif kind in ("shape", "tensor", "func", "placeholder"):
        v = "" if kind != "shape" else ("unknown" if v.unknown_rank else [d.size for d in v.dim])
    return {kind: v}


def _arg(a):
    d = {"name": a.name}
    if a.type:
        d["type"] = int(a.type)
    for f in ("type_attr", "number_attr", "type_list_attr"):
        if getattr(a, f):
            d[f] = getattr(a, f)
    if a.is_ref:
        d["ref"] = True
    return d


def record_opdefs():
    names = sorted(_tensorlet_op_names() | set(EXTRA_OPS))
    out = {}
    for n in names:
        od = op_def_registry.get(n)
        if od is None:
            continue
        attrs = []
        for a in od.attr:
            e = {"name": a.name, "type": a.type}
            if a.HasField("default_value"):
                e["default"] = _default(a.default_value)
            if a.has_minimum:
                e["min"] = a.minimum
            if a.allowed_values.WhichOneof("value") is not None:
                e["allowed"] = _default(a.allowed_values)
            attrs.append(e)
        entry = {"inputs": [_arg(a) for a in od.input_arg], "outputs": [_arg(a) for a in od.output_arg],
                 "attrs": attrs}
        if od.is_stateful:
            entry["stateful"] = True
        out[n] = entry
    with open(OPDEFS, "w") as f:
        json.dump({"tensorflow": tf.__version__, "ops": out}, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(out)} OpDefs -> {OPDEFS} ({os.path.getsize(OPDEFS)} bytes)")


class Module(tf.Module):
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


def _mlp(keras):
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((4,), name="features"), keras.layers.Dense(5, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])


def _cnn(keras):
    keras.utils.set_random_seed(2)
    return keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(2, 3, activation="relu"),
                             keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dropout(0.5),
                             keras.layers.Dense(3, activation="softmax")])


def _arr(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "values": x.ravel().tolist()}


def _fresh(name):
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def _cli(path):
    exe = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    r = subprocess.run([exe, "show", "--all", "--dir", path], capture_output=True, text=True, check=True)
    return r.stdout


def main():
    import keras

    os.makedirs(OUT, exist_ok=True)
    record_opdefs()
    values = {}
    rng = np.random.default_rng(0)

    m = Module()
    tf.saved_model.save(m, _fresh("module"), signatures={"serving_default": m.__call__.get_concrete_function(),
                                                          "bump": m.bump.get_concrete_function()})
    x = rng.normal(size=(2, 3)).astype(np.float32)
    loaded = tf.saved_model.load(os.path.join(OUT, "module"))
    values["module"] = {"x": _arr(x), "call": _arr(loaded(tf.constant(x))),
                        "serving_default": {k: _arr(v) for k, v in
                                            loaded.signatures["serving_default"](x=tf.constant(x)).items()},
                        "bump_1": _arr(loaded.bump(tf.constant(1.5))), "bump_2": _arr(loaded.bump(tf.constant(1.0)))}

    for name, build, shape in (("mlp", _mlp, (3, 4)), ("cnn", _cnn, (2, 8, 8, 1))):
        model = build(keras)
        xin = rng.normal(size=shape).astype(np.float32)
        model.export(_fresh(name), verbose=False)
        loaded = tf.saved_model.load(os.path.join(OUT, name))
        values[name] = {"x": _arr(xin), "serve": _arr(loaded.serve(tf.constant(xin))),
                        "serving_default": {k: _arr(v) for k, v in
                                            loaded.signatures["serving_default"](tf.constant(xin)).items()},
                        "keras": _arr(model(xin, training=False))}
        if name == "mlp":
            tf.saved_model.save(model, _fresh("mlp_saved"))
            loaded = tf.saved_model.load(os.path.join(OUT, "mlp_saved"))
            sig = loaded.signatures["serving_default"]
            key = next(iter(sig.structured_input_signature[1]))
            values["mlp_saved"] = {"x": _arr(xin), "serving_default": {
                k: _arr(v) for k, v in sig(**{key: tf.constant(xin)}).items()}}

    try:
        import tf_keras
    except ImportError:
        tf_keras = None
        shutil.rmtree(os.path.join(OUT, "tf_keras"), ignore_errors=True)
    if tf_keras is not None:
        tf_keras.utils.set_random_seed(3)
        k2 = tf_keras.Sequential([tf_keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                  tf_keras.layers.Dense(2)])
        xin = rng.normal(size=(2, 3)).astype(np.float32)
        k2.save(_fresh("tf_keras"), save_format="tf")
        loaded = tf.saved_model.load(os.path.join(OUT, "tf_keras"))
        sig = loaded.signatures["serving_default"]
        key = next(iter(sig.structured_input_signature[1]))
        values["tf_keras"] = {"x": _arr(xin), "input_key": key, "call": _arr(loaded(tf.constant(xin))),
                              "serving_default": {k: _arr(v) for k, v in sig(**{key: tf.constant(xin)}).items()}}

    with open(os.path.join(OUT, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, "cli.json"), "w") as f:
        json.dump({"module": _cli(os.path.join(OUT, "module")), "mlp": _cli(os.path.join(OUT, "mlp"))}, f, indent=1)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
    print(f"wrote {OUT} ({total} bytes)")


if __name__ == "__main__":
    main()
