"""The seed CNN trained eagerly: tensorlet vs TensorFlow eager vs PyTorch eager, interleaved rounds.

Two workloads, both with seed 000's model (Conv2D(16, 3x3, relu) -> Conv2D(16, 3x3, relu) ->
GlobalAveragePooling2D -> Dense(10)), batches of 32 28x28x1 images, Adam and sparse softmax cross-entropy under
a GradientTape:

* ``step``: one train step on a fixed batch (Keras Sequential + ``tf.keras.optimizers.Adam``).
* ``seed``: seed 000's eager loop as written (``tf.compat.v1``: ``Dataset.from_tensor_slices(...).shuffle(1000)
  .batch(32)``, ``tf.losses.sparse_softmax_cross_entropy``, ``tf.train.AdamOptimizer().apply_gradients(...,
  global_step=...)``), on MNIST-shaped random data (no download).  TensorFlow 2.21's v1 optimizers cannot
  update Keras 3 variables, so its side uses Keras's Adam there (the same update rule).

Each framework runs in its own worker process (TensorFlow from ``/work/tfvenv`` or ``--tf-python``; PyTorch if
importable) that waits for a command; rounds alternate between the frameworks so load drift cancels.  Reported:
the median over rounds of each round's per-step time, and the ratios.  Targets (issue 19): tensorlet <= 0.7x
TensorFlow eager and <= PyTorch eager.

    python benchmarks/bench_eager_cnn.py [--rounds 7] [--steps 20] [--json out.json] [--torch-threads 1]
        [--all-xla-conv] [--numpy-conv] [--static-conv]

On a loaded machine PyTorch's default threads (one per core, spinning OpenMP workers) slow it 10-30x; there
``--torch-threads 1`` gives its fair figure.  ``--all-xla-conv`` adds tensorlet without the few-input-channel
kernel choices of nn_conv_xla (the 'before' of issue 19's second round); ``--static-conv`` adds tensorlet with
the convolution autotuner off (``TENSORLET_CONV_AUTOTUNE=0``: the static rule only).  The extra variants run
without the autotuner.  After the rounds the tensorlet worker prints what the autotuner chose per convolution key
(the static rule's choice, the winner, each candidate's best time).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = "/work/tfvenv/bin/python"
N_EXAMPLES = 3200


def _data():
    import numpy as np

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (N_EXAMPLES, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, N_EXAMPLES).astype(np.int64)
    return images, labels


def _keras_worker(tf, kind):
    """A ``run(n)`` doing n steps of ``kind`` with a TF-API module (tensorlet or TensorFlow)."""
    import numpy as np

    images, labels = _data()
    v1 = tf.compat.v1
    model = tf.keras.Sequential([
        tf.keras.Input((None, None, 1)),
        tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
        tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(10)])
    if kind == "step":
        opt = tf.keras.optimizers.Adam()
        x = tf.constant(images[:32, :, :, None] / 255, tf.float32)
        y = tf.constant(labels[:32])

        def one(_batch):
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        def run(n):
            for _ in range(n):
                float(one(None))
        return run
    dataset = tf.data.Dataset.from_tensor_slices(
        (tf.cast(images[..., np.newaxis] / 255, tf.float32), tf.cast(labels, tf.int64)))
    dataset = dataset.shuffle(1000).batch(32).repeat()
    it = iter(dataset)
    step = v1.train.get_or_create_global_step()
    history = []
    if tf.__name__ == "tensorflow":  # TF 2.21's v1 optimizers cannot update Keras 3 variables: Keras's Adam
        keras_adam = tf.keras.optimizers.Adam()

        def apply(pairs, global_step):
            keras_adam.apply_gradients(pairs)
            global_step.assign_add(1)
    else:
        apply = v1.train.AdamOptimizer().apply_gradients

    def run(n):
        for _ in range(n):
            images_b, labels_b = next(it)
            with tf.GradientTape() as tape:
                logits = model(images_b, training=True)
                loss_value = v1.losses.sparse_softmax_cross_entropy(labels_b, logits)
            history.append(loss_value.numpy())
            grads = tape.gradient(loss_value, model.trainable_variables)
            apply(zip(grads, model.trainable_variables), global_step=step)
    return run


def _torch_worker(kind):
    import numpy as np
    import torch

    images, labels = _data()
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_all = torch.tensor(images[:, None] / 255, dtype=torch.float32)  # NCHW: PyTorch's native layout
    y_all = torch.tensor(labels)
    rng = np.random.default_rng(0)
    state = {"perm": rng.permutation(N_EXAMPLES), "pos": 0}

    def batch():
        if kind == "step":
            return x_all[:32], y_all[:32]
        if state["pos"] + 32 > N_EXAMPLES:
            state["perm"], state["pos"] = rng.permutation(N_EXAMPLES), 0
        idx = torch.from_numpy(state["perm"][state["pos"]:state["pos"] + 32])
        state["pos"] += 32
        return x_all[idx], y_all[idx]

    def run(n):
        for _ in range(n):
            x, y = batch()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            loss.item()
    return run


def worker(lib, kind):
    if lib.startswith("tensorlet"):
        if lib != "tensorlet":
            os.environ["TENSORLET_CONV_AUTOTUNE"] = "0"
        sys.path.insert(0, ROOT)
        import tensorlet as tf

        from tensorlet._src.ops import nn_conv_xla

        if lib == "tensorlet-numpy":  # the NumPy convolution engine only (the 'before' of issue 19)
            nn_conv_xla.MIN_MACS = float("inf")
        if lib == "tensorlet-allxla":  # every big conv on XLA's kernels (before the few-channel choices)
            nn_conv_xla.IM2COL_BELOW = nn_conv_xla.FILTER_CONV_BELOW = 0
        run = _keras_worker(tf, kind)
    elif lib == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        run = _keras_worker(tf, kind)
    else:
        import torch

        if os.environ.get("BENCH_TORCH_THREADS"):
            torch.set_num_threads(int(os.environ["BENCH_TORCH_THREADS"]))
        run = _torch_worker(kind)
    run(3)  # warm-up: first-call compilation and allocation
    warm = [0, 0.0]
    if lib == "tensorlet":  # and until the conv autotuner has committed every key (steady state is measured)
        from tensorlet._src.ops import nn_conv_autotune

        t = time.perf_counter()
        while warm[0] < 10 or warm[0] < 1000 and any(w is None for w, _ in nn_conv_autotune.TUNER.report().values()):
            run(10)
            warm[0] += 10
        warm[1] = time.perf_counter() - t
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "report":
            from tensorlet._src.ops import nn_conv_autotune

            calls, extra = nn_conv_autotune.TUNER.trial_cost()
            print(json.dumps({"steps": warm[0], "seconds": warm[1], "trial_calls": calls, "trial_extra_s": extra,
                              "keys": _autotune_report()}), flush=True)
            continue
        n = int(line)
        t = time.perf_counter()
        run(n)
        print((time.perf_counter() - t) / n, flush=True)


def _autotune_report():
    """[(kind, shapes, static choice, winner, {candidate: best ms})] from the tensorlet worker's autotuner."""
    from tensorlet._src.ops import nn_conv_autotune

    return [(key[0], [list(key[2]), list(key[3])], key[1], winner, {n: round(t * 1e3, 3) for n, t in ts.items()})
            for key, (winner, ts) in nn_conv_autotune.TUNER.report().items()]


