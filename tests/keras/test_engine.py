"""Keras Layer / Model contract: naming, weights, freezing, losses, masks, input specs, configs, functional graphs.

Expected messages and values are Keras 3.15's (checked against /work/tfenv)."""

import warnings

import numpy as np
import pytest

import tensorlet as tf

keras = tf.keras


@pytest.fixture(autouse=True)
def _fresh():
    keras.backend.clear_session()


class Lin(keras.layers.Layer):
    def __init__(self, units=2, **kw):
        super().__init__(**kw)
        self.units = units

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], self.units), initializer="ones")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros")

    def call(self, x):
        self.add_loss(tf.reduce_sum(self.w))
        return tf.matmul(x, self.w) + self.b


def test_auto_names_and_clear_session():
    assert [keras.layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert keras.layers.Flatten().name == "flatten"
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == "dense"
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        keras.layers.Dense(1, name="a/b")


def test_unknown_kwargs():
    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments passed to Dense: \{'foo': 1\}"):
        keras.layers.Dense(3, foo=1)


def test_custom_layer_weights_losses_and_config():
    lin = Lin(name="lin")
    y = lin(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(y.numpy(), [[3.0, 3.0]])
    assert [v.path for v in lin.weights] == ["lin/variable", "lin/variable_1"]
    assert [v.name for v in lin.weights] == ["variable", "variable_1"]
    assert len(lin.losses) == 1 and float(lin.losses[0]) == 6.0
    lin(np.ones((1, 3), np.float32))
    assert len(lin.losses) == 1  # losses are those of the last call
    cfg = lin.get_config()
    assert cfg["units"] == 2 and cfg["trainable"] is True and "name" not in cfg  # as Keras (no `name`/`kwargs`)
    lin.trainable = False
    assert lin.trainable_weights == [] and len(lin.non_trainable_weights) == 2
    assert lin.weights[0].trainable is False


def test_add_weight_forms():
    layer = keras.layers.Layer()
    w = layer.add_weight(shape=(2,), initializer="ones", name="w", trainable=False)
    assert layer.non_trainable_weights == [w] and layer.weights == [w] and w.path == "layer/w"
    with pytest.raises(ValueError, match="`name` must be passed as a keyword argument"):
        layer.add_weight("x", (2,))
    v = layer.add_variable("legacy", (3, 2))  # TF1-era form
    assert v.name == "legacy" and tuple(v.shape) == (3, 2)
    with pytest.raises(ValueError, match="must be fully-defined"):
        layer.add_weight(shape=(None, 2))


def test_nested_layers_and_variables_paths():
    class Outer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Lin(3)
            self.v = keras.Variable(1.0)

        def call(self, x):
            return self.inner(x) * self.v

    o = Outer()
    o(np.ones((1, 2), np.float32))
    assert [v.path for v in o.weights] == ["variable", "outer/lin/variable_1", "outer/lin/variable_2"]
    assert isinstance(o.weights[0], keras.Variable) and isinstance(o.weights[0], tf.Variable)


def test_super_init_not_called():
    class Bad(keras.layers.Layer):
        def __init__(self):
            self.d = keras.layers.Dense(1)

    with pytest.raises(RuntimeError, match="You forgot to call `super\\(\\).__init__\\(\\)`"):
        Bad()


def test_input_spec_errors():
    d = keras.layers.Dense(2)
    d.build((None, 3))
    with pytest.raises(ValueError) as e:
        d(np.ones((2, 4), np.float32))
    assert str(e.value) == ("Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected axis "
                            "-1 of input shape to have value 3, but received input with shape (2, 4)")
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1. Full shape received: \\(3,\\)"):
        keras.layers.Dense(2)(np.ones((3,), np.float32))
    assert repr(keras.layers.InputSpec(min_ndim=2, axes={-1: 3})) == "InputSpec(min_ndim=2, axes={-1: 3})"


def test_set_weights_errors_and_roundtrip():
    d = keras.layers.Dense(2)
    d.build((None, 3))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        d.set_weights([np.ones((3, 2))])
    with pytest.raises(ValueError, match="not compatible with provided weight shape"):
        d.set_weights([np.ones((2, 2)), np.ones(2)])
    d.set_weights([np.full((3, 2), 0.5), np.ones(2)])
    np.testing.assert_array_equal(d(np.ones((1, 3), np.float32)).numpy(), [[2.5, 2.5]])
    assert d.count_params() == 8
    with pytest.raises(ValueError, match="isn't built"):
        keras.layers.Dense(2).count_params()


def test_training_propagation_and_masks():
    seen = []

    class Probe(keras.layers.Layer):
        def call(self, x, training=None, mask=None):
            seen.append((training, None if mask is None else mask.numpy().tolist()))
            return x

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.emb = keras.layers.Embedding(4, 2, mask_zero=True)
            self.probe = Probe()

        def call(self, x, training=False):
            return self.probe(self.emb(x))

    m = Outer()
    m(np.array([[1, 0, 2]]), training=True)
    m(np.array([[1, 0, 2]]))
    assert seen == [(True, [[True, False, True]]), (False, [[True, False, True]])]


def test_activity_regularizer_divided_by_batch():
    d = keras.layers.Dense(1, kernel_initializer="ones", activity_regularizer=keras.regularizers.L2(0.1))
    d(np.ones((4, 2), np.float32))
    # outputs are 2.0 each: 0.1 * sum(4 * 2.0**2) / batch 4
    np.testing.assert_allclose(float(d.losses[0]), 0.4, rtol=1e-6)


def test_keras_tensor_rules():
    x = keras.Input((3,), name="x")
    assert x.shape == (None, 3) and x.dtype == "float32" and x.name == "x"
    assert repr(keras.Input((2,))) == ("<KerasTensor shape=(None, 2), dtype=float32, sparse=False, ragged=False, "
                                       "name=keras_tensor>")
    with pytest.raises(ValueError, match="A KerasTensor cannot be used as input to a TensorFlow function"):
        tf.nn.relu(x)
    y = keras.layers.Dense(2)(x) * 2.0 + 1.0
    m = keras.Model(x, y)
    d = m.layers[1]
    np.testing.assert_allclose(m(np.ones((1, 3), np.float32)).numpy(), d(np.ones((1, 3), np.float32)).numpy() * 2
                               + 1, rtol=1e-6)
    assert [layer.name for layer in m.layers] == ["x", "dense"]


def test_functional_dict_io_nested_and_get_layer():
    a = keras.Input((2,), name="a")
    b = keras.Input((2,), name="b")
    s = keras.layers.Dense(3, name="s")
    out = {"sum": s(a) + s(b), "first": s(a)}
    m = keras.Model({"a": a, "b": b}, out)
    xa, xb = np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)
    res = m({"a": xa, "b": xb})
    assert sorted(res) == ["first", "sum"]
    np.testing.assert_allclose(res["sum"].numpy(), s(xa).numpy() + s(xb).numpy(), rtol=1e-6)
    assert m.get_layer("s") is s and m.get_layer(index=2) is s
    with pytest.raises(ValueError, match="No such layer: nope"):
        m.get_layer("nope")
    outer_in = keras.Input((2,))
    inner = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2)])
    nested = keras.Model(outer_in, keras.layers.Dense(1)(inner(outer_in)))
    assert len(nested.weights) == 4 and nested.count_params() == 9
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(keras.Input((2,)), keras.layers.Dense(1)(keras.Input((2,))))


