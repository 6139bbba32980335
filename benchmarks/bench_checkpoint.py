"""Checkpoint save and restore of a ~100 MB model: tensorlet vs TensorFlow, MB/s, interleaved rounds.

The model is 25 float32 variables of 1000x1000 (100 MB) plus a few small ones.  Each round times, for each
framework, ``Checkpoint.write`` (data + index, renamed into place) and ``Checkpoint.read`` (every value checked
against its CRC and assigned).  TensorFlow runs in a child process when it is not importable here (set
``TF_PYTHON``, default /work/tfvenv/bin/python), driven round by round so the rounds interleave.  Target (issue
13): tensorlet's MB/s >= TF's for both.  Best of the rounds is reported.

    python benchmarks/bench_checkpoint.py [--rounds 5] [--mb 100] [--json out.json] [--no-peers]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import os, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
mb, d = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
vs = [tf.Variable(rng.standard_normal((1000, 1000), np.float32)) for _ in range(mb // 4)]
small = [tf.Variable(np.float32(i)) for i in range(10)]
ck = tf.train.Checkpoint(vs=vs, small=small)
print("ready", flush=True)
for line in sys.stdin:
    t = time.perf_counter(); p = ck.write(os.path.join(d, "tf")); w = time.perf_counter() - t
    t = time.perf_counter(); ck.read(p).assert_consumed(); r = time.perf_counter() - t
    print(w, r, flush=True)
"""


def tensorlet_side(mb, d):
    sys.path.insert(0, ROOT)
    import tensorlet as tl

    rng = np.random.default_rng(0)
    vs = [tl.Variable(rng.standard_normal((1000, 1000), np.float32)) for _ in range(mb // 4)]
    small = [tl.Variable(np.float32(i)) for i in range(10)]
    ck = tl.train.Checkpoint(vs=vs, small=small)

    def run():
        t = time.perf_counter()
        p = ck.write(os.path.join(d, "tl"))
        w = time.perf_counter() - t
        t = time.perf_counter()
        ck.read(p).assert_consumed()
        r = time.perf_counter() - t
        return w, r

    return run


def tf_side(mb, d):
    py = os.environ.get("TF_PYTHON", "/work/tfvenv/bin/python")
    if importlib.util.find_spec("tensorflow") is not None:
        py = sys.executable
    elif not os.path.exists(py):
        return None, None
    proc = subprocess.Popen([py, "-c", CHILD, str(mb), d], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        return None, None

    def run():
        proc.stdin.write("go\n")
        proc.stdin.flush()
        w, r = proc.stdout.readline().split()
        return float(w), float(r)

    return run, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--json")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    d = tempfile.mkdtemp(prefix="bench_ckpt_")
    try:
        sides = {"tensorlet": tensorlet_side(args.mb, d)}
        proc = None
        if not args.no_peers:
            run, proc = tf_side(args.mb, d)
            if run is not None:
                sides["tensorflow"] = run
        times = {k: {"write": [], "read": []} for k in sides}
        for _ in range(args.rounds):
            for name, run in sides.items():
                w, r = run()
                times[name]["write"].append(w)
                times[name]["read"].append(r)
        if proc is not None:
            proc.stdin.close()
            proc.wait(timeout=60)
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.startswith("tl.")) / 1e6
        rows = {}
        for name, t in times.items():
            rows[name] = {"write_MBps": size / min(t["write"]), "read_MBps": size / min(t["read"]),
                          "write_s": min(t["write"]), "read_s": min(t["read"])}
        print(f"checkpoint of {size:.1f} MB, best of {args.rounds} interleaved rounds")
        for name, r in rows.items():
            print(f"  {name:11s} write {r['write_MBps']:7.0f} MB/s ({r['write_s'] * 1e3:6.0f} ms)   "
                  f"read {r['read_MBps']:7.0f} MB/s ({r['read_s'] * 1e3:6.0f} ms)")
        if "tensorflow" in rows:
            a, b = rows["tensorlet"], rows["tensorflow"]
            print(f"  ratio tensorlet/TF: write {a['write_MBps'] / b['write_MBps']:.2f}x, "
                  f"read {a['read_MBps'] / b['read_MBps']:.2f}x (target >= 1)")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
