"""Keras speed: `fit` step time, first-epoch (compile) time, `model(x)`/`predict` overhead, memory over many calls.

Workloads (issue "Keras", section Speed), on the 5,000-image MNIST sample shipped in the package (x / 255 as float32,
batch 32, Adam, SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"], verbose=0):

* ``cnn``: the seed CNN: Conv2D(16, 3, relu), Conv2D(16, 3, relu), GlobalAveragePooling2D, Dense(10)
  (target: step <= 0.85x Keras-on-JAX's);
* ``mlp``: Flatten, Dense(128, relu), Dense(10) (target: step <= 0.6x Keras-on-JAX's);
* ``spe``: the MLP's ``fit`` with ``steps_per_execution=32`` (target: step <= 0.3x Keras-on-JAX's default fit; the
  peers run with the same setting too);
* ``model(x)`` of a small model (Dense 8-16-4 on 4 rows): <= 0.2x TF-backend Keras's eager call;
  ``predict`` of one batch of it: <= 2 ms;
* 10,000 ``model(x)`` and 10,000 ``predict`` calls in a loop: flat memory (RSS, Python heap, live objects);
* for information, the MLP's ``fit`` with ``verbose=1`` (fit's default: the progress bar; output discarded).

Step time is the best (and median) steady-state epoch -- every epoch after the first, which holds the compiles --
divided by the 157 steps of an epoch.  Every framework starts from the same weights (final losses should agree).
For the CNN and the MLP, the tensorlet step is also split into the compiled train step called directly on one batch
(results read back every call, as ``train_on_batch`` does; a silent ``fit`` does not wait for each step) and a
hand-written ``jax.jit`` step of the same computation (Adam and the two metrics included; also with donated
buffers), to separate the Keras loop's cost, the graph runtime's cost and XLA's compute.  The ``spe`` section also
gives the fused fit's floor: that hand-written step as one ``jax.lax.scan`` per group of batches, fed as ``fit``
feeds it (XLA's compute plus NumPy's gather of each group's rows).  On a busy machine, use
``--rounds 3`` (the best round is kept).

    python benchmarks/bench_keras.py                       # tensorlet only (plus the jax.jit references)
    /work/venv/bin/python benchmarks/bench_keras.py --keras-jax-python /work/kerasvenv/bin/python \
        --keras-tf-python /work/tfvenv/bin/python          # + Keras 3 on JAX and on TF, each in its own process
    (a Python with tensorlet's deps, jax and Keras-on-TF can run Keras-on-TF in-process: PYTHONPATH=$PWD)
    options: --epochs N  --rounds R (repeat and keep the best)  --only mlp,cnn,spe,verbose,call,memory  --json out.json
             --steps-per-execution N (32; the MLP's fit with it: section spe)
             --keras-jax-python PATH (a venv's python with keras + jax, for the keras-jax peer)
             --keras-tf-python PATH (a venv's python with keras + tensorflow, for the keras-tf peer)
             --mem-calls N (10,000)  --peer-mem-calls N (1,000; a tenth of it for TF's predict, ~0.1 s a call)
             --no-peers
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import timeit
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tensorlet", "_src", "data", "mnist_5k.npz")
MARK = "@@bench_keras@@"


# --- data, models, weights -------------------------------------------------------------------------------------------
def load_data():
    d = np.load(DATA)
    return (d["x"] / 255.0).astype(np.float32)[..., None], d["y"].astype(np.int32)


def init_weights(kind, seed=0):
    rng = np.random.default_rng(seed)

    def glorot(*shape):
        fan_in = int(np.prod(shape[:-1]))
        fan_out = shape[-1] * (int(np.prod(shape[:-2])) if len(shape) > 2 else 1)
        lim = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-lim, lim, size=shape).astype(np.float32)

    if kind == "cnn":
        return [glorot(3, 3, 1, 16), np.zeros(16, np.float32), glorot(3, 3, 16, 16), np.zeros(16, np.float32),
                glorot(16, 10), np.zeros(10, np.float32)]
    if kind == "mlp":
        return [glorot(784, 128), np.zeros(128, np.float32), glorot(128, 10), np.zeros(10, np.float32)]
    return [glorot(8, 16), np.zeros(16, np.float32), glorot(16, 4), np.zeros(4, np.float32)]  # small


def build(keras, kind):
    L = keras.layers
    if kind == "cnn":
        layers = [keras.Input((28, 28, 1)), L.Conv2D(16, 3, activation="relu"), L.Conv2D(16, 3, activation="relu"),
                  L.GlobalAveragePooling2D(), L.Dense(10)]
    elif kind == "mlp":
        layers = [keras.Input((28, 28, 1)), L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)]
    else:
        layers = [keras.Input((8,)), L.Dense(16, activation="relu"), L.Dense(4)]
    model = keras.Sequential(layers)
    model.set_weights(init_weights(kind))
    return model


def rss_kb():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except OSError:  # not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# --- measurements (run against any Keras: tensorlet's, Keras 3 on TF, Keras 3 on JAX) -----------------------------
def bench_fit(keras, kind, epochs, x, y, verbose=0, steps_per_execution=1):
    model = build(keras, kind)
    model.compile(optimizer=keras.optimizers.Adam(), metrics=["accuracy"], steps_per_execution=steps_per_execution,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    times = []

    class EpochTimer(keras.callbacks.Callback):  # epoch hooks only: a silent fit needs no per-batch logs
        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            times.append(time.perf_counter() - self.t0)

    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):  # verbose=1: the bar's output
        hist = model.fit(x, y, batch_size=32, epochs=epochs, verbose=verbose, callbacks=[EpochTimer()])
    steps = -(-len(x) // 32)
    steady = [t / steps * 1e3 for t in times[1:]]
    return {"first_epoch_s": times[0], "steady_ms_min": min(steady), "steady_ms_median": statistics.median(steady),
            "epoch_s": times, "final_loss": float(hist.history["loss"][-1]),
            "final_accuracy": float(hist.history["accuracy"][-1]), "model": model}


def best_us(fn, number, repeat=5):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def bench_call(keras, to_tensor):
    model = build(keras, "small")
    x4 = np.random.default_rng(2).random((4, 8), dtype=np.float32)
    x32 = np.random.default_rng(3).random((32, 8), dtype=np.float32)
    xt = to_tensor(x4)
    model(xt)
    model.predict(x32, verbose=0)
    out = {"call_us": best_us(lambda: model(xt), 300), "call_numpy_us": best_us(lambda: model(x4), 300)}
    n = 3 if "tensorflow" in type(xt).__module__ else 30  # TF builds a tf.data pipeline per predict (~0.1 s)
    out["predict_us"] = best_us(lambda: model.predict(x32, verbose=0), n, repeat=3)
    return out


def bench_memory(keras, to_tensor, calls, predict_calls):
    model = build(keras, "small")
    xt = to_tensor(np.ones((4, 8), np.float32))
    x32 = np.ones((32, 8), np.float32)
    out = {"calls": calls, "predict_calls": predict_calls}
    for name, fn, n in (("call", lambda: model(xt), calls),
                        ("predict", lambda: model.predict(x32, verbose=0), predict_calls)):
        for _ in range(max(20, n // 20)):  # warm up: compiles, caches, allocator pools
            fn()
        gc.collect()
        rss0, objs0 = rss_kb(), len(gc.get_objects())
        tracemalloc.start()
        py0 = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            fn()
        gc.collect()
        out[f"{name}_py_growth_kb"] = (tracemalloc.get_traced_memory()[0] - py0) / 1024
        tracemalloc.stop()
        out[f"{name}_rss_growth_kb"] = rss_kb() - rss0
        out[f"{name}_object_growth"] = len(gc.get_objects()) - objs0
    return out


# --- the compiled step alone, and the same computation written in jax.jit -------------------------------------------
def tensorlet_step_ms(tl, model, x, y, steps):
    """The model's compiled train step (as ``fit`` calls it) on one fixed batch."""
    fn = model.make_train_function()
    data = (tl.constant(x[:32]), tl.constant(y[:32]))
    fn(data)
    return best_us(lambda: fn(data), steps) / 1e3


