"""Per-shape autotuning of the eager convolutions: what cuDNN's autotuner does, for the CPU kernels.

A convolution of one kind (forward, input gradient, filter gradient) with one key (shapes, dtype, layout,
strides, dilations, paddings) can run in several formulations that compute the same sums in different orders
(XLA's compiled convolution, NumPy's im2col GEMM, one GEMM per kernel position, dw as a convolution, ...).  Which
is fastest depends on the shape and the machine with no safe static rule, so :meth:`Tuner.run` measures:

* a key runs the default formulation (the static rule) for its first ``WARM_CALLS`` calls and until those calls
  have taken ``HOT_SECONDS`` in all, so a key seen once or twice, or a cheap one seen a few times, never pays for
  trials (whose cost, XLA compilations included, only a hot key recoups);
* the next calls each run one candidate, round-robin: a first round that is not timed (compilation, first-touch
  allocation), then ``ROUNDS`` timed rounds; a candidate slower than ``PRUNE`` x the best after a timed run leaves
  the trials;
* the key then commits for the rest of the process to the candidate with the lowest minimum time, but only if
  that beats the default's minimum by ``MARGIN`` and whose median is lower too (a noisy machine keeps the
  default otherwise).

Every trial call returns its candidate's result (the formulations agree up to floating-point reassociation), so
the trials cost only the slower candidates' extra time.  At most ``MAX_KEYS`` keys are tuned; later keys run the
default.  ``TENSORLET_CONV_AUTOTUNE=0`` (read at import; :func:`set_enabled` at run time) turns the tuner off:
every call runs the default, for reproducibility (TF's ``TF_CUDNN_USE_AUTOTUNE=0``).
"""

from __future__ import annotations

import os
import threading
import time

WARM_CALLS = 2
HOT_SECONDS = 0.05
ROUNDS = 3
MARGIN = 0.1
PRUNE = 3.0
MAX_KEYS = 256


class _Key:
    """One key's trial state: the queue of candidates still to run this round and each one's timed runs."""

    __slots__ = ("calls", "names", "queue", "round", "spent", "times", "trials", "winner")

    def __init__(self, names):
        self.calls = 0
        self.spent = 0.0  # seconds the default took before the trials
        self.trials = [0, 0.0]  # trial calls and their seconds, untimed rounds included
        self.names = list(names)
        self.queue = list(names)
        self.round = 0  # 0: the untimed warm-up round
        self.times = {n: [] for n in names}
        self.winner = None


class Tuner:
    """Chooses, per key, the fastest of a set of equivalent formulations by timing the key's early calls.

    ``timer`` is injectable (tests make the choice deterministic with a fake clock).
    """

    def __init__(self, timer=time.perf_counter, enabled=True):
        self.timer = timer
        self.enabled = enabled
        self.keys: dict = {}
        self.trial_calls = 0
        self._lock = threading.Lock()  # trial bookkeeping only; a committed key takes no lock

    def run(self, key, default, candidates, *args):
        """``candidates[name](*args)`` for the name chosen for ``key``; ``default`` names the static rule's choice."""
        st = self.keys.get(key)
        if st is not None and st.winner is not None:
            return candidates[st.winner](*args)
        if not self.enabled or len(candidates) < 2:
            return candidates[default](*args)
        if st is None and len(self.keys) >= MAX_KEYS:
            return candidates[default](*args)
        with self._lock:
            st = self.keys.get(key)
            if st is None:
                st = self.keys[key] = _Key([default] + [n for n in candidates if n != default])
            st.calls += 1
            warming = st.calls <= WARM_CALLS or st.spent < HOT_SECONDS
            name = default if warming or not st.queue else st.queue.pop(0)
            timed = warming and st.calls > 1 or not warming and st.round > 0  # a first call may compile
            if not warming:
                self.trial_calls += 1
        t0 = self.timer()
        try:
            out = candidates[name](*args)
        except Exception:  # noqa: BLE001  (a candidate that cannot run this key leaves the trials)
            if name == default:
                raise
            with self._lock:
                st.names.remove(name)
                st.times.pop(name)
                timed = False
            out = candidates[default](*args)
        dt = self.timer() - t0
        with self._lock:
            if warming:
                st.spent += dt if timed else 0.0
            else:
                st.trials[0] += 1
                st.trials[1] += dt
                if timed:
                    st.times[name].append(dt)
                if not st.queue and st.winner is None:
                    self._next_round(st, default)
        return out

    def _next_round(self, st, default):
        if st.round:
            best = min(min(ts) for ts in st.times.values() if ts)
            st.names = [n for n in st.names if n == default or st.times[n] and min(st.times[n]) <= PRUNE * best]
        st.round += 1
        if st.round > ROUNDS or len(st.names) < 2:
            st.winner = self._decide(st, default)
        else:
            st.queue = list(st.names)

    @staticmethod
    def _decide(st, default):
        """The fastest by minimum time, if its minimum beats the default's by ``MARGIN`` and its median is lower too
        (a lucky minimum during a quiet moment does not decide alone)."""
        ran = {n: sorted(st.times[n]) for n in st.names if st.times.get(n)}
        if default not in ran:
            return default
        fastest = min(ran, key=lambda n: ran[n][0])
        med = {n: ts[len(ts) // 2] for n, ts in ran.items()}
        clear = ran[fastest][0] < (1 - MARGIN) * ran[default][0] and med[fastest] < med[default]
        return fastest if clear else default

    def report(self):
        """{key: (winner or None while trialling, {candidate: best seconds})}: what the bench prints."""
        return {k: (st.winner, {n: min(ts) for n, ts in st.times.items() if ts}) for k, st in self.keys.items()}

    def trial_cost(self):
        """(trial calls, seconds they took beyond what the winner would have) over all keys: the tuning's price."""
        calls = sum(st.trials[0] for st in self.keys.values())
        extra = sum(st.trials[1] - st.trials[0] * min(st.times[st.winner]) for st in self.keys.values()
                    if st.winner is not None and st.times.get(st.winner))
        return calls, extra

    def clear(self):
        self.keys.clear()
        self.trial_calls = 0


TUNER = Tuner(enabled=os.environ.get("TENSORLET_CONV_AUTOTUNE", "1").strip().lower() not in ("0", "false", "no"))


def set_enabled(on: bool) -> None:
    """Turn the tuner on or off for the rest of the process (off: every convolution runs the default rule)."""
    TUNER.enabled = bool(on)
    TUNER.clear()
