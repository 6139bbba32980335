"""Optimizer steps, sparse (IndexedSlices) updates, schedules and loss scaling against Keras 3 (TF 2.21) goldens.

The programs are in tests/keras/_k2_programs.py; tools/record_tf_goldens/keras_optim.py ran them on real TF.
"""

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
with open(os.path.join(HERE, "..", "goldens", "keras_optim.json")) as f:
    G = json.load(f)

RTOL, ATOL = 2e-6, 1e-6


def close(a, b, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b, "float64"), rtol=rtol, atol=atol)


@pytest.mark.parametrize("i", range(len(P.OPTIMIZERS)), ids=[f"{n}-{kw}" for n, kw in P.OPTIMIZERS])
def test_dense_steps(i):
    name, kwargs = P.OPTIMIZERS[i]
    got, want = P.run_dense(tf, name, kwargs), G["dense"][i]
    for step_got, step_want in zip(got["trace"], want["trace"]):
        for a, b in zip(step_got, step_want):
            close(a, b)
    assert got["iterations"] == want["iterations"]
    # paths are "<optimizer name>/<variable>"; the name's uid suffix depends on how many were created before
    assert [p.split("/", 1)[-1] for p, _ in got["variables"]] == [p.split("/", 1)[-1] for p, _ in want["variables"]]
    for (_, a), (_, b) in zip(got["variables"], want["variables"]):
        close(a, b)


@pytest.mark.parametrize("i", range(len(P.SPARSE)), ids=[f"{n}-{kw}" for n, kw in P.SPARSE])
def test_sparse_steps(i):
    name, kwargs = P.SPARSE[i]
    got, want = P.run_sparse(tf, name, kwargs), G["sparse"][i]
    for a, b in zip(got["trace"], want["trace"]):
        close(a, b)


@pytest.mark.parametrize("i", range(len(P.SCHEDULES)), ids=[n for n, _ in P.SCHEDULES])
def test_schedules(i):
    name, kwargs = P.SCHEDULES[i]
    close(P.run_schedule(tf, name, kwargs), G["schedules"][i])


def test_schedule_drives_optimizer():
    close(P.run_schedule_in_optimizer(tf), G["schedule_in_optimizer"])


def test_loss_scale_optimizer():
    got, want = P.run_loss_scale(tf), G["loss_scale"]
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:]):
        close(a, b)


def test_custom_update_step_subclass():
    close(P.run_custom(tf), G["custom"])
