"""Preprocessing layers against Keras 3 (tests/goldens/keras_layers.json) plus Normalization.adapt, random
augmentation properties and errors."""

import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers_cases as C  # noqa: E402

L = tf.keras.layers


@pytest.mark.parametrize("name", sorted(C.PREPROC))
def test_matches_keras(name):
    C.check_case(tf, name)


def test_normalization_adapt_array_tensor_and_batches():
    data = C.det((12, 3), k=0.77, s=3.0) + np.array([1.0, -2.0, 5.0], np.float32)
    for source in (data, tf.constant(data), [data[:5], data[5:9], data[9:]], (b for b in (data[:6], data[6:]))):
        layer = L.Normalization()
        layer.adapt(source)
        np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.adapt_variance.numpy(), data.var(0), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(layer(data).numpy(), (data - data.mean(0)) / data.std(0), rtol=1e-4,
                                   atol=1e-5)
    assert [w.name for w in layer.weights] == ["mean", "variance", "count"]


def test_normalization_adapt_dataset_and_axis_none():
    data = C.det((10, 2), k=0.5, s=2.0)
    layer = L.Normalization(axis=None)
    layer.adapt(data)
    np.testing.assert_allclose(layer(np.full((1, 2), data.mean(), np.float32)).numpy(), [[0.0, 0.0]], atol=1e-6)
    data_mod = getattr(tf, "data", None)
    if data_mod is not None and hasattr(data_mod, "Dataset"):
        ds = tf.data.Dataset.from_tensor_slices(data).batch(3)
        layer = L.Normalization()
        layer.adapt(ds)
        np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0), rtol=1e-5, atol=1e-6)


def test_normalization_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance` must be set"):
        L.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="All `axis` values must be in the range"):
        L.Normalization(axis=3).build((2, 3))


def test_category_encoding_errors_and_counts():
    with pytest.raises(ValueError, match="num_tokens must be set to use this layer"):
        L.CategoryEncoding()
    with pytest.raises(ValueError, match="Unknown arg for output_mode: tf_idf"):
        L.CategoryEncoding(3, output_mode="tf_idf")
    y = L.CategoryEncoding(3, output_mode="count")(np.array([[0, 2, 2]]), count_weights=np.array([[1.0, 2.0, 0.5]]))
    np.testing.assert_allclose(y.numpy(), [[1.0, 0.0, 2.5]])


def test_random_layers_identity_when_not_training():
    x = C.det((2, 4, 4, 3))
    for layer in (L.RandomFlip(seed=1), L.RandomRotation(0.3, seed=1), L.RandomZoom(0.3, seed=1),
                  L.RandomTranslation(0.2, 0.2, seed=1)):
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)


def test_random_flip_gives_flips_and_changes_between_calls():
    x = C.det((8, 3, 3, 1))
    layer = L.RandomFlip("horizontal", seed=3)
    outs = [layer(x).numpy() for _ in range(3)]
    for out in outs:
        for img, src in zip(out, x):
            assert np.array_equal(img, src) or np.array_equal(img, src[:, ::-1])
    assert not all(np.array_equal(outs[0], o) for o in outs[1:])


def test_random_rotation_quarter_turn_is_rot90():
    x = C.det((1, 4, 4, 1))
    y = L.RandomRotation((0.25, 0.25), fill_mode="constant", interpolation="nearest")(x).numpy()
    np.testing.assert_allclose(y[0, :, :, 0], np.rot90(x[0, :, :, 0], 1), atol=1e-6)


def test_resizing_and_center_crop_shapes():
    assert L.Resizing(3, 5).compute_output_shape((None, 8, 8, 2)) == (None, 3, 5, 2)
    assert L.CenterCrop(2, 3, data_format="channels_first").compute_output_shape((1, 3, 6, 6)) == (1, 3, 2, 3)
    small = L.CenterCrop(4, 4)(C.det((1, 2, 3, 1)))
    assert small.shape == (1, 4, 4, 1)
    with pytest.raises(ValueError, match="Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be"):
        L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)


def test_config_round_trip():
    for layer in (L.Rescaling([1.0, 2.0], offset=0.5), L.Normalization(axis=1, mean=[1.0, 2.0], variance=[1, 4]),
                  L.CategoryEncoding(5, output_mode="count"), L.Resizing(3, 4, interpolation="nearest"),
                  L.RandomRotation(0.2, fill_mode="constant", seed=4), L.RandomFlip("vertical", seed=2)):
        clone = type(layer).from_config(layer.get_config())
        assert clone.get_config() == {**layer.get_config(), "name": clone.name}
