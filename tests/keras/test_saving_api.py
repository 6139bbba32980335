"""model.save / keras.models.load_model / save_weights / load_weights round trips in tensorlet, configs, custom
objects, compile state, error messages (Keras 3.15's wording) and atomic writes."""

import json
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import tensorlet as tf

keras = tf.keras
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _rng(seed=0):
    return np.random.RandomState(seed)


def _seq(compile_=True):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)], name="seq")
    if compile_:
        model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse", metrics=["mae"])
    return model


def _functional():
    a = keras.Input((3,), name="a")
    b = keras.Input((2,), name="b")
    h = keras.layers.Concatenate()([keras.layers.Dense(4, activation="tanh")(a), b])
    out = keras.layers.Dense(1, name="out")(h)
    return keras.Model([a, b], out, name="two_inputs")


def _train(model, seed=1):
    x = _rng(seed).normal(size=(8, 4)).astype(np.float32)
    y = _rng(seed + 1).normal(size=(8, 2)).astype(np.float32)
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    return x


def test_public_names():
    assert keras.models.load_model is keras.saving.load_model
    assert keras.models.save_model is keras.saving.save_model
    assert callable(keras.saving.save_weights) and callable(keras.saving.load_weights)
    assert callable(keras.config.enable_unsafe_deserialization)
    assert callable(keras.models.model_from_json)


def test_keras_round_trip_restores_weights_and_compile_state(tmp_path):
    model = _seq()
    x = _train(model)
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert zf.namelist() == ["metadata.json", "config.json", "model.weights.h5"]
        meta = json.loads(zf.read("metadata.json"))
        assert set(meta) == {"keras_version", "date_saved"}
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), rtol=1e-6, atol=1e-6)
    assert loaded.compiled and loaded.loss == "mse"
    assert type(loaded.optimizer).__name__ == "Adam"
    assert loaded.optimizer.learning_rate.numpy() == pytest.approx(0.02)
    assert int(loaded.optimizer.iterations.numpy()) == 4
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # both continue identically
    y = _rng(5).normal(size=(8, 2)).astype(np.float32)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), rtol=1e-5, atol=1e-6)


def test_functional_multi_input_round_trip(tmp_path):
    model = _functional()
    xa, xb = _rng(2).normal(size=(3, 3)).astype(np.float32), _rng(3).normal(size=(3, 2)).astype(np.float32)
    model.save(tmp_path / "f.keras")  # pathlib paths work
    loaded = keras.models.load_model(tmp_path / "f.keras")
    assert loaded.name == "two_inputs" and {"a", "b", "out"} <= {t.name for t in loaded.layers}
    np.testing.assert_allclose(np.asarray(loaded([xa, xb])), np.asarray(model([xa, xb])), rtol=1e-6)
    assert not loaded.compiled


@keras.saving.register_keras_serializable(package="kf_test")
class Scale(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.alpha = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="alpha")

    def call(self, x):
        return x * self.alpha * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@keras.saving.register_keras_serializable(package="kf_test")
def cube(x):
    return x * x * x


@keras.saving.register_keras_serializable(package="kf_test")
class Net(keras.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.body = keras.layers.Dense(units, activation=cube)
        self.scale = Scale(0.5)

    def call(self, x):
        return self.scale(self.body(x))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_registered_model_round_trip(tmp_path):
    model = Net(units=3, name="net")
    x = _rng(4).normal(size=(2, 5)).astype(np.float32)
    model(x)
    model.scale.alpha.assign(np.array([1.0, -2.0, 3.0], np.float32))
    model.save(str(tmp_path / "net.keras"))
    loaded = keras.models.load_model(str(tmp_path / "net.keras"))
    assert isinstance(loaded, Net) and loaded.units == 3
    assert loaded.body.activation is cube
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), rtol=1e-6)
    config = json.loads(zipfile.ZipFile(tmp_path / "net.keras").read("config.json"))
    assert config["registered_name"] == "kf_test>Net"


