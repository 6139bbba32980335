"""Convolution training speed on CPU: the seed CNN's ``fit`` against Keras 3 on JAX and on TF, and each conv layer.

The seed CNN (tests/lite/test_converter.py): Conv2D(16, 3, relu), MaxPooling2D, Conv2D(64, 3, relu),
MaxPooling2D, Flatten, Dropout(0.25), Dense(10, softmax) on 28x28x1 inputs -- here the 5,000-image MNIST sample
shipped in the package (x / 255), batch 32, Adam, sparse categorical cross-entropy, metrics=["accuracy"],
verbose=0, the same starting weights everywhere.  Targets (issue 19): step <= 0.85x Keras-on-JAX's and <= 0.9x
Keras-on-TF's.

Sections:

* ``fit``: steady-state step time (every epoch after the first, which holds the compiles, over its 157 steps) of
  tensorlet, of tensorlet with its convolutions lowered to XLA's ``conv_general_dilated`` (``tensorlet-xlaconv``:
  the GEMM lowerings of ``tensorlet/_src/ops/nn_conv_lowering.py`` switched off), of tensorlet fusing 32 steps a
  call (``tensorlet-fused``: its loop body holds the GEMM convolutions), of Keras on JAX and of Keras on TF.
  Each framework runs in its own subprocess; rounds are interleaved (tensorlet, peers, tensorlet, ...), the
  best round is kept and the ratios are taken within each round too (their median is printed).
* ``layers``: forward + both backprops of each conv layer shape of the seed CNN (and of the second layer with
  more channels), in jax: XLA's convolution and its autodiff transposes vs the lowering tensorlet ships.

    python benchmarks/bench_conv.py                      # both sections, peers found at the default paths
    options: --rounds R (3)  --epochs N (3)  --only fit,layers  --json out.json
             --keras-jax-python PATH (/work/kerasvenv/bin/python)  --keras-tf-python PATH (/work/tfvenv/bin/python)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tensorlet", "_src", "data", "mnist_5k.npz")
MARK = "@@bench_conv@@"
PEERS = {"keras-jax": "/work/kerasvenv/bin/python", "keras-tf": "/work/tfvenv/bin/python"}


def load_data():
    d = np.load(DATA)
    return (d["x"] / 255.0).astype(np.float32)[..., None], d["y"].astype(np.int32)


def init_weights(seed=0):
    rng = np.random.default_rng(seed)

    def glorot(*shape):
        fan_in = int(np.prod(shape[:-1]))
        fan_out = shape[-1] * (int(np.prod(shape[:-2])) if len(shape) > 2 else 1)
        lim = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-lim, lim, size=shape).astype(np.float32)

    return [glorot(3, 3, 1, 16), np.zeros(16, np.float32), glorot(3, 3, 16, 64), np.zeros(64, np.float32),
            glorot(1600, 10), np.zeros(10, np.float32)]


def build(keras):
    L = keras.layers
    model = keras.Sequential([keras.Input((28, 28, 1)), L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(),
                              L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(), L.Dropout(0.25),
                              L.Dense(10, activation="softmax")])
    model.set_weights(init_weights())
    return model


def bench_fit(keras, epochs, x, y):
    model = build(keras)
    model.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=["accuracy"])
    times = []

    class EpochTimer(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            times.append(time.perf_counter() - self.t0)

    hist = model.fit(x, y, batch_size=32, epochs=epochs, verbose=0, callbacks=[EpochTimer()])
    steps = -(-len(x) // 32)
    steady = [t / steps * 1e3 for t in times[1:]]
    return {"first_epoch_s": times[0], "step_ms": min(steady), "step_ms_median": statistics.median(steady),
            "final_loss": float(hist.history["loss"][-1])}


def worker(name, epochs):
    x, y = load_data()
    if name.startswith("tensorlet"):
        sys.path.insert(0, ROOT)
        import tensorlet as tl

        if name == "tensorlet-xlaconv":
            from tensorlet._src.ops import nn_conv_lowering

            nn_conv_lowering.applies = lambda *a: False  # XLA's conv_general_dilated and its transposes
        if name == "tensorlet-fused":  # fit fusing 32 steps a call (a loop whose body holds the GEMM convolutions)
            from tensorlet._src.keras.trainers import multi_step

            multi_step._convolutions_fuse_well = lambda model: True
        keras = tl.keras
    else:
        os.environ["KERAS_BACKEND"] = "tensorflow" if name == "keras-tf" else "jax"
        import keras
    keras.utils.set_random_seed(0)
    return bench_fit(keras, epochs, x, y)


def run_worker(name, python, epochs):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    cmd = [python, os.path.abspath(__file__), "--worker", name, "--epochs", str(epochs)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    print(f"  ({name} worker failed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode})")
    return None


# --- per-layer: XLA's convolution vs tensorlet's lowering, in jax --------------------------------------------------
LAYERS = {"conv1 28x28x1->16": ((32, 28, 28, 1), (3, 3, 1, 16)),
          "conv2 13x13x16->64": ((32, 13, 13, 16), (3, 3, 16, 64)),
          "conv 13x13x64->128": ((32, 13, 13, 64), (3, 3, 64, 128))}


def bench_layers(rounds):
    sys.path.insert(0, ROOT)
    import jax
    import jax.numpy as jnp
    from jax import lax

    from tensorlet._src.ops import nn_conv_kernels as K

    attrs = dict(strides=(1, 1, 1, 1), padding="VALID", data_format="NHWC")
    dn = ("NHWC", "HWIO", "NHWC")

    def xla_step(x, w, g):  # forward, then autodiff's transposes: what Keras on JAX runs
        y, vjp = jax.vjp(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID", dimension_numbers=dn), x, w)
        return (y,) + vjp(g)

    def ours_step(x, w, g):
        return (K.jax_conv(jnp, x, w, **attrs), K.jax_conv_input(jnp, w, g, x.shape, **attrs),
                K.jax_conv_filter(jnp, x, g, w.shape, **attrs))

    rng = np.random.default_rng(0)
    out = {}
    for name, (xs, ws) in LAYERS.items():
        x = jnp.asarray(rng.standard_normal(xs, dtype=np.float32))
        w = jnp.asarray(rng.standard_normal(ws, dtype=np.float32) * 0.1)
        ys = (xs[0], xs[1] - ws[0] + 1, xs[2] - ws[1] + 1, ws[3])
        g = jnp.asarray(rng.standard_normal(ys, dtype=np.float32))
        fs = {"xla": jax.jit(xla_step), "tensorlet": jax.jit(ours_step)}
        ref = fs["xla"](x, w, g)
        err = max(float(jnp.max(jnp.abs(a - b)) / (jnp.max(jnp.abs(b)) + 1e-30))
                  for a, b in zip(fs["tensorlet"](x, w, g), ref))
        best = {k: float("inf") for k in fs}
        for _ in range(rounds):
            for k, f in fs.items():
                t = min(timeit.repeat(lambda f=f, a=(x, w, g): jax.block_until_ready(f(*a)), number=30, repeat=3)) / 30
                best[k] = min(best[k], t * 1e3)
        out[name] = dict(best, rel_err=err)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="fit,layers")
    ap.add_argument("--json")
    ap.add_argument("--keras-jax-python", default=PEERS["keras-jax"])
    ap.add_argument("--keras-tf-python", default=PEERS["keras-tf"])
    args = ap.parse_args()
    if args.worker:
        print(MARK + json.dumps(worker(args.worker, args.epochs)))
        return
    only = set(args.only.split(","))
    results = {"load_before": os.getloadavg()}
    if "fit" in only:
        names = {"tensorlet": sys.executable, "tensorlet-xlaconv": sys.executable, "tensorlet-fused": sys.executable}
        for peer, py in (("keras-jax", args.keras_jax_python), ("keras-tf", args.keras_tf_python)):
            if py and os.path.exists(py):
                names[peer] = py
            else:
                print(f"  ({peer}: no python at {py}; skipped)")
        rounds = []
        for r in range(args.rounds):
            order = list(names) if r % 2 == 0 else list(reversed(names))  # interleaved; drift cancels
            rounds.append({n: run_worker(n, names[n], args.epochs) for n in order})
        results["fit_rounds"] = rounds
        print(f"seed CNN fit, step ms (best / median of steady epochs; {args.rounds} rounds x {args.epochs} epochs)")
        for n in names:
            ok = [rd[n] for rd in rounds if rd.get(n)]
            if ok:
                b = min(ok, key=lambda d: d["step_ms"])
                print(f"  {n:18s} {b['step_ms']:7.2f} / {b['step_ms_median']:7.2f} ms  first epoch "
                      f"{b['first_epoch_s']:5.2f} s  final loss {b['final_loss']:.4f}")
        for peer in [n for n in names if n != "tensorlet"]:
            same = [rd["tensorlet"]["step_ms"] / rd[peer]["step_ms"] for rd in rounds
                    if rd.get("tensorlet") and rd.get(peer)]
            if same:
                print(f"  tensorlet / {peer:18s} same-round ratios {', '.join(f'{v:.2f}' for v in same)}  "
                      f"median {statistics.median(same):.2f}")
    if "layers" in only:
        lay = results["layers"] = bench_layers(args.rounds)
        print("conv layer forward + input and filter backprop (batch 32), ms: XLA conv vs tensorlet's lowering")
        for name, d in lay.items():
            print(f"  {name:20s} xla {d['xla']:6.3f}  tensorlet {d['tensorlet']:6.3f}  "
                  f"ratio {d['tensorlet'] / d['xla']:.2f}  (max rel diff {d['rel_err']:.1e})")
    results["load_after"] = os.getloadavg()
    print(f"load average before {tuple(round(v, 2) for v in results['load_before'])}, "
          f"after {tuple(round(v, 2) for v in results['load_after'])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
