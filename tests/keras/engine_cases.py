"""Keras engine programs run on real TF/Keras (tools/record_tf_goldens/keras_engine.py) and on tensorlet
(tests/keras/test_engine_goldens.py): each takes the ``tf`` module and returns JSON-able results.

Weights are set explicitly, so results are deterministic on both sides.
"""

import numpy as np


def _arr(shape, seed, scale=1.0):
    return (np.random.RandomState(seed).uniform(-1, 1, size=shape) * scale).astype(np.float32)


def _out(x):
    a = np.asarray(x)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "value": a.astype(np.float64).ravel().tolist()}


def _grads(tf, layer, x, fn=None):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x) if fn is None else fn(x)
        r = tf.constant(_arr(tuple(y.shape), 99))
        loss = tf.reduce_sum(y * r)
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    return {"y": _out(y), "grads": [None if g is None else _out(tf.convert_to_tensor(g)) for g in grads]}


# --- layers: forward and gradients ----------------------------------------------------------------------------------
def dense_relu(tf):
    layer = tf.keras.layers.Dense(3, activation="relu")
    layer.build((None, 4))
    layer.set_weights([_arr((4, 3), 1), _arr((3,), 2)])
    return _grads(tf, layer, _arr((5, 4), 3))


def dense_rank3_tanh(tf):
    layer = tf.keras.layers.Dense(2, activation="tanh", use_bias=False)
    layer.build((None, 3, 4))
    layer.set_weights([_arr((4, 2), 4)])
    return _grads(tf, layer, _arr((2, 3, 4), 5))


def activation_softmax(tf):
    layer = tf.keras.layers.Activation("softmax")
    return _grads(tf, layer, _arr((3, 5), 6, 3.0))


def flatten_reshape_permute(tf):
    x = _arr((2, 3, 4), 7)
    res = {}
    for name, layer in [("flatten", tf.keras.layers.Flatten()), ("reshape", tf.keras.layers.Reshape((4, -1))),
                        ("permute", tf.keras.layers.Permute((2, 1))),
                        ("repeat", tf.keras.layers.RepeatVector(3))]:
        inp = x if name != "repeat" else x[:, 0, :]
        res[name] = _grads(tf, layer, inp)
    return res


def embedding_mask(tf):
    layer = tf.keras.layers.Embedding(6, 3, mask_zero=True)
    layer.build((None, 4))
    layer.set_weights([_arr((6, 3), 8)])
    ids = np.array([[1, 2, 0, 5], [0, 3, 3, 4]], np.int32)
    with tf.GradientTape() as tape:
        y = layer(ids)
        loss = tf.reduce_sum(y * _arr((2, 4, 3), 9))
    g = tf.convert_to_tensor(tape.gradient(loss, layer.trainable_weights[0]))
    mask = layer.compute_mask(ids)
    return {"y": _out(y), "grad": _out(g), "mask": np.asarray(mask).astype(int).ravel().tolist()}


def masking(tf):
    x = _arr((2, 3, 2), 10)
    x[0, 1] = 0.0
    x[1, 2] = 0.0
    layer = tf.keras.layers.Masking(0.0)
    y = layer(x)
    return {"y": _out(y), "mask": np.asarray(layer.compute_mask(tf.constant(x))).astype(int).ravel().tolist()}


def dropout_inference(tf):
    x = _arr((3, 4), 11)
    res = {}
    for name, layer in [("dropout", tf.keras.layers.Dropout(0.5)), ("sd1", tf.keras.layers.SpatialDropout1D(0.5)),
                        ("sd2", tf.keras.layers.SpatialDropout2D(0.3))]:
        inp = x if name == "dropout" else (x[None] if name == "sd1" else x[None, :, :, None])
        res[name] = _out(layer(inp, training=False))
    # training=True: kept values are scaled by 1 / (1 - rate)
    y = np.asarray(tf.keras.layers.Dropout(0.5)(np.ones((200, 10), np.float32), training=True))
    res["train_values"] = sorted(set(np.round(y.ravel(), 5).tolist()))
    return res


