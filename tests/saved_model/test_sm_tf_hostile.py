"""Loading untrusted SavedModels in TF's format fails closed: corrupt, truncated, oversized, cyclic or unknown
content raises a tf.errors error (DataLossError for damaged files; an OSError and ValueError as well), never a
raw traceback or a hang, and no code from the file runs."""

import builtins
import importlib
import marshal
import os
import pickle
import shutil
import sys
import time

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import SavedModelError


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
    _check(tf.saved_model.load(path))  # warm: every module the loader imports lazily is loaded now
    return path


def _check(loaded):
    np.testing.assert_allclose(loaded.f(tf.constant([1.0, 1.0]), tf.constant(2)).numpy(), [4.0, 2.0])


def _trap(*a, **k):
    raise AssertionError("code execution primitive called while loading a SavedModel")


_REAL_IMPORT = builtins.__import__


def _import_loaded_only(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
    full = name
    if level:
        pkg = (globals or {}).get("__package__") or ""
        base = pkg.rsplit(".", level - 1)[0] if level > 1 else pkg
        full = f"{base}.{name}" if name else base
    if full not in sys.modules:
        raise AssertionError(f"module {full} imported while loading a SavedModel")
    return _REAL_IMPORT(name, globals, locals, fromlist, level)


_TRAPS = [(pickle, "loads", _trap), (pickle, "load", _trap), (marshal, "loads", _trap), (builtins, "eval", _trap),
          (builtins, "exec", _trap), (builtins, "compile", _trap), (importlib, "import_module", _trap),
          (builtins, "__import__", _import_loaded_only)]


def load(path):
    saved = [(m, n, getattr(m, n)) for m, n, _ in _TRAPS]
    for m, n, fn in _TRAPS:
        setattr(m, n, fn)
    try:
        return tf.saved_model.load(path)
    finally:
        for m, n, orig in saved:
            setattr(m, n, orig)


def _copy(tmp_path, good, name="copy"):
    dst = tmp_path / name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(good, dst)
    return str(dst)


def _pb(path):
    sm = P.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    return sm


def _write_pb(path, sm=None, raw=None):
    with open(os.path.join(path, "saved_model.pb"), "wb") as f:
        f.write(raw if raw is not None else sm.SerializeToString())
    return path


def _fails_closed(path, match=None):
    with pytest.raises(SavedModelError, match=match) as info:
        load(path)
    e = info.value
    assert isinstance(e, tf.errors.OpError) and isinstance(e, OSError) and isinstance(e, ValueError), type(e)
    return e


def test_good_model_loads_without_running_file_code(good):
    _check(load(good))


def test_random_and_truncated_bytes(tmp_path, good):
    path = _copy(tmp_path, good)
    raw = open(os.path.join(good, "saved_model.pb"), "rb").read()
    e = _fails_closed(_write_pb(path, raw=os.urandom(300)))
    assert isinstance(e, tf.errors.DataLossError)
    for cut in (1, 7, len(raw) // 3, len(raw) // 2, len(raw) - 3):
        _write_pb(path, raw=raw[:cut])
        try:
            _check(load(path))
        except SavedModelError as err:
            assert isinstance(err, tf.errors.OpError)
    _fails_closed(_write_pb(path, raw=b"\x12" + b"\xff" * 9), "Cannot parse file")
    _fails_closed(_write_pb(path, raw=b""), "no MetaGraphDef")


def test_byte_flips_fail_closed_and_fast(tmp_path, good):
    raw = open(os.path.join(good, "saved_model.pb"), "rb").read()
    path = _copy(tmp_path, good)
    rng = np.random.default_rng(7)
    start, outcomes = time.monotonic(), {"loaded": 0, "refused": 0}
    for _ in range(120):
        buf = bytearray(raw)
        for pos in rng.integers(0, len(buf), size=int(rng.integers(1, 4))):
            buf[pos] = int(rng.integers(0, 256))
        _write_pb(path, raw=bytes(buf))
        try:
            loaded = load(path)
        except SavedModelError as e:
            assert isinstance(e, tf.errors.OpError), type(e)
            outcomes["refused"] += 1
        except RuntimeError as e:  # a flipped tag: TF's "MetaGraphDef associated with tags"
            assert "MetaGraphDef" in str(e) or "tags" in str(e)
            outcomes["refused"] += 1
        else:
            outcomes["loaded"] += 1
            try:
                loaded.f(tf.constant([1.0, 1.0]), tf.constant(2))
            except (tf.errors.OpError, TypeError, ValueError, AttributeError):
                pass  # a changed function may be called differently; it still fails as an error
    assert outcomes["refused"] > 10
    assert time.monotonic() - start < 120


def test_corrupt_variables_are_data_loss(tmp_path, good):
    path = _copy(tmp_path, good)
    data = os.path.join(path, "variables", "variables.data-00000-of-00001")
    with open(data, "r+b") as f:
        f.seek(2)
        b = f.read(1)
        f.seek(2)
        f.write(bytes([b[0] ^ 0xFF]))
    _fails_closed(path, "variables checkpoint")
    path = _copy(tmp_path, good, "noindex")
    os.remove(os.path.join(path, "variables", "variables.index"))
    _fails_closed(path, "variables checkpoint")
    path = _copy(tmp_path, good, "junkindex")
    with open(os.path.join(path, "variables", "variables.index"), "wb") as f:
        f.write(os.urandom(64))
    _fails_closed(path)


def test_huge_declared_const_is_refused_before_allocating(tmp_path, good):
    path = _copy(tmp_path, good)
    sm = _pb(path)
    fd = next(f for f in sm.meta_graphs[0].graph_def.library.function if f.signature.name.startswith("__inference_f"))
    const = next(n for n in fd.node_def if n.op == "Const")
    t = const.attr["value"].tensor
    t.ClearField("tensor_content")
    del t.tensor_shape.dim[:]
    t.tensor_shape.dim.add(size=1 << 40)
    t.float_val.append(1.0)
    _fails_closed(_write_pb(path, sm), "too large")
    t.ClearField("float_val")
    t.tensor_content = b"\0" * 12
    _fails_closed(_write_pb(path, sm), "does not match shape")


def _lib(sm):
    return sm.meta_graphs[0].graph_def.library


def test_absurd_libraries_and_deep_calls_are_refused(tmp_path, good):
    path = _copy(tmp_path, good)
    sm = _pb(path)
    for i in range(20001):
        _lib(sm).function.add().signature.name = f"filler_{i}"
    _fails_closed(_write_pb(path, sm), "functions in the library")
    sm = _pb(path := _copy(tmp_path, good))
    fd = next(f for f in _lib(sm).function if f.signature.name.startswith("__inference_f"))
    chain = [f"chain_{i}" for i in range(100)]
    for i, name in enumerate(chain):
        f = _lib(sm).function.add()
        f.signature.name = name
        f.signature.output_arg.add(name="out", type=1)
        if i + 1 < len(chain):
            c = f.node_def.add(name="call", op="PartitionedCall")
            c.attr["f"].func.name = chain[i + 1]
            c.attr["Tout"].list.type.append(1)
            c.attr["Tin"].list.SetInParent()
            f.ret["out"] = "call:output:0"
        else:
            c = f.node_def.add(name="c", op="Const")
            c.attr["dtype"].type = 1
            c.attr["value"].tensor.dtype = 1
            c.attr["value"].tensor.float_val.append(1.0)
            c.attr["value"].tensor.tensor_shape.SetInParent()
            f.ret["out"] = "c:output:0"
    c = fd.node_def.add(name="deep", op="PartitionedCall")
    c.attr["f"].func.name = chain[0]
    c.attr["Tout"].list.type.append(1)
    c.attr["Tin"].list.SetInParent()
    fd.node_def[-2].input.append("^deep")
    _fails_closed(_write_pb(path, sm), "nested deeper")


def test_node_cycles_and_dangling_inputs(tmp_path, good):
    path = _copy(tmp_path, good)
    sm = _pb(path)
    fd = next(f for f in _lib(sm).function if f.signature.name.startswith("__inference_f"))
    a = fd.node_def.add(name="cyc_a", op="Identity", input=["cyc_b:output:0"])
    a.attr["T"].type = 1
    b = fd.node_def.add(name="cyc_b", op="Identity", input=["cyc_a:output:0"])
    b.attr["T"].type = 1
    fd.node_def[0].input.append("^cyc_a")
    _fails_closed(_write_pb(path, sm), "cycle")
    sm = _pb(path)
    fd = next(f for f in _lib(sm).function if f.signature.name.startswith("__inference_f"))
    fd.node_def[0].input.append("nowhere:output:0")
    _fails_closed(_write_pb(path, sm), "names nothing")


def test_object_graph_references_are_checked(tmp_path, good):
    path = _copy(tmp_path, good)
    sm = _pb(path)
    og = sm.meta_graphs[0].object_graph_def
    og.nodes[0].children.add(node_id=10_000, local_name="ghost")
    _fails_closed(_write_pb(path, sm), "out of range")
    sm = _pb(path)
    og = sm.meta_graphs[0].object_graph_def
    name = next(k for k in og.concrete_functions if k.startswith("__inference_f"))
    og.concrete_functions[name].bound_inputs[:] = [0]
    _fails_closed(_write_pb(path, sm), "neither a variable nor an asset")
    sm = _pb(path)
    sm.meta_graphs[0].asset_file_def.add(filename="../../etc/passwd")
    og = sm.meta_graphs[0].object_graph_def
    og.nodes.add().asset.asset_file_def_index = 0
    _fails_closed(_write_pb(path, sm), "bad file name")


def test_pickle_payload_stays_data(tmp_path, good):
    path = _copy(tmp_path, good)
    sm = _pb(path)
    fd = next(f for f in _lib(sm).function if f.signature.name.startswith("__inference_f"))
    c = fd.node_def.add(name="payload", op="Const")
    c.attr["dtype"].type = 7  # DT_STRING
    c.attr["value"].tensor.dtype = 7
    c.attr["value"].tensor.tensor_shape.SetInParent()
    c.attr["value"].tensor.string_val.append(pickle.dumps(os.system))
    fd.node_def[0].input.append("^payload")
    _check(load(_write_pb(path, sm)))
