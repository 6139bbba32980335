"""Cost of ``tf.debugging.enable_check_numerics`` on the eager hot path: ``a + b`` (2x2 float32) before the mode
was ever enabled, after enable + disable (must equal "before": nothing of the mode stays on the path), and with it
on, against NumPy's own ``a + b``, interleaved rounds in one process.

    python benchmarks/bench_check_numerics.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import timeit

import numpy as np


def best_us(stmt, number=20000, repeat=5):
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    import tensorlet as tf

    a = tf.constant(np.ones((2, 2), np.float32))
    b = tf.constant(np.ones((2, 2), np.float32))
    na, nb = np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)

    def on():
        tf.debugging.enable_check_numerics()
        try:
            return best_us(lambda: a + b, number=5000)
        finally:
            tf.debugging.disable_check_numerics()

    res = {"numpy": [], "never enabled": [], "enabled then disabled": [], "enabled": []}
    for r in range(args.rounds):
        res["numpy"].append(best_us(lambda: na + nb))
        if r == 0:
            res["never enabled"].append(best_us(lambda: a + b))
            res["enabled"].append(on())
        else:
            res["enabled"].append(on())
        res["enabled then disabled"].append(best_us(lambda: a + b))
    base = min(res["numpy"])
    print(f"load average: {os.getloadavg()[0]:.2f} (same process, {args.rounds} interleaved rounds, best of each)")
    print(f"{'eager a + b (2x2 f32)':28s} {'us':>8s} {'vs numpy':>9s}")
    for k, v in res.items():
        print(f"{k:28s} {min(v):8.3f} {min(v) / base:8.2f}x")


if __name__ == "__main__":
    main()
