"""Dtype/value cases from tutorial-style programs, run on Keras 3 (TF backend) by
tools/record_tf_goldens/keras_user_programs.py (into tests/goldens/keras_user_programs.json) and on tensorlet by
tests/keras/test_user_program_fixes.py."""

import numpy as np


def _out(keras, x):
    return {"dtype": np.dtype(keras.ops.convert_to_numpy(x).dtype).name,
            "value": keras.ops.convert_to_numpy(x).tolist()}


def run(keras):
    data = {}
    f32 = np.array([[0.5]], "float32")
    i64 = np.array([[1, 2]], "int64")
    i32 = np.array([[3]], "int32")
    # Concatenate promotes mixed dtypes the Keras way (int64 + float32 -> float32, not NumPy's float64)
    pairs = {"f32_i64": [f32, i64], "i64_i32": [i64, i32], "f32_i32": [f32, i32], "i64_i64": [i64, i64]}
    for name, xs in pairs.items():
        data[f"concat_{name}"] = _out(keras, keras.layers.Concatenate()(xs))
    sym = keras.layers.Concatenate()([keras.Input((1,)), keras.Input((2,), dtype="int64")])
    data["concat_symbolic_dtype"] = np.dtype(sym.dtype if isinstance(sym.dtype, str) else sym.dtype.name).name
    # The structured-data tutorial: a normalized number beside a one-hot StringLookup, in a functional model
    inputs = {"age": keras.Input((1,), name="age"), "city": keras.Input((1,), name="city", dtype="string")}
    norm = keras.layers.Normalization(axis=None, mean=35.0, variance=100.0)
    look = keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="one_hot")
    out = keras.layers.Concatenate()([norm(inputs["age"]), look(inputs["city"])])
    model = keras.Model(inputs, out)
    got = model({"age": np.array([[20.0], [50.0]], "float32"), "city": np.array([["b"], ["z"]])})
    data["structured_model"] = _out(keras, got)
    data.update(_train_step_data(keras))
    return data


def _train_step_data(keras):
    """What a custom ``train_step`` receives from ``fit(x)`` without ``y`` (the VAE tutorial indexes it)."""
    seen = {}

    class Probe(keras.Model):
        def __init__(self, key):
            super().__init__()
            self.key = key
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            if isinstance(data, (tuple, list)):
                inner = data[0]
                seen[self.key] = ["tuple", len(data), type(inner).__name__ if isinstance(inner, (list, dict))
                                  else ("tuple" if isinstance(inner, tuple) else "tensor")]
            else:
                seen[self.key] = [type(data).__name__ if isinstance(data, dict) else "tensor"]
            return {"one": keras.ops.ones(())}

    x = np.ones((4, 2), "float32")
    for key, xs in {"array": x, "list": [x, x], "dict": {"a": x}}.items():
        m = Probe(key)
        m.compile(optimizer="sgd")
        m.fit(xs, epochs=1, batch_size=4, verbose=0)
    return {f"train_step_data_{k}": v for k, v in seen.items()}
