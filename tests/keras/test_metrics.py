"""Keras metrics: the Metric protocol, names, subclassing, get/serialize, compile's accuracy rule, tf.function."""

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.metrics import registry

M = tf.keras.metrics


def test_mean_protocol_and_seed_example():
    m = M.Mean("loss")  # seed 000: tfe.metrics.Mean("loss"); m(0); m(5) -> 2.5; m([8, 9]) -> 5.5
    r = m(0)
    assert r.dtype == tf.float32 and float(r) == 0.0
    m(5)
    assert float(m.result()) == 2.5
    m([8, 9])
    assert float(m.result()) == 5.5
    assert [v.path for v in m.variables] == ["loss/total", "loss/count"]
    assert [v.name for v in m.variables] == ["total", "count"]
    assert isinstance(m.variables[0], tf.keras.Variable)
    assert all(not v.trainable for v in m.variables)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert repr(m) == "<Mean name=loss>"


def test_default_names_are_uniquified_like_keras():
    tf.keras.backend.clear_session()
    assert [M.Precision().name for _ in range(3)] == ["precision", "precision_1", "precision_2"]
    assert M.MeanIoU(3).name == "mean_io_u" and M.IoU(3, [0]).name == "io_u"
    assert M.Mean().name == M.Mean().name == "mean"  # an explicit default name is not uniquified
    assert M.MeanIoU(3).dtype == "int64" and M.Mean(dtype="float64").result().dtype == tf.float64


def test_user_subclass_with_add_weight_and_add_variable():
    class BinaryTruePositives(M.Metric):
        def __init__(self, name="binary_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.tp = self.add_variable(shape=(), initializer="zeros", name="tp")
            self.seen = self.add_weight(name="seen")
            self.inner = M.Sum(name="inner")

        def update_state(self, y_true, y_pred, sample_weight=None):
            y_true = tf.cast(y_true, tf.bool)
            y_pred = tf.cast(y_pred, tf.bool)
            values = tf.cast(tf.logical_and(y_true, y_pred), self.dtype)
            self.tp.assign_add(tf.reduce_sum(values))
            self.seen.assign_add(tf.cast(tf.size(values), self.dtype))
            self.inner.update_state(values)

        def result(self):
            return self.tp

    m = BinaryTruePositives()
    m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    assert float(m.result()) == 2.0
    assert [v.path for v in m.variables] == ["binary_true_positives/tp", "binary_true_positives/seen",
                                             "inner/total"]
    m.reset_state()
    assert [float(v.numpy()) for v in m.variables] == [0.0, 0.0, 0.0]


def test_forgetting_super_init_is_reported():
    class Bad(M.Metric):
        def __init__(self):
            self.x = 1

    with pytest.raises(RuntimeError, match="forgot to call `super\\(\\).__init__\\(\\)`"):
        Bad().add_variable((), "zeros")


def test_get_resolves_names_as_keras():
    assert isinstance(M.get("mse"), M.MeanSquaredError)
    assert isinstance(M.get("MeanSquaredError"), M.MeanSquaredError)
    assert isinstance(M.get("accuracy"), M.Accuracy)
    assert isinstance(M.get("auc"), M.AUC) and isinstance(M.get("AUC"), M.AUC)
    assert isinstance(M.get("f1_score"), M.F1Score) and isinstance(M.get("log_cosh_error"), M.LogCoshError)
    assert isinstance(M.get("binary_accuracy"), M.BinaryAccuracy)  # snake_case class names, as in Keras
    p = M.Precision()
    assert M.get(p) is p and M.get(None) is None
    for bad in ("acc", "kld", "logcosh", 3):
        with pytest.raises(ValueError, match="Could not interpret metric identifier"):
            M.get(bad)


def test_serialize_deserialize_round_trip():
    p = M.Precision(thresholds=[0.3, 0.6], name="p")
    cfg = M.serialize(p)
    assert cfg["module"] == "keras.metrics" and cfg["class_name"] == "Precision"
    assert cfg["config"] == {"name": "p", "dtype": "float32", "thresholds": [0.3, 0.6], "top_k": None,
                             "class_id": None}
    q = M.deserialize(cfg)
    assert isinstance(q, M.Precision) and q.thresholds == [0.3, 0.6] and q.name == "p"
    a = M.get({"class_name": "AUC", "config": {"curve": "PR", "num_thresholds": 7}})
    assert a.curve.value == "PR" and a.num_thresholds == 7


def test_mean_metric_wrapper_config_round_trip():
    w = M.MeanMetricWrapper(fn=M.binary_accuracy, name="acc", threshold=0.7)
    cfg = w.get_config()
    assert cfg["threshold"] == 0.7 and cfg["fn"]["class_name"] == "function"
    w2 = M.MeanMetricWrapper.from_config(cfg)
    w2.update_state([[1], [0]], [[0.8], [0.6]])
    assert float(w2.result()) == 1.0


@pytest.mark.parametrize("t_shape,p_shape,cls", [
    ((None, 1), (None, 1), "BinaryAccuracy"),
    ((None,), (None, 1), "BinaryAccuracy"),
    ((None,), (None, 10), "SparseCategoricalAccuracy"),
    ((None, 1), (None, 10), "SparseCategoricalAccuracy"),
    ((None, 10), (None, 10), "CategoricalAccuracy"),
    ((None, 5, 10), (None, 5, 10), "CategoricalAccuracy"),
])
def test_resolve_accuracy_rule(t_shape, p_shape, cls):
    m = registry.resolve_accuracy(t_shape, p_shape, loss="ignored")
    assert type(m).__name__ == cls and m.name == "accuracy"
    m2 = registry.get_compile_metric("acc", tf.TensorShape(t_shape), tf.TensorShape(p_shape))
    assert type(m2).__name__ == cls and m2.name == "acc"


def test_compile_metric_names():
    assert registry.get_compile_metric("mae").name == "mae"
    assert isinstance(registry.get_compile_metric("mae"), M.MeanAbsoluteError)

    def my_metric(y_true, y_pred):
        return tf.abs(y_true - y_pred)

    m = registry.get_compile_metric(my_metric)
    assert isinstance(m, M.MeanMetricWrapper) and m.name == "my_metric"
    m.update_state(tf.constant([1.0, 2.0]), tf.constant([1.5, 2.0]))
    assert float(m.result()) == 0.25
    with pytest.raises(ValueError, match="Expected metric, received `None`"):
        registry.get_compile_metric(None)


def test_argument_validation_messages():
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]. Received: \[1.5\]"):
        M.Precision(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match="`num_thresholds` must be an integer > 1"):
        M.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match='Invalid AUC curve value: "XY"'):
        M.AUC(curve="XY")
    with pytest.raises(ValueError, match="Invalid `beta` argument value. It should be a Python float"):
        M.FBetaScore(beta=2)
    with pytest.raises(ValueError, match="Target class id 3 is out of range"):
        M.IoU(3, [0, 3])
    with pytest.raises(ValueError, match="R2Score expects 2D inputs"):
        M.R2Score().update_state(np.zeros((2, 2, 2), np.float32), np.zeros((2, 2, 2), np.float32))


