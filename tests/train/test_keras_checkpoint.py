"""tf.train.Checkpoint with Keras models and optimizers: TF 2.21 + Keras 3's keys and object graph, immediate and
deferred restoration, status assertions, and training that continues exactly where it stopped.

Goldens: tools/record_tf_goldens/keras_checkpoints.py -> tests/goldens/ckpt/keras_keys.json and keras_tf/ (TF's own
checkpoint files, restored here).
"""

import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.train import trackable as _tr

keras = tf.keras
L = keras.layers
HERE = os.path.dirname(__file__)
GOLDEN = json.load(open(os.path.join(HERE, "..", "goldens", "ckpt", "keras_keys.json")))
TF_DIR = os.path.join(HERE, "..", "goldens", "ckpt", "keras_tf")
X = np.array(GOLDEN["data"]["X"], np.float32)
Y = np.array(GOLDEN["data"]["Y"], np.float32)
XI = np.array(GOLDEN["data"]["XI"], np.int32)
RNG = np.random.default_rng(7)


def value_graph(path):
    """The same summary the recorder writes: keys, and the value-holding nodes with their children."""
    reader = tf.train.load_checkpoint(path)
    graph = _tr.parse_object_graph(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    paths, order = {0: "(root)"}, [0]
    for n in order:
        for c in graph.nodes[n].children:
            if c.node_id not in paths:
                paths[c.node_id] = paths[n] + "." + c.local_name
                order.append(c.node_id)
    nodes = []
    for i in order:
        node = graph.nodes[i]
        if not node.has_checkpoint_values.value:
            continue
        kids = [[c.local_name, paths[c.node_id]] for c in node.children
                if graph.nodes[c.node_id].has_checkpoint_values.value]
        nodes.append([paths[i], kids, [a.checkpoint_key for a in node.attributes]])
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    keys = [[k, list(shapes[k]), dtypes[k].name] for k in sorted(shapes) if k != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    return {"keys": keys, "nodes": nodes}


def fit(model, opt="adam", x=X, epochs=1):
    model.compile(optimizer=opt, loss="mse")
    model.fit(x, Y, verbose=0, batch_size=8, shuffle=False, epochs=epochs)
    return model


# --- the recorder's programs ------------------------------------------------------------------------------------
class Sub(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = L.Dense(4)
        self.blocks = [L.Dense(4), L.Dense(2)]
        self.out = L.Dense(1)

    def call(self, x):
        x = self.d1(x)
        for b in self.blocks:
            x = b(x)
        return self.out(x)


class Containers(keras.Model):
    def __init__(self):
        super().__init__()
        self.pair = (L.Dense(3), L.Dense(2))
        self.table = {"a": L.Dense(2)}
        self.tracker = keras.metrics.Mean(name="tracked")
        self.head = L.Dense(1)

    def call(self, x):
        x = self.pair[1](self.pair[0](x))
        return self.head(self.table["a"](x))


class Block(L.Layer):
    def __init__(self):
        super().__init__()
        self.inner = L.Dense(3)

    def call(self, x):
        return self.inner(x)


class Lazy(keras.Model):
    def __init__(self):
        super().__init__()
        self.first = L.Dense(4)

    def build(self, input_shape):
        self.block = Block()
        self.last = L.Dense(1)

    def call(self, x):
        return self.last(self.block(self.first(x)))


class Deep(keras.Model):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = L.Dense(1)

    def call(self, x):
        return self.head(self.block(x))


class Nest(keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = keras.Sequential([L.Dense(4), L.Dense(4)])
        self.head = L.Dense(1)

    def call(self, x):
        return self.head(self.inner(x))


class WB(keras.Model):
    def __init__(self):
        super().__init__()
        self.W = tf.Variable(5.0, name="weight")
        self.B = tf.Variable(10.0, name="bias")

    def call(self, inputs):
        return inputs * self.W + self.B


def _seq_adam():
    m = fit(keras.Sequential([L.Dense(4), L.Dense(1)]))
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _seq_input_adam(model_only=False):
    m = fit(keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)]))
    return tf.train.Checkpoint(model=m) if model_only else tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _functional_adam():
    i = keras.Input((3,))
    m = fit(keras.Model(i, L.Dense(1)(L.Dense(4, activation="relu")(i))))
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _with_opt(model):
    m = fit(model)
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _subclassed_model_only():
    m = Sub()
    m(X)
    return tf.train.Checkpoint(model=m)


def _stateful_rnn():
    m = keras.Sequential([keras.Input(batch_shape=(2, 3, 2)), L.SimpleRNN(2, stateful=True)])
    m(RNG.standard_normal((2, 3, 2)).astype(np.float32))
    return tf.train.Checkpoint(model=m)


def _nested_functional():
    inner = keras.Sequential([keras.Input((3,)), L.Dense(4)])
    i = keras.Input((3,))
    return _with_opt(keras.Model(i, L.Dense(1)(inner(i))))


def _emb_lstm_bn():
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.BatchNormalization(),
                          L.Dense(1)])
    fit(m, x=XI)
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _conv_rmsprop():
    m = keras.Sequential([keras.Input((4, 4, 1)), L.Conv2D(2, 3), L.Dropout(0.5), L.Flatten(),
                          L.LayerNormalization(), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.9, centered=True), loss="mse")
    m.fit(RNG.standard_normal((8, 4, 4, 1)).astype(np.float32), Y, verbose=0)
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _bigru_amsgrad_schedule():
    m = keras.Sequential([keras.Input((3, 2)), L.Bidirectional(L.GRU(2)), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9),
                                              amsgrad=True), loss="mse")
    m.fit(RNG.standard_normal((8, 3, 2)).astype(np.float32), Y, verbose=0)
    return tf.train.Checkpoint(model=m, optimizer=m.optimizer)


