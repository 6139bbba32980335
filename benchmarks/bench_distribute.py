"""tf.distribute: MirroredStrategy on N logical CPU devices vs one device, for the same global batch.

For each N (1, 2, 4) it times one custom-loop train step (``strategy.run`` of forward + tape + SGD inside a
``tf.function``, an MLP
784-256-10 on a global batch of 256) and, separately, the all-reduce of a gradient-sized buffer on the same mesh,
reporting the all-reduce share of the step.  Rounds interleave the strategies so machine drift cancels.  On a
2-core machine N > 2 oversubscribes the cores: the point there is correctness and overhead, not speedup; on a GPU
machine the same script measures scaling over its GPUs (``--gpus``).

    python benchmarks/bench_distribute.py [--rounds R] [--steps S] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--devices", type=int, nargs="*", default=[1, 2, 4])
    ap.add_argument("--gpus", action="store_true", help="replicas over the GPUs instead of logical CPUs")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ.setdefault("TENSORLET_NUM_CPU_DEVICES", str(max(args.devices)))
    import tensorlet as tf
    from tensorlet._src.graph.jaxrt import jax

    kind = "gpu" if args.gpus else "cpu"
    rng = np.random.default_rng(0)
    x = rng.random((256, 784), dtype=np.float32)
    y = rng.integers(0, 10, 256).astype(np.int32)
    setups = {}
    for n in args.devices:
        s = tf.distribute.MirroredStrategy([f"/{kind}:{i}" for i in range(n)])
        with s.scope():
            w1 = tf.Variable(rng.normal(size=(784, 256)).astype(np.float32) * 0.05)
            w2 = tf.Variable(rng.normal(size=(256, 10)).astype(np.float32) * 0.05)
            opt = tf.keras.optimizers.SGD(0.01)
        batch = next(iter(s.experimental_distribute_dataset(tf.data.Dataset.from_tensors((x, y)))))

        def step(xb, yb, w1=w1, w2=w2, opt=opt):
            with tf.GradientTape() as tape:
                logits = tf.matmul(tf.nn.relu(tf.matmul(xb, w1)), w2)
                per = tf.nn.sparse_softmax_cross_entropy_with_logits(yb, logits)
                loss = tf.nn.compute_average_loss(per, global_batch_size=256)
            grads = tape.gradient(loss, [w1, w2])
            opt.apply_gradients(zip(grads, [w1, w2]))
            return loss

        @tf.function
        def train(xb, yb, s=s, step=step):  # the same compiled path for every N (one replica included)
            return s.reduce(tf.distribute.ReduceOp.SUM, s.run(step, args=(xb, yb)), axis=None)

        def run(train=train, batch=batch):
            return float(train(*batch))

        mesh = jax.sharding.Mesh(np.array(jax.devices(kind)[:n]), ("r",))
        P = jax.sharding.PartitionSpec
        grads_size = 784 * 256 + 256 * 10
        buf = jax.device_put(np.zeros((n, grads_size), np.float32),
                             jax.sharding.NamedSharding(mesh, P("r")))
        allreduce = jax.jit(jax.shard_map(lambda g: jax.lax.psum(g, "r"), mesh=mesh, in_specs=P("r"),
                                          out_specs=P("r"), check_vma=False))
        run()
        allreduce(buf).block_until_ready()
        setups[n] = (run, lambda f=allreduce, b=buf: f(b).block_until_ready())
    times = {n: [] for n in setups}
    reduce_times = {n: [] for n in setups}
    for _ in range(args.rounds):
        for n, (run, red) in setups.items():
            t0 = time.perf_counter()
            for _ in range(args.steps):
                run()
            times[n].append((time.perf_counter() - t0) / args.steps)
            t0 = time.perf_counter()
            for _ in range(args.steps):
                red()
            reduce_times[n].append((time.perf_counter() - t0) / args.steps)
    base = min(times[min(setups)])
    rows = {}
    print(f"MirroredStrategy custom-loop step, MLP 784-256-10, global batch 256, {kind.upper()} devices")
    print(f"{'replicas':>8} {'step ms':>9} {'vs 1':>6} {'all-reduce ms':>14} {'share':>6}")
    for n in setups:
        step_ms, red_ms = min(times[n]) * 1e3, min(reduce_times[n]) * 1e3
        rows[n] = {"step_ms": step_ms, "allreduce_ms": red_ms, "ratio_vs_1": min(times[n]) / base}
        share = red_ms / step_ms if n > 1 else 0.0
        print(f"{n:>8} {step_ms:>9.3f} {rows[n]['ratio_vs_1']:>5.2f}x {red_ms:>14.3f} {share:>5.0%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
