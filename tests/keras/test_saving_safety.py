"""Loading untrusted model files: safe mode refuses code (the gadgets of CVE-2025-1550, -8747, -9905, -9906),
malformed or oversized archives and HDF5 files fail closed with clear errors, and nothing outside memory is touched.

A canary (a function and a class in this module that record being called) shows that no gadget runs in safe mode,
and (positive controls) that the same configs do run it with ``safe_mode=False``.
"""

import base64
import io
import json
import marshal
import os
import sys
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.keras.saving import keras_zip, serialization, weights_h5

keras = tf.keras
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(os.path.dirname(HERE), "goldens", "keras_files")
MOD = __name__
CANARY = []


def canary_fn(*args, **kwargs):
    CANARY.append("function")
    return args[0] if args else None


class Canary(keras.layers.Layer):
    @classmethod
    def from_config(cls, config):
        CANARY.append("class")
        return cls()


@pytest.fixture(autouse=True)
def _clean_state():
    CANARY.clear()
    yield
    assert serialization._SAFE_MODE[0] is True, "safe mode was left disabled"
    serialization._SAFE_MODE[0] = True


def _lambda_code():
    fn = eval(f"lambda x: __import__('sys').modules[{MOD!r}].CANARY.append('lambda') or x")  # noqa: S307
    return base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")


def _empty_weights():
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        f.create_group("vars")
    return buf.getvalue()


