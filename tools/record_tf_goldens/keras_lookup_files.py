"""``.keras`` files with adapted lookup layers and a FeatureSpace, written by real Keras 3 (vocabularies in
``assets/``, idf weights as variables), with Keras's outputs, for tests/keras/test_feature_space.py.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_lookup_files.py

Writes tests/goldens/keras_files/lookup_*.keras and lookup_outputs.json.
"""

import importlib.util
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_files")

# name: (input batch, as nested lists)
INPUTS = {"string_int": [["a"], ["c"], ["q"]], "integer_one_hot": [[5], [7], [1]],
          "text_tf_idf": ["x z", "y", "q x"], "string_oov2": [["a"], ["zz"], ["yy"]]}


def _models():
    inp = keras.Input((1,), dtype="string")
    sl = keras.layers.StringLookup(output_mode="int")
    sl.adapt(np.array(["a", "b", "b", "c"]))
    yield "string_int", keras.Model(inp, sl(inp))
    il = keras.layers.IntegerLookup(output_mode="one_hot")
    il.adapt(np.array([5, 5, 7]))
    yield "integer_one_hot", keras.Sequential([keras.Input((1,), dtype="int64"), il])
    tv = keras.layers.TextVectorization(output_mode="tf_idf")
    tv.adapt(["x y", "y z z"])
    inp = keras.Input((), dtype="string")
    yield "text_tf_idf", keras.Model(inp, tv(inp))
    s2 = keras.layers.StringLookup(num_oov_indices=3, output_mode="int")
    s2.adapt(np.array(["a", "b"]))
    inp = keras.Input((1,), dtype="string")
    yield "string_oov2", keras.Model(inp, s2(inp))


def main():
    spec = importlib.util.spec_from_file_location(
        "keras_feature_space_cases", os.path.join(ROOT, "tests", "keras", "keras_feature_space_cases.py"))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    os.makedirs(OUT, exist_ok=True)
    outputs = {"keras_version": keras.__version__, "inputs": INPUTS}
    for name, model in _models():
        model.save(os.path.join(OUT, f"lookup_{name}.keras"))
        x = np.array(INPUTS[name])
        outputs[name] = np.asarray(model(x)).tolist()
    fs = keras.utils.FeatureSpace(features={"f": "float_normalized", "s": "string_categorical",
                                            "i": "integer_categorical"}, crosses=[("s", "i")], crossing_dim=8)
    fs.adapt(tf.data.Dataset.from_tensor_slices(cases.RAW))
    fs.save(os.path.join(OUT, "lookup_feature_space.keras"))
    outputs["feature_space"] = np.round(np.asarray(fs(cases.RAW)).astype("float64"), 5).tolist()
    tmp = os.path.join(OUT, "lookup_outputs.json.tmp")
    with open(tmp, "w") as f:
        json.dump(outputs, f, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(OUT, "lookup_outputs.json"))
    print(f"wrote {len(outputs) - 2} files to {OUT}")


if __name__ == "__main__":
    main()
