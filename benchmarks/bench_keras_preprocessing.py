"""Keras preprocessing speed, issue 14's workloads: ``TextVectorization.adapt`` + vectorizing 10,000 sentences, and
``image_dataset_from_directory`` over 2,000 small (32x32) PNG files feeding a small ``fit`` (plus the bare
iteration) -- tensorlet against Keras 3 on TensorFlow (``/work/tfvenv/bin/python``, run as a subprocess), rounds
interleaved, best kept.

    python benchmarks/bench_keras_preprocessing.py            # options: --sentences N  --images N  --rounds R
    python benchmarks/bench_keras_preprocessing.py --tf-python ''   # tensorlet only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def sentences(n, seed=0):
    rng = np.random.RandomState(seed)
    words = [f"w{i}" for i in range(3000)] + ["The", "cat,", "DOG!", "sat.", "on", "mat"]
    lens = rng.randint(4, 30, size=n)
    return [" ".join(rng.choice(words, size=k)) for k in lens]


def make_pngs(root, n):
    from PIL import Image

    for i in range(n):
        d = os.path.join(root, f"class{i % 4}")
        os.makedirs(d, exist_ok=True)
        a = ((np.arange(32 * 32 * 3).reshape(32, 32, 3) * (i + 1)) % 256).astype(np.uint8)
        Image.fromarray(a).save(os.path.join(d, f"{i:05d}.png"))


def text_workload(keras, tf, text):
    t0 = time.perf_counter()
    tv = keras.layers.TextVectorization(max_tokens=5000, output_sequence_length=32)
    tv.adapt(text)
    np.asarray(tv(tf.constant(text)))
    return time.perf_counter() - t0


def iterate_workload(keras, root):
    t0 = time.perf_counter()
    ds = keras.utils.image_dataset_from_directory(root, image_size=(32, 32), batch_size=32, seed=1, verbose=False)
    n = sum(int(x.shape[0]) for x, _ in ds)
    return n / (time.perf_counter() - t0)


def fit_workload(keras, root, epochs=3):
    """images/s of the fastest epoch after the first (the first one traces the train step)."""
    ds = keras.utils.image_dataset_from_directory(root, image_size=(32, 32), batch_size=32, seed=1, verbose=False)
    model = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Rescaling(1 / 255.0),
                              keras.layers.Conv2D(8, 3, activation="relu"), keras.layers.GlobalAveragePooling2D(),
                              keras.layers.Dense(4)])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    stamps = []

    class Clock(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            stamps.append(time.perf_counter())

        def on_epoch_end(self, epoch, logs=None):
            stamps[-1] = time.perf_counter() - stamps[-1]

    model.fit(ds, epochs=epochs, verbose=0, callbacks=[Clock()])
    return len(ds.file_paths) / min(stamps[1:])


def child(peer, root, n_sentences):
    """One round of every workload in this process: prints a JSON line."""
    if peer == "tensorlet":
        import tensorlet as tf
        keras = tf.keras
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import keras
        import tensorflow as tf
    text = sentences(n_sentences)
    text_workload(keras, tf, text[:500])  # warm-up (imports, first traces)
    out = {"text_s": text_workload(keras, tf, text)}
    if root:  # warm-up: the first dataset map traces (and tensorlet's first graph run loads jax)
        for _ in keras.utils.image_dataset_from_directory(root, image_size=(32, 32), verbose=False).take(2):
            pass
        out["iter_ips"] = iterate_workload(keras, root)
        out["fit_ips"] = fit_workload(keras, root)
    print("RESULT " + json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=10000)
    ap.add_argument("--images", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tf-python", default="/work/tfvenv/bin/python")
    ap.add_argument("--child", default=None)
    ap.add_argument("--root", default="")
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.root, args.sentences)
    peers = {"tensorlet": sys.executable}
    if args.tf_python and os.path.exists(args.tf_python):
        peers["keras-tf"] = args.tf_python
    best = {k: {} for k in peers}
    text_rounds = {k: [] for k in peers}
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as root:
        if args.images:
            make_pngs(root, args.images)
        for _ in range(args.rounds):
            for name, py in peers.items():
                cmd = [py, os.path.abspath(__file__), "--child", name, "--sentences", str(args.sentences),
                       "--root", root if args.images else ""]
                res = subprocess.run(cmd, capture_output=True, text=True, check=False)
                line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
                if not line:
                    sys.exit(f"{name} failed:\n{res.stderr[-3000:]}")
                text_rounds[name].append(json.loads(line[-1][7:])["text_s"])
                for k, v in json.loads(line[-1][7:]).items():
                    keep = min if k.endswith("_s") else max
                    best[name][k] = keep(best[name].get(k, v), v)
    print(f"load average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    for name, b in best.items():
        line = f"{name:10s} TextVectorization adapt+call {args.sentences} sentences: {b['text_s'] * 1e3:8.1f} ms"
        if args.images:
            line += (f" | image_dataset_from_directory {args.images} PNGs: iterate {b['iter_ips']:7.0f} img/s, "
                     f"feeding fit {b['fit_ips']:7.0f} img/s")
        print(line)
    if "keras-tf" in best:
        t, k = best["tensorlet"], best["keras-tf"]
        ratios = [a / b for a, b in zip(text_rounds["keras-tf"], text_rounds["tensorlet"])]
        print(f"text: tensorlet is {k['text_s'] / t['text_s']:.2f}x Keras-on-TF's speed (> 1 is faster; best of each); "
              f"per round {' '.join(f'{r:.2f}' for r in ratios)}, median {float(np.median(ratios)):.2f}x")
        if args.images:
            print(f"images: tensorlet throughput is {t['iter_ips'] / k['iter_ips']:.2f}x Keras-on-TF's (iterate), "
                  f"{t['fit_ips'] / k['fit_ips']:.2f}x (feeding fit)")


if __name__ == "__main__":
    main()
