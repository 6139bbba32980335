"""tfmot.quantization.keras on tensorlet: fake quantization as TF's FakeQuantWithMinMaxVars defines it (recomputed
in NumPy), the QAT wrappers' variables, and the converted int8 ``.tflite`` run by LiteRT; plus the issue's checks
on the seed CNN (pruned to 80% and QAT), trained briefly on the bundled MNIST sample."""

import gzip

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.lite.interpreter import Interpreter
from tensorlet._src.tfmot import quantization, sparsity

qk, sk = quantization.keras, sparsity.keras
keras = tf.keras


def np_fake_quant(x, lo, hi, narrow=False, bits=8):
    qmin, qmax = (1 if narrow else 0), 2 ** bits - 1
    scale = (hi - lo) / (qmax - qmin)
    zp = np.clip(np.floor(qmin - lo / scale + 0.5), qmin, qmax)
    nlo, nhi = (qmin - zp) * scale, (qmax - zp) * scale
    xc = np.clip(x, nlo, nhi)
    return np.floor((xc - nlo) / scale + 0.5) * scale + nlo, (x >= nlo) & (x <= nhi)


@pytest.mark.parametrize("lo,hi,narrow", [(-6.0, 6.0, False), (-0.3, 1.7, False), (-1.0, 1.0, True), (0.2, 3.0, False)])
def test_fake_quant_matches_tf_definition(lo, hi, narrow):
    x = np.random.RandomState(0).uniform(-8, 8, 400).astype(np.float32)  # off the grid's rounding ties
    want, inside = np_fake_quant(x.astype(np.float64), lo, hi, narrow)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = qk.fake_quant(xt, tf.constant(lo), tf.constant(hi), narrow_range=narrow)
    np.testing.assert_allclose(np.asarray(y), want, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(tape.gradient(y, xt)), inside.astype(np.float32))


def test_quantize_model_structure_and_ranges():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(3, 3, activation="relu"),
                              keras.layers.Flatten(), keras.layers.Dense(4, activation="softmax")])
    q = qk.quantize_model(model)
    assert [lay.name for lay in q.layers] == ["quantize_layer"] + ["quant_" + lay.name for lay in model.layers]
    conv = q.layers[1]
    assert {w.name for w in conv.non_trainable_weights} == {"optimizer_step", "kernel_min", "kernel_max",
                                                            "post_activation_min", "post_activation_max"}
    assert {w.name for w in q.layers[3].non_trainable_weights} >= {"pre_activation_min", "pre_activation_max"}
    x = np.random.RandomState(0).rand(4, 6, 6, 1).astype(np.float32)
    q.compile("sgd", "sparse_categorical_crossentropy")
    q.fit(x, np.arange(4) % 4, batch_size=4, epochs=1, verbose=0)  # one step
    k = conv.layer.kernel.numpy()
    np.testing.assert_allclose(conv.kernel_max.numpy(), np.abs(k).reshape(-1, 3).max(0), rtol=0.05)  # pre-update w
    assert float(q.layers[0].quantize_layer_min.numpy()) == 0.0
    assert float(q.layers[0].quantize_layer_max.numpy()) == pytest.approx(x.max())
    # EMA from [-6, 6] with decay 0.999 towards the batch range (relu output: min 0)
    assert float(conv.act_min.numpy()) == pytest.approx(-6.0 * 0.999, rel=1e-6)


