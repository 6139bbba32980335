"""The eager convolutions' autotuner (nn_conv_autotune): every candidate is right, the tuner commits to what it
measured (a fake clock makes that deterministic), its trials are bounded, and off means the static rule."""

import os
import subprocess
import sys

import numpy as np
import pytest
from test_nn_conv_dispatch import ref_conv, ref_filter, ref_input

from tensorlet._src.ops import nn_conv_autotune as A
from tensorlet._src.ops import nn_conv_kernels as K

# (x shape channels-last, kernel sizes, out channels, strides, dilations, pads)
GEOMS = [
    ((4, 12, 12, 16), (3, 3), 16, (1, 1), (1, 1), ((0, 0), (0, 0))),  # the seed CNN's second layer, small
    ((3, 11, 10, 2), (3, 2), 9, (2, 1), (1, 2), ((1, 1), (0, 2))),
    ((2, 23, 12), (4,), 8, (3,), (2,), ((2, 1),)),
    ((2, 6, 7, 5, 3), (2, 3, 2), 4, (1, 2, 1), (2, 1, 1), ((1, 0), (1, 1), (0, 1))),
]
TOL = dict(rtol=2e-4, atol=2e-4)


def _case(geom):
    xs, ks, o, s, d, pads = geom
    rng = np.random.default_rng(len(xs) + o)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ks + (xs[-1], o)).astype(np.float32)
    y = ref_conv(x, w, s, d, pads)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    return x, w, dy, y, s, d, pads


@pytest.mark.parametrize("geom", GEOMS)
def test_every_candidate_equals_the_reference(geom):
    x, w, dy, y, s, d, pads = _case(geom)
    for name, f in K._FWD.items():
        np.testing.assert_allclose(f(x, w, s, d, pads), y, **TOL, err_msg=name)
    for name, f in K._DX.items():
        np.testing.assert_allclose(f(dy, w, x.shape[1:-1], s, d, pads), ref_input(dy, w, x.shape[1:-1], s, d, pads),
                                   **TOL, err_msg=name)
    for name, f in K._DW.items():
        np.testing.assert_allclose(f(x, dy, w.shape, s, d, pads), ref_filter(x, dy, w.shape[:-2], s, d, pads),
                                   **TOL, err_msg=name)