def _sgd_momentum_loop():
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    step = tf.Variable(0, dtype=tf.int64)
    with tf.GradientTape() as t:
        loss = tf.reduce_mean((m(X) - Y) ** 2)
    opt.apply_gradients(zip(t.gradient(loss, m.trainable_variables), m.trainable_variables))
    step.assign_add(1)
    return tf.train.Checkpoint(optimizer=opt, model=m, optimizer_step=step)


def _unbuilt_seed():
    m = keras.Sequential([L.Conv2D(16, [3, 3], activation="relu"), L.GlobalAveragePooling2D(), L.Dense(10)])
    return tf.train.Checkpoint(optimizer=keras.optimizers.Adam(0.001), model=m,
                               optimizer_step=tf.Variable(0, dtype=tf.int64))


def _variables_model_sgd():
    m = WB()
    opt = keras.optimizers.SGD(0.01)
    with tf.GradientTape() as t:
        loss = tf.reduce_mean((m(X[:, 0]) - Y[:, 0]) ** 2)
    opt.apply_gradients(zip(t.gradient(loss, [m.W, m.B]), [m.W, m.B]))
    return tf.train.Checkpoint(model=m, optimizer=opt)


def _root_model():
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    m(X)
    return tf.train.Checkpoint(m)


def _functional_two_inputs():
    i1, i2 = keras.Input((3,)), keras.Input((4,))
    c = L.Concatenate()([L.Dense(2)(i1), L.Dense(3)(i2)])
    return tf.train.Checkpoint(model=keras.Model([i1, i2], L.Dense(1)(c)))


def _conv_family():
    m = keras.Sequential([keras.Input((6, 6, 2)), L.Conv2DTranspose(2, 3), L.DepthwiseConv2D(3),
                          L.SeparableConv2D(2, 3), L.PReLU(), L.GlobalAveragePooling2D(), L.Dense(1)])
    return tf.train.Checkpoint(model=m)


