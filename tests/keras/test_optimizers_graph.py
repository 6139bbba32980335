"""Optimizer steps and losses traced by tf.function give the eager results (graph-ready update code)."""

import numpy as np
import pytest

import tensorlet as tf

O = tf.keras.optimizers  # noqa: E741


def _variable_ops_trace():
    v = tf.Variable(1.0)
    try:
        tf.function(lambda: v * 2.0)()
    except AttributeError as e:  # core: Variable operands inside tf.function (ops/_helpers.binary)
        pytest.skip(f"core graph support for Variable operands missing: {e}")


CASES = [("sgd_momentum", lambda: O.SGD(0.1, momentum=0.9)), ("adam", lambda: O.Adam(0.1)),
         ("nadam", lambda: O.Nadam(0.1)), ("ftrl", lambda: O.Ftrl(0.1)),
         ("adamw_clip", lambda: O.AdamW(0.1, global_clipnorm=0.5)),
         ("schedule", lambda: O.SGD(O.schedules.CosineDecay(0.1, 10, warmup_target=0.2, warmup_steps=2))),
         ("ema", lambda: O.SGD(0.1, use_ema=True, ema_overwrite_frequency=2)),
         ("accumulation", lambda: O.Adam(0.1, gradient_accumulation_steps=2)),
         ("loss_scale", lambda: O.LossScaleOptimizer(O.SGD(0.1))), ("legacy_adam", lambda: O.legacy.Adam(0.1))]


def _run(make, compiled, sparse):
    w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2).astype("float32"))
    opt = make()
    x = tf.constant(np.arange(6, dtype="float32").reshape(2, 3) / 5)

    def step():
        with tf.GradientTape() as tape:
            if sparse:
                loss = tf.reduce_sum(tf.square(tf.gather(w, [0, 2, 2])))
            else:
                loss = tf.keras.losses.MeanSquaredError()(tf.ones((2, 2)), tf.matmul(x, w))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))
        return loss

    fn = tf.function(step) if compiled else step
    for _ in range(3):
        fn()
    return w.numpy(), int(opt.iterations.numpy())


SPARSE = ("sgd_momentum", "adam", "loss_scale", "legacy_adam")
PARAMS = [(n, m, False) for n, m in CASES] + [(n, m, True) for n, m in CASES if n in SPARSE]


@pytest.mark.parametrize("name,make,sparse", PARAMS, ids=[f"{n}-{'sparse' if s else 'dense'}" for n, _, s in PARAMS])
def test_compiled_step_matches_eager(name, make, sparse):
    _variable_ops_trace()
    eager, graph = _run(make, False, sparse), _run(make, True, sparse)
    np.testing.assert_allclose(graph[0], eager[0], rtol=1e-5, atol=1e-6)
    assert graph[1] == eager[1] == (1 if name == "accumulation" else 3)


def test_losses_and_activations_trace():
    L = tf.keras.losses
    x = tf.constant(np.random.RandomState(0).normal(size=(4, 5)).astype("float32"))
    y = tf.constant(np.eye(5, dtype="float32")[[1, 0, 4, 2]])
    labels = tf.constant([1, 0, 4, 2])

    def f():
        p = tf.keras.activations.softmax(x * 3.0)
        return [L.CategoricalCrossentropy()(y, p), L.SparseCategoricalCrossentropy(ignore_class=0)(labels, p),
                L.BinaryCrossentropy()(tf.cast(x > 0, "float32"), tf.keras.activations.sigmoid(x)),
                L.Huber()(y, x), L.KLDivergence(reduction="sum")(y, p), L.Hinge()(y, x),
                tf.keras.activations.sparsemax(x), tf.keras.regularizers.OrthogonalRegularizer()(x)]

    for a, b in zip(f(), tf.function(f)()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    # the softmax output inside the graph still carries its logits: no epsilon clipping
    big = tf.constant([[30.0, -30.0, 0.0]])
    g = tf.function(lambda: L.CategoricalCrossentropy()(tf.constant([[0.0, 1.0, 0.0]]),
                                                        tf.keras.activations.softmax(big)))
    assert abs(float(g()) - 60.0) < 1e-4