@pytest.fixture(scope="module")
def mnist_models():
    (xt, yt), (xs, ys) = keras.datasets.mnist.load_data()
    xt, yt = (xt[:1600, ..., None] / 255).astype("float32"), yt[:1600]
    xs, ys = (xs[:500, ..., None] / 255).astype("float32"), ys[:500]
    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input(shape=(28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
        keras.layers.Dropout(0.25), keras.layers.Dense(10, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(xt, yt, batch_size=32, epochs=1, verbose=0)  # 50 steps
    acc = lambda m: float(np.mean(np.argmax(m.predict(xs, verbose=0), 1) == ys))  # noqa: E731
    float_acc = acc(model)
    float_file = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    q = qk.quantize_model(model)  # a copy: the float model's weights stay as they are
    q.compile("adam", "sparse_categorical_crossentropy")
    q.fit(xt, yt, batch_size=32, epochs=1, verbose=0)
    c = tf.lite.TFLiteConverter.from_keras_model(q)
    c.optimizations = [tf.lite.Optimize.DEFAULT]
    qat_file = c.convert()
    from tensorlet._src.tfmot.qat import _qat_export

    qat_float_acc = acc(_qat_export(q)[0])  # the QAT-trained weights without fake quantization
    pruned = sk.prune_low_magnitude(model, pruning_schedule=sk.PolynomialDecay(0.5, 0.8, 0, 20, frequency=5))
    pruned.compile("adam", "sparse_categorical_crossentropy")
    pruned.fit(xt, yt, batch_size=32, epochs=1, verbose=0, callbacks=[sk.UpdatePruningStep()])
    stripped = sk.strip_pruning(pruned)
    return dict(xs=xs, ys=ys, float_acc=float_acc, qat_float_acc=qat_float_acc, float_file=float_file,
                qat_acc=acc(q), qat_file=qat_file,
                pruned_acc=acc(stripped), pruned_file=tf.lite.TFLiteConverter.from_keras_model(stripped).convert(),
                stripped=stripped)


def _tflite_acc(content, xs, ys):
    it = Interpreter(model_content=content)
    d, o = it.get_input_details()[0], it.get_output_details()[0]
    it.resize_tensor_input(d["index"], list(xs.shape))
    it.allocate_tensors()
    it.set_tensor(d["index"], xs)
    it.invoke()
    return float(np.mean(np.argmax(it.get_tensor(o["index"]), 1) == ys))


@pytest.mark.slow
def test_pruned_80_percent_compresses_and_keeps_accuracy(mnist_models):
    r = mnist_models
    for lay in r["stripped"].layers:
        if lay.weights:
            k = lay.weights[0].numpy()
            assert 1 - np.count_nonzero(k) / k.size == pytest.approx(0.8, abs=0.01)
    f = r["pruned_file"]
    assert len(f) / len(gzip.compress(f)) >= 3.0
    assert len(gzip.compress(r["float_file"])) / len(gzip.compress(f)) >= 2.5
    assert r["pruned_acc"] >= r["float_acc"] - 0.02
    assert _tflite_acc(f, r["xs"], r["ys"]) == pytest.approx(r["pruned_acc"], abs=0.004)


@pytest.mark.slow
def test_qat_converts_to_int8_within_one_point(mnist_models):
    r = mnist_models
    from tensorlet._src.lite import schema

    m = schema.read_model(r["qat_file"])
    sg = m["subgraphs"][0]
    codes = [schema.OP_NAMES[schema.opcode(m["operator_codes"][op["opcode_index"]])] for op in sg["operators"]]
    assert codes[0] == "QUANTIZE" and codes[-1] == "DEQUANTIZE"
    weighted = [op for op, c in zip(sg["operators"], codes) if c in ("CONV_2D", "FULLY_CONNECTED")]
    assert len(weighted) == 3
    for op in weighted:
        assert sg["tensors"][op["inputs"][1]]["type"] == schema.TYPE_OF[np.dtype(np.int8)]  # int8 weights
        assert sg["tensors"][op["outputs"][0]]["type"] == schema.TYPE_OF[np.dtype(np.int8)]  # int8 activations
    assert len(r["qat_file"]) <= 0.32 * len(r["float_file"])  # int8 weights: about 4x smaller
    lite_acc = _tflite_acc(r["qat_file"], r["xs"], r["ys"])
    assert abs(lite_acc - r["qat_float_acc"]) <= 0.01 + 1e-9  # int8 file vs the same weights in float
    assert abs(lite_acc - r["qat_acc"]) <= 0.01 + 1e-9  # int8 file vs the fake-quantized Keras model
    assert lite_acc >= r["float_acc"] - 0.01  # no worse than the float model QAT started from
