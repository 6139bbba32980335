"""Keras 3 optimizer API: construction errors, learning-rate access, variables and names, config round trips,
weight-decay exclusion, minimize, get/serialize, and the tf.keras 2 legacy API (checked against NumPy formulas)."""

import warnings

import numpy as np
import pytest

import tensorlet as tf

O = tf.keras.optimizers  # noqa: E741


def test_names_iterations_and_variables():
    a, b = O.Adam(), O.Adam()
    assert a.name.startswith("adam") and b.name != a.name
    v = tf.Variable(np.ones((2, 3), "float32"), name="kern")
    a.apply_gradients([(tf.ones((2, 3)), v)])
    assert [x.name for x in a.variables] == ["iteration", "learning_rate", "kern_0_momentum",
                                             "kern_0_velocity"]  # a tf.Variable named "kern:0"
    assert [x.path for x in a.variables][0] == f"{a.name}/iteration"
    assert a.iterations.dtype == tf.int64 and int(a.iterations) == 1
    assert a.learning_rate.dtype == tf.float32


def test_learning_rate_settable_and_errors():
    opt = O.SGD(learning_rate=0.1)
    opt.learning_rate = 0.5
    assert float(opt.learning_rate) == 0.5 and float(opt.lr) == 0.5
    sched = O.schedules.ExponentialDecay(0.1, 10, 0.5)
    opt2 = O.SGD(learning_rate=sched)
    with pytest.raises(TypeError, match="not settable"):
        opt2.learning_rate = 0.3
    with pytest.raises(ValueError, match="should be float"):
        O.Adam(learning_rate=1)
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized"):
        O.Adam(lr=0.1)
    with pytest.raises(ValueError, match="Only one of `clipnorm`"):
        O.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="momentum"):
        O.SGD(momentum=2.0)
    with pytest.raises(ValueError, match="weight_decay"):
        O.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        O.SGD(gradient_accumulation_steps=1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        O.SGD(decay=0.1)
    assert any("decay" in str(x.message) for x in w)


def test_callable_learning_rate():
    opt = O.SGD(learning_rate=lambda: 0.25)
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert float(v) == 0.75


def test_apply_forms_and_errors():
    v = tf.Variable([1.0, 2.0])
    opt = O.SGD(0.1)
    with pytest.raises(ValueError, match="must already be built"):
        opt.apply([tf.constant([1.0, 1.0])])
    opt.build([v])
    opt.apply([tf.constant([1.0, 1.0])])
    np.testing.assert_allclose(v.numpy(), [0.9, 1.9], rtol=1e-6)
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(tf.constant(1.0), tf.Variable(0.0))])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, v)])
    w = tf.Variable(3.0)
    opt2 = O.SGD(0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt2.apply_gradients([(tf.constant(1.0), w), (None, tf.Variable(1.0))])
    assert any("Gradients do not exist" in str(x.message) for x in caught)


def test_minimize_and_constraint():
    v = tf.Variable([3.0, -2.0], constraint=lambda t: tf.maximum(t, 0.0))
    opt = O.SGD(0.5)
    opt.minimize(lambda: tf.reduce_sum(v * v), [v])
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = w * w
    O.SGD(0.25).minimize(loss, [w], tape=tape)
    assert float(w) == 1.0
    with pytest.raises(ValueError, match="`tape` is required"):
        O.SGD().minimize(tf.constant(1.0), [w])


def test_weight_decay_exclusion():
    a, b = tf.Variable(1.0, name="kernel"), tf.Variable(1.0, name="bias")
    opt = O.SGD(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt.apply_gradients([(tf.constant(0.0), a), (tf.constant(0.0), b)])
    assert abs(float(a) - 0.95) < 1e-7 and float(b) == 1.0
    with pytest.raises(ValueError, match="before the optimizer is built"):
        opt.exclude_from_weight_decay(var_names=["x"])


def test_config_round_trip_and_get():
    opt = O.Adam(learning_rate=0.01, beta_1=0.8, amsgrad=True, clipnorm=1.0)
    cfg = opt.get_config()
    assert cfg["beta_1"] == 0.8 and cfg["amsgrad"] is True and cfg["clipnorm"] == 1.0
    assert abs(cfg["learning_rate"] - 0.01) < 1e-9
    back = O.Adam.from_config(cfg)
    assert back.beta_1 == 0.8 and abs(float(back.learning_rate) - 0.01) < 1e-9
    s = O.serialize(O.RMSprop(centered=True))
    assert s["module"] == "keras.optimizers" and s["class_name"] == "RMSprop" and s["config"]["centered"] is True
    assert type(O.deserialize(s)) is O.RMSprop
    for name, cls in [("adam", O.Adam), ("Adam", O.Adam), ("sgd", O.SGD), ("rmsprop", O.RMSprop),
                      ("adamw", O.AdamW), ("nadam", O.Nadam), ("ftrl", O.Ftrl), ("lion", O.Lion)]:
        assert type(O.get(name)) is cls
    sgd = O.get({"class_name": "SGD", "config": {"learning_rate": 0.1}})
    assert abs(float(sgd.learning_rate) - 0.1) < 1e-7
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        O.get("foo")
    sched_opt = O.SGD(learning_rate=O.schedules.CosineDecay(0.1, 100))
    cfg = sched_opt.get_config()
    assert cfg["learning_rate"]["class_name"] == "CosineDecay"
    assert type(O.SGD.from_config(cfg)._learning_rate) is O.schedules.CosineDecay


def test_set_weights_and_ema_finalize():
    v = tf.Variable([1.0, 2.0])
    opt = O.Adam(0.1, use_ema=True)
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    weights = [w.numpy() for w in opt.variables]
    opt.set_weights([np.zeros_like(w) for w in weights])
    assert all(not np.any(x.numpy()) for x in opt.variables)
    with pytest.raises(ValueError, match="not yet been built"):
        O.SGD().set_weights([])
    opt.finalize_variable_values([v])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])


