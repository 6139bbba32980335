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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "tfjs"))
from tfjs_graph_cases import NAMES, build, fused_bn, randomize, structure  # noqa: E402


def main(out):
    rec = {}
    goldens = os.path.join(os.path.dirname(os.path.abspath(out)), "tf_saved_model")
    with tempfile.TemporaryDirectory() as d:
        todo = [(name, build(tf, name)) for name in NAMES] + [(f"tf_{n}", n) for n in ("mlp", "cnn", "mlp_saved")]
        todo.append(("fused_bn", fused_bn(tf)))
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
