"""Keras initializers: seeded values against Keras 3 / TF 2.21 (stateless ops, seed [s, 0]), unseeded
reproducibility through Python's ``random``, get/serialize, fans and errors."""

import random

import numpy as np
import pytest

import tensorlet as tf
from tests.keras._k2_golden import P, basics, close, golden

I = tf.keras.initializers  # noqa: E741


@pytest.mark.parametrize("key", [f"{n}{s}" for n in P.INITIALIZERS for s in P.INIT_SHAPES]
                         + ["variance_scaling", "float64", "after_set_random_seed"])
def test_seeded_values_match_keras(key):
    got, want = basics()["initializers"][key], golden("keras_optim_basics.json")["initializers"][key]
    if key == "after_set_random_seed":
        for a, b in zip(got, want):
            close(a, b, atol=1e-6)
    else:
        close(got, want, atol=1e-6)


def test_seeded_initializer_repeats_and_dtype():
    init = I.HeUniform(seed=11)
    a, b = init((4, 5)), init((4, 5))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype == tf.float32
    assert I.HeUniform(seed=11)((2, 2), dtype="float64").dtype == tf.float64
    limit = np.sqrt(6.0 / 4)
    assert np.all(np.abs(a.numpy()) <= limit)


def test_unseeded_follows_python_random():
    random.seed(5)
    a = I.GlorotUniform()((3, 3)).numpy()
    random.seed(5)
    b = I.get("glorot_uniform")((3, 3)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, I.GlorotUniform()((3, 3)).numpy())


def test_constants_identity_orthogonal():
    np.testing.assert_array_equal(I.Zeros()((2, 3)).numpy(), np.zeros((2, 3), "float32"))
    np.testing.assert_array_equal(I.Ones()((2,), dtype="int32").numpy(), [1, 1])
    np.testing.assert_array_equal(I.Constant(2.5)((2, 2)).numpy(), np.full((2, 2), 2.5, "float32"))
    np.testing.assert_array_equal(I.Identity(gain=3.0)((2, 3)).numpy(), 3 * np.eye(2, 3, dtype="float32"))
    q = I.Orthogonal(seed=1)((6, 4)).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        I.Identity()((2, 2, 2))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        I.Orthogonal()((3,))


def test_get_names_and_aliases():
    for name, cls in [("glorot_uniform", I.GlorotUniform), ("GlorotUniform", I.GlorotUniform),
                      ("he_normal", I.HeNormal), ("zeros", I.Zeros), ("zero", I.Zeros), ("one", I.Ones),
                      ("normal", I.RandomNormal), ("uniform", I.RandomUniform), ("orthogonal", I.Orthogonal),
                      ("OrthogonalInitializer", I.Orthogonal), ("IdentityInitializer", I.Identity),
                      ("variance_scaling", I.VarianceScaling), ("truncated_normal", I.TruncatedNormal)]:
        assert type(I.get(name)) is cls, name
    assert I.glorot_uniform is I.GlorotUniform
    assert I.get(None) is None
    fn = I.get(np.ones((2, 2), "float32"))
    np.testing.assert_array_equal(fn((2, 2)).numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="Expected `shape`"):
        fn((3, 3))
    with pytest.raises(ValueError, match="Could not interpret initializer identifier"):
        I.get(42)


def test_serialize_round_trip():
    cfg = I.serialize(I.VarianceScaling(2.0, "fan_avg", "uniform", seed=4))
    assert cfg == {"module": "keras.initializers", "class_name": "VarianceScaling",
                   "config": {"seed": 4, "scale": 2.0, "mode": "fan_avg", "distribution": "uniform",
                              "input_axes": None, "output_axes": None}, "registered_name": None}
    back = I.deserialize(cfg)
    np.testing.assert_array_equal(back((3, 2)).numpy(), I.VarianceScaling(2.0, "fan_avg", "uniform",
                                                                           seed=4)((3, 2)).numpy())
    assert I.GlorotUniform(seed=1).get_config() == {"seed": 1, "input_axes": None, "output_axes": None}
    assert I.get({"class_name": "Constant", "config": {"value": 3.0}}).value == 3.0
    assert I.RandomNormal(seed=2).get_config() == {"seed": 2, "mean": 0.0, "stddev": 0.05}


def test_fans_and_errors():
    from tensorlet._src.keras.initializers import compute_fans

    assert compute_fans((3, 3, 4, 8)) == (36, 72)
    assert compute_fans((5,)) == (5, 5)
    assert compute_fans(()) == (1, 1)
    with pytest.raises(ValueError, match="must be positive"):
        I.VarianceScaling(scale=0.0)
    with pytest.raises(ValueError, match="Invalid `mode`"):
        I.VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="Invalid `distribution`"):
        I.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match="`seed` argument should be"):
        I.RandomNormal(seed="x")
    assert I.VarianceScaling(distribution="normal").distribution == "truncated_normal"
