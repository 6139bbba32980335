"""Keras engine programs (tests/keras/engine_cases.py) against results recorded from Keras 3.15 / TF 2.21."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine_cases import CASES  # noqa: E402

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_engine.json")))


def _norm(x):
    """JSON round trip (tuples -> lists, numpy scalars -> Python)."""
    def conv(o):
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
        raise TypeError(type(o))

    return json.loads(json.dumps(x, default=conv))


def _compare(got, exp, where, rtol=1e-5, atol=1e-6):
    if isinstance(exp, dict) and set(exp) == {"shape", "dtype", "value"}:
        assert got["shape"] == exp["shape"], f"{where}: shape {got['shape']} != {exp['shape']}"
        assert got["dtype"] == exp["dtype"], f"{where}: dtype {got['dtype']} != {exp['dtype']}"
        np.testing.assert_allclose(got["value"], exp["value"], rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(exp, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(exp), f"{where}: keys {sorted(got)} != {sorted(exp)}"
        for k in exp:
            _compare(got[k], exp[k], f"{where}.{k}", rtol, atol)
    elif isinstance(exp, list):
        assert isinstance(got, list) and len(got) == len(exp), f"{where}: {got!r} != {exp!r}"
        for i, (g, e) in enumerate(zip(got, exp)):
            _compare(g, e, f"{where}[{i}]", rtol, atol)
    elif isinstance(exp, float):
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert got == exp, f"{where}:\n{got}\n!=\n{exp}"


@pytest.fixture(autouse=True)
def _columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    tf.keras.backend.clear_session()


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_case(name):
    got = _norm(CASES[name](tf))
    _compare(got, GOLDEN[name], name, rtol=2e-5, atol=2e-6)
