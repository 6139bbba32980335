"""keras.ops / keras.random / keras.config / keras.backend: name coverage against Keras 3 (recorded by
tools/record_tf_goldens/keras_ops_names.py), seeded draws equal to Keras-on-TF, promotion rules, the `import keras`
alias, and the version string."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_random_cases as R  # noqa: E402

GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens")
with open(os.path.join(GOLD, "keras_ops_names.json")) as f:
    NAMES = json.load(f)
with open(os.path.join(GOLD, "keras_random.json")) as f:
    RANDOM = json.load(f)

# the coverage reached; the test fails if a name goes missing (raise these when adding names)
MIN_COVERAGE = {"ops": 337, "ops.nn": 55, "ops.linalg": 16, "ops.image": 16, "ops.numpy": 220, "random": 11,
                "config": 25, "backend": 14, "utils": 36}


def _module(space):
    mod = keras
    for part in space.split("."):
        mod = getattr(mod, part)
    return mod


@pytest.mark.parametrize("space", sorted(MIN_COVERAGE))
def test_name_coverage(space):
    have = set(dir(_module(space)))
    missing = [n for n in NAMES[space] if n not in have]
    covered = len(NAMES[space]) - len(missing)
    print(f"keras.{space}: {covered}/{len(NAMES[space])} names; missing: {missing}")
    assert covered >= MIN_COVERAGE[space], f"keras.{space} lost names: {missing}"


def test_version_is_the_keras_release_followed():
    assert keras.__version__ == NAMES["keras_version"]
    assert tf.keras.ops.add is keras.ops.numpy.add


@pytest.mark.parametrize("name", sorted(R.CASES))
def test_seeded_draws_match_keras(name):
    fn, kw = R.CASES[name]
    got = getattr(keras.random, fn)(**kw, seed=42)
    want = RANDOM[name]
    assert got.dtype.name == want["dtype"] and list(got.shape) == want["shape"]
    if name in ("gamma", "binomial", "beta", "categorical"):  # these samplers are not TF's bit for bit
        return
    np.testing.assert_allclose(got.numpy(), want["values"], rtol=1e-6, atol=1e-6)


def test_seed_generator_sequence_matches_keras():
    g = keras.random.SeedGenerator(7)
    for want in RANDOM["seed_generator_normal"]:
        np.testing.assert_allclose(keras.random.normal((3,), seed=g).numpy(), want["values"], rtol=1e-6)
    assert np.asarray(g.state.value()).tolist() == RANDOM["seed_generator_state"]


def test_seed_generator_draws_fresh_values_in_tf_function():
    g = keras.random.SeedGenerator(3)

    @tf.function
    def draw():
        return keras.random.uniform((4,), seed=g)

    a = draw().numpy()  # one traced call (a second would compile with XLA: slow for a unit test)
    assert np.asarray(g.state.value()).tolist() == [3, 1]
    b = keras.random.uniform((4,), seed=g).numpy()
    assert not np.allclose(a, b)


def test_set_random_seed_makes_unseeded_draws_reproducible():
    keras.utils.set_random_seed(5)
    a = keras.random.normal((3,)).numpy()
    keras.utils.set_random_seed(5)
    b = keras.random.normal((3,)).numpy()
    np.testing.assert_array_equal(a, b)


def test_random_distribution_moments():
    g = keras.random.gamma((4000,), alpha=3.0, seed=1).numpy()
    assert abs(g.mean() - 3.0) < 0.2
    b = keras.random.beta((4000,), 2.0, 3.0, seed=1).numpy()
    assert abs(b.mean() - 0.4) < 0.03
    n = keras.random.binomial((4000,), 10.0, 0.3, seed=1).numpy()
    assert abs(n.mean() - 3.0) < 0.2
    c = keras.random.categorical(np.log(np.array([[0.1, 0.6, 0.3]], "float32")), 4000, seed=1).numpy()
    np.testing.assert_allclose(np.bincount(c[0], minlength=3) / 4000, [0.1, 0.6, 0.3], atol=0.03)


def test_bad_seed():
    with pytest.raises(ValueError, match="must be either an integer or an instance of `SeedGenerator`"):
        keras.random.normal((2,), seed="x")


def test_result_type_examples():
    rt = keras.backend.result_type
    assert rt("int32", float) == "float32"
    assert rt("uint8", "int8") == "int16"
    assert rt("bfloat16", "float16") == "float32"
    assert rt("int64", "uint64") == "float32"
    assert rt(int, float) == "float32"
    assert rt("bool", int) == "int32"
    assert rt() == "float32"
    with pytest.raises(ValueError, match="no implicit"):
        rt("float8_e4m3fn", "float32")


def test_config_and_backend():
    cfg = keras.config
    assert cfg.backend() == "tensorflow" and keras.backend.backend() == "tensorflow"
    assert cfg.floatx() == "float32" and cfg.epsilon() == 1e-7 and cfg.image_data_format() == "channels_last"
    assert keras.backend.is_float_dtype("bfloat16") and not keras.backend.is_int_dtype("float32")
    assert keras.backend.is_int_dtype("uint8")
    cfg.set_max_epochs(3)
    try:
        assert cfg.max_epochs() == 3
    finally:
        cfg.set_max_epochs(None)
    with pytest.raises(ValueError, match="'tensorflow' backend only"):
        cfg.set_backend("jax")
    from tensorlet._src.keras.saving import serialization

    try:
        cfg.enable_unsafe_deserialization()
        assert serialization._SAFE_MODE[0] is False
    finally:  # never leave safe mode off for the tests that follow
        serialization._SAFE_MODE[0] = True


def test_floatx_changes_python_float_promotion():
    keras.config.set_floatx("float64")
    try:
        assert keras.ops.add(np.ones(2, "int32"), 1.5).dtype.name == "float64"
        assert keras.ops.ones((2,)).dtype.name == "float64"
    finally:
        keras.config.set_floatx("float32")


@pytest.mark.slow
def test_import_keras_alias(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import keras\n"
        "from keras import ops\n"
        "import tensorflow as tf\n"
        "x = ops.add(ops.ones((2,)), 1)\n"
        "assert keras.ops.sum(x).numpy() == 4.0\n"
        "assert tf.keras.ops.numpy.mean(x).numpy() == 2.0\n"
        "print(keras.__version__, keras.config.backend())\n")
    out = subprocess.run([sys.executable, "-m", "tensorlet", "run", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [NAMES["keras_version"], "tensorflow"]


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="must have the same rank"):
        keras.ops.binary_crossentropy(np.ones((2, 2)), np.ones((2,)))
    with pytest.raises(ValueError, match="tuple of two tensors"):
        keras.ops.fft(np.ones(3))
    with pytest.raises(TypeError, match="must be integers"):
        keras.ops.lcm(np.ones(2, "float32"), np.ones(2, "float32"))
    with pytest.raises(ValueError, match="Only one of `pad_to_aspect_ratio`"):
        keras.ops.image.resize(np.ones((4, 4, 1)), (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)


def test_misc_core_ops():
    ops = keras.ops
    assert ops.shape(np.ones((2, 3))) == (2, 3)
    assert ops.dtype(np.ones(2, "int8")) == "int8"
    assert ops.is_tensor(ops.ones(1)) and not ops.is_tensor(np.ones(1))
    assert isinstance(ops.convert_to_numpy(ops.ones(2)), np.ndarray)
    r = ops.rearrange(np.arange(24).reshape(2, 12), "b (h w) -> b w h", h=3)
    np.testing.assert_array_equal(r.numpy(), np.arange(24).reshape(2, 3, 4).transpose(0, 2, 1))
    y = ops.vectorize(lambda v: v * 2)(np.arange(4.0, dtype="float32").reshape(2, 2))
    np.testing.assert_array_equal(y.numpy(), [[0, 2], [4, 6]])

    @ops.custom_gradient
    def clipped(x):
        def grad(upstream):
            return upstream * 0.5

        return x * 3.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = clipped(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5])
    primals, tangents = ops.linalg.jvp(lambda v: v * v, (tf.constant([3.0]),), (tf.constant([1.0]),))
    assert float(tangents[0]) == 6.0