def _archive(path, config, weights=None, extra=(), names=None):
    members = [("metadata.json", b'{"keras_version": "3.15.1", "date_saved": "x"}'),
               ("config.json", json.dumps(config).encode() if not isinstance(config, bytes) else config),
               ("model.weights.h5", weights if weights is not None else _empty_weights())]
    if names is not None:
        members = [m for m in members if m[0] in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names
        with zipfile.ZipFile(path, "w") as zf:
            for name, data in list(members) + list(extra):
                zf.writestr(name, data)
    return str(path)


def _seq_config(*layers):
    entries = [{"module": "keras.layers", "class_name": "InputLayer",
                "config": {"batch_shape": [None, 3], "dtype": "float32", "name": "x"}, "registered_name": None}]
    return {"module": "keras", "class_name": "Sequential", "registered_name": None,
            "config": {"name": "victim", "trainable": True, "layers": entries + list(layers)}}


def _lambda_layer(function, arguments=None):
    return {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
            "config": {"name": "lam", "function": function, "arguments": arguments or {}}}


def _fn(module, name):
    return {"module": module, "class_name": "function", "config": name, "registered_name": name}


GADGETS = {
    "lambda_bytecode_keras3": _lambda_layer({"class_name": "__lambda__",
                                             "config": {"code": _lambda_code(), "defaults": None, "closure": None}}),
    "lambda_bytecode_as_activation": {"module": "keras.layers", "class_name": "Dense", "registered_name": None,
                                      "config": {"units": 2, "activation": {"class_name": "__lambda__", "config": {
                                          "value": _lambda_code()}}}},
    "cve_2025_1550_builtins_exec": {"module": "builtins", "class_name": "exec", "config": {}, "registered_name": None},
    "cve_2025_1550_os_system": _lambda_layer(_fn("os", "system"), {}),
    "subprocess_class": {"module": "subprocess", "class_name": "Popen", "config": {"args": ["true"]},
                         "registered_name": None},
    "canary_class": {"module": MOD, "class_name": "Canary", "config": {}, "registered_name": None},
    "canary_function": _lambda_layer(_fn(MOD, "canary_fn")),
    "canary_function_builtins": _lambda_layer(_fn("builtins", "canary_fn")),
    "cve_2025_8747_get_file": _lambda_layer(_fn("keras.utils", "get_file"),
                                            {"origin": "http://127.0.0.1:9/x", "fname": "x"}),
    "get_file_internal_module": {"module": "keras.src.utils.file_utils", "class_name": "get_file",
                                 "config": {"origin": "http://127.0.0.1:9/x"}, "registered_name": None},
    "get_file_hidden_in_layers": _lambda_layer({"module": "keras.src.layers", "class_name": "get_file",
                                                "config": {}, "registered_name": None}),
    "cve_2025_9906_unsafe_switch": _lambda_layer(_fn("keras.config", "enable_unsafe_deserialization")),
    "meta_function": _lambda_layer(_fn("keras.activations", "deserialize")),
    "load_model_function": _lambda_layer(_fn("keras.models", "load_model")),
    "builtins_eval_activation": {"module": "keras.layers", "class_name": "Dense", "registered_name": None,
                                 "config": {"units": 2, "activation": _fn("builtins", "eval")}},
    "tensorlet_internal_function": _lambda_layer(_fn("tensorlet._src.keras.utils.file_utils", "get_file")),
    "tfsm_layer": {"module": "keras.layers", "class_name": "TFSMLayer",
                   "config": {"filepath": "/etc", "call_endpoint": "serving_default"}, "registered_name": None},
    "lookup_vocabulary_file": {"module": "keras.layers", "class_name": "StringLookup",
                               "config": {"vocabulary": "/etc/passwd"}, "registered_name": None},
}


@pytest.mark.parametrize("gadget", list(GADGETS))
def test_safe_mode_refuses_gadget(tmp_path, gadget):
    path = _archive(tmp_path / "evil.keras", _seq_config(GADGETS[gadget]))
    before = sorted(os.listdir(tmp_path))
    with pytest.raises((ValueError, TypeError)) as info:
        keras.models.load_model(path)
    assert not CANARY
    assert serialization._SAFE_MODE[0] is True
    assert sorted(os.listdir(tmp_path)) == before
    message = str(info.value)
    if isinstance(info.value, ValueError):
        assert "safe_mode" in message
    else:
        assert "Could not locate" in message


@pytest.mark.parametrize("gadget", ["lambda_bytecode_keras3", "canary_class", "canary_function"])
def test_unsafe_mode_runs_the_same_gadget(tmp_path, gadget):
    """Positive control: the canary does detect code execution when safe mode is off."""
    path = _archive(tmp_path / "evil.keras", _seq_config(GADGETS[gadget]))
    try:
        keras.models.load_model(path, safe_mode=False)
    except (ValueError, TypeError):
        pass  # the canary class is not a real layer: what matters is that it ran
    assert CANARY


def test_keras_written_lambda_refused_then_loaded_unsafe():
    for fname in ("lambda.keras", "lambda.h5"):
        path = os.path.join(GOLDEN_DIR, fname)
        with pytest.raises(ValueError, match="safe_mode"):
            keras.models.load_model(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = keras.models.load_model(path, safe_mode=False)
        x = np.array([[1.0, 2.0, 3.0]], np.float32)
        np.testing.assert_allclose(np.asarray(model.layers[0](x)), x * 2.0 + 1.0)


def test_tensorlet_written_lambda_uses_keras_form(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda t: t * 3.0 - 1.0)])
        model.save(str(tmp_path / "l.keras"))
        model.save(str(tmp_path / "l.h5"))
    with zipfile.ZipFile(tmp_path / "l.keras") as zf:
        function = json.loads(zf.read("config.json"))["config"]["layers"][1]["config"]["function"]
    assert function["class_name"] == "__lambda__" and set(function["config"]) == {"code", "defaults", "closure"}
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    for fname in ("l.keras", "l.h5"):
        with pytest.raises(ValueError, match="safe_mode"):
            keras.models.load_model(str(tmp_path / fname))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = keras.models.load_model(str(tmp_path / fname), safe_mode=False)
        np.testing.assert_allclose(np.asarray(loaded(x)), x * 3.0 - 1.0)


def test_tensorlet_ops_allowed_but_not_io_or_python_ops(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(tf.nn.relu), keras.layers.Lambda(tf.math.square)])
    model.save(str(tmp_path / "ops.keras"))
    x = np.array([[-1.0, 2.0, 3.0]], np.float32)
    np.testing.assert_allclose(np.asarray(keras.models.load_model(str(tmp_path / "ops.keras"))(x)), [[0.0, 4.0, 9.0]])
    for fn in (tf.io.write_file, tf.py_function, tf.io.read_file):
        path = _archive(tmp_path / "evil.keras", _seq_config(_lambda_layer(_fn(fn.__module__, fn.__name__))))
        with pytest.raises(ValueError, match="safe_mode"):
            keras.models.load_model(path)


