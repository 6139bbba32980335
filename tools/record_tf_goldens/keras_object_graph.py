"""Records the SavedObjectGraph real TF 2.21 / Keras 3 writes for a Keras MLP (run outside CI).

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_object_graph.py

Writes tests/goldens/keras_object_graph.json: for ``model.export(dir)`` ("export") and
``tf.saved_model.save(model, dir)`` ("saved_model_save") of the MLP of ``tf_saved_models.py``, the structural summary
of tests/saved_model/sm_object_graph.py (node kinds, children and their order, function and concrete-function names
with TF's uids masked, function specs, signature defs, the checkpoint's object graph and keys).
tests/saved_model/test_sm_object_graph.py compares what tensorlet writes for the same model with it.
"""

import json
import os
import sys
import tempfile

import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2, trackable_object_graph_pb2

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "saved_model"))
from sm_object_graph import summarize  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "keras_object_graph.json")


def mlp(keras):
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((4,), name="features"), keras.layers.Dense(5, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])


def read(path):
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    ck = trackable_object_graph_pb2.TrackableObjectGraph()
    reader = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    ck.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    return summarize(sm, ck)


def main():
    import keras

    out = {"tensorflow": tf.__version__, "keras": keras.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        model = mlp(keras)
        model.export(os.path.join(tmp, "export"), verbose=False)
        out["export"] = read(os.path.join(tmp, "export"))
        tf.saved_model.save(model, os.path.join(tmp, "saved"))
        out["saved_model_save"] = read(os.path.join(tmp, "saved"))
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
