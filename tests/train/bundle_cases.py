"""Checkpoint contents written both by real TF (tools/record_tf_goldens/tf_bundle.py) and by tensorlet
(test_tf_bundle.py), whose files must then be byte-identical.  Plain NumPy: no tensorlet, no TF."""

import hashlib

import numpy as np

# name -> (files kept in tests/goldens, description)
CASES = {
    "dtypes": (True, "every dtype a checkpoint holds, scalars, empty tensors, strings of all lengths"),
    "many_keys": (False, "12000 keys: an index of several 256 KiB blocks"),
    "long_key": (False, "a key longer than two blocks (TF flushes the block before adding it)"),
}


def case_tensors(name):
    """The ``{key: array}`` of a case, in the order both writers add them."""
    if name == "dtypes":
        rng = np.random.default_rng(3)
        out = {}
        for dt in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "complex64", "complex128", "bool"):
            a = rng.standard_normal((2, 3)) * 100
            if dt == "bool":
                a = a > 0
            elif dt.startswith("complex"):
                a = a + 1j * a[::-1]
            out[f"t/{dt}"] = np.asarray(a).astype(dt)
        out["scalar"] = np.float32(1.25)
        out["empty"] = np.zeros((0, 4), np.float32)
        out["s/scalar"] = np.array(b"hello", object)
        out["s/vec"] = np.array([b"", b"a", b"x" * 200, bytes(range(256)) * 70], object)
        out["s/empty"] = np.zeros((0,), object)
        out["s/matrix"] = np.array([[b"ab", b"c"], [b"", b"def"]], object)
        out["a/unicode \u00e9\u4e2d"] = np.arange(3, dtype=np.int32)
        return out
    if name == "many_keys":
        return {f"{hashlib.sha1(str(i).encode()).hexdigest()}/kernel": np.float32(i) for i in range(12000)}
    if name == "long_key":
        return {"a": np.int32(1), "b" * 600000: np.arange(5, dtype=np.float32), "c": np.int32(3)}
    raise KeyError(name)