def test_lambda_passed_as_custom_object_is_still_checked(tmp_path):
    lam = {"class_name": "Lambda", "config": {"name": "lam", "function": [_lambda_code(), None, None],
                                              "function_type": "lambda", "arguments": {}}}
    path = _legacy_h5(tmp_path / "evil.h5", [lam])
    with pytest.raises(ValueError, match="bytecode"):
        keras.models.load_model(path, custom_objects={"Lambda": keras.layers.Lambda})
    assert not CANARY


def _legacy_h5(path, layers, weights=None):
    config = {"class_name": "Sequential", "config": {"name": "victim", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "dtype": "float32",
                                                "name": "x"}}] + layers}}
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(config)
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["backend"] = "tensorflow"
        mw = f.create_group("model_weights")
        mw.attrs["layer_names"] = np.array([b"lam"], dtype=object)
        mw.create_group("lam").attrs["weight_names"] = np.array([], dtype="S1")
        if weights:
            weights(f)
    return str(path)


def test_cve_2025_9905_legacy_h5_lambda_bytecode(tmp_path):
    lam = {"class_name": "Lambda", "config": {"name": "lam", "trainable": True, "dtype": "float32",
                                              "function": [_lambda_code(), None, None], "function_type": "lambda",
                                              "module": "__main__", "output_shape": None,
                                              "output_shape_type": "raw", "output_shape_module": None,
                                              "arguments": {}}}
    path = _legacy_h5(tmp_path / "evil.h5", [lam])
    with pytest.raises(ValueError, match="safe_mode") as info:
        keras.models.load_model(path)
    assert "bytecode" in str(info.value) and "'lam'" in str(info.value)
    assert not CANARY
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        keras.models.load_model(path, safe_mode=False)
    assert "lambda" in CANARY


def test_legacy_h5_named_function_refused(tmp_path):
    lam = {"class_name": "Lambda", "config": {"name": "lam", "function": "system", "function_type": "function",
                                              "module": "os", "arguments": {}}}
    with pytest.raises(ValueError, match="safe_mode"):
        keras.models.load_model(_legacy_h5(tmp_path / "evil.h5", [lam]))


@keras.saving.register_keras_serializable(package="kf_safety")
class SwitchesSafeModeOff(keras.layers.Layer):
    @classmethod
    def from_config(cls, config):
        keras.config.enable_unsafe_deserialization()
        return cls()


def test_safe_mode_switched_off_during_load_is_detected(tmp_path):
    layer = {"module": MOD, "class_name": "SwitchesSafeModeOff", "config": {},
             "registered_name": "kf_safety>SwitchesSafeModeOff"}
    path = _archive(tmp_path / "m.keras", _seq_config(layer))
    with pytest.raises(ValueError, match="changed the safe-mode setting"):
        keras.models.load_model(path)
    assert serialization._SAFE_MODE[0] is True


def test_user_enabled_unsafe_deserialization_allows_lambdas():
    try:
        keras.config.enable_unsafe_deserialization()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = keras.models.load_model(os.path.join(GOLDEN_DIR, "lambda.keras"))
        assert type(model.layers[0]).__name__ == "Lambda"
    finally:
        serialization._SAFE_MODE[0] = True


# --- malformed archives ----------------------------------------------------------------------------------------------
def _valid_config():
    return _seq_config({"module": "keras.layers", "class_name": "Dense", "registered_name": None,
                        "config": {"name": "d", "units": 2}})


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "assets/../../evil.txt", "a\\b", "./config.json",
                                  "assets//x"])
def test_path_traversal_member_refused(tmp_path, name):
    path = _archive(tmp_path / "m.keras", _valid_config(), extra=[(name, b"pwned")])
    with pytest.raises(ValueError, match="plain relative path"):
        keras.models.load_model(path)
    assert not (tmp_path.parent / "evil.txt").exists() and not os.path.exists("/abs/evil.txt")


