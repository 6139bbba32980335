"""TF1 optimizers (tf.compat.v1.train.*Optimizer) and the global step, against TF 2.21's v1 API goldens."""

import json
import os

import numpy as np
import pytest

import tensorlet as tf

v1 = tf.compat.v1
GOLDEN = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "compat_v1.json")))
INPUTS = GOLDEN["inputs"]

OPTIMIZERS = {
    "GradientDescent": lambda: v1.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: v1.train.MomentumOptimizer(0.05, 0.9),
    "MomentumNesterov": lambda: v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "Adam": lambda: v1.train.AdamOptimizer(0.01),
    "AdamEps": lambda: v1.train.AdamOptimizer(0.1, beta1=0.8, beta2=0.99, epsilon=0.5),
    "RMSProp": lambda: v1.train.RMSPropOptimizer(0.01),
    "RMSPropCentered": lambda: v1.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-3, centered=True),
    "Adagrad": lambda: v1.train.AdagradOptimizer(0.1),
    "Adadelta": lambda: v1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_matches_tf1(name):
    gold = GOLDEN["optimizers"][name]
    w = tf.Variable(INPUTS["W0"], name="w")
    b = tf.Variable([0.1, 0.2, 0.3], name="b")
    opt = OPTIMIZERS[name]()
    step = tf.Variable(0, dtype=tf.int64)
    x, y = tf.constant(INPUTS["X"]), tf.constant(INPUTS["Y"])

    def loss():
        return tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))

    for i, expect in enumerate(gold["traj"]):
        if i % 2:
            assert opt.minimize(loss, global_step=step, var_list=[w, b]) is None
        else:
            with tf.GradientTape() as tape:
                value = loss()
            grads = tape.gradient(value, [w, b])
            assert opt.apply_gradients(zip(grads, [w, b]), global_step=step) is None
        np.testing.assert_allclose(w.numpy(), expect["w"], rtol=2e-6, atol=2e-7)
        np.testing.assert_allclose(b.numpy(), expect["b"], rtol=2e-6, atol=2e-7)
    assert int(step.numpy()) == gold["step"]
    assert opt.get_slot_names() == gold["slots"]
    if name in ("Adam", "Momentum", "RMSProp"):  # TF's eager names get _2, _3... for later optimizers of a kind
        assert sorted(v.name for v in opt.variables()) == gold["variables"]
    else:
        assert len(opt.variables()) == len(gold["variables"])


def test_minimize_defaults_to_the_variables_the_loss_reads():
    w = tf.Variable(3.0)
    frozen = tf.Variable(1.0, trainable=False)
    opt = v1.train.GradientDescentOptimizer(0.25)
    opt.minimize(lambda: w * w * frozen)
    assert w.numpy() == pytest.approx(1.5) and frozen.numpy() == 1.0
    assert [v for _, v in opt.compute_gradients(lambda: w * 2.0)] == [w]


def test_errors_match_tf1():
    w = tf.Variable([1.0, 2.0])
    opt = v1.train.AdamOptimizer()
    with pytest.raises(RuntimeError, match="should be a function when eager execution is enabled"):
        opt.minimize(tf.reduce_sum(w))
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \[\"<tf.Variable 'Variable:0'"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        v1.train.GradientDescentOptimizer(0.1, name="")
    assert opt.get_name() == "Adam"


def test_callable_learning_rate_and_slots():
    w = tf.Variable([1.0])
    lr = tf.Variable(0.5)
    opt = v1.train.MomentumOptimizer(lambda: lr * 1.0, momentum=0.0)
    opt.minimize(lambda: tf.reduce_sum(w * 2.0))
    np.testing.assert_allclose(w.numpy(), [0.0])
    assert opt.get_slot(w, "momentum").numpy().tolist() == [2.0]
    assert opt.get_slot(w, "nope") is None


def test_global_step():
    step = v1.train.get_or_create_global_step()
    assert step is v1.train.get_or_create_global_step() is v1.train.get_global_step()
    assert step.dtype == tf.int64 and step.name == "global_step:0" and not step.trainable
    with pytest.raises(ValueError, match='"global_step" already exists.'):
        v1.train.create_global_step()
    v1.train.assert_global_step(step)
    with pytest.raises(TypeError):
        v1.train.assert_global_step(tf.Variable(1.0))
    before = int(step.numpy())
    w = tf.Variable(1.0)
    v1.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant(1.0), w)], global_step=step)
    assert int(step.numpy()) == before + 1


def test_optimizer_checkpoint_round_trip(tmp_path):
    w = tf.Variable([1.0, -1.0])
    opt = v1.train.AdamOptimizer(0.1)
    opt.minimize(lambda: tf.reduce_sum(w * w))
    ckpt = tf.train.Checkpoint(optimizer=opt, w=w)
    path = ckpt.save(str(tmp_path / "ckpt"))
    m = opt.get_slot(w, "m").numpy().copy()
    b1 = opt._non_slot["beta1_power"].numpy()
    opt.minimize(lambda: tf.reduce_sum(w * w))
    ckpt.restore(path)
    np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), m)
    assert opt._non_slot["beta1_power"].numpy() == pytest.approx(b1)


def test_minimize_in_a_tf1_graph_session():
    g = v1.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, shape=[2])
        w = tf.Variable(2.0)
        loss = tf.reduce_sum(tf.square(x * w - 3.0))
        step = v1.train.get_or_create_global_step()
        train = v1.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(50):
                sess.run(train, feed_dict={x: [1.0, 2.0]})
    assert w.numpy() == pytest.approx(1.8, abs=1e-3)  # argmin of (w-3)^2 + (2w-3)^2
    assert step.numpy() == 50
    assert v1.train.get_global_step() is not step  # one global step per graph