def test_custom_objects_argument_and_scope(tmp_path):
    class Doubler(keras.layers.Layer):  # not registered
        def call(self, x):
            return 2.0 * x

    model = keras.Sequential([keras.Input((2,)), Doubler(name="dbl"), keras.layers.Dense(1)])
    path = str(tmp_path / "d.keras")
    model.save(path)
    with pytest.raises(TypeError, match="Could not locate class 'Doubler'") as info:
        keras.models.load_model(path)
    assert isinstance(info.value, ValueError) and "safe_mode" in str(info.value)
    x = np.ones((1, 2), np.float32)
    loaded = keras.models.load_model(path, custom_objects={"Doubler": Doubler})
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)))
    with keras.saving.custom_object_scope({"Doubler": Doubler}):
        assert isinstance(keras.models.load_model(path).layers[0], Doubler)


def test_compile_false(tmp_path):
    model = _seq()
    _train(model)
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"), compile=False)
    assert not loaded.compiled


def test_weights_round_trip_and_layout(tmp_path):
    model = _seq()
    x = _train(model)
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert f["layers/dense/vars"].attrs["name"] == model.layers[0].name
        assert f["layers/dense/vars/0"].shape == (4, 5)
        assert f["layers/batch_normalization/vars/3"].shape == (5,)
        assert f["optimizer/vars/0"][()] == 4  # iterations
        assert f["vars"].attrs["name"] == "seq"
    other = _seq()
    other.build((None, 4))
    other.load_weights(path)
    np.testing.assert_allclose(np.asarray(other(x)), np.asarray(model(x)), rtol=1e-6)
    assert int(other.optimizer.iterations.numpy()) == 4


def test_weights_errors(tmp_path):
    model = _seq(compile_=False)
    with pytest.raises(ValueError, match=r"The filename must end in `\.weights\.h5`"):
        model.save_weights(str(tmp_path / "w.h5"))
    unbuilt = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="has not yet been built"):
        unbuilt.save_weights(str(tmp_path / "u.weights.h5"))
    with pytest.raises(ValueError, match="File format not supported"):
        model.load_weights(str(tmp_path / "ckpt"))
    with pytest.raises(ValueError, match="`by_name` only supports loading legacy"):
        model.load_weights(str(tmp_path / "w.weights.h5"), by_name=True)


def test_load_weights_mismatch_and_skip(tmp_path):
    model = _seq(compile_=False)
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    wider = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6), keras.layers.BatchNormalization(),
                              keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="objects could not be loaded"):
        wider.load_weights(path)
    before = [w.numpy() for w in wider.layers[0].weights]
    with pytest.warns(UserWarning, match="could not be loaded"):
        wider.load_weights(path, skip_mismatch=True)
    np.testing.assert_array_equal(wider.layers[0].weights[0].numpy(), before[0])
    np.testing.assert_array_equal(wider.layers[2].weights[1].numpy(), model.layers[2].weights[1].numpy())


def test_legacy_h5_round_trip(tmp_path):
    model = _seq()
    x = _train(model)
    path = str(tmp_path / "m.h5")
    model.save(path)
    with h5py.File(path, "r") as f:
        assert set(f.attrs) == {"backend", "keras_version", "model_config", "training_config"}
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        assert all("module" not in entry for entry in config["config"]["layers"])
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights"].attrs["layer_names"]]
        assert names == [layer.name for layer in model.layers]
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), rtol=1e-6)
    assert loaded.compiled and int(loaded.optimizer.iterations.numpy()) == 4
    model.save(str(tmp_path / "noopt.h5"), include_optimizer=False)
    with h5py.File(str(tmp_path / "noopt.h5"), "r") as f:
        assert "optimizer_weights" not in f and "training_config" not in f.attrs
    # legacy .h5 weights: order-based and by name
    fresh = _seq(compile_=False)
    fresh.load_weights(path)
    np.testing.assert_allclose(np.asarray(fresh(x)), np.asarray(model(x)), rtol=1e-6)
    by_name = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, name=model.layers[0].name)])
    by_name.load_weights(path, by_name=True)
    np.testing.assert_array_equal(by_name.layers[0].weights[0].numpy(), model.layers[0].weights[0].numpy())


