"""Loads tests/keras/_k2_programs.py and the K2 golden files for the Keras K2 tests."""

import functools
import importlib.util
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_k2_programs", os.path.join(HERE, "_k2_programs.py"))
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)


@functools.cache
def golden(name):
    with open(os.path.join(HERE, "..", "goldens", name)) as f:
        return json.load(f)


@functools.cache
def basics():
    import tensorlet as tf

    return P.run_basics(tf)


def close(a, b, rtol=2e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b, "float64"), rtol=rtol, atol=atol)