def _rnn_family():
    m = keras.Sequential([keras.Input((4, 2)), L.SimpleRNN(3, return_sequences=True), L.GRU(2, return_sequences=True),
                          L.TimeDistributed(L.Dense(2)), L.LSTM(2)])
    return tf.train.Checkpoint(model=m)


PROGRAMS = {
    "seq_adam": _seq_adam,
    "seq_input_adam": _seq_input_adam,
    "seq_input_adam_model_only": lambda: _seq_input_adam(model_only=True),
    "functional_adam": _functional_adam,
    "subclassed_adam": lambda: _with_opt(Sub()),
    "subclassed_model_only": _subclassed_model_only,
    "containers_adam": lambda: _with_opt(Containers()),
    "lazy_adam_model_only": lambda: tf.train.Checkpoint(model=fit(Lazy())),
    "deep_init_model_only": lambda: tf.train.Checkpoint(model=fit(Deep())),
    "stateful_rnn": _stateful_rnn,
    "nested_subclassed": lambda: _with_opt(Nest()),
    "nested_functional": _nested_functional,
    "emb_lstm_bn": _emb_lstm_bn,
    "conv_rmsprop": _conv_rmsprop,
    "bigru_amsgrad_schedule": _bigru_amsgrad_schedule,
    "sgd_momentum_loop": _sgd_momentum_loop,
    "unbuilt_seed": _unbuilt_seed,
    "variables_model_sgd": _variables_model_sgd,
    "root_model": _root_model,
    "functional_two_inputs": _functional_two_inputs,
    "conv_family": _conv_family,
    "rnn_family": _rnn_family,
}


def test_every_recorded_program_is_covered():
    assert sorted(PROGRAMS) == sorted(GOLDEN["programs"])


@pytest.mark.parametrize("name", sorted(GOLDEN["programs"]))
def test_keys_and_object_graph_match_tensorflow(name, tmp_path):
    """Same checkpoint keys (shapes, dtypes) and the same dependency names and edges as TF 2.21 + Keras 3."""
    path = PROGRAMS[name]().save(str(tmp_path / "ckpt"))
    got, want = value_graph(path), GOLDEN["programs"][name]
    assert got["keys"] == want["keys"]
    assert got["nodes"] == want["nodes"]


# --- restoring TF's own checkpoints ------------------------------------------------------------------------------
RUNS = GOLDEN["runs"]


def _close(got, want, atol=2e-5):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w, np.float32), rtol=1e-5, atol=atol)


def test_deferred_restore_of_tf_checkpoint_continues_training_like_tensorflow():
    """restore() before the model and optimizer exist; fit() builds both, gets TF's values (weights, Adam slots,
    iterations) and the next 3 epochs end where TF's uninterrupted run ended."""
    m = keras.Sequential([L.Dense(4), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).read(os.path.join(TF_DIR, "seq_adam"))
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    m.fit(X, Y, verbose=0, batch_size=8, shuffle=False, epochs=3)
    status.assert_consumed()
    _close(m.get_weights(), RUNS["seq_adam"]["after3"])
    _close([v.numpy() for v in m.optimizer.variables], RUNS["seq_adam"]["opt_after3"])
    assert int(m.optimizer.iterations.numpy()) == 5


def test_immediate_restore_of_model_part_predicts_like_tensorflow():
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    kernel = m.layers[0].kernel
    status = tf.train.Checkpoint(model=m).read(os.path.join(TF_DIR, "seq_adam"))
    assert m.layers[0].kernel is kernel  # assigned in place
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.optimizer"):
        status.assert_consumed()
    status.expect_partial()
    np.testing.assert_array_equal(m.predict(X, verbose=0), np.array(RUNS["seq_adam"]["pred"], np.float32))


def test_list_held_layers_restore_through_the_optimizer():
    """Keras 3 saves ``self.blocks = [...]`` only under optimizer/_trainable_variables: fit() must build the
    optimizer (and restore them) before its first step, as Keras does."""
    m = Sub()
    m.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    status = tf.train.Checkpoint(model=m, optimizer=m.optimizer).read(os.path.join(TF_DIR, "subclassed_adam"))
    m.fit(X, Y, verbose=0, batch_size=8, shuffle=False, epochs=3)
    status.assert_consumed()
    _close(m.get_weights(), RUNS["subclassed_adam"]["after3"])


def test_embedding_lstm_batchnorm_restore_predicts_like_tensorflow():
    """Non-trainable weights (moving mean/variance) and renamed ones (_embeddings, LSTM cell) restore too."""
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.BatchNormalization(),
                          L.Dense(1)])
    status = tf.train.Checkpoint(model=m).read(os.path.join(TF_DIR, "emb_lstm_bn"))
    status.assert_existing_objects_matched()
    bn = m.layers[2]
    assert not np.allclose(bn.moving_variance.numpy(), 1.0)
    _close(m.predict(XI, verbose=0), RUNS["emb_lstm_bn"]["pred"], atol=1e-5)


