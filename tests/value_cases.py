"""Case tables of small programs run by real TF (to record goldens) and by tensorlet (to check against them).

A table is a dict ``{name: fn}`` where ``fn(tf)`` returns a value (tensor, RaggedTensor, SparseTensor, Python
value, or a tuple/list/dict of them).  :func:`encode` turns the value into JSON the same way for both: dtype,
shape, values and the printed form; an exception becomes ``{"error": <class name>}``.  Recorders live in
``tools/record_tf_goldens/`` and call :func:`record`; tests call :func:`check`.
"""

from __future__ import annotations

import json
import os

import numpy as np

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")


def _plain(x):
    if isinstance(x, bytes):
        return {"b": x.decode("latin-1")}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, float) and (np.isnan(x) or np.isinf(x)):
        return {"f": repr(x)}
    if isinstance(x, complex):
        return {"re": _plain(x.real), "im": _plain(x.imag)}
    if isinstance(x, np.generic):
        return _plain(x.item())
    return x


def _dtype(x):
    return getattr(x.dtype, "name", str(x.dtype))


def encode(v, with_repr=True):
    cls = type(v).__name__
    if cls == "RaggedTensor":
        out = {"kind": "ragged", "dtype": _dtype(v), "splits_dtype": v.row_splits.dtype.name,
               "ragged_rank": int(v.ragged_rank), "shape": v.shape.as_list() if v.shape.rank is not None else None,
               "list": _plain(v.to_list())}
        if with_repr:
            out["repr"] = repr(v)
        return out
    if cls == "IndexedSlices":  # a gradient: compare its dense value
        idx = np.asarray(v.indices.numpy())
        vals = np.asarray(v.values.numpy())
        dense = np.zeros([int(d) for d in np.asarray(v.dense_shape.numpy())], vals.dtype)
        np.add.at(dense, idx, vals)
        return {"kind": "tensor", "dtype": vals.dtype.name, "shape": list(dense.shape), "value": _plain(dense.tolist())}
    if cls == "SparseTensor":
        return {"kind": "sparse", "indices": encode(v.indices, False), "values": encode(v.values, False),
                "dense_shape": encode(v.dense_shape, False)}
    if hasattr(v, "numpy") and hasattr(v, "dtype") and hasattr(v, "shape"):
        a = np.asarray(v.numpy())
        out = {"kind": "tensor", "dtype": _dtype(v), "shape": list(a.shape), "value": _plain(a.tolist())}
        return out
    if isinstance(v, dict):
        return {"kind": "dict", "items": {str(k): encode(x, with_repr) for k, x in v.items()}}
    if isinstance(v, (list, tuple)) and any(hasattr(x, "dtype") for x in v):
        return {"kind": "seq", "items": [encode(x, with_repr) for x in v]}
    if isinstance(v, np.ndarray):
        return {"kind": "array", "dtype": v.dtype.name, "value": _plain(v.tolist())}
    if isinstance(v, (str, int, float, bool, bytes, list, tuple)) or v is None:
        return {"kind": "py", "value": _plain(v)}
    return {"kind": "repr", "value": repr(v)}


def run(tf, fn):
    try:
        return encode(fn(tf))
    except Exception as e:  # noqa: BLE001  (the error class is the recorded result)
        return {"error": type(e).__name__}


def record(cases, out_name):
    """Run every case with real TF (``import tensorflow``); write ``tests/goldens/<out_name>``."""
    import tensorflow as tf

    out = {name: run(tf, fn) for name, fn in cases.items()}
    path = os.path.join(GOLDENS, out_name)
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {len(out)} cases to {path}")


def load(out_name):
    with open(os.path.join(GOLDENS, out_name)) as f:
        return json.load(f)


def _close(a, b, where):
    if isinstance(a, dict) and isinstance(b, dict) and "re" in b:
        assert isinstance(a, dict) and "re" in a, f"{where}: {a!r} vs {b!r}"
        _close(a["re"], b["re"], where + ".re")
        _close(a["im"], b["im"], where + ".im")
        return
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), f"{where}: {a!r} vs {b!r}"
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def compare(got, want, where, check_repr=True):
    """``got`` and ``want`` are :func:`encode` outputs; floats compared with a tolerance."""
    if "error" in want:
        assert got.get("error") == want["error"], f"{where}: TF raises {want['error']}, got {got}"
        return
    assert "error" not in got, f"{where}: raised {got['error']}, TF gives {want}"
    assert got.keys() <= want.keys() | {"repr"} and want.keys() - {"repr"} <= got.keys(), \
        f"{where}: {sorted(got)} vs {sorted(want)}"
    for k, w in want.items():
        if k == "repr" and not check_repr:
            continue
        g = got[k]
        if k in ("items",) and isinstance(w, dict):
            assert g.keys() == w.keys(), where
            for kk in w:
                compare(g[kk], w[kk], f"{where}.{kk}", check_repr)
        elif k == "items":
            assert len(g) == len(w), where
            for i, (gg, ww) in enumerate(zip(g, w)):
                compare(gg, ww, f"{where}[{i}]", check_repr)
        elif k in ("indices", "values", "dense_shape"):
            compare(g, w, f"{where}.{k}", check_repr)
        elif k in ("value", "list"):
            _close(g, w, f"{where}.{k}")
        else:
            assert g == w, f"{where}.{k}: {g!r} != TF's {w!r}"
