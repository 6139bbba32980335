"""keras.ops results (dtype, shape, values) equal Keras 3 on TensorFlow (goldens recorded by
tools/record_tf_goldens/keras_ops.py over tests/keras/keras_ops_cases.py); a subset also inside tf.function and
through GradientTape."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_ops_cases as K  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_ops.json")) as f:
    GOLD = json.load(f)

NAMES = [n for n in K.CASES if n in GOLD]


def _tol(dtype):
    return {"float16": 2e-3, "bfloat16": 2e-2, "float64": 1e-9}.get(dtype, 2e-5)


def check(got, want, name, atol_scale=1.0):
    if "seq" in want:
        assert isinstance(got, (list, tuple)), f"{name}: expected a sequence, got {type(got).__name__}"
        assert len(got) == len(want["seq"]), name
        for g, w in zip(got, want["seq"]):
            check(g, w, name, atol_scale)
        return
    if "py" in want:
        if isinstance(want["py"], list):
            assert list(got) == want["py"], name
        else:
            assert got == want["py"] or (hasattr(got, "numpy") and got.numpy() == want["py"]), (name, got, want)
        return
    a = np.asarray(got)
    dtype = getattr(getattr(got, "dtype", None), "name", None) or str(a.dtype)
    assert dtype == want["dtype"], f"{name}: dtype {dtype} != Keras's {want['dtype']}"
    assert list(a.shape) == want["shape"], f"{name}: shape {a.shape} != Keras's {want['shape']}"
    if "re" in want:
        ref = np.asarray(want["re"]) + 1j * np.asarray(want["im"])
    else:
        ref = np.asarray(want["values"], dtype=np.float64)
    tol = _tol(want["dtype"]) * atol_scale
    np.testing.assert_allclose(np.asarray(a, dtype=ref.dtype if "re" in want else np.float64), ref, rtol=tol,
                               atol=tol, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name):
    got = K.run(tf, keras.ops, K.CASES[name])
    check(got, GOLD[name]["out"], name)


TRACED = [n for n in K.GRAD if n in GOLD and "grads" in GOLD[n]]


@pytest.mark.parametrize("name", TRACED)
def test_inside_tf_function(name):
    got = K.run(tf, keras.ops, K.CASES[name], wrap=tf.function)
    check(got, GOLD[name]["out"], name)


@pytest.mark.parametrize("name", TRACED)
def test_gradients_match_keras(name):
    got = K.grads(tf, keras.ops, K.CASES[name])
    want = GOLD[name]["grads"]
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        if w is None:
            assert g is None or not np.any(g), name
            continue
        assert g is not None, f"{name}: no gradient where Keras has one"
        np.testing.assert_allclose(g, np.asarray(w), rtol=2e-4, atol=2e-4, err_msg=name)
