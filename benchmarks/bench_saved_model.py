"""Load + first call of a SavedModel written by real TF (Keras 3 ``model.export()`` of an MLP), tensorlet vs TF.

Each round starts a fresh process per framework (imports done before the clock starts), times
``tf.saved_model.load(dir)`` plus the first ``serve(x)`` call, the call after that, the import, and a second
load + call in the same process (the loader without the lazy imports of a first load).  Rounds are
interleaved.  TF runs through /work/tfvenv/bin/python (or $TF_PYTHON) when present.  Target (issue 13):
tensorlet's load + first call <= TF's.

    python benchmarks/bench_saved_model.py [--rounds 3] [--model DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "tests", "goldens", "tf_saved_model", "mlp")
TF_PYTHON = os.environ.get("TF_PYTHON", "/work/tfvenv/bin/python")

CHILD = r"""
import time
t_start = time.perf_counter()
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
import {module} as tf
t_import = time.perf_counter() - t_start
x = tf.constant(np.ones((3, 4), np.float32))
t0 = time.perf_counter()
m = tf.saved_model.load({model!r})
t1 = time.perf_counter()
y = m.serve(x).numpy()
t2 = time.perf_counter()
m.serve(x).numpy()
t3 = time.perf_counter()
m2 = tf.saved_model.load({model!r})
m2.serve(x).numpy()
t4 = time.perf_counter()
print(json.dumps({{"warm_load_first": t4 - t3,
                  "load": t1 - t0, "first_call": t2 - t1, "load_plus_first": t2 - t0, "second_call": t3 - t2,
                  "import": t_import, "import_load_first": t_import + t2 - t0, "y0": float(y.ravel()[0])}}))
"""


def run(python, module, model):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    code = CHILD.format(root=ROOT, module=module, model=model)
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode:
        raise RuntimeError(f"{module} child failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--json")
    args = ap.parse_args()
    peers = [("tensorlet", sys.executable, "tensorlet")]
    if os.path.exists(TF_PYTHON):
        peers.append(("tensorflow", TF_PYTHON, "tensorflow"))
    results = {name: [] for name, _, _ in peers}
    for _ in range(args.rounds):
        for name, python, module in peers:
            results[name].append(run(python, module, args.model))
    rows = {}
    for name, rs in results.items():
        rows[name] = {k: statistics.median(r[k] for r in rs) * 1e3 for k in (
            "load", "first_call", "load_plus_first", "second_call", "import", "import_load_first",
            "warm_load_first")}
    if len(results) == 2:
        a, b = (results[n][0]["y0"] for n in ("tensorlet", "tensorflow"))
        assert abs(a - b) < 1e-5, (a, b)
    print(f"{'':12s} {'load ms':>10s} {'1st call ms':>12s} {'load+1st ms':>12s} {'2nd call ms':>12s} "
          f"{'import ms':>10s} {'import+load+1st':>16s} {'2nd load+1st':>13s}")
    for name, r in rows.items():
        print(f"{name:12s} {r['load']:10.1f} {r['first_call']:12.1f} {r['load_plus_first']:12.1f} "
              f"{r['second_call']:12.2f} {r['import']:10.1f} {r['import_load_first']:16.1f} "
              f"{r['warm_load_first']:13.1f}")
    if "tensorflow" in rows:
        ratio = rows["tensorlet"]["load_plus_first"] / rows["tensorflow"]["load_plus_first"]
        print(f"tensorlet / TF (load + first call): {ratio:.2f} (target <= 1)")
        rows["ratio_load_plus_first"] = ratio
        ratio2 = rows["tensorlet"]["import_load_first"] / rows["tensorflow"]["import_load_first"]
        print(f"tensorlet / TF (import + load + first call): {ratio2:.2f}")
        rows["ratio_import_load_first"] = ratio2
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
