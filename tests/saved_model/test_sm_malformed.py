"""Loading untrusted SavedModels fails closed: malformed, truncated, oversized or unknown content raises
SavedModelError (an OSError and ValueError) before anything runs, and no code from the file is executed."""

import builtins
import copy
import importlib
import json
import marshal
import os
import pickle
import shutil
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorlet as tf
from tensorlet._src.saved_model.codec import SavedModelError
from tensorlet._src.saved_model.graph_io import lookup_op


class Small(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1.0, 2.0])

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="x"), tf.TensorSpec([], tf.int32)])
    def f(self, x, n):
        i = tf.constant(0)
        while i < n:
            x = x * self.w
            i += 1
        return x[::-1] + tf.constant(np.arange(2, dtype=np.float32))


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("good") / "sm")
    tf.saved_model.save(Small(), path)
    lookup_op("NoSuchOp")  # imports tensorlet's io op modules (op lookup tables) before the traps are set
    tf.saved_model.load(path)  # warm: everything tensorlet's loader imports lazily is loaded now
    with open(os.path.join(path, "saved_model.json")) as f:
        return path, json.load(f)


def _trap(*a, **k):
    raise AssertionError("code execution primitive called while loading a SavedModel")


_REAL_IMPORT = builtins.__import__


def _import_loaded_only(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
    """``import`` of modules that are already loaded only: loading a file never brings in new code."""
    full = name
    if level:
        pkg = (globals or {}).get("__package__") or ""
        base = pkg.rsplit(".", level - 1)[0] if level > 1 else pkg
        full = f"{base}.{name}" if name else base
    if full not in sys.modules:
        raise AssertionError(f"module {full} imported while loading a SavedModel")
    for item in fromlist or ():
        if not hasattr(sys.modules[full], item) and f"{full}.{item}" not in sys.modules:
            raise AssertionError(f"module {full}.{item} imported while loading a SavedModel")
    return _REAL_IMPORT(name, globals, locals, fromlist, level)


_TRAPS = [(pickle, "loads", _trap), (pickle, "load", _trap), (marshal, "loads", _trap), (builtins, "eval", _trap),
          (builtins, "exec", _trap), (builtins, "compile", _trap), (importlib, "import_module", _trap),
          (builtins, "__import__", _import_loaded_only)]


def load(path):
    """``tf.saved_model.load`` with every code-execution primitive turned into an error and imports limited to
    modules already loaded (the ``good`` fixture loads a model once beforehand)."""
    saved = [(m, n, getattr(m, n)) for m, n, _ in _TRAPS]
    for m, n, fn in _TRAPS:
        setattr(m, n, fn)
    try:
        return tf.saved_model.load(path)
    finally:
        for m, n, orig in saved:
            setattr(m, n, orig)


def _write(tmp_path, good, doc=None, raw=None):
    path, _ = good
    dst = tmp_path / "copy"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(path, dst)
    with open(dst / "saved_model.json", "wb") as f:
        f.write(raw if raw is not None else json.dumps(doc).encode())
    return str(dst)


def _expect_error(path, match=None):
    with pytest.raises(SavedModelError, match=match) as info:
        load(path)
    assert isinstance(info.value, OSError) and isinstance(info.value, ValueError)
    return info.value


def _node(doc, op_name):
    for g in doc["graphs"]:
        for n in g["nodes"]:
            if n["op"] == op_name:
                return n
    raise LookupError(op_name)


def test_good_model_loads(good):
    path, _ = good
    loaded = load(path)
    np.testing.assert_allclose(loaded.f(tf.constant([1.0, 1.0]), tf.constant(2)).numpy(), [4.0, 2.0])


def test_random_bytes_and_truncated_json(tmp_path, good):
    _expect_error(_write(tmp_path, good, raw=os.urandom(300)), "Cannot parse file")
    text = json.dumps(good[1]).encode()
    _expect_error(_write(tmp_path, good, raw=text[:len(text) // 2]), "Cannot parse file")
    _expect_error(_write(tmp_path, good, raw=b"[" * 200000 + b"]" * 200000), "Cannot parse file|not a tensorlet")
    _expect_error(_write(tmp_path, good, raw=b'{"format": "tensorlet-saved-model", "version": 99}'),
                  "unsupported SavedModel format version 99")
    _expect_error(_write(tmp_path, good, raw=b'{"format": "tensorlet-saved-model", "version": NaN}'),
                  "Cannot parse file")


def test_unknown_and_python_ops_are_refused(tmp_path, good):
    doc = copy.deepcopy(good[1])
    _node(doc, "MatMul" if any(n["op"] == "MatMul" for g in doc["graphs"] for n in g["nodes"]) else "Mul")["op"] = \
        "os.system"
    _expect_error(_write(tmp_path, good, doc), "Op type not registered 'os.system'")
    doc = copy.deepcopy(good[1])
    node = _node(doc, "Mul")
    node["op"] = "EagerPyFunc"
    node["attrs"] = {"func": {"t": "bytes", "v": "Y29zCnN5c3RlbQo="}, "touts": [], "numpy_args": False}
    _expect_error(_write(tmp_path, good, doc), "calls Python code and is never loaded")


def test_unknown_value_tags_and_bad_references(tmp_path, good):
    doc = copy.deepcopy(good[1])
    _node(doc, "StridedSlice")["attrs"]["key"] = {"t": "pickle", "v": "gASVAAAAAAAAAAA="}
    _expect_error(_write(tmp_path, good, doc), "unknown value type 'pickle'")
    doc = copy.deepcopy(good[1])
    _node(doc, "While")["attrs"]["body_graph"] = {"t": "graph", "v": 0}  # a graph containing itself
    _expect_error(_write(tmp_path, good, doc), "contains itself")
    doc = copy.deepcopy(good[1])
    nodes = doc["graphs"][0]["nodes"]
    nodes[-1]["in"] = [[len(nodes) - 1, 0]]  # an input that is not an earlier node
    _expect_error(_write(tmp_path, good, doc), "does not name an output of an earlier node")
    doc = copy.deepcopy(good[1])
    doc["objects"][0]["children"].append(["__class__", 1])
    _expect_error(_write(tmp_path, good, doc), "refusing attribute name")
    doc = copy.deepcopy(good[1])
    doc["assets"] = [{"filename": "../../etc/passwd"}]
    _expect_error(_write(tmp_path, good, doc), "bad file name")


def test_huge_declared_sizes_fail_before_allocating(tmp_path, good):
    doc = copy.deepcopy(good[1])
    const = next(n for g in doc["graphs"] for n in g["nodes"] if n["op"] == "Const"
                 and n["attrs"]["value"]["v"].get("data") is not None)
    const["attrs"]["value"]["v"]["shape"] = [1 << 40, 1 << 20]
    _expect_error(_write(tmp_path, good, doc), "array data has .* bytes")
    doc = copy.deepcopy(good[1])
    doc["variables"][0]["shape"] = [1 << 61]
    _expect_error(_write(tmp_path, good, doc), "is declared")
    # a checkpoint index entry claiming an enormous tensor
    path = _write(tmp_path, good, good[1])
    index = os.path.join(path, "variables", "variables.index")
    with open(index) as f:
        idx = json.load(f)
    key = next(k for k in idx["tensors"] if k.endswith("VARIABLE_VALUE"))
    idx["tensors"][key]["size"] = 1 << 50
    with open(index, "w") as f:
        json.dump(idx, f)
    _expect_error(path, "does not belong to this saved_model.json|corrupt variables checkpoint")
    os.truncate(os.path.join(path, "variables", "variables.data-00000-of-00001"), 3)
    _expect_error(path)


def test_pickle_payload_stays_data(tmp_path, good):
    """Bytes in the file are only ever data: a pickle that would create a file is returned as a string."""
    canary = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(canary), "w"))

    payload = pickle.dumps(Evil())
    doc = copy.deepcopy(good[1])
    doc["graphs"][0]["nodes"].append({"op": "Const", "name": "evil", "in": [], "out": [["string", []]],
                                      "attrs": {"value": {"t": "array", "v": {"dtype": "string", "shape": [],
                                                                              "strings": [__import__("base64")
                                                                                          .b64encode(payload)
                                                                                          .decode()]}}}})
    g = doc["graphs"][0]
    g["outputs"] = [[len(g["nodes"]) - 1, 0]]
    doc["functions"][0]["outputs"] = {"t": "output", "v": 0}
    doc["signatures"] = {}
    loaded = load(_write(tmp_path, good, doc))
    assert loaded.f(tf.constant([1.0, 1.0]), tf.constant(1)).numpy() == payload
    assert not canary.exists()


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 1 << 62) | st.floats(allow_nan=False)
                     | st.text(max_size=8), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c,
                                                                                                   max_size=3),
                     max_leaves=6)


