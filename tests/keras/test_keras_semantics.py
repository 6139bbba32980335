"""Keras 3 semantics (tests/keras/keras_semantics_cases.py) against results recorded from Keras 3.15 / TF 2.21
by tools/record_tf_goldens/keras_semantics.py."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_semantics_cases as C  # noqa: E402

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_semantics.json")))


def _close(got, exp, where):
    if isinstance(exp, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(exp), f"{where}: keys {sorted(got)} != {sorted(exp)}"
        for k in exp:
            _close(got[k], exp[k], f"{where}.{k}")
    elif isinstance(exp, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(exp), f"{where}: {got} != {exp}"
        for i, (g, e) in enumerate(zip(got, exp)):
            _close(g, e, f"{where}[{i}]")
    elif isinstance(exp, float):
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-6, err_msg=where)
    else:
        assert got == exp, f"{where}: {got!r} != {exp!r}"


@pytest.mark.parametrize("name", ["tracking", "gan_train_step_without_call", "functional_input_dtype",
                                  "load_custom_layer_without_name", "constructor_errors"])
def test_matches_keras(name):
    tf.keras.backend.clear_session()
    _close(C.CASES[name](tf), GOLDEN[name], name)


def test_automatic_layer_names_match_keras():
    """Every layer class Keras names (golden) that tensorlet has gets Keras's automatic names."""
    got = C.layer_names(tf)
    exp = GOLDEN["layer_names"]
    have = [n for n in exp if isinstance(getattr(tf.keras.layers, n, None), type)]
    assert len(have) > 60
    wrong = {n: (got.get(n), exp[n]) for n in have if got.get(n) != exp[n]}
    assert not wrong


def test_snake_case_of_every_keras_layer_class():
    """Keras's naming rule applied to every class name Keras exports (also those tensorlet does not have yet)."""
    from tensorlet._src.keras.backend import to_snake_case

    aliases = {"GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
               "GlobalMaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "MaxPool1D", "MaxPool2D", "MaxPool3D"}
    for cls_name, (first, _) in GOLDEN["layer_names"].items():
        if cls_name not in aliases:
            assert to_snake_case(cls_name) == first, cls_name


def test_loss_and_metric_function_names():
    """Every function name Keras 3 or TF's tf.keras exports under keras.losses / keras.metrics exists, as the same
    function (``__name__``); tensorlet's one namespace holds the union."""
    exp = GOLDEN["function_names"]
    got = C.function_names(tf)
    for key in exp:
        if not key.startswith("keras:"):
            continue
        name = key.split(":", 1)[1]
        want = exp[key] or exp["tf.keras:" + name]
        assert got[key] == want, (name, got[key], exp[key], exp["tf.keras:" + name])
