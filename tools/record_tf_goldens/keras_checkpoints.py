"""Records how tf.train.Checkpoint names Keras 3 objects in real TF 2.21 / Keras 3.15 (run by hand, never in CI).

    /work/tfenv/bin/python tools/record_tf_goldens/keras_checkpoints.py

Writes tests/goldens/ckpt/:
  keras_keys.json   per program: the checkpoint keys (with shapes and dtypes) and the part of the object graph that
                    holds values (each node's breadth-first path, its children with values, its checkpoint keys);
                    status-assertion outcomes of deferred restores; numbers of restore-and-continue-training runs
  keras_tf/         checkpoints TF wrote for some of the programs (TensorBundle), restored by the tests
"""

import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
import keras
from tensorflow.core.protobuf import trackable_object_graph_pb2 as pb

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "goldens", "ckpt")
L = keras.layers
RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 3)).astype(np.float32)
Y = RNG.standard_normal((8, 1)).astype(np.float32)
XI = RNG.integers(0, 10, (8, 5)).astype(np.int32)


def value_graph(path):
    """Keys and the value-holding part of the object graph of the checkpoint at ``path``."""
    reader = tf.train.load_checkpoint(path)
    graph = pb.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
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


def set_weights(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([(rng.standard_normal(w.shape) * 0.5).astype(w.dtype) for w in model.get_weights()])


def fit(model, opt="adam", x=X, epochs=1):
    model.compile(optimizer=opt, loss="mse")
    model.fit(x, Y, verbose=0, batch_size=8, shuffle=False, epochs=epochs)
    return model


class Sub(keras.Model):
    """Layer attributes and a list of layers (the list is not a checkpoint dependency in Keras 3)."""

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
    """A tuple of layers (tracked), a dict of layers (not tracked), a metric (not tracked)."""

    def __init__(self):
        super().__init__()
        self.pair = (L.Dense(3), L.Dense(2))
        self.table = {"a": L.Dense(2)}
        self.tracker = keras.metrics.Mean(name="tracked")
        self.head = L.Dense(1)

    def call(self, x):
        x = self.pair[1](self.pair[0](x))
        return self.head(self.table["a"](x))


class Lazy(keras.Model):
    """Sub-layers created in build() (after compile): they come after ``optimizer`` in the dependencies."""

    def __init__(self):
        super().__init__()
        self.first = L.Dense(4)

    def build(self, input_shape):
        self.block = Block()
        self.last = L.Dense(1)

    def call(self, x):
        return self.last(self.block(self.first(x)))


class Block(L.Layer):
    """A custom layer holding a layer: its weights sit as deep as the optimizer's copies."""

    def __init__(self):
        super().__init__()
        self.inner = L.Dense(3)

    def call(self, x):
        return self.inner(x)


class Deep(keras.Model):
    """A custom block made in __init__ (before compile): its weights keep the model's path."""

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
    """The eager tutorial's model: two tf.Variable attributes."""

    def __init__(self):
        super().__init__()
        self.W = tf.Variable(5.0, name="weight")
        self.B = tf.Variable(10.0, name="bias")

    def call(self, inputs):
        return inputs * self.W + self.B


def programs():
    """name -> (checkpoint object) built the same way as tests/train/test_keras_checkpoint.py does."""
    out = {}
    m = fit(keras.Sequential([L.Dense(4), L.Dense(1)]))
    out["seq_adam"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = fit(keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)]))
    out["seq_input_adam"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    out["seq_input_adam_model_only"] = tf.train.Checkpoint(model=m)
    i = keras.Input((3,))
    m = fit(keras.Model(i, L.Dense(1)(L.Dense(4, activation="relu")(i))))
    out["functional_adam"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = fit(Sub())
    out["subclassed_adam"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = Sub()
    m(X)
    out["subclassed_model_only"] = tf.train.Checkpoint(model=m)
    m = fit(Containers())
    out["containers_adam"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = fit(Lazy())
    out["lazy_adam_model_only"] = tf.train.Checkpoint(model=m)
    m = fit(Deep())
    out["deep_init_model_only"] = tf.train.Checkpoint(model=m)
    m = keras.Sequential([keras.Input(batch_shape=(2, 3, 2)), L.SimpleRNN(2, stateful=True)])
    m(RNG.standard_normal((2, 3, 2)).astype(np.float32))
    out["stateful_rnn"] = tf.train.Checkpoint(model=m)
    m = fit(Nest())
    out["nested_subclassed"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    inner = keras.Sequential([keras.Input((3,)), L.Dense(4)])
    i = keras.Input((3,))
    m = fit(keras.Model(i, L.Dense(1)(inner(i))))
    out["nested_functional"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.BatchNormalization(),
                          L.Dense(1)])
    fit(m, x=XI)
    out["emb_lstm_bn"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = keras.Sequential([keras.Input((4, 4, 1)), L.Conv2D(2, 3), L.Dropout(0.5), L.Flatten(),
                          L.LayerNormalization(), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.9, centered=True), loss="mse")
    m.fit(RNG.standard_normal((8, 4, 4, 1)).astype(np.float32), Y, verbose=0)
    out["conv_rmsprop"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    m = keras.Sequential([keras.Input((3, 2)), L.Bidirectional(L.GRU(2)), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9),
                                              amsgrad=True), loss="mse")
    m.fit(RNG.standard_normal((8, 3, 2)).astype(np.float32), Y, verbose=0)
    out["bigru_amsgrad_schedule"] = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    # a custom loop: SGD with momentum and a step counter, as in TF's guides
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    step = tf.Variable(0, dtype=tf.int64)
    with tf.GradientTape() as t:
        loss = tf.reduce_mean((m(X) - Y) ** 2)
    opt.apply_gradients(zip(t.gradient(loss, m.trainable_variables), m.trainable_variables))
    step.assign_add(1)
    out["sgd_momentum_loop"] = tf.train.Checkpoint(optimizer=opt, model=m, optimizer_step=step)
    # the eager tutorial: an unbuilt model, an unused optimizer, the global step
    m = keras.Sequential([L.Conv2D(16, [3, 3], activation="relu"), L.GlobalAveragePooling2D(), L.Dense(10)])
    out["unbuilt_seed"] = tf.train.Checkpoint(optimizer=keras.optimizers.Adam(0.001), model=m,
                                              optimizer_step=tf.Variable(0, dtype=tf.int64))
    m = WB()
    opt = keras.optimizers.SGD(0.01)
    with tf.GradientTape() as t:
        loss = tf.reduce_mean((m(X[:, 0]) - Y[:, 0]) ** 2)
    opt.apply_gradients(zip(t.gradient(loss, [m.W, m.B]), [m.W, m.B]))
    out["variables_model_sgd"] = tf.train.Checkpoint(model=m, optimizer=opt)
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    m(X)
    out["root_model"] = tf.train.Checkpoint(m)
    out.update(layer_families())
    return out


def layer_families():
    """Model-only checkpoints of built models (keys show where each layer keeps its weights)."""
    out = {}
    i1, i2 = keras.Input((3,)), keras.Input((4,))
    c = L.Concatenate()([L.Dense(2)(i1), L.Dense(3)(i2)])
    out["functional_two_inputs"] = tf.train.Checkpoint(model=keras.Model([i1, i2], L.Dense(1)(c)))
    m = keras.Sequential([keras.Input((6, 6, 2)), L.Conv2DTranspose(2, 3), L.DepthwiseConv2D(3),
                          L.SeparableConv2D(2, 3), L.PReLU(), L.GlobalAveragePooling2D(), L.Dense(1)])
    out["conv_family"] = tf.train.Checkpoint(model=m)
    m = keras.Sequential([keras.Input((4, 2)), L.SimpleRNN(3, return_sequences=True), L.GRU(2, return_sequences=True),
                          L.TimeDistributed(L.Dense(2)), L.LSTM(2)])
    out["rnn_family"] = tf.train.Checkpoint(model=m)
    return out


def restore_runs(d):
    """Deterministic save / restore / continue runs; TF's checkpoints are kept for the tests."""
    runs = {}
    tfdir = os.path.join(OUT, "keras_tf")
    shutil.rmtree(tfdir, ignore_errors=True)
    os.makedirs(tfdir)

    # 1. Sequential + Adam: 2 epochs, save, 3 more epochs (what an uninterrupted run reaches)
    m = keras.Sequential([L.Dense(4), L.Dense(1)])
    m.build((None, 3))
    set_weights(m, 1)
    fit(m, opt=keras.optimizers.Adam(0.05), epochs=2)
    tf.train.Checkpoint(model=m, optimizer=m.optimizer).write(os.path.join(tfdir, "seq_adam"))
    pred = m.predict(X, verbose=0)
    m.fit(X, Y, verbose=0, batch_size=8, shuffle=False, epochs=3)
    runs["seq_adam"] = {"pred": pred.tolist(), "after3": [w.tolist() for w in m.get_weights()],
                        "opt_after3": [v.numpy().tolist() for v in m.optimizer.variables]}

    # 2. subclassed model whose list-held layers are reachable only through the optimizer
    m = Sub()
    m(X)
    set_weights(m, 2)
    fit(m, opt=keras.optimizers.Adam(0.05), epochs=2)
    tf.train.Checkpoint(model=m, optimizer=m.optimizer).write(os.path.join(tfdir, "subclassed_adam"))
    pred = m.predict(X, verbose=0)
    m.fit(X, Y, verbose=0, batch_size=8, shuffle=False, epochs=3)
    runs["subclassed_adam"] = {"pred": pred.tolist(), "after3": [w.tolist() for w in m.get_weights()]}

    # 3. Embedding / LSTM / BatchNormalization: restored model predicts the same
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.BatchNormalization(),
                          L.Dense(1)])
    set_weights(m, 3)
    fit(m, opt=keras.optimizers.Adam(0.05), x=XI, epochs=2)
    tf.train.Checkpoint(model=m).write(os.path.join(tfdir, "emb_lstm_bn"))
    runs["emb_lstm_bn"] = {"pred": m.predict(XI, verbose=0).tolist()}

    # 4. custom loop with SGD momentum and a step variable
    m = keras.Sequential([L.Dense(2), L.Dense(1)])
    m.build((None, 3))
    set_weights(m, 4)
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    step = tf.Variable(0, dtype=tf.int64)

    def train_step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((m(X) - Y) ** 2)
        opt.apply_gradients(zip(t.gradient(loss, m.trainable_variables), m.trainable_variables))
        step.assign_add(1)

    for _ in range(2):
        train_step()
    tf.train.Checkpoint(optimizer=opt, model=m, optimizer_step=step).write(os.path.join(tfdir, "sgd_loop"))
    for _ in range(3):
        train_step()
    runs["sgd_loop"] = {"after3": [w.tolist() for w in m.get_weights()], "step": int(step.numpy())}

    # status assertions of a deferred restore (model not built when restore() runs)
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    fit(m, opt=keras.optimizers.Adam(0.05))
    path = tf.train.Checkpoint(model=m, optimizer=m.optimizer).save(os.path.join(d, "status", "ckpt"))
    m = keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 4), L.LSTM(3), L.Dense(1)])
    other = tf.train.Checkpoint(model=m).save(os.path.join(d, "status_other", "ckpt"))
    status = {}

    def outcome(fn):
        try:
            fn()
            return "ok"
        except AssertionError as e:
            return "AssertionError: " + str(e).split("\n")[0][:100]

    m2 = keras.Sequential([L.Dense(4), L.Dense(1)])
    m2.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    st = tf.train.Checkpoint(model=m2, optimizer=m2.optimizer).restore(path)
    status["before_build"] = {"consumed": outcome(st.assert_consumed),
                              "existing": outcome(st.assert_existing_objects_matched),
                              "nontrivial": outcome(st.assert_nontrivial_match)}
    m2.build((None, 3))
    status["after_model_build"] = {"consumed": outcome(st.assert_consumed),
                                   "existing": outcome(st.assert_existing_objects_matched)}
    m2.optimizer.build(m2.trainable_variables)
    status["after_optimizer_build"] = {"consumed": outcome(st.assert_consumed),
                                       "existing": outcome(st.assert_existing_objects_matched)}
    # model only from a model+optimizer checkpoint
    m3 = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    st = tf.train.Checkpoint(model=m3).restore(path)
    status["model_only"] = {"consumed": outcome(st.assert_consumed),
                            "existing": outcome(st.assert_existing_objects_matched),
                            "partial_then_existing": outcome(lambda: st.expect_partial()
                                                             .assert_existing_objects_matched())}
    # a Python object the checkpoint does not have
    m4 = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    extra = tf.Variable(1.0)
    st = tf.train.Checkpoint(model=m4, extra=extra).restore(other)
    status["mismatch"] = {"existing": outcome(st.assert_existing_objects_matched)}
    runs["status"] = status
    runs["unrestored_warnings"] = unrestored_warnings(path)
    return runs


