"""Loading the goldens recorded from real TF by tools/record_tf_goldens/{tfrecord,image_pipeline}.py."""

from __future__ import annotations

import base64
import importlib.util
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "tests" / "goldens"
TFRECORD = GOLDENS / "tfrecord"


def load(name):
    with open(GOLDENS / name) as f:
        return json.load(f)


def recorder(name):
    """The recorder module (for its deterministic input builders; it imports TensorFlow only in main())."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "record_tf_goldens" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def b64(s: str) -> bytes:
    return base64.b64decode(s)


def array(e) -> np.ndarray:
    """A recorded dense value as a NumPy array (strings as bytes objects)."""
    if e["dtype"] == "string":
        a = np.empty(len(e["values"]), object)
        a[:] = [b64(v) for v in e["values"]]
        return a.reshape(e["shape"])
    if e["dtype"].startswith("complex"):
        return np.array([complex(*v) for v in e["values"]], e["dtype"]).reshape(e["shape"])
    dt = "float32" if e["dtype"] == "bfloat16" else e["dtype"]
    return np.array(e["values"], dt).reshape(e["shape"])


def assert_value(got, e, where="", atol=0.0, rtol=0.0):
    """``got`` (a tensor or SparseTensor) equals the recorded entry ``e`` (dtype, shape, values)."""
    if "sparse" in e:
        assert type(got).__name__ == "SparseTensor", f"{where}: expected a SparseTensor, got {type(got).__name__}"
        for part, sub in zip(("indices", "values", "dense_shape"), e["sparse"]):
            assert_value(getattr(got, part), sub, f"{where}.{part}", atol, rtol)
        return
    a = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    a = np.asarray(a)
    want = array(e)
    name = "string" if a.dtype == object else a.dtype.name
    assert name == e["dtype"], f"{where}: dtype {name}, expected {e['dtype']}"
    assert list(a.shape) == e["shape"], f"{where}: shape {a.shape}, expected {e['shape']}"
    if a.dtype == object:
        assert a.tolist() == want.tolist(), f"{where}: {a.tolist()} != {want.tolist()}"
    else:
        np.testing.assert_allclose(a.astype(np.float64), want.astype(np.float64), atol=atol, rtol=rtol,
                                   err_msg=where)