class Peer:
    def __init__(self, python, lib, kind):
        self.lib = lib
        self.p = subprocess.Popen([python, os.path.abspath(__file__), "--worker", lib, kind], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.p.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"{lib} worker failed to start")

    def run(self, n):
        self.p.stdin.write(f"{n}\n")
        self.p.stdin.flush()
        return float(self.p.stdout.readline())

    def report(self):
        self.p.stdin.write("report\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=20, help="steps per round")
    ap.add_argument("--kinds", default="step,seed")
    ap.add_argument("--tf-python", default=TF_PYTHON)
    ap.add_argument("--numpy-conv", action="store_true", help="also run tensorlet with NumPy-only convolutions")
    ap.add_argument("--all-xla-conv", action="store_true",
                    help="also run tensorlet with every big convolution on XLA (no few-channel NumPy/conv choices)")
    ap.add_argument("--static-conv", action="store_true",
                    help="also run tensorlet with the convolution autotuner off (TENSORLET_CONV_AUTOTUNE=0)")
    ap.add_argument("--torch-threads", type=int, help="torch.set_num_threads (its OpenMP threads spin badly on a "
                    "loaded machine: 1 is the fair figure there)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.worker:
        return worker(*args.worker)
    import importlib.util

    results, chosen = {}, {}
    for kind in args.kinds.split(","):
        peers = [Peer(sys.executable, "tensorlet", kind)]
        if args.numpy_conv:
            peers.append(Peer(sys.executable, "tensorlet-numpy", kind))
        if args.all_xla_conv:
            peers.append(Peer(sys.executable, "tensorlet-allxla", kind))
        if args.static_conv:
            peers.append(Peer(sys.executable, "tensorlet-static", kind))
        if args.torch_threads:
            os.environ["BENCH_TORCH_THREADS"] = str(args.torch_threads)
        if os.path.exists(args.tf_python):
            peers.append(Peer(args.tf_python, "tensorflow", kind))
        if importlib.util.find_spec("torch"):
            peers.append(Peer(sys.executable, "torch", kind))
        times = {p.lib: [] for p in peers}
        for r in range(args.rounds):
            order = peers if r % 2 == 0 else peers[::-1]
            for p in order:
                times[p.lib].append(p.run(args.steps))
        tuned = peers[0].report()
        for p in peers:
            p.close()
        med = {lib: statistics.median(ts) * 1e3 for lib, ts in times.items()}
        results[kind] = med
        print(f"{kind}: ms per step (median of {args.rounds} interleaved rounds of {args.steps} steps)")
        for lib, ms in med.items():
            print(f"  {lib:<12}{ms:8.2f}")
        for lib, target in (("tensorflow", 0.7), ("torch", 1.0)):
            if lib in med:
                ratio = med["tensorlet"] / med[lib]
                print(f"  tensorlet / {lib}: {ratio:.2f}x (target <= {target}) -> "
                      f"{'met' if ratio <= target else 'NOT met'}")
        per = tuned["seconds"] / tuned["steps"] * 1e3
        print(f"  conv autotune: committed after {tuned['steps'] + 3} steps ({per:.2f} ms/step meanwhile); "
              f"{tuned['trial_calls']} trial calls cost {tuned['trial_extra_s'] * 1e3:.0f} ms beyond the winners")
        print("  per key (kind, x/dy shapes, static rule -> winner: best ms per candidate):")
        for op, shapes, static_choice, winner, ms in tuned["keys"]:
            print(f"    {op:<4}{' '.join(map(str, shapes)):<40}{static_choice} -> {winner or '(trialling)'}: {ms}")
        chosen[kind] = tuned
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"ms_per_step": results, "conv_autotune": chosen, "rounds": args.rounds, "steps": args.steps}, f,
                      indent=1)
        os.replace(tmp, args.json)


if __name__ == "__main__":
    main()
