"""Small tf.lite checks: layer coverage against Keras on LiteRT, fusions, Interpreter API, errors, corrupt files."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.lite import schema
from tensorlet._src.lite.interpreter import Interpreter, litert_available

keras = tf.keras
ENGINES = ["litert", "reference"] if litert_available() else ["reference"]


def predict(content, x, engine):
    it = Interpreter(model_content=content, experimental_engine=engine)
    d = it.get_input_details()[0]
    it.resize_tensor_input(d["index"], list(x.shape))
    it.allocate_tensors()
    it.set_tensor(d["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def ops_of(content):
    m = schema.read_model(content)
    return [schema.OP_NAMES[schema.opcode(m["operator_codes"][o["opcode_index"]])]
            for o in m["subgraphs"][0]["operators"]]


def _mixed_model():
    keras.utils.set_random_seed(3)
    inp = keras.Input(shape=(8, 8, 3))
    x = keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6")(inp)
    x = keras.layers.AveragePooling2D(2)(x)
    y = keras.layers.ZeroPadding2D(1)(x)
    y = keras.layers.Conv2D(4, 3, strides=2)(y)
    y = keras.layers.BatchNormalization()(y)
    z = keras.layers.Concatenate()([keras.layers.GlobalAveragePooling2D()(x), keras.layers.GlobalAveragePooling2D()(y)])
    z = keras.layers.Dense(5, activation="tanh")(z)
    z = keras.layers.LeakyReLU(0.1)(z)
    return keras.Model(inp, z)


@pytest.mark.parametrize("engine", ENGINES)
def test_mixed_layers_match_keras(engine):
    model = _mixed_model()
    bn = model.layers[5]
    bn.moving_mean.assign(np.linspace(-1, 1, 4).astype("float32"))
    bn.moving_variance.assign(np.linspace(0.5, 2, 4).astype("float32"))
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    x = np.random.default_rng(0).random((2, 8, 8, 3), dtype=np.float32)
    np.testing.assert_allclose(predict(content, x, engine), model.predict(x, verbose=0), atol=1e-5)
    ops = ops_of(content)
    assert "DEPTHWISE_CONV_2D" in ops and "MUL" not in ops  # batch norm folded into the convolution


@pytest.mark.parametrize("engine", ENGINES)
def test_lstm_unrolled_matches_keras(engine):
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input(shape=(5, 3), batch_size=1), keras.layers.LSTM(4), keras.layers.Dense(2)])
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    x = np.random.default_rng(1).random((1, 5, 3), dtype=np.float32)
    np.testing.assert_allclose(predict(content, x, engine), model.predict(x, verbose=0), atol=1e-5)


def test_concrete_function_ops_and_signature():
    @tf.function
    def f(a, b):
        return {"prod": tf.matmul(a, b, transpose_b=True), "t": tf.transpose(a, [1, 0]) * 2.0,
                "m": tf.reduce_mean(tf.nn.sigmoid(a), axis=1, keepdims=True)}

    cf = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([4, 3], tf.float32))
    content = tf.lite.TFLiteConverter.from_concrete_functions([cf]).convert()
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    b = np.arange(12, dtype=np.float32).reshape(4, 3) / 12
    for engine in ENGINES:
        it = Interpreter(model_content=content, experimental_engine=engine)
        sig = it.get_signature_list()["serving_default"]
        assert sorted(sig["outputs"]) == ["m", "prod", "t"] and len(sig["inputs"]) == 2
        runner = it.get_signature_runner("serving_default")
        out = runner(**dict(zip(sig["inputs"], (a, b))))
        np.testing.assert_allclose(out["prod"], a @ b.T, rtol=1e-6)
        np.testing.assert_allclose(out["t"], a.T * 2, rtol=1e-6)
        np.testing.assert_allclose(out["m"], (1 / (1 + np.exp(-a))).mean(1, keepdims=True), rtol=1e-6)
    assert "BATCH_MATMUL" in ops_of(content) or "FULLY_CONNECTED" in ops_of(content)


@pytest.mark.parametrize("engine", ENGINES)
def test_details_format(engine):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="relu")])
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    it = Interpreter(model_content=content, experimental_engine=engine)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    assert {"name", "index", "shape", "shape_signature", "dtype", "quantization", "quantization_parameters",
            "sparsity_parameters"} <= set(d)
    assert d["dtype"] is np.float32 and d["shape"].dtype == np.int32
    assert list(d["shape"]) == [1, 4] and list(d["shape_signature"]) == [-1, 4]
    assert d["quantization"] == (0.0, 0)
    it.set_tensor(d["index"], np.ones((1, 4), np.float32))
    it.invoke()
    np.testing.assert_allclose(it.get_tensor(it.get_output_details()[0]["index"]),
                               model.predict(np.ones((1, 4), np.float32), verbose=0), atol=1e-6)
    with pytest.raises(ValueError):
        it.set_tensor(d["index"], np.ones((2, 4), np.float32))  # not resized


def test_unsupported_op_names_it():
    @tf.function
    def f(x):
        return tf.math.cumsum(x, axis=0)

    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    with pytest.raises(tf.lite.ConverterError, match="'tf.Cumsum' op is neither a custom op nor a flex op"):
        tf.lite.TFLiteConverter.from_concrete_functions([cf]).convert()


def test_int8_strict_rejects_float_only_op():
    @tf.function
    def f(x):
        return tf.exp(x)

    cf = f.get_concrete_function(tf.TensorSpec([1, 3], tf.float32))
    c = tf.lite.TFLiteConverter.from_concrete_functions([cf])
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    c.representative_dataset = lambda: ([np.random.rand(1, 3).astype("float32")] for _ in range(3))
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    with pytest.raises(tf.lite.ConverterError, match="Quantization not yet supported for op: 'EXP'"):
        c.convert()
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # float fallback for EXP
    x = np.full((1, 3), 0.5, np.float32)
    for engine in ENGINES:
        np.testing.assert_allclose(predict(c.convert(), x, engine), np.exp(x), rtol=0.02)


def test_corrupt_files_raise_data_loss():
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)])
    good = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    bad = [b"", b"junk", good[:40], good[: len(good) // 2], good[:4] + b"XXXX" + good[8:]]
    wrong_buffer = bytearray(good)
    root = int.from_bytes(good[:4], "little")
    wrong_buffer[root:root + 4] = (len(good) * 4).to_bytes(4, "little")  # the root table points past the end
    bad.append(bytes(wrong_buffer))
    for content in bad:
        with pytest.raises(tf.errors.DataLossError, match="corrupt TFLite model"):
            Interpreter(model_content=content)
    rng = np.random.default_rng(0)
    for _ in range(200):  # random byte flips: a clear error or a model that loads, never a crash
        b = bytearray(good)
        for i in rng.integers(0, len(b), 3):
            b[i] = int(rng.integers(0, 256))
        try:
            it = Interpreter(model_content=bytes(b), experimental_engine="reference")
            it.allocate_tensors()
            it.invoke()
        except (tf.errors.DataLossError, ValueError, KeyError, IndexError, TypeError, RuntimeError,
                tf.errors.UnimplementedError):
            pass


def test_from_saved_model(tmp_path):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(2)])
    path = str(tmp_path / "sm")
    tf.saved_model.save(model, path)
    content = tf.lite.TFLiteConverter.from_saved_model(path).convert()
    x = np.random.default_rng(4).random((1, 4), dtype=np.float32)
    for engine in ENGINES:
        np.testing.assert_allclose(predict(content, x, engine), model.predict(x, verbose=0), atol=1e-5)
