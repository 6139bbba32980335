"""Fuzzing the model loaders (hypothesis): random bytes, mutated archives and HDF5 files, mutated config JSON with
code-execution gadgets spliced in. Loading either succeeds or raises ValueError/TypeError/a tensorlet error; the
canary (a function and a class in this module that record being run) is never reached and safe mode stays on."""

import copy
import io
import json
import os
import warnings
import zipfile

import h5py
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorlet as tf
from tensorlet._src.framework import errors
from tensorlet._src.keras.saving import serialization

keras = tf.keras
MOD = __name__
CANARY = []
CLEAN = (ValueError, TypeError, errors.OpError)
# TL_FUZZ_EXAMPLES=5000 TL_FUZZ_RANDOM=1 runs a longer, randomized campaign
FUZZ = settings(max_examples=int(os.environ.get("TL_FUZZ_EXAMPLES", "80")), deadline=None,
                derandomize=not os.environ.get("TL_FUZZ_RANDOM"), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


def canary_fn(*args, **kwargs):
    CANARY.append("function")
    return args[0] if args else None


class Canary(keras.layers.Layer):
    def __init__(self, **kwargs):
        CANARY.append("init")
        super().__init__()

    @classmethod
    def from_config(cls, config):
        CANARY.append("class")
        return cls()


CANARY_FN = {"module": MOD, "class_name": "function", "config": "canary_fn", "registered_name": "canary_fn"}
GADGETS = [
    {"module": MOD, "class_name": "Canary", "config": {}, "registered_name": None},
    CANARY_FN,
    {"module": "builtins", "class_name": "function", "config": "canary_fn", "registered_name": None},
    {"module": None, "class_name": "Canary", "config": {}},
    {"class_name": "Canary", "config": {}},
    {"module": "os", "class_name": "function", "config": "system"},
    {"module": "keras.utils", "class_name": "function", "config": "get_file"},
    {"module": "keras.config", "class_name": "function", "config": "enable_unsafe_deserialization"},
    {"class_name": "__lambda__", "config": {"value": "YWJj", "code": "YWJj"}},
    {"module": "keras.layers", "class_name": "Lambda", "config": {"function": CANARY_FN}},
]

_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 70), st.sampled_from([10 ** 12, -(2 ** 40), 10 ** 40]),
                       st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                       st.sampled_from(["Dense", "function", "keras.layers", "keras", "os", "builtins", MOD,
                                        "Canary", "canary_fn", "__lambda__", "float32", "relu", "zeros"]))
_json = st.recursive(_json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                     max_leaves=6)
_replacement = st.one_of(_json, st.sampled_from(GADGETS), st.just("__DELETE__"))


@pytest.fixture(autouse=True)
def _canary_check():
    CANARY.clear()
    yield
    assert not CANARY, f"code from a file ran: {CANARY}"
    assert serialization._SAFE_MODE[0] is True


def _paths(node, prefix=()):
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _mutate(tree, path, value):
    if not path:
        return copy.deepcopy(value) if value != "__DELETE__" else {}
    tree = copy.deepcopy(tree)
    node = tree
    for key in path[:-1]:
        node = node[key]
    if value == "__DELETE__":
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = copy.deepcopy(value)
    return tree


def _attempt(load):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            load()
        except CLEAN:
            pass


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz_valid")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), verbose=0)
    model.save(str(d / "m.keras"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save(str(d / "m.h5"))
    with zipfile.ZipFile(d / "m.keras") as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    return {"keras": (d / "m.keras").read_bytes(), "h5": (d / "m.h5").read_bytes(), "members": members,
            "config": json.loads(members["config.json"]), "model": model}


@FUZZ
@given(data=st.binary(max_size=600), suffix=st.sampled_from([".keras", ".h5", ".weights.h5"]))
def test_random_bytes(tmp_path, valid, data, suffix):
    path = str(tmp_path / f"r{suffix}")
    with open(path, "wb") as f:
        f.write(data)
    if suffix == ".weights.h5":
        _attempt(lambda: valid["model"].load_weights(path))
    else:
        _attempt(lambda: keras.models.load_model(path))


@FUZZ
@given(kind=st.sampled_from(["keras", "h5"]), edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)),
                                                             min_size=1, max_size=8),
       cut=st.one_of(st.none(), st.floats(0, 1)))
def test_mutated_files(tmp_path, valid, kind, edits, cut):
    data = bytearray(valid[kind])
    for where, value in edits:
        data[min(int(where * len(data)), len(data) - 1)] = value
    if cut is not None:
        data = data[:int(cut * len(data))]
    path = str(tmp_path / f"m.{kind}")
    with open(path, "wb") as f:
        f.write(bytes(data))
    _attempt(lambda: keras.models.load_model(path))


@FUZZ
@given(data=st.data())
def test_mutated_config(tmp_path, valid, data):
    config = valid["config"]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(config)))
        config = _mutate(config, path, data.draw(_replacement))
    members = dict(valid["members"])
    members["config.json"] = json.dumps(config).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    target = tmp_path / "m.keras"
    target.write_bytes(buf.getvalue())
    _attempt(lambda: keras.models.load_model(str(target)))


@FUZZ
@given(data=st.data())
def test_mutated_legacy_config(tmp_path, valid, data):
    path = tmp_path / "m.h5"
    path.write_bytes(valid["h5"])
    with h5py.File(path, "a") as f:
        config = json.loads(f.attrs["model_config"])
        training = json.loads(f.attrs["training_config"])
        which = data.draw(st.sampled_from(["model_config", "training_config"]))
        tree = config if which == "model_config" else training
        for _ in range(data.draw(st.integers(1, 3))):
            tree = _mutate(tree, data.draw(st.sampled_from(_paths(tree))), data.draw(_replacement))
        f.attrs[which] = json.dumps(tree)
    _attempt(lambda: keras.models.load_model(str(path)))


def test_fuzz_inputs_reach_the_loaders(valid, tmp_path):
    """Sanity: the unmutated inputs load, so the fuzz tests exercise real parsing rather than failing early."""
    for kind in ("keras", "h5"):
        path = tmp_path / f"m.{kind}"
        path.write_bytes(valid[kind])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = keras.models.load_model(str(path))
        assert [type(layer).__name__ for layer in model.layers] == ["Dense", "BatchNormalization", "Dense"]
    assert os.path.exists(tmp_path / "m.keras")