def test_custom_loop_sgd_momentum_and_step_counter():
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    step = tf.Variable(0, dtype=tf.int64)
    status = tf.train.Checkpoint(optimizer=opt, model=m, optimizer_step=step).read(os.path.join(TF_DIR, "sgd_loop"))
    assert int(step.numpy()) == 2  # restored at once
    for _ in range(3):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((m(X) - Y) ** 2)
        opt.apply_gradients(zip(t.gradient(loss, m.trainable_variables), m.trainable_variables))
        step.assign_add(1)
    status.assert_consumed()
    assert int(step.numpy()) == RUNS["sgd_loop"]["step"]
    _close(m.get_weights(), RUNS["sgd_loop"]["after3"])


# --- status assertions --------------------------------------------------------------------------------------------
def _outcome(fn):
    try:
        fn()
        return "ok"
    except AssertionError as e:
        return "AssertionError: " + str(e).split("\n")[0][:100]


def test_status_assertions_match_tensorflow(tmp_path):
    want = RUNS["status"]
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    fit(m, opt=keras.optimizers.Adam(0.05))
    path = tf.train.Checkpoint(model=m, optimizer=m.optimizer).save(str(tmp_path / "a" / "ckpt"))
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.Dense(1)])
    other = tf.train.Checkpoint(model=m).save(str(tmp_path / "b" / "ckpt"))

    m2 = keras.Sequential([L.Dense(4), L.Dense(1)])
    m2.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    st = tf.train.Checkpoint(model=m2, optimizer=m2.optimizer).restore(path)
    assert {"consumed": _outcome(st.assert_consumed), "existing": _outcome(st.assert_existing_objects_matched),
            "nontrivial": _outcome(st.assert_nontrivial_match)} == want["before_build"]
    m2.build((None, 3))
    assert {"consumed": _outcome(st.assert_consumed),
            "existing": _outcome(st.assert_existing_objects_matched)} == want["after_model_build"]
    m2.optimizer.build(m2.trainable_variables)
    assert {"consumed": _outcome(st.assert_consumed),
            "existing": _outcome(st.assert_existing_objects_matched)} == want["after_optimizer_build"]
    m3 = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    st = tf.train.Checkpoint(model=m3).restore(path)
    assert {"consumed": _outcome(st.assert_consumed), "existing": _outcome(st.assert_existing_objects_matched),
            "partial_then_existing": _outcome(lambda: st.expect_partial().assert_existing_objects_matched())
            } == want["model_only"]
    m4 = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    st = tf.train.Checkpoint(model=m4, extra=tf.Variable(1.0)).restore(other)
    assert {"existing": _outcome(st.assert_existing_objects_matched)} == want["mismatch"]