@pytest.mark.parametrize("case,match", [
    ("extra", "unexpected member 'evil.py'"), ("no_config", "missing 'config.json'"),
    ("no_weights", "missing 'model.weights.h5'"), ("duplicate", "duplicate member 'config.json'"),
    ("not_json", "config.json: not a JSON document"), ("json_list", "expected a JSON object"),
    ("deep_json", "config.json"), ("not_keras", "not a valid Keras configuration"),
    ("bad_weights", "not an HDF5 file"), ("not_zip", "not a zip file"), ("encrypted", "is encrypted"),
    ("huge_int", "out of range"), ("bad_metadata", "metadata.json"),
])
def test_malformed_archive_fails_closed(tmp_path, case, match):
    path = tmp_path / "m.keras"
    config = _valid_config()
    if case == "extra":
        _archive(path, config, extra=[("evil.py", b"import os")])
    elif case == "no_config":
        _archive(path, config, names={"metadata.json", "model.weights.h5"})
    elif case == "no_weights":
        _archive(path, config, names={"metadata.json", "config.json"})
    elif case == "duplicate":
        _archive(path, config, extra=[("config.json", b"{}")])
    elif case == "not_json":
        _archive(path, b"{not json")
    elif case == "json_list":
        _archive(path, b"[1, 2]")
    elif case == "deep_json":
        _archive(path, b"[" * 100000 + b"]" * 100000)
    elif case == "not_keras":
        _archive(path, {"hello": "world"})
    elif case == "bad_weights":
        _archive(path, config, weights=b"definitely not hdf5")
    elif case == "not_zip":
        path.write_bytes(b"PK\x03\x04 but not really a zip")
    elif case == "encrypted":
        _archive(path, config)
        data = bytearray(path.read_bytes())
        pos = data.find(b"PK\x01\x02")
        data[pos + 8] |= 0x1
        path.write_bytes(bytes(data))
    elif case == "huge_int":
        config["config"]["layers"][1]["config"]["units"] = 10 ** 30
        _archive(path, config)
    elif case == "bad_metadata":
        _archive(path, config)
        with zipfile.ZipFile(path) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        members["metadata.json"] = b"\xff\xfe"
        with zipfile.ZipFile(path, "w") as zf:
            for n, d in members.items():
                zf.writestr(n, d)
    with pytest.raises(ValueError, match=match):
        keras.models.load_model(str(path))


def test_zip_bomb_refused(tmp_path, monkeypatch):
    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("config.json", json.dumps(_valid_config()))
        zf.writestr("model.weights.h5", b"\0" * (20 << 20))  # 20 MiB of zeros: ~20 KiB stored
    assert os.path.getsize(path) < 200_000
    monkeypatch.setattr(keras_zip, "BOMB_FLOOR", 1 << 20)
    with pytest.raises(ValueError, match="decompression bomb"):
        keras.models.load_model(str(path))
    monkeypatch.setattr(keras_zip, "BOMB_FLOOR", 1 << 40)
    monkeypatch.setattr(keras_zip, "MAX_TOTAL_BYTES", 1 << 20)
    with pytest.raises(ValueError, match="decompression bomb"):
        keras.models.load_model(str(path))


def test_too_many_members_refused(tmp_path, monkeypatch):
    path = _archive(tmp_path / "m.keras", _valid_config(), extra=[(f"assets/{i}", b"") for i in range(5)])
    monkeypatch.setattr(keras_zip, "MAX_MEMBERS", 4)
    with pytest.raises(ValueError, match="8 members"):
        keras.models.load_model(path)


