"""Keras losses (every reduction, sample weights, functions, logits carried by softmax/sigmoid outputs) against
values recorded from Keras 3 / TF 2.21 by tools/record_tf_goldens/keras_losses.py."""

import importlib.util
import json
import os

import numpy as np
import pytest

import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_k2_programs", os.path.join(HERE, "_k2_programs.py"))
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)
with open(os.path.join(HERE, "..", "goldens", "keras_losses.json")) as f:
    G = json.load(f)
GOT = {}


def got():
    if not GOT:
        GOT.update(P.run_losses(tf))
    return GOT


def close(a, b):
    if isinstance(b, str):
        assert a == b
        return
    np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b, "float64"), rtol=3e-6, atol=2e-6)


@pytest.mark.parametrize("i", range(len(P.LOSSES)), ids=[f"{n}-{kw}" for n, kw, _, _ in P.LOSSES])
def test_loss_classes(i):
    row, want = got()["classes"][i], G["classes"][i]
    assert sorted(row) == sorted(want)
    for key in want:
        close(row[key], want[key])


@pytest.mark.parametrize("name", P.FUNCTIONS)
def test_loss_functions(name):
    close(got()["functions"][name], G["functions"][name])


def test_softmax_and_sigmoid_outputs_use_their_logits():
    for key, value in G["activations"].items():
        close(got()["activations"][key], value)
    # the clipped path for plain probabilities: -log(epsilon) per sample
    assert abs(G["activations"]["cce_plain"] - 16.118095) < 1e-5
