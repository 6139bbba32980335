"""How the saved-dataset goldens write values and element specs: shared by tools/record_tf_goldens/data_save.py
(run with real TF) and tests/data/test_snapshot.py.  Plain NumPy/Python: no TF, no tensorlet."""

import base64

import numpy as np


def plain(v):
    """A component's value as JSON data (bytes as base64, complex as [re, im])."""
    if isinstance(v, bytes):
        return {"b64": base64.b64encode(v).decode()}
    if isinstance(v, np.ndarray):
        return plain(v.tolist())
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return [plain(x) for x in v]
    if isinstance(v, np.generic):
        return plain(v.item())
    if isinstance(v, complex):
        return {"complex": [v.real, v.imag]}
    return v


def spec_repr(s):
    """repr with dict keys sorted (a dict's order after TF's load is the protobuf map's, which is random)."""
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k!r}: {spec_repr(s[k])}" for k in sorted(s)) + "}"
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s).__name__ + "(" + ", ".join(f"{f}={spec_repr(v)}" for f, v in zip(s._fields, s)) + ")"
    if isinstance(s, (tuple, list)):
        inner = ", ".join(spec_repr(v) for v in s) + ("," if isinstance(s, tuple) and len(s) == 1 else "")
        return ("(" + inner + ")") if isinstance(s, tuple) else ("[" + inner + "]")
    return repr(s)
