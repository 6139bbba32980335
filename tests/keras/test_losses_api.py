"""Keras loss API: user Loss subclasses, reductions and their errors, sample weights and masks, get/serialize
names and aliases; mixed-precision dtype policies."""

import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.losses


class AbsLoss(L.Loss):
    def call(self, y_true, y_pred):
        return tf.abs(y_true - y_pred)


def test_user_subclass_and_reductions():
    y_true, y_pred = [[1.0, 2.0], [3.0, 4.0]], [[1.5, 1.0], [3.0, 6.0]]
    per = np.abs(np.array(y_true) - np.array(y_pred))
    np.testing.assert_allclose(float(AbsLoss()(y_true, y_pred)), per.mean(), rtol=1e-6)
    np.testing.assert_allclose(float(AbsLoss(reduction="sum")(y_true, y_pred)), per.sum(), rtol=1e-6)
    np.testing.assert_allclose(AbsLoss(reduction="none")(y_true, y_pred).numpy(), per, rtol=1e-6)
    np.testing.assert_allclose(AbsLoss(reduction=None)(y_true, y_pred).numpy(), per, rtol=1e-6)
    sw = np.array([1.0, 0.0], "float32")
    # Keras only aligns ranks through a trailing size-1 axis: a (2,) weight broadcasts along the last axis
    # of (2, 2) losses (Keras 3 gives 0.125 here)
    np.testing.assert_allclose(float(AbsLoss()(np.array(y_true), np.array(y_pred), sample_weight=sw)),
                               (per * sw[None, :]).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(AbsLoss()(np.array(y_true), np.array(y_pred), sample_weight=sw[:, None])),
                               (per * sw[:, None]).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(AbsLoss(reduction="mean_with_sample_weight")(
        [1.0, 2.0], [2.0, 4.0], sample_weight=[1.0, 3.0])), (1.0 + 6.0) / 4.0, rtol=1e-6)
    assert AbsLoss().name.startswith("abs_loss_") and AbsLoss().dtype == "float32"
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        AbsLoss(reduction="auto")
    with pytest.raises(NotImplementedError):
        L.Loss()(1.0, 2.0)


def test_integer_labels_are_cast_and_gradients_flow():
    w = tf.Variable([[0.5, -0.5, 0.2]])
    with tf.GradientTape() as tape:
        loss = L.SparseCategoricalCrossentropy(from_logits=True)(np.array([2]), w * 2.0)
    g = tape.gradient(loss, w).numpy()
    assert g.shape == (1, 3) and np.all(np.isfinite(g)) and abs(g.sum()) < 1e-6


def test_ignore_class_masks_the_mean():
    logits = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]], "float32")
    full = L.sparse_categorical_crossentropy(np.array([0, 1, 1]), logits, from_logits=True).numpy()
    got = float(L.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)(np.array([0, 1, -1]), logits))
    np.testing.assert_allclose(got, full[:2].mean(), rtol=1e-6)


def test_names_aliases_and_get():
    assert L.mse is L.MSE is L.mean_squared_error
    assert L.mae is L.MAE and L.kld is L.KLD is L.kullback_leibler_divergence and L.logcosh is L.log_cosh
    assert L.get("mse") is L.mean_squared_error
    assert L.get("categorical_crossentropy") is L.categorical_crossentropy
    assert type(L.get("MeanSquaredError")) is L.MeanSquaredError
    assert type(L.get({"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}})) is \
        L.CategoricalCrossentropy
    assert L.get(None) is None
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        L.get("no_such_loss")
    assert L.Reduction.SUM_OVER_BATCH_SIZE == "sum_over_batch_size"
    assert L.Reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")


def test_configs_match_keras():
    assert L.MeanSquaredError().get_config() == {"name": "mean_squared_error", "reduction": "sum_over_batch_size"}
    assert L.Huber().get_config() == {"name": "huber_loss", "reduction": "sum_over_batch_size"}
    assert L.CategoricalCrossentropy(from_logits=True).get_config() == {
        "name": "categorical_crossentropy", "reduction": "sum_over_batch_size", "from_logits": True,
        "label_smoothing": 0.0, "axis": -1}
    assert L.SparseCategoricalCrossentropy().get_config() == {
        "name": "sparse_categorical_crossentropy", "reduction": "sum_over_batch_size", "from_logits": False,
        "ignore_class": None}
    s = L.serialize(L.BinaryCrossentropy(label_smoothing=0.1))
    assert s["module"] == "keras.losses" and s["class_name"] == "BinaryCrossentropy"
    back = L.deserialize(s)
    assert type(back) is L.BinaryCrossentropy and back.label_smoothing == 0.1


def test_shape_errors():
    with pytest.raises(ValueError, match="same rank"):
        L.binary_crossentropy(np.ones((2, 3)), np.ones((2, 3, 1)) * 0.5)
    with pytest.raises(ValueError, match="must have the same shape"):
        L.categorical_crossentropy(np.ones((2, 3)), np.ones((2, 4)) / 4)
    with pytest.raises(ValueError, match="`axis` must be of type `int`"):
        L.categorical_crossentropy(np.ones((2, 3)), np.ones((2, 3)), axis=True)
    with pytest.warns(SyntaxWarning, match="expected y_pred.shape"):
        L.categorical_crossentropy(np.ones((2, 1)), np.ones((2, 1)))


def test_mixed_precision_policies():
    mp = tf.keras.mixed_precision
    assert mp.global_policy().name == "float32"
    p = mp.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
    assert repr(p) == '<DTypePolicy "mixed_float16">' and p.get_config() == {"name": "mixed_float16"}
    assert mp.Policy("mixed_bfloat16").compute_dtype == "bfloat16"
    assert mp.Policy is mp.DTypePolicy is tf.keras.DTypePolicy
    assert p == mp.Policy("mixed_float16") and p != mp.Policy("float32")
    try:
        mp.set_global_policy("mixed_bfloat16")
        assert mp.global_policy() == mp.Policy("mixed_bfloat16")
        assert tf.keras.config.dtype_policy().compute_dtype == "bfloat16"
    finally:
        mp.set_global_policy("float32")
    with pytest.raises(ValueError, match="Cannot convert 'bad'"):
        mp.Policy("bad")
    with pytest.raises(ValueError, match="Invalid `policy` argument"):
        mp.set_global_policy(3)
    # a loss computes in its own dtype (float32 by default), whatever the inputs
    out = L.MeanSquaredError()(tf.constant([1.0], dtype=tf.float16), tf.constant([3.0], dtype=tf.float16))
    assert out.dtype == tf.float32 and float(out) == 4.0