# --- tensorlet round trips: a restored run continues exactly like the uninterrupted one ---------------------------
def _deterministic(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([(rng.standard_normal(w.shape) * 0.5).astype(w.dtype) for w in model.get_weights()])


@pytest.mark.parametrize("make", [lambda: keras.Sequential([L.Dense(4), L.Dense(1)]), Sub, Lazy, Deep],
                         ids=["sequential", "subclassed_list", "lazy_build", "deep_block"])
def test_fit_save_restore_continue_is_identical(make, tmp_path):
    a = make()
    a(X)
    _deterministic(a, 5)
    # jit_compile=False: under XLA a freshly compiled step can differ from a reused one in the last bit
    a.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", jit_compile=False)
    a.fit(X, Y, verbose=0, batch_size=4, shuffle=False, epochs=2)
    tf.train.Checkpoint(model=a, optimizer=a.optimizer).save(str(tmp_path / "ckpt"))
    pred = a.predict(X, verbose=0)
    a.fit(X, Y, verbose=0, batch_size=4, shuffle=False, epochs=2)

    b = make()  # not built: everything is restored when fit() creates it
    b.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", jit_compile=False)
    status = tf.train.Checkpoint(model=b, optimizer=b.optimizer).restore(tf.train.latest_checkpoint(str(tmp_path)))
    if make is not Sub:  # list-held layers get their values when the optimizer is built (by fit), as in TF
        np.testing.assert_array_equal(b.predict(X, verbose=0), pred)
    b.fit(X, Y, verbose=0, batch_size=4, shuffle=False, epochs=2)
    status.assert_consumed()
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    for va, vb in zip(a.optimizer.variables, b.optimizer.variables):
        np.testing.assert_array_equal(va.numpy(), vb.numpy())


class MNISTLike(keras.Model):
    """Issue 8's seed shape: a subclassed model whose layers build on the first call."""

    def __init__(self):
        super().__init__()
        self.dense1 = L.Dense(units=5)
        self.dense2 = L.Dense(units=3)

    def call(self, x):
        return self.dense2(tf.nn.relu(self.dense1(x)))


def _trainer(model, optimizer, step, compiled):
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - 1.0))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        step.assign_add(1)

    fn = tf.function(train_step) if compiled else train_step

    def run(n):
        for i in range(n):
            fn(tf.constant(X[i % 2 * 4:][:4]))
    return run


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf_function"])
def test_seed_checkpoint_pattern_with_lazily_built_subclassed_model(tmp_path, compiled):
    """root = Checkpoint(optimizer=, model=, optimizer_step=); save; restore(latest_checkpoint(dir)) into new
    objects before the model is ever called; training continues identically (also when the model and the
    optimizer's slots are first created while a tf.function is traced: values are assigned outside the trace)."""
    tf.keras.utils.set_random_seed(3)
    model, optimizer = MNISTLike(), keras.optimizers.Adam(0.01)
    global_step = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")
    root = tf.train.Checkpoint(optimizer=optimizer, model=model, optimizer_step=global_step)
    _train = _trainer(model, optimizer, global_step, compiled)
    _train(3)
    prefix = os.path.join(str(tmp_path), "ckpt")
    assert root.save(prefix) == prefix + "-1"
    # a new function object, like the restored run's (a tf.function's first call runs on the NumPy graph
    # executor, later ones are XLA-compiled: the two may differ in the last bit)
    _trainer(model, optimizer, global_step, compiled)(3)

    model2, optimizer2 = MNISTLike(), keras.optimizers.Adam(0.01)
    step2 = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")
    root2 = tf.train.Checkpoint(optimizer=optimizer2, model=model2, optimizer_step=step2)
    status = root2.restore(tf.train.latest_checkpoint(str(tmp_path)))
    assert int(step2.numpy()) == 3 and int(optimizer2.iterations.numpy()) == 3
    status.assert_existing_objects_matched()
    _trainer(model2, optimizer2, step2, compiled)(3)
    status.assert_consumed()
    assert int(step2.numpy()) == int(global_step.numpy()) == 6
    for wa, wb in zip(model.get_weights(), model2.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    keys = [k for k, _ in tf.train.list_variables(str(tmp_path))]
    assert "model/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE" in keys


def test_eager_tutorial_checkpoint_snippets(tmp_path, monkeypatch, capsys):
    """The eager tutorial's two Checkpoint snippets, as written (relative './ckpt/' prefix, unbuilt model)."""
    monkeypatch.chdir(tmp_path)
    x = tf.Variable(10.0)
    checkpoint = tf.train.Checkpoint(x=x)
    x.assign(2.0)
    checkpoint.save("./ckpt/")
    x.assign(11.0)
    checkpoint.restore(tf.train.latest_checkpoint("./ckpt/"))
    print(x)
    assert capsys.readouterr().out == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>\n"
    assert sorted(os.listdir("ckpt")) == ["-1.data-00000-of-00001", "-1.index", "checkpoint"]

    model = keras.Sequential([L.Conv2D(16, [3, 3], activation="relu"), L.GlobalAveragePooling2D(), L.Dense(10)])
    optimizer = keras.optimizers.Adam(learning_rate=0.001)
    root = tf.train.Checkpoint(optimizer=optimizer, model=model,
                               optimizer_step=tf.Variable(0, dtype=tf.int64, name="global_step"))
    root.save(str(tmp_path / "seed" / "ckpt"))
    status = root.restore(tf.train.latest_checkpoint(str(tmp_path / "seed")))
    status.assert_consumed()  # nothing of the model existed, so nothing is left unmatched
    assert [k for k, _ in tf.train.list_variables(str(tmp_path / "seed"))] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE",
        "optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE", "optimizer_step/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]


def test_unused_values_are_logged_like_tensorflow_unless_expect_partial(tmp_path, caplog):
    import gc
    import logging

    want = RUNS["unrestored_warnings"]
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    fit(m, opt=keras.optimizers.Adam(0.05))
    path = tf.train.Checkpoint(model=m, optimizer=m.optimizer).save(str(tmp_path / "ckpt"))
    got = {}
    del m
    # earlier tests' restores are finished with now, not during this test; what they log while collected here (as
    # TF does when its restore coordinator is collected) is theirs: caplog.records holds everything this test's
    # call emitted, also before the at_level block
    gc.collect()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
        ckpt = tf.train.Checkpoint(model=m)
        status = ckpt.restore(path)
        del status, ckpt, m
        gc.collect()
        got["model_only"] = [r.getMessage() for r in caplog.records]
        caplog.clear()
        m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
        ckpt = tf.train.Checkpoint(model=m)
        ckpt.restore(path).expect_partial()
        del ckpt, m
        gc.collect()
        got["expect_partial"] = [r.getMessage() for r in caplog.records]
        caplog.clear()
        tf.train.Checkpoint(v=tf.Variable(1.0)).read(path)
        gc.collect()
        got["read_unrelated"] = [r.getMessage() for r in caplog.records]
        caplog.clear()
        m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
        m.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
        ckpt = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
        ckpt.restore(path)
        m.optimizer.build(m.trainable_variables)
        del ckpt, m
        gc.collect()
        got["all_used"] = [r.getMessage() for r in caplog.records]
    assert got == want


def test_object_graph_records_keras_variable_paths_as_full_names(tmp_path):
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    fit(m)
    path = tf.train.Checkpoint(model=m, optimizer=m.optimizer).save(str(tmp_path / "ckpt"))
    graph = _tr.parse_object_graph(tf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    names = {a.checkpoint_key: a.full_name for n in graph.nodes for a in n.attributes}
    assert names["optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE"] == m.layers[0].kernel.path
    assert m.layers[0].kernel.path.endswith(m.layers[0].name + "/kernel")
    assert names["optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"] == m.optimizer.name + "/iteration"
    assert names["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] == "save_counter"
