"""Comparing tensorlet's gradients with gradients recorded from real TF (tests/goldens/*.json)."""

from __future__ import annotations

import numpy as np

import tensorlet as tf


def compare_gradients(got, expected, where, tol, default_tol):
    """``got``: a list of gradients (or None); ``expected``: the recorded entries (dtype, shape, re[, im]) or None.

    ``tol`` maps dtype names to (rtol, atol); other dtypes use ``default_tol``.
    """
    if expected is None:
        assert got is None, f"{where}: expected no result"
        return
    assert len(got) == len(expected), f"{where}: {len(got)} gradients, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        w = f"{where}[{i}]"
        if e is None:
            assert g is None, f"{w}: TF gives None, got {g!r}"
            continue
        assert g is not None, f"{w}: TF gives a gradient, got None"
        a = np.asarray(tf.convert_to_tensor(g).numpy())
        assert a.dtype.name == e["dtype"], f"{w}: dtype {a.dtype.name}, expected {e['dtype']}"
        assert list(a.shape) == e["shape"], f"{w}: shape {a.shape}, expected {e['shape']}"
        rtol, atol = tol.get(e["dtype"], default_tol)
        # real and imaginary parts separately, so that inf+nanj is not taken for nan+nanj
        np.testing.assert_allclose(np.real(a).ravel(), e["re"], rtol=rtol, atol=atol, equal_nan=True, err_msg=w)
        if "im" in e:
            np.testing.assert_allclose(np.imag(a).ravel(), e["im"], rtol=rtol, atol=atol, equal_nan=True, err_msg=w)