def test_sequential_api():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    assert m.built and m.input_shape == (None, 3) and m.output_shape == (None, 2)
    m.add(keras.layers.Dense(4))
    assert m.output_shape == (None, 4) and len(m.layers) == 2
    popped = m.pop()
    assert popped.name == "dense_1" and m.output_shape == (None, 2)
    with pytest.raises(ValueError, match="Only instances of `keras.Layer` can be added"):
        m.add("nope")
    with pytest.raises(ValueError, match="should have unique names"):
        m.add(keras.layers.Dense(1, name=m.layers[0].name))
    lazy = keras.Sequential()
    lazy.add(keras.layers.Dense(3))
    assert not lazy.built and lazy.weights == []
    lazy(np.ones((2, 5), np.float32))
    assert lazy.built and [tuple(w.shape) for w in lazy.weights] == [(5, 3), (3,)]


def test_config_roundtrip_and_registration():
    @keras.utils.register_keras_serializable(package="test")
    class Scale(keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    cfg = keras.utils.serialize_keras_object(Scale(3.0, name="sc"))
    assert cfg["registered_name"] == "test>Scale" and cfg["config"]["factor"] == 3.0
    again = keras.utils.deserialize_keras_object(cfg)
    assert isinstance(again, Scale) and again.factor == 3.0 and again.name == "sc"
    d = keras.layers.Dense(4, activation="relu", name="dd")
    d2 = keras.utils.deserialize_keras_object(keras.utils.serialize_keras_object(d))
    assert type(d2) is keras.layers.Dense and d2.units == 4 and d2.get_config() == d.get_config()
    inp = keras.Input((3,), name="i")
    model = keras.Model(inp, keras.layers.Dense(2, name="o")(keras.layers.Dense(4, name="h")(inp)))
    clone = keras.Model.from_config(model.get_config())
    assert [layer.name for layer in clone.layers] == ["i", "h", "o"]
    clone.set_weights(model.get_weights())
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy(), rtol=1e-6)
    seq = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    seq2 = keras.Sequential.from_config(seq.get_config())
    assert seq2.built and [tuple(w.shape) for w in seq2.weights] == [(3, 2), (2,)]


def test_unserializable_config_message():
    class Holder(keras.layers.Layer):
        def __init__(self, obj):
            super().__init__()
            self.obj = obj

    with pytest.raises(NotImplementedError, match="must override `get_config\\(\\)`"):
        Holder(object()).get_config()


def test_layers_work_in_tape_and_function():
    d = keras.layers.Dense(2)
    x = tf.constant(np.ones((3, 4), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d(x))
    gk, gb = tape.gradient(y, d.trainable_weights)
    np.testing.assert_allclose(gk.numpy(), np.full((4, 2), 3.0))
    np.testing.assert_allclose(gb.numpy(), np.full((2,), 3.0))
    f = tf.function(lambda t: d(t))
    np.testing.assert_allclose(f(x).numpy(), d(x).numpy(), rtol=1e-6)
