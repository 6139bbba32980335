"""tensorlet's tfmot against values recorded from real tensorflow_model_optimization 0.8 (tf_keras) by
tools/record_tf_goldens/tfmot_ref.py: schedules, one pruning step, QAT variables and ranges, fake quantization."""

import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.tfmot import quantization, sparsity

sk, qk = sparsity.keras, quantization.keras
keras = tf.keras
G = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "tfmot.json")))


def _short(name):
    return name.split(":")[0].split("/")[-1]


def test_schedules_match_tfmot():
    poly = sk.PolynomialDecay(0.2, 0.8, begin_step=100, end_step=300, power=3, frequency=50)
    const = sk.ConstantSparsity(0.8, begin_step=10, end_step=50, frequency=20)
    for k, (pa, pb), (ca, cb) in zip(G["steps"], G["poly"], G["const"]):
        a, b = poly(k)
        assert (a, float(b)) == (pa, pytest.approx(pb, rel=1e-6)), k
        a, b = const(k)
        assert (a, float(b)) == (ca, pytest.approx(cb, rel=1e-6)), k


def test_one_pruning_step_matches_tfmot():
    g = G["prune"]
    w0 = np.asarray(g["w0"], np.float32)
    rng = np.random.RandomState(0)
    rng.randn(6, 5)
    x, y = rng.randn(8, 6).astype(np.float32), rng.randn(8, 5).astype(np.float32)
    m = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5, use_bias=False)])
    m.layers[0].set_weights([w0])
    p = sk.prune_low_magnitude(m, pruning_schedule=sk.ConstantSparsity(0.6, 0, frequency=1))
    p.compile(keras.optimizers.SGD(0.0), "mse")
    p.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[sk.UpdatePruningStep()])
    wr = p.layers[0]
    assert sorted(_short(v.name) for v in wr.weights) == sorted(_short(n) for n in g["weight_names"])
    assert int(wr.pruning_step.numpy()) == g["pruning_step"]
    np.testing.assert_array_equal(wr.pruning_vars[0][1].numpy(), np.asarray(g["mask"], np.float32))
    assert float(wr.pruning_vars[0][2].numpy()) == pytest.approx(g["threshold"], rel=1e-6)
    np.testing.assert_allclose(wr.layer.kernel.numpy(), np.asarray(g["kernel"], np.float32), rtol=1e-6)


def test_qat_variables_and_ranges_match_tfmot():
    g = G["qat"]
    rng = np.random.RandomState(0)
    rng.randn(6, 5), rng.randn(8, 6), rng.randn(8, 5)
    xq = rng.rand(4, 6, 6, 1).astype(np.float32)
    assert float(xq.max()) == pytest.approx(g["x_max"])
    qm = keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(3, 3, activation="relu", name="conv2d"),
                           keras.layers.Flatten(name="flatten"), keras.layers.Dense(4, activation="softmax",
                                                                                  name="dense")])
    q = qk.quantize_model(qm)
    assert [lay.name for lay in q.layers] == g["layers"]
    for lay in q.layers:
        assert sorted(_short(v.name) for v in lay.weights) == sorted(_short(n) for n in g["weights"][lay.name])
    kernel0 = qm.layers[0].kernel.numpy()
    q.compile(keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
    q.fit(xq, np.arange(4), batch_size=4, epochs=1, verbose=0)
    got = {f"{lay.name}/{v.name}": np.asarray(v.numpy()) for lay in q.layers for v in lay.non_trainable_weights}
    want = {n.split(":")[0]: np.asarray(v) for n, v in g["values"].items()}
    assert sorted(got) == sorted(want)
    for n, v in want.items():
        if n.endswith(("kernel_min", "kernel_max", "post_activation_max", "pre_activation_min",
                       "pre_activation_max")):
            continue  # depend on the (random) initial weights: kernel ranges checked below through their rule
        np.testing.assert_allclose(got[n], v, rtol=1e-5, atol=1e-6, err_msg=n)
    np.testing.assert_allclose(got["quant_conv2d/kernel_max"], np.abs(kernel0).reshape(-1, 3).max(0), rtol=1e-6)
    np.testing.assert_allclose(got["quant_conv2d/kernel_min"], -got["quant_conv2d/kernel_max"])


def test_fake_quant_matches_tf():
    x = np.asarray(G["fake_quant"]["x"], np.float32)
    for c in G["fake_quant"]["cases"]:
        y = qk.fake_quant(tf.constant(x), tf.constant(c["lo"]), tf.constant(c["hi"]), narrow_range=c["narrow"])
        np.testing.assert_allclose(np.asarray(y), np.asarray(c["y"], np.float32), atol=1e-6, err_msg=str(c))