def sequential_mlp(tf):
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(5, activation="relu"),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.set_weights([_arr((4, 5), 12), _arr((5,), 13), _arr((5, 2), 14), _arr((2,), 15)])
    x = _arr((3, 4), 16)
    with tf.GradientTape() as tape:
        y = model(x)
        loss = tf.reduce_sum(y * _arr((3, 2), 17))
    grads = tape.gradient(loss, model.trainable_weights)
    return {"y": _out(y), "grads": [_out(g) for g in grads], "paths": [w.path for w in model.weights],
            "names": [w.name for w in model.weights], "layers": [layer.name for layer in model.layers],
            "predict": _out(model.predict(x, verbose=0))}


def functional_multi(tf):
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((2,), name="b")
    shared = tf.keras.layers.Dense(4, activation="tanh", name="shared")
    ha = shared(tf.keras.layers.Dense(3, name="pa")(a))
    hb = shared(tf.keras.layers.Dense(3, name="pb")(b))
    out1 = tf.keras.layers.Dense(1, name="out1")(ha)
    out2 = tf.keras.layers.Dense(2, name="out2")(hb)
    model = tf.keras.Model([a, b], [out1, out2])
    model.set_weights([_arr(tuple(w.shape), 20 + i) for i, w in enumerate(model.weights)])
    xa, xb = _arr((2, 3), 30), _arr((2, 2), 31)
    y1, y2 = model([xa, xb])
    yd = model({"a": xa, "b": xb})
    lines = []
    model.summary(print_fn=lambda s, **k: lines.append(s))
    return {"y1": _out(y1), "y2": _out(y2), "yd1": _out(yd[0]), "layers": [layer.name for layer in model.layers],
            "weights": [w.path for w in model.weights], "summary": "".join(lines),
            "output_names": list(model.output_names), "input_shape": [list(s) for s in model.input_shape]}


# --- summaries ------------------------------------------------------------------------------------------------------
def _summary(model, **kw):
    lines = []
    model.summary(print_fn=lambda s, **k: lines.append(s), **kw)
    return "".join(lines)


def summaries(tf):
    L = tf.keras.layers
    out = {}
    seq = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), L.Flatten(), L.Dense(128, activation="relu"),
                               L.Dropout(0.2), L.Dense(10)], name="mlp")
    out["mlp"] = _summary(seq)
    out["mlp_wide"] = _summary(seq, line_length=100)
    out["mlp_trainable"] = _summary(seq, show_trainable=True)
    seq.layers[1].trainable = False
    out["mlp_frozen"] = _summary(seq, show_trainable=True)
    lazy = tf.keras.Sequential([L.Dense(8), L.Dense(2)], name="lazy")
    out["unbuilt"] = _summary(lazy)
    lazy(np.ones((5, 3), np.float32))
    out["called"] = _summary(lazy)
    lazy2 = tf.keras.Sequential([L.Dense(8), L.Dense(2)], name="lazy2")
    lazy2.build((None, 3))
    out["built"] = _summary(lazy2)
    inp = tf.keras.Input((6,), name="a_rather_long_input_name_for_wrapping")
    h = L.Dense(3, name="a_dense_layer_with_a_very_long_name")(inp)
    out["long_names"] = _summary(tf.keras.Model(inp, h, name="long"))
    x = tf.keras.Input((4,), name="x")
    inner = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(3), L.Dense(3)], name="inner")
    y = L.Dense(2, name="head")(inner(x))
    nested = tf.keras.Model(x, y, name="outer")
    out["nested"] = _summary(nested)
    out["nested_expand"] = _summary(nested, expand_nested=True)
    big = tf.keras.Sequential([tf.keras.Input((1000,)), L.Dense(1000), L.Dense(1000)], name="big")
    out["big"] = _summary(big)
    emb = tf.keras.Sequential([tf.keras.Input((5,), dtype="int32"), L.Embedding(100, 8), L.Flatten(),
                               L.Dense(1)], name="emb")
    out["emb"] = _summary(emb)
    return out


# --- training -------------------------------------------------------------------------------------------------------
def _mlp(tf, seed=40):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(2)])
    model.set_weights([_arr(tuple(w.shape), seed + i) for i, w in enumerate(model.weights)])
    return model


