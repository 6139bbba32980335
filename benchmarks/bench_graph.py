"""tf.function: call overhead, the seed's MNIST CNN train step compiled with XLA, compile time, memory.

The train step (Conv2D 16 3x3 relu, Conv2D 16 3x3 relu, global average pooling, Dense 10; batch 32 of 28x28x1;
Adam; sparse softmax cross-entropy) is written once against the TF API and run by tensorlet and, when importable,
by TensorFlow itself; the same computation is written directly in ``jax.jit`` as the reference.  Targets (issue
"Graphs"): call overhead <= 15 us, step <= 1.1x jax.jit and <= TF's tf.function, compile <= 3 s, flat memory over
10,000 calls and 1,000 tf.function re-creations.

    python benchmarks/bench_graph.py [--steps N] [--json out.json] [--no-peers]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import time
import timeit
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best(fn, number, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def init_params(seed=0):
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(3, 3, 1, 16)) * 0.3).astype(np.float32), np.zeros(16, np.float32),
        (rng.normal(size=(3, 3, 16, 16)) * 0.1).astype(np.float32), np.zeros(16, np.float32),
        (rng.normal(size=(16, 10)) * 0.2).astype(np.float32), np.zeros(10, np.float32),
    ]


def batch(seed=1):
    rng = np.random.default_rng(seed)
    return rng.random((32, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 32).astype(np.int32)


def tf_api_step(tf, params, jit):
    """The train step against the TF API (tensorlet or TensorFlow): Adam written out as TF1 does it."""
    vs = [tf.Variable(p) for p in params]
    ms = [tf.Variable(np.zeros_like(p)) for p in params]
    us = [tf.Variable(np.zeros_like(p)) for p in params]
    t = tf.Variable(0.0)

    @tf.function(jit_compile=jit)
    def step(x, y):
        w1, b1, w2, b2, w3, b3 = vs
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.nn.conv2d(x, w1, 1, "SAME") + b1)
            h = tf.nn.relu(tf.nn.conv2d(h, w2, 1, "SAME") + b2)
            h = tf.reduce_mean(h, axis=[1, 2])
            logits = tf.matmul(h, w3) + b3
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, vs)
        t.assign_add(1.0)
        lr = 0.001 * tf.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
        for v, g, m, u in zip(vs, grads, ms, us):
            m.assign(0.9 * m + 0.1 * g)
            u.assign(0.999 * u + 0.001 * g * g)
            v.assign_sub(lr * m / (tf.sqrt(u) + 1e-7))
        return loss

    return step


def jax_step(params):
    import jax
    import jax.numpy as jnp

    def loss_fn(ps, x, y):
        w1, b1, w2, b2, w3, b3 = ps
        dn = ("NHWC", "HWIO", "NHWC")
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn) + b1)
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=dn) + b2)
        h = h.mean(axis=(1, 2))
        logits = h @ w3 + b3
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def step(state, x, y):
        ps, ms, us, t = state
        loss, grads = jax.value_and_grad(loss_fn)(ps, x, y)
        t = t + 1.0
        lr = 0.001 * jnp.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
        ms = [0.9 * m + 0.1 * g for m, g in zip(ms, grads)]
        us = [0.999 * u + 0.001 * g * g for u, g in zip(us, grads)]
        ps = [p - lr * m / (jnp.sqrt(u) + 1e-7) for p, m, u in zip(ps, ms, us)]
        return (ps, ms, us, t), loss

    state = ([jnp.asarray(p) for p in params], [jnp.zeros_like(p) for p in params],
             [jnp.zeros_like(p) for p in params], jnp.float32(0.0))
    return step, state


def run_cnn(tf, label, steps, x, y, jit=True):
    step = tf_api_step(tf, init_params(), jit)
    xt, yt = tf.constant(x), tf.constant(y)
    t0 = time.perf_counter()
    first = float(step(xt, yt))
    compile_s = time.perf_counter() - t0
    step(xt, yt)
    per = best(lambda: step(xt, yt).numpy(), steps)
    print(f"  {label:<28} {per * 1e3:8.2f} ms/step   first call (trace+compile) {compile_s:6.2f} s   "
          f"loss0 {first:.4f}")
    return per, compile_s, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    import tensorlet as tl

    out = {}
    # 1. call overhead of an already-traced small function (NumPy executor tier: tiny graph)
    small = tl.function(lambda a: a + 1.0)
    a = tl.constant(1.0)
    small(a), small(a)
    out["call_overhead_us"] = best(lambda: small(a), 20_000) * 1e6
    add_us = best(lambda: a + 1.0, 20_000) * 1e6
    print(f"traced small function call: {out['call_overhead_us']:.2f} us  (eager a + 1.0: {add_us:.2f} us)")

    # 2. the seed CNN train step
    x, y = batch()
    print("seed MNIST CNN train step (batch 32, Adam):")
    per, comp, loss0 = run_cnn(tl, "tensorlet jit_compile=True", args.steps, x, y)
    out.update(cnn_step_ms=per * 1e3, cnn_compile_s=comp)
    peers = [] if args.no_peers else [p for p in ("jax", "tensorflow") if importlib.util.find_spec(p)]
    if "jax" in peers:
        import jax

        step, state = jax_step(init_params())
        xs, ys = jax.numpy.asarray(x), jax.numpy.asarray(y)
        t0 = time.perf_counter()
        state, loss = step(state, xs, ys)
        loss.block_until_ready()
        jcomp = time.perf_counter() - t0
        holder = [state]

        def jstep():
            holder[0], loss_ = step(holder[0], xs, ys)
            loss_.block_until_ready()

        jper = best(jstep, args.steps)
        print(f"  {'jax.jit':<28} {jper * 1e3:8.2f} ms/step   first call (trace+compile) {jcomp:6.2f} s   "
              f"loss0 {float(loss):.4f}")
        out.update(jax_step_ms=jper * 1e3, ratio_vs_jax=per / jper)
    if "tensorflow" in peers:
        import tensorflow as tf

        tper, tcomp, _ = run_cnn(tf, "TensorFlow tf.function(XLA)", args.steps, x, y)
        tper2, _, _ = run_cnn(tf, "TensorFlow tf.function", args.steps, x, y, jit=None)
        out.update(tf_step_ms=tper * 1e3, tf_nojit_step_ms=tper2 * 1e3, ratio_vs_tf=per / min(tper, tper2))
    for k in ("ratio_vs_jax", "ratio_vs_tf"):
        if k in out:
            print(f"  {k}: {out[k]:.2f}")

    # 3. memory: 10,000 calls of a traced function and 1,000 re-creations
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(10_000):
        small(a)
    calls_kb = (tracemalloc.get_traced_memory()[0] - base) / 1024
    for _ in range(1_000):
        tl.function(lambda v: v * 2.0)(a)
    gc.collect()
    fns_kb = (tracemalloc.get_traced_memory()[0] - base) / 1024
    tracemalloc.stop()
    out.update(mem_growth_calls_kb=calls_kb, mem_growth_functions_kb=fns_kb)
    print(f"memory growth: 10,000 calls {calls_kb:.1f} KiB; 1,000 tf.function re-creations {fns_kb:.1f} KiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