def test_gradient_accumulation_iterations():
    v = tf.Variable(1.0)
    opt = O.SGD(0.5, gradient_accumulation_steps=2)
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert float(v) == 1.0 and int(opt.iterations) == 0
    opt.apply_gradients([(tf.constant(3.0), v)])
    assert float(v) == 0.0 and int(opt.iterations) == 1


def test_loss_scale_optimizer_api():
    opt = O.LossScaleOptimizer(O.SGD(0.1), initial_scale=4.0)
    assert float(opt.scale_loss(tf.constant(2.0))) == 8.0
    assert tf.keras.mixed_precision.LossScaleOptimizer is O.LossScaleOptimizer
    with pytest.raises(ValueError, match="dynamic=False"):
        O.LossScaleOptimizer(O.SGD(), dynamic=False)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        O.LossScaleOptimizer(O.SGD(), clipnorm=1.0)
    cfg = opt.get_config()
    assert cfg["inner_optimizer"]["class_name"] == "SGD" and cfg["initial_scale"] == 4.0
    opt.learning_rate = 0.2
    assert abs(float(opt.inner_optimizer.learning_rate) - 0.2) < 1e-7


# --- tf.keras 2 legacy API ------------------------------------------------------------------------------------------

L = O.legacy


class PlainSGD(L.Optimizer):
    def __init__(self, learning_rate=0.1, name="PlainSGD", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))

    def _create_slots(self, var_list):
        for v in var_list:
            self.add_slot(v, "seen")

    def _resource_apply_dense(self, grad, var, apply_state=None):
        self.get_slot(var, "seen").assign_add(tf.ones_like(var))
        return var.assign_sub(self._get_hyper("learning_rate", var.dtype) * grad)


def test_legacy_subclass_resource_apply_dense():
    v = tf.Variable([1.0, 2.0])
    opt = PlainSGD(learning_rate=0.5)
    for _ in range(2):
        opt.apply_gradients(zip([tf.constant([1.0, -1.0])], [v]))
    np.testing.assert_allclose(v.numpy(), [0.0, 3.0])
    assert int(opt.iterations) == 2 and float(opt.lr) == 0.5 and float(opt.learning_rate) == 0.5
    np.testing.assert_array_equal(opt.get_slot(v, "seen").numpy(), [2.0, 2.0])
    assert opt.get_slot_names() == ["seen"]
    opt.learning_rate = 0.25
    assert float(opt._get_hyper("learning_rate")) == 0.25
    with pytest.raises(TypeError, match="Unexpected keyword argument"):
        PlainSGD(foo=1)
    with pytest.raises(NotImplementedError):
        opt.apply_gradients([(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1])),
                              tf.Variable([[1.0], [2.0]]))])


