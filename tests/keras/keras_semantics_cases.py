"""Keras 3 semantics (issue 14 item 5) run on real TF/Keras (tools/record_tf_goldens/keras_semantics.py) and on
tensorlet (tests/keras/test_keras_semantics.py): each case takes the ``tf`` module and returns JSON-able results.

Covered: which attributes a layer/model tracks as weights (Keras variables and layers, not raw ``tf.Variable``),
``fit`` with an overridden ``train_step`` on a model without ``call`` (the GAN pattern), functional models casting
inputs to their ``Input`` dtype, loading a functional model whose registered custom layer's ``get_config`` omits
``name``, automatic layer names, constructor argument validation, and the loss/metric function names exported.
"""

import os
import tempfile

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


def tracking(tf):
    keras = tf.keras

    class L(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.kv = keras.Variable(2.0, name="kv")
            self.tv = tf.Variable(1.0, name="tv")
            self.inner = keras.layers.Dense(2)

        def build(self, input_shape):
            self.w = self.add_weight(shape=(), initializer="ones", name="w")
            self.inner.build(input_shape)

        def call(self, x):
            return self.inner(x) * self.w * self.kv

    layer = L()
    layer(np.ones((1, 3), np.float32))

    class M(keras.Model):  # the TF "basic training loops" guide's model, in Keras
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    m = M()
    x = np.arange(4, dtype="float32")
    m.compile(keras.optimizers.SGD(0.1), "mse")
    m.fit(x, 3 * x + 2, epochs=1, verbose=0)
    return {"layer_weights": [v.name for v in layer.weights],
            "layer_trainable": [v.name for v in layer.trainable_variables],
            "layer_variables": [v.name for v in layer.variables],
            "model_weights": len(m.weights), "model_trainable": len(m.trainable_variables),
            "model_w_after_fit": float(np.asarray(m.w)), "model_b_after_fit": float(np.asarray(m.b)),
            "has_submodules": [hasattr(layer, "submodules"), hasattr(m, "submodules")]}


def gan_train_step_without_call(tf):
    keras = tf.keras

    class GAN(keras.Model):
        def __init__(self):
            super().__init__()
            self.g = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
            self.d = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
            self.g.set_weights([np.full((2, 3), 0.5, np.float32), np.zeros(3, np.float32)])
            self.d.set_weights([np.full((3, 1), 0.25, np.float32), np.zeros(1, np.float32)])

        def compile(self, opt):
            super().compile()
            self.opt = opt

        def train_step(self, data):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(self.d(self.g(data)))
            grads = tape.gradient(loss, self.g.trainable_weights)
            self.opt.apply_gradients(zip(grads, self.g.trainable_weights))
            return {"loss": loss}

    gan = GAN()
    gan.compile(keras.optimizers.SGD(0.1))
    x = np.arange(16, dtype="float32").reshape(8, 2) / 16
    hist = gan.fit(x, epochs=2, batch_size=4, verbose=0, shuffle=False)
    return {"history": hist.history, "g_kernel": np.asarray(gan.g.weights[0]).ravel().tolist()}


def functional_input_dtype(tf):
    keras = tf.keras
    i = keras.Input((3,), dtype="uint8")
    o = keras.layers.Dense(2, kernel_initializer="ones")(i)
    m = keras.Model(i, o)
    x = np.arange(6, dtype=np.uint8).reshape(2, 3)
    f = keras.Input((3,))
    mf = keras.Model(f, keras.layers.Dense(2, kernel_initializer="ones")(f))
    return {"uint8_call": [str(np.asarray(m(x)).dtype), np.asarray(m(x)).tolist()],
            "uint8_predict": np.asarray(m.predict(x, verbose=0)).tolist(),
            "int_into_float_input": [str(np.asarray(mf(x.astype(np.int32))).dtype),
                                     np.asarray(mf(x.astype(np.int32))).tolist()]}


def load_custom_layer_without_name(tf):
    keras = tf.keras

    @keras.utils.register_keras_serializable(package="semantics")
    class Scale(keras.layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {"factor": self.factor}  # no name, no dtype, no trainable

    i = keras.Input((2,))
    o = keras.layers.Dense(1, kernel_initializer="ones")(Scale(3.0)(i))
    m = keras.Model(i, o)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.keras")
        m.save(path)
        loaded = keras.models.load_model(path)
    x = np.array([[1.0, 2.0]], np.float32)
    return {"out": np.asarray(loaded(x)).tolist(), "names": [layer.name for layer in loaded.layers]}


# every layer built with these arguments gets an automatic name (Keras's to_snake_case of the class name)
LAYER_ARGS = {
    "Dense": (2,), "EinsumDense": ("ab,bc->ac", 2), "Embedding": (4, 2), "Conv1D": (2, 3), "Conv2D": (2, 3),
    "Conv3D": (2, 3), "Conv1DTranspose": (2, 3), "Conv2DTranspose": (2, 3), "Conv3DTranspose": (2, 3),
    "SeparableConv1D": (2, 3), "SeparableConv2D": (2, 3), "DepthwiseConv1D": (3,), "DepthwiseConv2D": (3,),
    "ConvLSTM1D": (2, 3), "ConvLSTM2D": (2, 3), "ConvLSTM3D": (2, 3), "LSTM": (2,), "GRU": (2,), "SimpleRNN": (2,),
    "LSTMCell": (2,), "GRUCell": (2,), "SimpleRNNCell": (2,), "Dropout": (0.5,), "SpatialDropout1D": (0.5,),
    "SpatialDropout2D": (0.5,), "SpatialDropout3D": (0.5,), "GaussianDropout": (0.5,), "GaussianNoise": (0.5,),
    "AlphaDropout": (0.5,), "Activation": ("relu",), "Reshape": ((2,),), "Permute": ((1,),), "RepeatVector": (2,),
    "Lambda": (abs,), "MultiHeadAttention": (2, 2), "GroupNormalization": (1,), "Cropping1D": (), "Masking": (),
    "UpSampling1D": (), "ZeroPadding1D": (),
}
SKIP = {"Layer", "InputLayer", "InputSpec", "RNN", "Bidirectional", "TimeDistributed", "Wrapper", "StackedRNNCells",
        "Input", "TFSMLayer", "Pipeline"}


def layer_names(tf):
    keras = tf.keras
    out = {}
    for name in sorted(dir(keras.layers)):
        cls = getattr(keras.layers, name)
        if not isinstance(cls, type) or name in SKIP or not issubclass(cls, keras.layers.Layer):
            continue
        keras.backend.clear_session()
        try:
            layer = cls(*LAYER_ARGS.get(name, ()))
        except Exception:  # noqa: BLE001  (needs arguments this table does not give)
            continue
        second = cls(*LAYER_ARGS.get(name, ())).name
        out[name] = [layer.name, second]
    return out


def constructor_errors(tf):
    layers = tf.keras.layers
    return {"Dense('3')": _err(lambda: layers.Dense("3")), "Dense(0)": _err(lambda: layers.Dense(0)),
            "Dense(-1)": _err(lambda: layers.Dense(-1)), "Dense(2.5)": _err(lambda: layers.Dense(2.5)),
            "Dense(None)": _err(lambda: layers.Dense(None)),
            "Conv2D(3, 'a')": _err(lambda: layers.Conv2D(3, "a")),
            "Dropout(2.0)": _err(lambda: layers.Dropout(2.0)),
            "Embedding('10', 3)": _err(lambda: layers.Embedding("10", 3)),
            "Dense(3, activation='nope')": _err(lambda: layers.Dense(3, activation="nope"))}


FUNCTION_NAMES = ["mse", "mae", "mape", "msle", "MSE", "MAE", "binary_crossentropy", "categorical_crossentropy",
                  "sparse_categorical_crossentropy", "kl_divergence", "kld", "poisson", "hinge", "squared_hinge",
                  "categorical_hinge", "huber", "log_cosh", "logcosh", "binary_accuracy", "categorical_accuracy",
                  "sparse_categorical_accuracy", "top_k_categorical_accuracy", "cosine_similarity",
                  "mean_squared_error", "mean_absolute_error"]


def function_names(tf):
    """The loss/metric functions each namespace exports, by ``__name__``: Keras 3's own (``import keras``) and TF's
    ``tf.keras`` (the narrower tf_keras one, which keeps Keras 2's short aliases such as ``mse``).  tensorlet has one
    ``tf.keras`` for both, so it answers both."""
    spaces = {"keras": tf.keras if tf.__name__ == "tensorlet" else __import__("keras"), "tf.keras": tf.keras}
    out = {}
    for space, keras in spaces.items():
        for family in ("losses", "metrics"):
            mod = getattr(keras, family)
            for name in FUNCTION_NAMES:
                fn = getattr(mod, name, None)
                out[f"{space}:{family}.{name}"] = None if fn is None else getattr(fn, "__name__", type(fn).__name__)
    return out


CASES = {f.__name__: f for f in [tracking, gan_train_step_without_call, functional_input_dtype,
                                 load_custom_layer_without_name, layer_names, constructor_errors, function_names]}
