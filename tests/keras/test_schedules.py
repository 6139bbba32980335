"""Learning-rate schedule API (values are checked against Keras in test_optimizers_golden.py)."""

import numpy as np
import pytest

import tensorlet as tf

S = tf.keras.optimizers.schedules


def test_config_round_trips():
    for s in [S.ExponentialDecay(0.1, 10, 0.5, staircase=True), S.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1]),
              S.PolynomialDecay(0.1, 10, power=2.0, cycle=True), S.InverseTimeDecay(0.1, 3, 0.2),
              S.CosineDecay(0.1, 100, alpha=0.1, warmup_target=0.5, warmup_steps=10),
              S.CosineDecayRestarts(0.1, 20, t_mul=1.5, m_mul=0.9)]:
        cfg = S.serialize(s)
        assert cfg["module"] == "keras.optimizers.schedules" and cfg["class_name"] == type(s).__name__
        back = S.deserialize(cfg)
        assert type(back) is type(s) and back.get_config() == s.get_config()
        for step in (0, 3, 17):
            np.testing.assert_allclose(float(back(step)), float(s(step)), rtol=1e-7)


def test_defaults_and_errors():
    assert S.ExponentialDecay(0.1, 10, 0.9).get_config() == {
        "initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.9, "staircase": False,
        "name": "ExponentialDecay"}
    assert S.CosineDecayRestarts(0.1, 5).get_config()["name"] == "SGDRDecay"
    with pytest.raises(ValueError, match="`decay_steps` must be > 0"):
        S.ExponentialDecay(0.1, 0, 0.9)
    with pytest.raises(ValueError, match="`first_decay_steps` must be > 0"):
        S.CosineDecayRestarts(0.1, 0)
    with pytest.raises(ValueError, match="1 less than the length of values"):
        S.PiecewiseConstantDecay([1, 2], [1.0])
    with pytest.raises(NotImplementedError, match="must override `__call__"):
        S.LearningRateSchedule()(1)


def test_user_schedule_subclass_drives_optimizer():
    class Halving(S.LearningRateSchedule):
        def __call__(self, step):
            return 1.0 / tf.cast(2 ** step, tf.float32)

        def get_config(self):
            return {}

    v = tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(learning_rate=Halving())
    for _ in range(3):
        opt.apply_gradients([(tf.constant(-1.0), v)])
    assert float(v) == 1.75
    assert abs(float(opt.learning_rate) - 0.125) < 1e-9