def test_unzipped_directory_round_trip(tmp_path):
    model = _seq()
    x = _train(model)
    d = str(tmp_path / "model_dir")
    model.save(d, zipped=False)
    assert sorted(os.listdir(d)) == ["config.json", "metadata.json", "model.weights.h5"]
    loaded = keras.models.load_model(d)
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), rtol=1e-6)


def test_save_errors(tmp_path):
    model = _seq(compile_=False)
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(str(tmp_path / "m.pb"))
    with pytest.raises(ValueError, match="The following argument\\(s\\) are not supported"):
        model.save(str(tmp_path / "m.keras"), foo=1)
    with pytest.raises(ValueError, match="The `save_format` argument is deprecated"):
        model.save(str(tmp_path / "m"), save_format="tf")
    with pytest.raises(ValueError, match="File format not supported"):
        keras.models.load_model(str(tmp_path / "m.pb"))
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(str(tmp_path / "missing.keras"))
    with pytest.raises(FileNotFoundError):
        keras.models.load_model(str(tmp_path / "missing.h5"))


def test_overwrite_false_asks(tmp_path, monkeypatch):
    model = _seq(compile_=False)
    path = str(tmp_path / "m.keras")
    model.save(path)
    before = open(path, "rb").read()
    answers = iter(["maybe", "n"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    _seq(compile_=False).save(path, overwrite=False)
    assert open(path, "rb").read() == before


def test_json_and_config_round_trips():
    seq = _seq(compile_=False)
    clone = keras.models.model_from_json(seq.to_json())
    assert [type(la).__name__ for la in clone.layers] == ["Dense", "BatchNormalization", "Dense"]
    assert clone.get_config() == seq.get_config()
    func = _functional()
    again = keras.Model.from_config(func.get_config())
    assert again.get_config() == func.get_config()
    net = Net(units=4)
    assert Net.from_config(net.get_config()).units == 4


def test_failed_save_keeps_previous_file(tmp_path, monkeypatch):
    from tensorlet._src.keras.saving import legacy_h5, weights_h5

    model = _seq(compile_=False)
    path = str(tmp_path / "m.keras")
    model.save(path)
    before = open(path, "rb").read()

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(weights_h5, "save_weights_to_h5", boom)
    monkeypatch.setattr(legacy_h5, "save_weights_to_group", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        model.save(path)
    with pytest.raises(RuntimeError, match="disk on fire"):
        model.save(str(tmp_path / "m.h5"))
    assert open(path, "rb").read() == before
    assert sorted(os.listdir(tmp_path)) == ["m.keras"]  # no temporary or partial files left


def test_killed_save_leaves_previous_file(tmp_path):
    """SIGKILL in the middle of writing the archive: the previous file is intact and still loads."""
    path = str(tmp_path / "m.keras")
    script = textwrap.dedent(f"""
        import os, signal, numpy as np, tensorlet as tf
        from tensorlet._src.keras.saving import keras_zip
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
        model.layers[0].kernel.assign(np.ones((3, 2), np.float32))
        model.save({path!r})
        original = keras_zip.write_archive
        def dying(fileobj, config, weights):
            fileobj.write(b"PK\\x03\\x04 half an archive")
            fileobj.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        keras_zip.write_archive = dying
        model.layers[0].kernel.assign(np.zeros((3, 2), np.float32))
        model.save({path!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == -9, proc.stderr.decode()[-2000:]
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.layers[0].kernel.numpy(), np.ones((3, 2), np.float32))


def test_save_unbuilt_model_warns(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2)])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        model.save(str(tmp_path / "u.keras"))
    assert any("has not yet been built" in str(x.message) for x in w)