def fit_sgd_mse(tf):
    model = _mlp(tf)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x, y = _arr((10, 3), 50), _arr((10, 2), 51)
    hist = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    ev = model.evaluate(x, y, batch_size=4, verbose=0)
    evd = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)
    return {"history": hist.history, "evaluate": ev, "evaluate_dict": evd, "epoch": hist.epoch,
            "weights": [_out(w) for w in model.get_weights()], "predict": _out(model.predict(x, verbose=0)),
            "metrics_names": model.metrics_names}


def fit_validation_weights(tf):
    model = _mlp(tf, 60)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    x, y = _arr((12, 3), 61), _arr((12, 2), 62)
    sw = np.abs(_arr((12,), 63)) + 0.5
    hist = model.fit(x, y, batch_size=5, epochs=2, shuffle=False, verbose=0, validation_split=0.25, sample_weight=sw)
    return {"history": hist.history, "weights": [_out(w) for w in model.get_weights()]}


def fit_classification(tf):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.set_weights([_arr((3, 3), 70), _arr((3,), 71)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.2), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x = _arr((9, 3), 72)
    y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0])
    hist = model.fit(x, y, batch_size=3, epochs=2, shuffle=False, verbose=0, class_weight={0: 1.0, 1: 2.0, 2: 0.5},
                     validation_data=(x[:4], y[:4]))
    tb = model.train_on_batch(x[:3], y[:3])
    te = model.test_on_batch(x[:3], y[:3], return_dict=True)
    pb = model.predict_on_batch(x[:2])
    return {"history": hist.history, "train_on_batch": tb, "test_on_batch": te, "predict_on_batch": _out(pb)}


def fit_custom_train_step(tf):
    class Custom(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            for m in self.metrics:
                if m.name == "loss":
                    m.update_state(loss)
                else:
                    m.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inp = tf.keras.Input((3,))
    model = Custom(inp, tf.keras.layers.Dense(1)(inp))
    model.set_weights([_arr((3, 1), 80), _arr((1,), 81)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    x, y = _arr((8, 3), 82), _arr((8, 1), 83)
    hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    mro = [c.__name__ for c in type(model).__mro__]
    return {"history": hist.history, "class": type(model).__name__, "functional": "Functional" in mro,
            "isinstance": isinstance(model, Custom)}


def subclassed_model(tf):
    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = tf.keras.layers.Dense(4, activation="relu")
            self.drop = tf.keras.layers.Dropout(0.5)
            self.d2 = tf.keras.layers.Dense(1)

        def call(self, x, training=False):
            return self.d2(self.drop(self.d1(x), training=training))

    model = MyModel()
    x = _arr((6, 3), 90)
    model(x)
    model.set_weights([_arr(tuple(w.shape), 91 + i) for i, w in enumerate(model.weights)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    y = _arr((6, 1), 95)
    ev = model.evaluate(x, y, verbose=0)
    return {"name": model.name, "paths": [w.path for w in model.weights], "evaluate": ev,
            "layers": [layer.name for layer in model.layers], "summary": _summary(model)}


def configs(tf):
    L = tf.keras.layers
    out = {}
    for layer in [L.Dense(3, activation="relu", name="d"), L.Dropout(0.3, name="dr"), L.Flatten(name="f"),
                  L.Reshape((2, 3), name="r"), L.Permute((2, 1), name="p"), L.RepeatVector(4, name="rv"),
                  L.Embedding(5, 2, name="e"), L.Masking(1.0, name="m"), L.Activation("tanh", name="a"),
                  L.SpatialDropout2D(0.2, name="sd")]:
        out[layer.name] = tf.keras.utils.serialize_keras_object(layer)
    model = tf.keras.Sequential([tf.keras.Input((3,), name="inp"), L.Dense(2, name="dd")], name="seqcfg")
    out["sequential"] = model.get_config()
    return out


CASES = {f.__name__: f for f in [dense_relu, dense_rank3_tanh, activation_softmax, flatten_reshape_permute,
                                 embedding_mask, masking, dropout_inference, sequential_mlp, functional_multi,
                                 summaries, fit_sgd_mse, fit_validation_weights, fit_classification,
                                 fit_custom_train_step, subclassed_model, configs]}
