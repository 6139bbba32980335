"""Peak memory (max RSS) of the README's jobs: tensorlet vs Keras 3 on JAX, same run, alternating.

* ``demo``: ``tensorlet demo --epochs 1`` against the same program on Keras-on-JAX (the demo's CNN, data, ``fit``
  with validation, ``evaluate``, the plot when matplotlib is there).
* ``fit``: ``fit`` of seed 000's CNN (Conv2D 16 -> Conv2D 16 -> GlobalAveragePooling2D -> Dense 10, Adam, sparse
  cross-entropy) for one epoch over 3,200 MNIST-shaped images, batch 32.

Each job runs in a fresh process; its peak RSS comes from ``os.wait4``.  Keras runs with ``--keras-python`` (a
Python with ``keras`` and ``jax``; not a tensorlet dependency), ``KERAS_BACKEND=jax``.  Target (issue 19):
tensorlet's peak RSS <= Keras-on-JAX's.

    python benchmarks/bench_memory.py --keras-python /path/to/venv/bin/python [--rounds 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIT_JOB = """
import numpy as np
rng = np.random.default_rng(0)
x = (rng.integers(0, 256, (3200, 28, 28, 1)) / 255).astype(np.float32)
y = rng.integers(0, 10, 3200)
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(16, 3, activation="relu"),
                          keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
"""

DEMO_JOB = """
import sys
sys.path.insert(0, {root!r})
from tensorlet._src import demo as d
(x_train, y_train), (x_test, y_test) = d.load_sample()
keras.utils.set_random_seed(0)
model = d.build_model(keras)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(x_train, y_train, batch_size=32, epochs=1, validation_data=(x_test, y_test), verbose=2)
model.evaluate(x_test, y_test, verbose=0)
try:
    d.save_plot(history, {plot!r})
except ImportError:
    pass
"""


def peak_rss_mb(cmd, env=None, cwd=None) -> float:
    """Run ``cmd``; its peak resident set size in MiB (Linux reports ru_maxrss in KiB)."""
    p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[:3]} failed:\n{err[-2000:]}")
    return usage.ru_maxrss / 1024


def jobs(keras_python, tmp):
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    kenv = dict(os.environ, KERAS_BACKEND="jax")
    kenv.pop("PYTHONPATH", None)
    demo_keras = "import keras\n" + DEMO_JOB.format(root=ROOT, plot=os.path.join(tmp, "keras.png"))
    out = {
        "demo": {"tensorlet": ([sys.executable, "-m", "tensorlet", "demo", "--epochs", "1", "--out",
                                os.path.join(tmp, "demo")], env)},
        "fit": {"tensorlet": ([sys.executable, "-c", "import tensorlet as tf\nkeras = tf.keras\n" + FIT_JOB], env)},
    }
    if keras_python:
        out["demo"]["keras-jax"] = ([keras_python, "-c", demo_keras], kenv)
        out["fit"]["keras-jax"] = ([keras_python, "-c", "import keras\n" + FIT_JOB], kenv)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keras-python", help="a Python with keras and jax installed")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for job, peers in jobs(args.keras_python, tmp).items():
            rss = {lib: [] for lib in peers}
            for r in range(args.rounds):
                for lib in (list(peers) if r % 2 == 0 else list(peers)[::-1]):
                    cmd, env = peers[lib]
                    rss[lib].append(peak_rss_mb(cmd, env=env, cwd=tmp))
            results[job] = {lib: statistics.median(v) for lib, v in rss.items()}
            print(f"{job}: peak RSS, MiB (median of {args.rounds})")
            for lib, mb in results[job].items():
                print(f"  {lib:<12}{mb:8.0f}")
            if "keras-jax" in results[job]:
                ratio = results[job]["tensorlet"] / results[job]["keras-jax"]
                print(f"  tensorlet / keras-jax: {ratio:.2f}x (target <= 1) -> {'met' if ratio <= 1 else 'NOT met'}")
    if args.json:
        tmpf = args.json + ".tmp"
        with open(tmpf, "w") as f:
            json.dump(results, f, indent=1)
        os.replace(tmpf, args.json)


if __name__ == "__main__":
    main()
