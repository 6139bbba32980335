"""Philox4x32-10 in compiled code: the form tensorlet's jax lowering uses against the all-uint64 form.

Dropout draws one Philox word per activation in every compiled training step (TF's stateless streams, bit for
bit), so the generator's cost shows in ``fit``.  XLA:CPU runs 64-bit integer arithmetic slowly; the traced form
(``random_ops._philox_traced``) keeps the state in uint32 and widens only for the two products per round.
``jax.random.uniform`` (ThreeFry, other bits) is printed for scale.  Rounds are interleaved; the best is kept.

    python benchmarks/bench_random.py [--blocks N (12800: a 32x1600 dropout mask)] [--rounds R (5)]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=12800)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    from tensorlet._src.framework import jax_runtime

    jax_runtime.load()
    import jax
    import jax.numpy as jnp

    from tensorlet._src.ops import random_ops as r

    u64 = np.uint64
    blocks = jnp.arange(a.blocks, dtype=u64)

    def make(rounds):
        def f(key, ctr):
            lo = ctr[0] + blocks
            hi = ctr[1] + (lo < blocks).astype(u64)
            return jnp.stack(rounds(lo, hi, key[0]), -1)
        return jax.jit(f)

    key, ctr = jnp.asarray(np.array([0x1234_5678_9ABC], u64)), jnp.asarray(np.array([5, 7], u64))
    fns = {"uint64 rounds": make(r.philox_u64), "tensorlet (uint32 state)": make(r._philox_traced)}
    ref = np.asarray(fns["uint64 rounds"](key, ctr))
    assert (np.asarray(fns["tensorlet (uint32 state)"](key, ctr)) == ref).all(), "the two forms disagree"
    tk = jax.random.PRNGKey(0)
    fns["jax.random.uniform (threefry)"] = lambda k, c: jax.random.uniform(tk, (a.blocks * 4,))
    fns["jax.random.uniform (threefry)"] = jax.jit(fns["jax.random.uniform (threefry)"])
    best = {n: float("inf") for n in fns}
    for _ in range(a.rounds):
        for n, f in fns.items():
            f(key, ctr).block_until_ready()
            t = time.perf_counter()
            for _ in range(20):
                f(key, ctr).block_until_ready()
            best[n] = min(best[n], (time.perf_counter() - t) / 20)
    base = best["uint64 rounds"]
    for n, v in best.items():
        print(f"{n:32s} {v * 1e3:7.3f} ms   {v / base:5.2f}x the uint64 form")


if __name__ == "__main__":
    main()