def _np_adam(w, grads, lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
    m = v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
    return w


def test_legacy_builtins_against_numpy():
    rs = np.random.RandomState(0)
    grads = [rs.uniform(-1, 1, 3).astype("float64") for _ in range(3)]
    w0 = np.array([0.5, -1.0, 2.0])
    results = {}
    for name, opt in [("adam", L.Adam(0.1)), ("sgd", L.SGD(0.1, momentum=0.9)),
                      ("sgd_nesterov", L.SGD(0.1, momentum=0.9, nesterov=True)), ("adagrad", L.Adagrad(0.1)),
                      ("rmsprop", L.RMSprop(0.1)), ("rmsprop_mom", L.RMSprop(0.1, momentum=0.5))]:
        v = tf.Variable(w0.copy())
        for g in grads:
            opt.apply_gradients([(tf.constant(g), v)])
        results[name] = v.numpy()
    np.testing.assert_allclose(results["adam"], _np_adam(w0, grads), rtol=1e-7)  # float32 hyper variables
    w, m = w0.copy(), np.zeros(3)
    wn, mn = w0.copy(), np.zeros(3)
    acc, ms, ms2, mom = np.full(3, 0.1), np.zeros(3), np.zeros(3), np.zeros(3)
    wa, wr, wr2 = w0.copy(), w0.copy(), w0.copy()
    for g in grads:
        m = 0.9 * m - 0.1 * g
        w = w + m
        mn = 0.9 * mn - 0.1 * g
        wn = wn + 0.9 * mn - 0.1 * g
        acc = acc + g * g
        wa = wa - 0.1 * g / (np.sqrt(acc) + 1e-7)
        ms = 0.9 * ms + 0.1 * g * g
        wr = wr - 0.1 * g / (np.sqrt(ms) + 1e-7)
        ms2 = ms2 + (g * g - ms2) * 0.1
        mom = 0.5 * mom + 0.1 * g / np.sqrt(ms2 + 1e-7)
        wr2 = wr2 - mom
    np.testing.assert_allclose(results["sgd"], w, rtol=1e-6)
    np.testing.assert_allclose(results["sgd_nesterov"], wn, rtol=1e-6)
    np.testing.assert_allclose(results["adagrad"], wa, rtol=1e-6)
    np.testing.assert_allclose(results["rmsprop"], wr, rtol=1e-6)
    np.testing.assert_allclose(results["rmsprop_mom"], wr2, rtol=1e-6)


def test_legacy_sparse_config_and_decay():
    e = tf.Variable(np.ones((4, 2)))
    opt = L.Adam(0.1)
    g = tf.IndexedSlices(tf.constant(np.ones((3, 2))), tf.constant([0, 2, 2]), tf.constant([4, 2]))
    opt.apply_gradients([(g, e)])
    dense = tf.Variable(np.ones((4, 2)))
    L.Adam(0.1).apply_gradients([(tf.constant(np.array([[1.0, 1], [0, 0], [2, 2], [0, 0]])), dense)])
    np.testing.assert_allclose(e.numpy(), dense.numpy(), rtol=1e-6)
    cfg = L.SGD(0.2, momentum=0.5, decay=0.1).get_config()
    assert cfg["name"] == "SGD" and abs(cfg["learning_rate"] - 0.2) < 1e-7 and cfg["decay"] == 0.1
    back = L.SGD.from_config(cfg)
    assert back.nesterov is False and abs(float(back.momentum) - 0.5) < 1e-7
    v = tf.Variable(1.0)
    dec = L.SGD(1.0, decay=1.0)
    for _ in range(2):
        dec.apply_gradients([(tf.constant(1.0), v)])
    assert abs(float(v) - (1.0 - 1.0 - 0.5)) < 1e-6  # lr / (1 + decay * iterations)
    assert O.get(L.Adam()) is not None


def test_checkpoint_keys_match_tf(tmp_path):
    # keys written by TF 2.21 for tf.train.Checkpoint(opt=...) after one step on tf.Variable([1., 2.])
    base = ["_iterations", "_learning_rate", "_trainable_variables/0"]
    want = {"adam": base + ["_variables/2", "_variables/3"],
            "nadam": base + ["_u_product", "_variables/2", "_variables/3"],
            "lso": base + ["dynamic_scale", "inner_optimizer/_iterations", "inner_optimizer/_learning_rate",
                           "inner_optimizer/_variables/2", "inner_optimizer/_variables/3", "step_counter"]}
    makers = {"adam": O.Adam, "nadam": O.Nadam, "lso": lambda: O.LossScaleOptimizer(O.Adam())}
    for key, make in makers.items():
        v = tf.Variable([1.0, 2.0])
        opt = make()
        opt.apply_gradients([(tf.constant([0.1, 0.2]), v)])
        path = tf.train.Checkpoint(opt=opt).write(str(tmp_path / key))
        names = sorted(n for n, _ in tf.train.list_variables(path) if not n.startswith("_CHECKPOINTABLE"))
        assert names == sorted(f"opt/{k}/.ATTRIBUTES/VARIABLE_VALUE" for k in want[key]), key
        fresh = make()
        fresh.build([v])
        tf.train.Checkpoint(opt=fresh).read(path)
        for a, b in zip(opt.variables, fresh.variables):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