def unrestored_warnings(path):
    """What TF logs when a restore that left checkpointed values unused is finished with."""
    import gc
    import logging

    records = []

    class Grab(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Grab()
    tf.get_logger().addHandler(handler)
    out = {}
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    ckpt = tf.train.Checkpoint(model=m)
    status = ckpt.restore(path)
    del status, ckpt, m
    gc.collect()
    out["model_only"], records[:] = list(records), []
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    ckpt = tf.train.Checkpoint(model=m)
    ckpt.restore(path).expect_partial()
    del ckpt, m
    gc.collect()
    out["expect_partial"], records[:] = list(records), []
    v = tf.Variable(1.0)
    tf.train.Checkpoint(v=v).read(path)
    gc.collect()
    out["read_unrelated"], records[:] = list(records), []
    m = keras.Sequential([keras.Input((3,)), L.Dense(4), L.Dense(1)])
    m.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    ckpt = tf.train.Checkpoint(model=m, optimizer=m.optimizer)
    ckpt.restore(path)
    m.optimizer.build(m.trainable_variables)
    del ckpt, m
    gc.collect()
    out["all_used"] = list(records)
    tf.get_logger().removeHandler(handler)
    return out


def main():
    d = tempfile.mkdtemp()
    golden = {"programs": {}}
    for name, ckpt in programs().items():
        golden["programs"][name] = value_graph(ckpt.save(os.path.join(d, name, "ckpt")))
    golden["runs"] = restore_runs(d)
    golden["data"] = {"X": X.tolist(), "Y": Y.tolist(), "XI": XI.tolist()}
    with open(os.path.join(OUT, "keras_keys.json"), "w") as f:
        json.dump(golden, f, indent=None, separators=(",", ":"))
        f.write("\n")
    shutil.rmtree(d)


if __name__ == "__main__":
    main()
