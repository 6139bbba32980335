"""Tiny Keras models saved by real Keras 3.15 (tools/record_tf_goldens/keras_files.py) and by tensorlet
(tests/keras/test_saving_interchange.py): each builder takes the ``tf`` module and returns
``(model, x, train)`` where ``train`` is ``(x, y)`` for one deterministic ``fit`` step or None.

Weights are set explicitly from a seeded generator, so both sides build identical models.
"""

import numpy as np


def _rng(seed):
    return np.random.RandomState(seed)


def set_weights(model, seed):
    """Deterministic weights (positive moving variances)."""
    rng = _rng(seed)
    values = []
    for w in model.weights:
        shape = tuple(int(d) for d in w.shape)
        name = str(getattr(w, "path", w.name))
        if "moving_variance" in name:
            values.append(rng.uniform(0.5, 1.5, size=shape).astype(np.float32))
        else:
            values.append((rng.normal(0.0, 0.4, size=shape)).astype(np.float32))
    model.set_weights(values)


def mlp(tf):
    k = tf.keras
    model = k.Sequential([k.Input((4,)), k.layers.Dense(8, activation="relu", name="hidden"),
                          k.layers.Dropout(0.25), k.layers.BatchNormalization(),
                          k.layers.Dense(3, activation="softmax", name="probs")], name="mlp")
    set_weights(model, 1)
    model.compile(optimizer=k.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    x = _rng(2).normal(size=(6, 4)).astype(np.float32)
    y = np.array([0, 1, 2, 0, 1, 2], np.int32)
    return model, x, (x, y)


def cnn(tf):
    k = tf.keras
    inp = k.Input((6, 6, 2), name="image")
    h = k.layers.Conv2D(3, 3, padding="same", activation="relu", name="conv")(inp)
    h = k.layers.BatchNormalization(name="bn")(h)
    h = k.layers.MaxPooling2D(2, name="pool")(h)
    h = k.layers.Flatten(name="flat")(h)
    out = k.layers.Dense(2, name="head")(h)
    model = k.Model(inp, out, name="cnn")
    set_weights(model, 3)
    model.compile(optimizer=k.optimizers.SGD(0.05, momentum=0.9), loss="mse", metrics=["mae"])
    x = _rng(4).normal(size=(3, 6, 6, 2)).astype(np.float32)
    y = _rng(5).normal(size=(3, 2)).astype(np.float32)
    return model, x, (x, y)


def rnn(tf):
    k = tf.keras
    model = k.Sequential([k.Input((5,), dtype="int32"), k.layers.Embedding(10, 4), k.layers.LSTM(3),
                          k.layers.Dense(1)], name="rnn")
    set_weights(model, 6)
    model.compile(optimizer="rmsprop", loss="mse")
    x = _rng(7).randint(0, 10, size=(4, 5)).astype(np.int32)
    y = _rng(8).normal(size=(4, 1)).astype(np.float32)
    return model, x, (x, y)


def bigru(tf):
    k = tf.keras
    inp = k.Input((4, 3))
    h = k.layers.Bidirectional(k.layers.GRU(2, return_sequences=True))(inp)
    h = k.layers.Flatten()(h)
    out = k.layers.Dense(2)(h)
    model = k.Model(inp, out)
    set_weights(model, 9)
    x = _rng(10).normal(size=(2, 4, 3)).astype(np.float32)
    return model, x, None


def nested(tf):
    k = tf.keras
    inner = k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="tanh"), k.layers.Dense(4)], name="inner")
    inp = k.Input((3,), name="x")
    h = inner(inp)
    out = k.layers.Dense(2, name="out")(k.layers.Concatenate()([h, inp]))
    model = k.Model(inp, out, name="outer")
    set_weights(model, 11)
    model.compile(optimizer="adam", loss="mse")
    x = _rng(12).normal(size=(2, 3)).astype(np.float32)
    return model, x, None


def define_custom(tf):
    """Registers the custom objects of ``custom`` (same registered names on both sides)."""
    k = tf.keras

    @k.utils.register_keras_serializable(package="tlt")
    def swish2(x):
        return x * tf.sigmoid(2.0 * x)

    @k.utils.register_keras_serializable(package="tlt")
    class ScaledDense(k.layers.Layer):
        def __init__(self, units, scale=2.0, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.scale = scale

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w")
            self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

        def call(self, x):
            return self.scale * tf.matmul(x, self.w) + self.b

        def get_config(self):
            return {**super().get_config(), "units": self.units, "scale": self.scale}

    @k.utils.register_keras_serializable(package="tlt")
    class TwoLayer(k.Model):
        def __init__(self, hidden=5, **kwargs):
            super().__init__(**kwargs)
            self.hidden = hidden
            self.dense1 = k.layers.Dense(hidden, activation=swish2)
            self.scaled = ScaledDense(2, scale=0.5)

        def call(self, x):
            return self.scaled(self.dense1(x))

        def get_config(self):
            return {**super().get_config(), "hidden": self.hidden}

    return {"tlt>swish2": swish2, "tlt>ScaledDense": ScaledDense, "tlt>TwoLayer": TwoLayer}


def custom(tf):
    objs = define_custom(tf)
    model = objs["tlt>TwoLayer"](hidden=5, name="two_layer")
    x = _rng(13).normal(size=(3, 4)).astype(np.float32)
    model(x)
    set_weights(model, 14)
    model.compile(optimizer="adam", loss="mse")
    return model, x, (x, _rng(15).normal(size=(3, 2)).astype(np.float32))


CASES = {"mlp": mlp, "cnn": cnn, "rnn": rnn, "bigru": bigru, "nested": nested, "custom": custom}
# cases also saved in the legacy .h5 format (subclassed models cannot be: Keras raises for them)
H5_CASES = ("mlp", "cnn", "rnn", "nested")