def jax_step(kind):
    """The Keras train step of ``kind`` written directly in jax (forward, grads, Keras's Adam, loss/accuracy
    totals): ``(step(state, a, b) -> (state, [loss, accuracy]), initial state)``."""
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def forward(ps, a):
        if kind == "cnn":
            w1, b1, w2, b2, w3, b3 = ps
            h = jax.nn.relu(jax.lax.conv_general_dilated(a, w1, (1, 1), "VALID", dimension_numbers=dn) + b1)
            h = jax.nn.relu(jax.lax.conv_general_dilated(h, w2, (1, 1), "VALID", dimension_numbers=dn) + b2)
            return h.mean(axis=(1, 2)) @ w3 + b3
        w1, b1, w2, b2 = ps
        return jax.nn.relu(a.reshape(a.shape[0], -1) @ w1 + b1) @ w2 + b2

    def loss_fn(ps, a, b):
        logits = forward(ps, a)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, b[:, None].astype(jnp.int32), axis=1)), logits

    def step(state, a, b):
        ps, ms, vs, t, totals = state
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(ps, a, b)
        t = t + 1.0
        lr = 0.001 * jnp.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
        ms = [m + (g - m) * 0.1 for m, g in zip(ms, grads)]
        vs = [v + (g * g - v) * 0.001 for v, g in zip(vs, grads)]
        ps = [p - lr * m / (jnp.sqrt(v) + 1e-7) for p, m, v in zip(ps, ms, vs)]
        acc = jnp.mean((jnp.argmax(logits, -1) == b).astype(jnp.float32))
        totals = totals + jnp.stack([loss * a.shape[0], a.shape[0], acc * a.shape[0], a.shape[0]])
        return (ps, ms, vs, t, totals), jnp.stack([totals[0] / totals[1], totals[2] / totals[3]])

    params = [jnp.asarray(p) for p in init_weights(kind)]
    state = (params, [jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params], jnp.float32(0.0),
             jnp.zeros(4, jnp.float32))
    return step, state


