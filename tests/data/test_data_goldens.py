"""tf.data against results recorded from real TF 2.21 (tools/record_tf_goldens/data.py -> tests/goldens/data.json):
element orders (shuffle/random/sample seeds, interleave, windows, buckets), reprs, cardinalities, element specs and
error classes/messages."""

from __future__ import annotations

import json
import os
import re

import data_cases
import pytest

import tensorlet as tf

GOLDENS = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "data.json")))


@pytest.fixture(scope="module")
def results():
    out = {}
    for name in ("shuffle", "orders", "files"):
        out[name] = data_cases.CASES[name](tf)
    return out


@pytest.mark.parametrize("key", sorted(GOLDENS["shuffle"]))
def test_shuffle_and_seeds(results, key):
    assert results["shuffle"][key] == GOLDENS["shuffle"][key]


@pytest.mark.parametrize("key", sorted(GOLDENS["orders"]))
def test_orders(results, key):
    assert results["orders"][key] == GOLDENS["orders"][key]


@pytest.mark.parametrize("key", sorted(GOLDENS["files"]))
def test_files(results, key):
    assert results["files"][key] == GOLDENS["files"][key]


@pytest.fixture(scope="module")
def specs():
    return data_cases.CASES["specs"](tf)


@pytest.mark.parametrize("key", sorted(GOLDENS["specs"]))
def test_repr_cardinality_spec(specs, key):
    got, exp = specs[key], GOLDENS["specs"][key]
    assert got[1] == exp[1], f"cardinality {got[1]} != {exp[1]}"
    assert got[2] == exp[2]
    assert got[0] == exp[0]


def _core(msg):
    msg = re.sub(r"^\{\{function_node [^}]*\}\} ", "", msg)
    return re.sub(r" \[Op:\w+\]( name: )?$", "", msg).strip()


@pytest.fixture(scope="module")
def errs():
    return data_cases.CASES["errors"](tf)


@pytest.mark.parametrize("key", sorted(GOLDENS["errors"]))
def test_errors(errs, key):
    got, exp = errs[key], GOLDENS["errors"][key]
    assert got is not None, f"expected {exp}"
    assert got[0] == exp[0]
    assert _core(exp[1]) in got[1], f"{got[1]!r} does not contain {_core(exp[1])!r}"
