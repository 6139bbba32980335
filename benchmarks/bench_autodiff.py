"""Tape step: ``w = Variable(2x2); with tape: l = reduce_sum(w * w); tape.gradient(l, w)``.

Compared in one run with TensorFlow's GradientTape, ``torch.autograd.grad`` and ``jax.grad``
(eager and jitted) when they are importable.  Target (issue "Automatic differentiation"):
<= 35 us per step and faster than PyTorch.  Also reports memory after 100k steps.

    python benchmarks/bench_autodiff.py [--steps N] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import timeit
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_us(fn, number, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100_000, help="steps for the memory-growth check")
    ap.add_argument("--json")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    import tensorlet as tl

    init = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    w = tl.Variable(init)

    def tl_step():
        with tl.GradientTape() as tape:
            loss = tl.reduce_sum(w * w)
        return tape.gradient(loss, w)

    np.testing.assert_allclose(tl_step().numpy(), 2 * init)
    rows = {"tensorlet": best_us(tl_step, 5_000)}
    peers = [] if args.no_peers else [p for p in ("tensorflow", "torch", "jax") if importlib.util.find_spec(p)]
    if "tensorflow" in peers:
        import tensorflow as tf

        tw = tf.Variable(init)

        def tf_step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tw * tw)
            return tape.gradient(loss, tw)

        rows["tensorflow"] = best_us(tf_step, 500)
    if "torch" in peers:
        import torch

        pw = torch.tensor(init, requires_grad=True)
        rows["torch"] = best_us(lambda: torch.autograd.grad((pw * pw).sum(), pw), 5_000)
    if "jax" in peers:
        import jax
        import jax.numpy as jnp

        jw = jnp.asarray(init)
        g = jax.grad(lambda v: jnp.sum(v * v))
        g(jw).block_until_ready()
        rows["jax (eager grad)"] = best_us(lambda: g(jw).block_until_ready(), 200)
        gj = jax.jit(g)
        gj(jw).block_until_ready()
        rows["jax (jit grad)"] = best_us(lambda: gj(jw).block_until_ready(), 5_000)

    gc.collect()
    tracemalloc.start()
    for _ in range(1000):
        tl_step()
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(args.steps):
        tl_step()
    gc.collect()
    growth = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()

    print(f"{'tape step (2x2 w, sum(w*w))':<32}{'us/step':>10}")
    for lib, us in rows.items():
        print(f"  {lib:<30}{us:>10.2f}")
    print(f"memory growth over {args.steps} steps: {growth / 1024:.1f} KiB")
    if "torch" in rows:
        print(f"tensorlet / torch: {rows['tensorlet'] / rows['torch']:.2f}x (target < 1)")
    print(f"target: <= 35 us -> {'met' if rows['tensorlet'] <= 35 else 'NOT met'}")
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"us_per_step": rows, "memory_growth_bytes": growth, "steps": args.steps}, f, indent=1)
        os.replace(tmp, args.json)


if __name__ == "__main__":
    main()