def jax_reference_ms(kind, x, y, steps, donate):
    """The step of ``jax_step`` in ``jax.jit`` on one fixed NumPy batch, results read back each step."""
    import jax

    step, state = jax_step(kind)
    f = jax.jit(step, donate_argnums=(0,) if donate else ())
    box = [state]
    xb, yb = x[:32], y[:32]

    def run():  # NumPy batch in, results read back each step: as a Keras step with per-step logs
        box[0], out = f(box[0], xb, yb)
        np.asarray(out)

    return best_us(run, steps) / 1e3


def jax_scan_epoch_ms(kind, x, y, epochs, n):
    """The floor of a fused ``fit``: the step of ``jax_step`` as one ``jax.lax.scan`` per group of ``n`` batches
    (state donated, nothing read back until the epoch's end), fed as ``fit`` feeds it (each epoch shuffled, each
    group's rows gathered with NumPy); best ms/step over the epochs after the first, on the epoch's full batches
    (the last, smaller batch left out)."""
    import jax

    step, state = jax_step(kind)

    def group(st, xs, ys):
        st, outs = jax.lax.scan(lambda c, ab: step(c, *ab), st, (xs, ys))
        return st, outs[-1]

    f = jax.jit(group, donate_argnums=(0,))
    full = len(x) // 32
    times = []
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        idx = rng.permutation(len(x))
        t0 = time.perf_counter()
        for g in range(0, full, n):
            k = min(n, full - g)
            sel = idx[g * 32:(g + k) * 32]
            state, out = f(state, x[sel].reshape(k, 32, *x.shape[1:]), y[sel].reshape(k, 32))
        np.asarray(out)
        times.append((time.perf_counter() - t0) / full * 1e3)
    return min(times[1:])


