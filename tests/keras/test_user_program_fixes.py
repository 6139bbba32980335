"""Fixes found by running tutorial-style programs.  Keras 3 ``compile`` under the ``mixed_float16`` policy
wraps the optimizer in a LossScaleOptimizer (float16 gradients underflow unscaled); ``auto_scale_loss=False``
and other policies keep it as given.  A model with random image augmentation (RandomRotation's custom-gradient
transform) compiles its train step.  Concatenate promotes mixed dtypes and ``fit(x)`` hands a custom train_step
``x`` itself, as Keras does (goldens recorded by tools/record_tf_goldens/keras_user_programs.py); eager layer
outputs expose ``_keras_mask``."""

import json
import os
import warnings

import numpy as np
import pytest

from tensorlet import keras
from tests.keras import user_program_cases


@pytest.fixture
def mixed():
    keras.mixed_precision.set_global_policy("mixed_float16")
    yield
    keras.mixed_precision.set_global_policy("float32")


def _model():
    inp = keras.Input((4,))
    x = keras.layers.Dense(8, activation="relu")(inp)
    out = keras.layers.Dense(2, dtype="float32")(x)
    return keras.Model(inp, out)


def test_mixed_float16_compile_wraps_optimizer(mixed):
    m = _model()
    m.compile(optimizer=keras.optimizers.RMSprop(), loss="mse")
    assert isinstance(m.optimizer, keras.optimizers.LossScaleOptimizer)
    assert isinstance(m.optimizer.inner_optimizer, keras.optimizers.RMSprop)
    h = m.fit(np.ones((8, 4), "float32"), np.ones((8, 2), "float32"), epochs=1, verbose=0)
    assert np.isfinite(h.history["loss"][0])


def test_no_wrap_when_disabled_or_float32(mixed):
    m = _model()
    m.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
    assert type(m.optimizer).__name__ == "SGD"
    keras.mixed_precision.set_global_policy("float32")
    m2 = _model()
    m2.compile(optimizer="sgd", loss="mse")
    assert type(m2.optimizer).__name__ == "SGD"


def test_augmentation_model_train_step_compiles():
    keras.utils.set_random_seed(0)
    inp = keras.Input((8, 8, 1))
    x = keras.layers.RandomRotation(0.1)(inp)
    out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
    m = keras.Model(inp, out)
    m.compile("sgd", "mse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "train step could not be compiled ... runs eagerly" is a warning
        m.fit(np.ones((4, 8, 8, 1), "float32"), np.ones((4, 1), "float32"), epochs=1, verbose=0)


def test_goldens_from_keras():
    path = os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_user_programs.json")
    with open(path) as f:
        want = json.load(f)
    got = user_program_cases.run(keras)
    assert sorted(got) == sorted(want)
    for name, w in want.items():
        if isinstance(w, dict):
            assert got[name]["dtype"] == w["dtype"], name
            np.testing.assert_allclose(got[name]["value"], w["value"], rtol=1e-6, err_msg=name)
        else:
            assert got[name] == w, name


def test_eager_outputs_carry_keras_mask_attribute():
    # the masking guide prints ``layer(x)._keras_mask``; tensors without a mask have no such attribute, as in TF
    padded = keras.utils.pad_sequences([[711, 632, 71], [73, 8, 3215, 55, 927]], padding="post")
    emb = keras.layers.Embedding(input_dim=5000, output_dim=4, mask_zero=True)(padded)
    np.testing.assert_array_equal(emb._keras_mask.numpy(), padded != 0)
    x = np.tile(padded[..., None], [1, 1, 3]).astype("float32")
    np.testing.assert_array_equal(keras.layers.Masking()(x)._keras_mask.numpy(), (x != 0).any(-1))
    assert not hasattr(keras.ops.convert_to_tensor(x), "_keras_mask")
