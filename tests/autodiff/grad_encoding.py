"""Gradients as JSON for the golden files (framework-agnostic: used with real TF by the recorders and here)."""

import numpy as np


def encode(gs):
    """Gradients as JSON: null, or {"shape", "dtype", "re", "im"} (im only for complex)."""
    if gs is None:
        return None
    out = []
    for g in gs:
        if g is None:
            out.append(None)
            continue
        a = np.asarray(g.numpy() if hasattr(g, "numpy") else g)
        item = {"shape": list(a.shape), "dtype": a.dtype.name, "re": np.real(a).astype(np.float64).ravel().tolist()}
        if a.dtype.kind == "c":
            item["im"] = np.imag(a).astype(np.float64).ravel().tolist()
        out.append(item)
    return out