# --- one framework's sections --------------------------------------------------------------------------------------
def run_framework(name, only, epochs, mem_calls, spe=32):
    """Runs the sections for ``name`` (tensorlet | keras-tf | keras-jax) in this process; returns a JSON-able dict."""
    x, y = load_data()
    if name == "tensorlet":
        sys.path.insert(0, ROOT)
        import tensorlet as tl

        keras = tl.keras
        to_tensor = tl.constant
        t0 = time.perf_counter()
        import jax  # tensorlet imports jax on its first compiled call: kept out of the first epoch's compile time

        jax.numpy.zeros(1).block_until_ready()
        jax_import_s = time.perf_counter() - t0
    else:
        os.environ["KERAS_BACKEND"] = "tensorflow" if name == "keras-tf" else "jax"
        import keras

        if name == "keras-tf":
            import tensorflow as tf

            to_tensor = tf.constant
        else:
            import jax.numpy as jnp

            to_tensor = jnp.asarray
    keras.utils.set_random_seed(0)
    res = {"jax_import_s": jax_import_s} if name == "tensorlet" else {}
    for kind in ("mlp", "cnn"):
        if kind in only:
            r = bench_fit(keras, kind, epochs, x, y)
            model = r.pop("model")
            if name == "tensorlet":
                n = 300 if kind == "mlp" else 30
                r["compiled_step_ms"] = tensorlet_step_ms(tl, model, x, y, n)
                r["jax_jit_ms"] = jax_reference_ms(kind, x, y, n, donate=False)
                r["jax_jit_donated_ms"] = jax_reference_ms(kind, x, y, n, donate=True)
            res[kind] = r
    if "spe" in only:  # steps_per_execution: that many steps in one compiled call
        r = bench_fit(keras, "mlp", epochs, x, y, steps_per_execution=spe)
        r.pop("model")
        if name == "tensorlet":
            r["jax_scan_ms"] = jax_scan_epoch_ms("mlp", x, y, epochs, spe)
        res["mlp_spe"] = dict(r, steps_per_execution=spe)
    if "verbose" in only:  # fit's default, verbose=1: a progress bar drawn every 0.05 s
        r = bench_fit(keras, "mlp", epochs, x, y, verbose=1)
        r.pop("model")
        res["mlp_verbose1"] = r
    if "call" in only:
        res["call"] = bench_call(keras, to_tensor)
    if "memory" in only:
        # Keras on TF builds a tf.data pipeline per predict (~0.1 s a call): fewer calls there
        res["memory"] = bench_memory(keras, to_tensor, mem_calls, mem_calls if name != "keras-tf" else
                                     max(1, mem_calls // 10))
    return res


def run_worker_subprocess(name, only, epochs, mem_calls, spe=32, python=None):
    env = dict(os.environ, KERAS_BACKEND="jax", TF_CPP_MIN_LOG_LEVEL="3")
    cmd = [python or sys.executable, os.path.abspath(__file__), "--worker", name, "--epochs", str(epochs), "--only",
           ",".join(only), "--mem-calls", str(mem_calls), "--steps-per-execution", str(spe)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    print(f"  ({name} worker failed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode})")
    return None


def merge_best(old, new):
    """Keeps the better measurement of two rounds (smaller times; memory from the first round)."""
    if old is None:
        return new
    out = dict(old)
    for k, v in new.items():
        if isinstance(v, dict):
            out[k] = merge_best(old.get(k), v)
        elif isinstance(v, (int, float)) and k.endswith(("_ms", "_us", "_s", "_min", "_median")) and k in old \
                and k != "jax_import_s":
            out[k] = min(old[k], v)
    return out


# --- report ----------------------------------------------------------------------------------------------------------
def report(results):
    tl, ktf, kjax = (results.get(k) for k in ("tensorlet", "keras-tf", "keras-jax"))
    summary = {}
    names = [n for n in ("tensorlet", "keras-tf", "keras-jax") if results.get(n)]
    for kind, target in (("mlp", 0.6), ("cnn", 0.85)):
        if not tl or kind not in tl:
            continue
        print(f"\nfit {kind.upper()} (5,000 MNIST images, batch 32, Adam; ms/step over the steady epochs; the first "
              f"epoch holds the compiles; tensorlet imports jax on its first compiled call, here done before: "
              f"{tl.get('jax_import_s', 0):.2f} s):")
        print(f"  {'':12} {'best':>8} {'median':>8} {'1st epoch s':>12}   final loss / accuracy")
        for n in names:
            r = results[n][kind]
            print(f"  {n:12} {r['steady_ms_min']:8.3f} {r['steady_ms_median']:8.3f} {r['first_epoch_s']:12.2f}   "
                  f"{r['final_loss']:.4f} / {r['final_accuracy']:.4f}")
        r = tl[kind]
        print(f"  tensorlet split: compiled train step called alone, results read back each call "
              f"{r['compiled_step_ms']:.3f} ms (fit: {r['steady_ms_min'] - r['compiled_step_ms']:+.3f}); the same step "
              f"in jax.jit {r['jax_jit_ms']:.3f} ms, with donated buffers {r['jax_jit_donated_ms']:.3f} ms")
        summary[f"{kind}_step_ms"] = r["steady_ms_min"]
        for peer, label in ((kjax, "keras-jax"), (ktf, "keras-tf")):
            if peer and kind in peer:
                ratio = r["steady_ms_min"] / peer[kind]["steady_ms_min"]
                med = r["steady_ms_median"] / peer[kind]["steady_ms_median"]
                ok = "" if label != "keras-jax" else ("  OK" if ratio <= target else f"  (target <= {target})")
                print(f"  ratio tensorlet / {label}: {ratio:.2f} (medians {med:.2f}){ok}")
                summary[f"{kind}_ratio_vs_{label}"] = ratio
    if tl and "mlp_spe" in tl:
        n = tl["mlp_spe"]["steps_per_execution"]
        print(f"\nfit MLP with steps_per_execution={n}, ms/step over the steady epochs:")
        print(f"  {'':12} {'best':>8} {'median':>8}")
        for nm in names:
            r = results[nm].get("mlp_spe")
            if r:
                print(f"  {nm:12} {r['steady_ms_min']:8.3f} {r['steady_ms_median']:8.3f}")
        floor = tl["mlp_spe"].get("jax_scan_ms")
        if floor:
            print(f"  floor: the same step hand-written as one jax.lax.scan per {n} batches (donated, fed as fit "
                  f"feeds it): {floor:.3f} ms/step")
            if kjax and "mlp" in kjax:
                print(f"  ratio floor / keras-jax (default steps_per_execution=1): "
                      f"{floor / kjax['mlp']['steady_ms_min']:.2f}")
        for peer, label in ((kjax, "keras-jax"), (ktf, "keras-tf")):
            if peer and "mlp_spe" in peer:
                ratio = tl["mlp_spe"]["steady_ms_min"] / peer["mlp_spe"]["steady_ms_min"]
                print(f"  ratio tensorlet / {label} (both steps_per_execution={n}): {ratio:.2f}")
                summary[f"mlp_spe_ratio_vs_{label}"] = ratio
            if peer and "mlp" in peer:
                ratio = tl["mlp_spe"]["steady_ms_min"] / peer["mlp"]["steady_ms_min"]
                ok = "" if label != "keras-jax" else ("  OK" if ratio <= 0.3 else "  (target <= 0.3)")
                print(f"  ratio tensorlet / {label} (peer's default steps_per_execution=1): {ratio:.2f}{ok}")
                summary[f"mlp_spe_ratio_vs_{label}_default"] = ratio
    if tl and "mlp_verbose1" in tl:
        print("\nfit MLP with verbose=1 (the default; output discarded), ms/step over the steady epochs:")
        print(f"  {'':12} {'best':>8} {'median':>8}")
        for n in names:
            r = results[n].get("mlp_verbose1")
            if r:
                print(f"  {n:12} {r['steady_ms_min']:8.3f} {r['steady_ms_median']:8.3f}")
        if kjax and "mlp_verbose1" in kjax:
            ratio = tl["mlp_verbose1"]["steady_ms_min"] / kjax["mlp_verbose1"]["steady_ms_min"]
            print(f"  ratio tensorlet / keras-jax: {ratio:.2f}")
            summary["mlp_verbose1_ratio_vs_keras-jax"] = ratio
    if tl and "call" in tl:
        print("\nsmall model (Dense 8-16-4), eager call and predict of one batch:")
        print(f"  {'':12} {'model(x) us':>12} {'model(np) us':>13} {'predict us':>11}")
        for n in names:
            c = results[n].get("call")
            if c:
                print(f"  {n:12} {c['call_us']:12.1f} {c['call_numpy_us']:13.1f} {c['predict_us']:11.1f}")
        if ktf and "call" in ktf:
            ratio = tl["call"]["call_us"] / ktf["call"]["call_us"]
            print(f"  model(x) ratio tensorlet / keras-tf: {ratio:.3f}" + ("  OK" if ratio <= 0.2 else
                                                                          "  (target <= 0.2)"))
            summary["call_ratio_vs_keras-tf"] = ratio
        p = tl["call"]["predict_us"] / 1e3
        print(f"  tensorlet predict of one batch: {p:.3f} ms" + ("  OK" if p <= 2 else "  (target <= 2 ms)"))
    if any(results[n].get("memory") for n in names):
        print("\nmemory growth over repeated calls after warm-up (process RSS KiB / Python heap KiB / live Python "
              "objects):")
        for n in names:
            m = results[n].get("memory")
            if m:
                print(f"  {n:12} {m['calls']:6d} x model(x): {m['call_rss_growth_kb']:6d} / "
                      f"{m['call_py_growth_kb']:6.1f} / {m['call_object_growth']:4d};   "
                      f"{m['predict_calls']:6d} x predict: "
                      f"{m['predict_rss_growth_kb']:6d} / {m['predict_py_growth_kb']:6.1f} / "
                      f"{m['predict_object_growth']:4d}")
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", default="mlp,cnn,spe,verbose,call,memory")
    ap.add_argument("--mem-calls", type=int, default=10_000)
    ap.add_argument("--peer-mem-calls", type=int, default=1_000)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--steps-per-execution", type=int, default=32, help="for the 'spe' section")
    ap.add_argument("--keras-jax-python", help="the Python of a venv with keras and jax, for the keras-jax peer")
    ap.add_argument("--keras-tf-python", help="the Python of a venv with keras and tensorflow, for the keras-tf peer "
                    "(run in its own process; else in-process when this Python has both)")
    ap.add_argument("--json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    if args.worker:
        res = run_framework(args.worker, only, args.epochs, args.mem_calls, args.steps_per_execution)
        print(MARK + json.dumps(res))
        return
    have_keras = not args.no_peers and importlib.util.find_spec("keras") is not None
    frameworks = ["tensorlet"]
    if (have_keras and importlib.util.find_spec("tensorflow") is not None) or (args.keras_tf_python and
                                                                              not args.no_peers):
        frameworks.append("keras-tf")
    if (have_keras and importlib.util.find_spec("jax") is not None) or (args.keras_jax_python and not args.no_peers):
        frameworks.append("keras-jax")
    results = {}
    for rnd in range(args.rounds):
        for name in frameworks:
            print(f"[round {rnd + 1}/{args.rounds}] {name} ...", flush=True)
            calls = args.mem_calls if name == "tensorlet" else args.peer_mem_calls
            sections = only if rnd == 0 else [o for o in only if o != "memory"]  # memory: first round only
            peer_python = {"keras-jax": args.keras_jax_python, "keras-tf": args.keras_tf_python}.get(name)
            if name == "keras-jax" or peer_python:  # its own process: Keras's backend is chosen once per process
                res = run_worker_subprocess(name, sections, args.epochs, calls, args.steps_per_execution,
                                            peer_python)
            else:
                res = run_framework(name, sections, args.epochs, calls, args.steps_per_execution)
            if res is not None:
                results[name] = merge_best(results.get(name), res)
    summary = report(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "summary": summary}, f, indent=2)


if __name__ == "__main__":
    main()