def test_auc_thresholds_property_and_multilabel_lazy_build():
    a = M.AUC(num_thresholds=3)
    assert np.allclose(a.thresholds, [-1e-7, 0.5, 1 + 1e-7])
    m = M.AUC(multi_label=True)
    assert m.variables == []
    m.update_state(np.array([[0, 1], [1, 0], [1, 1]], np.float32), np.array([[0.2, 0.9], [0.6, 0.1], [0.7, 0.8]],
                                                                          np.float32))
    assert m.true_positives.shape == (200, 2) and float(m.result()) == pytest.approx(1.0)


def test_mask_on_predictions_weights_the_mean():
    y_pred = tf.constant([[0.0], [1.0], [5.0]])
    from tensorlet._src.keras.engine.base_layer import set_keras_mask

    set_keras_mask(y_pred, tf.constant([True, True, False]))
    m = M.MeanAbsoluteError()
    m.update_state(tf.constant([[0.0], [0.0], [0.0]]), y_pred)
    assert float(m.result()) == 0.5


@pytest.mark.parametrize("make", [lambda: M.AUC(), lambda: M.Precision(top_k=2), lambda: M.MeanIoU(4),
                                  lambda: M.F1Score(average="macro"), lambda: M.R2Score(),
                                  lambda: M.SparseCategoricalAccuracy(), lambda: M.BinaryCrossentropy()],
                         ids=["auc", "precision", "mean_iou", "f1", "r2", "sca", "bce"])
def test_metrics_run_inside_tf_function_with_unknown_batch(make):
    rng = np.random.RandomState(0)
    y_pred = rng.uniform(size=(8, 4)).astype(np.float32)
    y_true_dense = (rng.uniform(size=(8, 4)) > 0.5).astype(np.float32)
    m_eager, m_graph = make(), make()
    sparse = isinstance(m_eager, (M.MeanIoU, M.SparseCategoricalAccuracy))
    y_true = np.argmax(y_true_dense, -1).astype(np.int32) if sparse else y_true_dense
    y_p = np.argmax(y_pred, -1).astype(np.int32) if isinstance(m_eager, M.MeanIoU) else y_pred

    @tf.function(input_signature=[tf.TensorSpec([None] + list(y_true.shape[1:]), tf.as_dtype(y_true.dtype)),
                                  tf.TensorSpec([None] + list(y_p.shape[1:]), tf.as_dtype(y_p.dtype))])
    def step(t, p):
        m_graph.update_state(t, p)
        return m_graph.result()

    for sl in (slice(0, 5), slice(5, 8)):
        m_eager.update_state(y_true[sl], y_p[sl])
        got = step(y_true[sl], y_p[sl])
        np.testing.assert_allclose(np.asarray(got), np.asarray(m_eager.result()), rtol=1e-6, atol=1e-7)


def test_integer_inputs_are_averaged_in_float_as_keras():
    # values from Keras 3: update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
    expected = {"MeanSquaredError": 0.25, "MeanAbsoluteError": 0.25, "RootMeanSquaredError": 0.5,
                "MeanSquaredLogarithmicError": 0.12011321634054184}
    for cls, value in expected.items():
        m = getattr(M, cls)()
        m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        assert float(m.result()) == pytest.approx(value, rel=1e-6), cls
