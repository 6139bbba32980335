"""keras.applications speed: ResNet50 forward on a batch of 8 (224x224x3), compiled, against Keras 3 on JAX.

Both sides run the same model with the same weights (ours writes a ``.weights.h5`` that Keras loads), compiled:
ours through ``tf.function(jit_compile=True)``, Keras-on-JAX through ``model.predict_on_batch`` (its jitted
predict function).  Keras runs in a subprocess (KERAS_BACKEND=jax; ``pip install keras`` into the venv, for
benchmarking only).  Rounds are interleaved: each round times ``--iters`` calls on both sides.

    python benchmarks/bench_applications.py [--rounds 5] [--iters 5] [--json out.json]

Target (issue 14): ours <= Keras-on-JAX's time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PEER = r'''
import os, sys, time
os.environ["KERAS_BACKEND"] = "jax"
import numpy as np
import keras
model = keras.applications.ResNet50(weights=None, classifier_activation=None)
model.load_weights(sys.argv[1])
x = np.random.RandomState(0).uniform(-1, 1, (8, 224, 224, 3)).astype("float32")
y = np.asarray(model.predict_on_batch(x))
np.save(sys.argv[2], y)
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    t = time.perf_counter()
    for _ in range(n):
        np.asarray(model.predict_on_batch(x))
    print((time.perf_counter() - t) / n, flush=True)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    import tensorlet as tf

    model = tf.keras.applications.ResNet50(weights=None, classifier_activation=None)  # logits: a sharper check
    x = np.random.RandomState(0).uniform(-1, 1, (8, 224, 224, 3)).astype("float32")
    fn = tf.function(lambda t: model(t, training=False), jit_compile=True)
    xt = tf.constant(x)
    t0 = time.perf_counter()
    ours_y = np.asarray(fn(xt))
    compile_s = time.perf_counter() - t0
    results = {"ours_compile_s": compile_s}
    peer = None
    tmp = tempfile.mkdtemp()
    if importlib.util.find_spec("keras") is not None and importlib.util.find_spec("jax") is not None:
        wpath = os.path.join(tmp, "resnet50.weights.h5")
        model.save_weights(wpath)
        env = dict(os.environ, KERAS_BACKEND="jax")
        env.pop("PYTHONPATH", None)
        peer = subprocess.Popen([sys.executable, "-c", PEER, wpath, os.path.join(tmp, "peer.npy")], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp)
        if peer.stdout.readline().strip() != "ready":
            raise SystemExit("Keras-on-JAX peer failed to start")
        peer_y = np.load(os.path.join(tmp, "peer.npy"))
        results["max_abs_diff_vs_keras"] = float(np.max(np.abs(peer_y - ours_y)))
        results["max_abs_logit"] = float(np.max(np.abs(ours_y)))
    ours, theirs = [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        for _ in range(args.iters):
            np.asarray(fn(xt))
        ours.append((time.perf_counter() - t) / args.iters)
        if peer is not None:
            peer.stdin.write(f"{args.iters}\n")
            peer.stdin.flush()
            theirs.append(float(peer.stdout.readline()))
    if peer is not None:
        peer.stdin.close()
        peer.wait()
    results["ours_ms"] = min(ours) * 1e3
    print(f"ResNet50 forward, batch 8, 224x224, compiled ({args.rounds} rounds x {args.iters})")
    print(f"  tensorlet (tf.function jit_compile): {results['ours_ms']:8.1f} ms   (compile {compile_s:.1f} s)")
    if theirs:
        results["keras_jax_ms"] = min(theirs) * 1e3
        results["ratio_ours_over_keras_jax"] = results["ours_ms"] / results["keras_jax_ms"]
        print(f"  Keras 3 on JAX (predict_on_batch):    {results['keras_jax_ms']:8.1f} ms")
        print(f"  ratio ours / keras-jax: {results['ratio_ours_over_keras_jax']:.3f}  (target <= 1.0); "
              f"max |diff| of logits {results['max_abs_diff_vs_keras']:.2e} "
              f"(max |logit| {results['max_abs_logit']:.2e})")
    else:
        print("  (keras + jax not importable: no peer)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