class Clock:
    """A fake timer: candidates advance it by their declared cost."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _fake(clock, costs, log):
    def make(name):
        def f(v):
            cost = costs[name]
            clock.now += cost() if callable(cost) else cost
            log.append(name)
            return v * 2
        return f
    return {n: make(n) for n in costs}


def _drive(tuner, clock, costs, default="a", calls=40):
    log = []
    cands = _fake(clock, costs, log)
    outs = [tuner.run("k", default, cands, i) for i in range(calls)]
    assert outs == [2 * i for i in range(calls)]  # every call returns its candidate's result
    return log


def test_tuner_commits_to_the_measured_winner_after_bounded_trials(monkeypatch):
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    log = _drive(tuner, clock, {"a": 1.0, "b": 0.5, "c": 0.8})
    assert log[:A.WARM_CALLS] == ["a"] * A.WARM_CALLS
    n_trials = 3 * (A.ROUNDS + 1)
    assert tuner.trial_calls == n_trials
    trials = log[A.WARM_CALLS:A.WARM_CALLS + n_trials]
    assert sorted(set(trials)) == ["a", "b", "c"] and trials.count("b") == A.ROUNDS + 1
    assert log[A.WARM_CALLS + n_trials:] == ["b"] * (40 - A.WARM_CALLS - n_trials)
    winner, times = tuner.report()["k"]
    assert winner == "b" and times == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.8})


def test_tuner_keeps_the_default_without_a_clear_margin(monkeypatch):
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    log = _drive(tuner, clock, {"a": 1.0, "b": 1.0 - A.MARGIN / 2})
    assert tuner.report()["k"][0] == "a" and log[-10:] == ["a"] * 10


def test_one_lucky_run_does_not_decide(monkeypatch):
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    lucky = iter([1.0, 0.5, 1.2, 1.2])  # untimed round, then a quiet moment, then its real cost
    _drive(tuner, clock, {"a": 1.0, "b": lambda: next(lucky)}, calls=A.WARM_CALLS + 2 * (A.ROUNDS + 1))
    assert tuner.report()["k"][0] == "a"


def test_slow_candidates_leave_the_trials_early(monkeypatch):
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    log = _drive(tuner, clock, {"a": 1.0, "b": 0.95, "slow": 10 * A.PRUNE})
    assert log.count("slow") == 2  # the untimed round and one timed run
    assert tuner.report()["k"][0] == "a"  # b is within the margin


def test_cheap_keys_are_not_tried_until_they_have_taken_hot_seconds():
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    cost = A.HOT_SECONDS / 9.9
    log = _drive(tuner, clock, {"a": cost, "b": cost / 4}, calls=11)
    assert log == ["a"] * 11 and tuner.trial_calls == 0  # the first call (compilation) is not counted
    tuner.run("k", "a", _fake(clock, {"a": cost, "b": cost / 4}, log), 0)
    assert tuner.trial_calls == 1


def test_disabled_tuner_and_cache_bound(monkeypatch):
    clock = Clock()
    tuner = A.Tuner(timer=clock, enabled=False)
    assert set(_drive(tuner, clock, {"a": 1.0, "b": 0.1})) == {"a"} and not tuner.keys
    monkeypatch.setattr(A, "MAX_KEYS", 1)
    tuner = A.Tuner(timer=clock)
    log = []
    cands = _fake(clock, {"a": 1.0, "b": 0.1}, log)
    tuner.run("k1", "a", cands, 0)
    for _ in range(30):
        tuner.run("k2", "a", cands, 0)
    assert list(tuner.keys) == ["k1"] and log.count("b") == 0


def test_the_kernels_run_the_tuned_choice(monkeypatch):
    """Through _np_conv: a fake clock makes 'positions' the fastest forward; later calls run it, results unchanged."""
    clock = Clock()
    monkeypatch.setattr(A, "TUNER", A.Tuner(timer=clock))
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    costs = {"xla": 1.0, "im2col": 2.0, "positions": 0.5}
    ran = []
    for name, f in list(K._FWD.items()):
        def timed(*a, f=f, name=name):
            clock.now += costs[name]
            ran.append(name)
            return f(*a)
        monkeypatch.setitem(K._FWD, name, timed)
    x, w, _, y, s, d, pads = _case(((8, 20, 20, 16), (3, 3), 16, (1, 1), (1, 1), ((1, 1), (1, 1))))
    for _ in range(20):
        np.testing.assert_allclose(K._np_conv(x, w, s, d, pads, 1), y, **TOL)
    assert ran[0] == "xla"  # the static rule's choice for 16 -> 16 channels
    assert set(ran[2:14]) == set(costs) and ran[14:] == ["positions"] * 6
    (key, (winner, _)), = A.TUNER.report().items()
    assert key[:2] == ("fwd", "xla") and winner == "positions"
    from tensorlet._src.framework import config

    monkeypatch.setitem(config._state, "determinism", True)  # op determinism: the static rule, no new key
    other = _case(((8, 20, 20, 16), (3, 3), 8, (1, 1), (1, 1), ((1, 1), (1, 1))))
    for _ in range(20):
        K._np_conv(other[0], other[1], (1, 1), (1, 1), ((1, 1), (1, 1)), 1)
    assert len(A.TUNER.keys) == 1 and ran[20:] == ["xla"] * 20
    monkeypatch.setitem(config._state, "determinism", False)
    tiny = _case(((1, 5, 5, 2), (3, 3), 2, (1, 1), (1, 1), ((0, 0), (0, 0))))
    K._np_conv(tiny[0], tiny[1], (1, 1), (1, 1), ((0, 0), (0, 0)), 1)
    assert len(A.TUNER.keys) == 1  # too small to tune


def test_environment_variable_turns_it_off():
    code = "from tensorlet._src.ops import nn_conv_autotune as A; print(A.TUNER.enabled)"
    env = dict(os.environ, TENSORLET_CONV_AUTOTUNE="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    A.set_enabled(True)
    assert A.TUNER.enabled and not A.TUNER.keys


def test_trial_cost_is_what_the_trials_took_beyond_the_winner(monkeypatch):
    monkeypatch.setattr(A, "HOT_SECONDS", 0.0)
    clock = Clock()
    tuner = A.Tuner(timer=clock)
    _drive(tuner, clock, {"a": 1.0, "b": 0.5})
    calls, extra = tuner.trial_cost()
    assert calls == 2 * (A.ROUNDS + 1) and extra == pytest.approx((A.ROUNDS + 1) * 0.5)