def test_lying_member_size_is_caught(tmp_path):
    """A member whose header declares fewer bytes than it holds: zipfile stops at the declared size (CRC fails)."""
    path = _archive(tmp_path / "m.keras", _valid_config())
    data = bytearray((tmp_path / "m.keras").read_bytes())
    pos = data.find(b"PK\x01\x02")
    while pos >= 0:  # shrink the declared uncompressed size of every member in the central directory
        size = int.from_bytes(data[pos + 24:pos + 28], "little")
        data[pos + 24:pos + 28] = max(size // 2, 1).to_bytes(4, "little")
        pos = data.find(b"PK\x01\x02", pos + 4)
    (tmp_path / "m.keras").write_bytes(bytes(data))
    with pytest.raises(ValueError):
        keras.models.load_model(path)


# --- hostile HDF5 content --------------------------------------------------------------------------------------------
def _dense_model_archive(tmp_path, mutate):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    good = tmp_path / "good.keras"
    model.save(str(good))
    with zipfile.ZipFile(good) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    buf = io.BytesIO(members["model.weights.h5"])
    with h5py.File(buf, "a") as f:
        mutate(f, tmp_path)
    members["model.weights.h5"] = buf.getvalue()
    path = tmp_path / "hostile.keras"
    with zipfile.ZipFile(path, "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    return str(path)


def _external_link(f, tmp):
    del f["layers/dense/vars/0"]
    f["layers/dense/vars/0"] = h5py.ExternalLink(str(tmp / "secret.h5"), "/data")


def _soft_link(f, tmp):
    del f["layers/dense/vars/0"]
    f["layers/dense/vars/0"] = h5py.SoftLink("/layers/dense/vars/1")


def _external_storage(f, tmp):
    (tmp / "raw.bin").write_bytes(b"\0" * 24)
    del f["layers/dense/vars/0"]
    f["layers/dense/vars"].create_dataset("0", shape=(3, 2), dtype="f4", external=[(str(tmp / "raw.bin"), 0, 24)])


def _shape_bomb(f, tmp):
    del f["layers/dense/vars/0"]
    f["layers/dense/vars"].create_dataset("0", shape=(10 ** 6, 10 ** 6), dtype="f4", chunks=(1, 1024))


def _string_dataset(f, tmp):
    del f["layers/dense/vars/1"]
    f["layers/dense/vars"].create_dataset("1", data=np.array([b"ab", b"cd"]))


def _group_not_dataset(f, tmp):
    del f["layers/dense/vars/1"]
    f["layers/dense/vars"].create_group("1")


@pytest.mark.parametrize("mutate,match", [
    (_external_link, "ExternalLink"), (_soft_link, "SoftLink"), (_external_storage, "external dataset storage"),
    (_shape_bomb, "could not be loaded"), (_string_dataset, "non-numeric"), (_group_not_dataset, "expected a dataset"),
])
def test_hostile_weights_h5_refused(tmp_path, mutate, match):
    if mutate is _external_link:
        with h5py.File(tmp_path / "secret.h5", "w") as s:
            s["data"] = np.full((3, 2), 7.0, np.float32)
    path = _dense_model_archive(tmp_path, mutate)
    with pytest.raises(ValueError, match=match):
        keras.models.load_model(path)


def test_shape_bomb_is_rejected_before_reading(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(weights_h5, "read_dataset", lambda ds: calls.append(ds) or np.zeros(ds.shape, ds.dtype))
    path = _dense_model_archive(tmp_path, _shape_bomb)
    with pytest.raises(ValueError, match="shape \\(1000000, 1000000\\)"):
        keras.models.load_model(path)
    assert all(ds.shape != (10 ** 6, 10 ** 6) for ds in calls)


def test_dataset_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(weights_h5, "MAX_DATASET_BYTES", 8)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.save(str(tmp_path / "m.keras"))
    with pytest.raises(ValueError, match="more than the limit of 8 bytes"):
        keras.models.load_model(str(tmp_path / "m.keras"))


def test_legacy_h5_hostile_content(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    path = tmp_path / "m.h5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save(str(path))
    with h5py.File(path, "a") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights/d"].attrs["weight_names"]]
        del f[f"model_weights/d/{names[0]}"]
        f[f"model_weights/d/{names[0]}"] = h5py.ExternalLink("/etc/passwd", "/x")
    with pytest.raises(ValueError, match="ExternalLink"):
        keras.models.load_model(str(path))
    with h5py.File(path, "a") as f:
        f.attrs["model_config"] = "{not json"
    with pytest.raises(ValueError, match="not a JSON document"):
        keras.models.load_model(str(path))
    path.write_bytes(b"not an hdf5 file at all")
    with pytest.raises(ValueError, match="not an HDF5 file"):
        keras.models.load_model(str(path))


def test_safe_mode_check_is_allow_list():
    """Every Keras-written golden file passes the checks (no false positives on real models)."""
    from tensorlet._src.keras.saving import safe_mode

    sys.path.insert(0, HERE)
    import saving_cases

    custom = saving_cases.define_custom(tf)
    for fname in os.listdir(GOLDEN_DIR):
        if fname.endswith(".keras") and not fname.startswith("lambda"):
            with zipfile.ZipFile(os.path.join(GOLDEN_DIR, fname)) as zf:
                config = json.loads(zf.read("config.json"))
            checked = safe_mode.check_config(config, custom)
            assert checked["class_name"] in ("Sequential", "Model", "tlt>TwoLayer", "TwoLayer", "FeatureSpace")