def _mutate(doc, steps, value):
    """Replace the value at a path chosen by ``steps`` (indices into lists/dict keys) with ``value``."""
    doc = copy.deepcopy(doc)
    parent, key, cur = None, None, doc
    for s in steps:
        if isinstance(cur, list) and cur:
            parent, key, cur = cur, s % len(cur), cur[s % len(cur)]
        elif isinstance(cur, dict) and cur:
            k = sorted(cur)[s % len(cur)]
            parent, key, cur = cur, k, cur[k]
        else:
            break
    if parent is None:
        return value
    parent[key] = value
    return doc


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.integers(0, 1000), min_size=1, max_size=9), value=_JSON)
def test_fuzz_json_mutations_fail_closed(tmp_path, good, steps, value):
    path = _write(tmp_path, good, _mutate(good[1], steps, value))
    try:
        load(path)
    except SavedModelError:
        pass


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 10 ** 6), flips=st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(1, 255)),
                                                    max_size=4))
def test_fuzz_byte_corruption_fails_closed(tmp_path, good, cut, flips):
    raw = bytearray(json.dumps(good[1]).encode())
    for pos, x in flips:
        raw[pos % len(raw)] ^= x
    raw = bytes(raw[:max(1, cut % (len(raw) + 1))])
    try:
        load(_write(tmp_path, good, raw=raw))
    except SavedModelError:
        pass
