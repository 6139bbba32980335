"""tf.data pipeline speed: tensorlet vs TensorFlow's tf.data in the same run (TF only when importable).

    python benchmarks/bench_data.py            # tensorlet (+ TF if installed in this interpreter)
    TF_PYTHON=/work/tfenv/bin/python python benchmarks/bench_data.py   # TF measured in that interpreter

Cases:
  1. from_tensor_slices(mnist 5k).shuffle(5000).batch(32).prefetch(AUTOTUNE): one epoch, elements/s.
  2. map(heavy fn: per-image standardization + random crop + flip) sequential vs num_parallel_calls=AUTOTUNE,
     images/s and the parallel/sequential ratio (target >= 1.5x on 2 cores; rounds interleaved, best of
     BENCH_DATA_ROUNDS=7 each).  Also map(heavy).batch(32) and map(cheap).batch(64) with TF's default
     map_and_batch_fusion vs with it off (tensorlet: one vectorized call per batch vs one call per element).
  3. Bounded memory / thread release: a prefetch+parallel-map iterator abandoned mid-epoch leaves no thread.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MNIST = os.path.join(ROOT, "tensorlet", "_src", "data", "mnist_5k.npz")
ROUNDS = int(os.environ.get("BENCH_DATA_ROUNDS", "7"))


def best_of(fn, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def images(n=192, size=128):
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (n, size, size, 3), dtype=np.uint8)


def run(tf, label):
    out = {}
    d = np.load(MNIST)
    x, y = d["x"], d["y"]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(5000).batch(32).prefetch(tf.data.AUTOTUNE)

    def epoch():
        for _ in ds:
            pass

    t = best_of(epoch, repeat=7, warmup=2)
    out["shuffle_batch_epoch_s"] = t
    out["shuffle_batch_elements_per_s"] = len(x) / t

    imgs = images()

    def heavy(img):  # per-image standardization + random crop + flip, in core ops both libraries have
        img = tf.cast(img, tf.float32)
        img = (img - tf.reduce_mean(img)) / tf.maximum(tf.math.reduce_std(img), 1.0 / 128.0)
        off = tf.random.uniform([2], 0, 16, dtype=tf.int32)
        img = tf.slice(img, tf.concat([off, [0]], 0), [112, 112, 3])
        img = tf.reverse(img, [1])
        return tf.reduce_mean(tf.square(img), axis=-1)

    def cheap(x):  # a light per-element function: the per-element overhead is what costs
        x = tf.cast(x, tf.float32)
        return tf.stack([x * 0.5 + 1.0, tf.sqrt(x + 1.0), tf.sin(x)])

    src = tf.data.Dataset.from_tensor_slices(imgs)
    unfused = tf.data.Options()
    unfused.experimental_optimization.map_and_batch_fusion = False
    plain = tf.data.Options()  # no default rewrites: tensorlet's parallel map runs one call per element
    plain.experimental_optimization.apply_default_optimizations = False
    cases = {
        "seq": src.map(heavy),
        "par": src.map(heavy, num_parallel_calls=tf.data.AUTOTUNE),
        "par_plain": src.map(heavy, num_parallel_calls=tf.data.AUTOTUNE).with_options(plain),
        "batch_unfused": src.map(heavy).batch(32).with_options(unfused),
        "batch_fused": src.map(heavy).batch(32),
        "cheap_unfused": tf.data.Dataset.range(20_000).map(cheap).batch(64).with_options(unfused),
        "cheap_fused": tf.data.Dataset.range(20_000).map(cheap).batch(64),
    }
    best = interleaved(cases)
    out["map_sequential_images_per_s"] = len(imgs) / best["seq"]
    out["map_parallel_images_per_s"] = len(imgs) / best["par"]
    out["map_parallel_speedup"] = best["seq"] / best["par"]
    out["map_parallel_plain_speedup"] = best["seq"] / best["par_plain"]
    out["map_batch_unfused_images_per_s"] = len(imgs) / best["batch_unfused"]
    out["map_batch_fused_images_per_s"] = len(imgs) / best["batch_fused"]
    out["map_batch_fusion_speedup"] = best["batch_unfused"] / best["batch_fused"]
    out["cheap_map_batch_fusion_speedup"] = best["cheap_unfused"] / best["cheap_fused"]
    out["cheap_fused_elements_per_s"] = 20_000 / best["cheap_fused"]
    return out


def interleaved(cases):
    """Best epoch time of each dataset over ROUNDS interleaved rounds (load drift hits every case alike); two
    warm-up epochs each first (tracing, compilation, the first elements run one by one)."""
    def consume(dset):
        t = time.perf_counter()
        for _ in dset:
            pass
        return time.perf_counter() - t

    for dset in cases.values():
        consume(dset)
        consume(dset)
    best = {k: float("inf") for k in cases}
    for _ in range(ROUNDS):
        for k, dset in cases.items():
            best[k] = min(best[k], consume(dset))
    return best


def thread_release(tf):
    gc.collect()
    time.sleep(0.5)  # let the workers of earlier iterators finish
    base = threading.active_count()
    ds = tf.data.Dataset.range(10_000).map(lambda v: v * 2, num_parallel_calls=2).prefetch(4)
    it = iter(ds)
    next(it)
    busy = threading.active_count()
    del it
    gc.collect()
    deadline = time.time() + 5
    while threading.active_count() > base and time.time() < deadline:
        time.sleep(0.05)
    return {"threads_while_iterating": busy - base, "threads_left_after_abandon": threading.active_count() - base}


def tf_child():
    import tensorflow as tf

    print(json.dumps(run(tf, "tf")))


def main():
    if "--tf-child" in sys.argv:
        tf_child()
        return
    sys.path.insert(0, ROOT)
    import tensorlet as tl

    res = {"tensorlet": run(tl, "tensorlet")}
    res["tensorlet"].update(thread_release(tl))
    tf_py = os.environ.get("TF_PYTHON")
    try:
        if tf_py:
            p = subprocess.run([tf_py, os.path.abspath(__file__), "--tf-child"], capture_output=True, text=True,
                               timeout=600, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
            res["tf"] = json.loads(p.stdout.strip().splitlines()[-1])
        else:
            import tensorflow as tf  # noqa: F401

            res["tf"] = run(tf, "tf")
    except Exception as e:  # noqa: BLE001 - TF is optional
        res["tf"] = f"not measured ({type(e).__name__})"
    tlr, tfr = res["tensorlet"], res.get("tf")
    print(f"cores: {os.cpu_count()}, load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"shuffle(5000).batch(32).prefetch epoch: tensorlet {tlr['shuffle_batch_elements_per_s']:,.0f} el/s "
          f"({tlr['shuffle_batch_epoch_s'] * 1e3:.1f} ms)")
    if isinstance(tfr, dict):
        print(f"                                         tf.data   {tfr['shuffle_batch_elements_per_s']:,.0f} el/s "
              f"({tfr['shuffle_batch_epoch_s'] * 1e3:.1f} ms)  ratio "
              f"{tlr['shuffle_batch_elements_per_s'] / tfr['shuffle_batch_elements_per_s']:.2f}x")
    print(f"map NumPy-heavy: sequential {tlr['map_sequential_images_per_s']:.0f} img/s, parallel(AUTOTUNE) "
          f"{tlr['map_parallel_images_per_s']:.0f} img/s -> {tlr['map_parallel_speedup']:.2f}x (vectorized chunks; "
          f"one call per element, apply_default_optimizations=False: {tlr['map_parallel_plain_speedup']:.2f}x)")
    if isinstance(tfr, dict):
        print(f"  tf.data: sequential {tfr['map_sequential_images_per_s']:.0f} img/s, parallel "
              f"{tfr['map_parallel_images_per_s']:.0f} img/s -> {tfr['map_parallel_speedup']:.2f}x")
    print(f"map(heavy).batch(32): fused {tlr['map_batch_fused_images_per_s']:.0f} img/s vs map_and_batch_fusion=False "
          f"{tlr['map_batch_unfused_images_per_s']:.0f} img/s -> {tlr['map_batch_fusion_speedup']:.2f}x")
    print(f"map(cheap).batch(64): fused {tlr['cheap_fused_elements_per_s']:,.0f} el/s -> "
          f"{tlr['cheap_map_batch_fusion_speedup']:.2f}x unfused")
    if isinstance(tfr, dict):
        print(f"  tf.data: map(heavy).batch(32) fused {tfr['map_batch_fused_images_per_s']:.0f} img/s "
              f"({tlr['map_batch_fused_images_per_s'] / tfr['map_batch_fused_images_per_s']:.2f}x tensorlet/TF), "
              f"map(cheap).batch(64) {tfr['cheap_fused_elements_per_s']:,.0f} el/s "
              f"({tlr['cheap_fused_elements_per_s'] / tfr['cheap_fused_elements_per_s']:.2f}x tensorlet/TF)")
    print(f"threads: {tlr['threads_while_iterating']} while iterating, {tlr['threads_left_after_abandon']} left "
          f"after abandoning the iterator")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
