"""Load + first calls of a SavedModel written by real TF (Keras 3 ``model.export()`` of an MLP), tensorlet vs TF.

Each round starts a fresh process per framework (imports done before the clock starts), times
``tf.saved_model.load(dir)``, then calls 1..N of ``serve(x)`` one by one, the import, a second load + call in the
same process (the loader without the lazy imports of a first load), calls 1 ms apart for a few seconds (while
tensorlet's background compile runs), and N steady-state calls (for tensorlet once
its background XLA compile is done).  Rounds are interleaved.  TF runs through /work/tfvenv/bin/python (or
$TF_PYTHON) when present.  Targets (issue 13): tensorlet's load + first call <= TF's; no later call waits for a
compile.

Both peers run from compiled bytecode, as installed packages do: the children write and reuse ``.pyc`` files under
a temporary ``PYTHONPYCACHEPREFIX`` (also where the environment sets ``PYTHONDONTWRITEBYTECODE``), after one
untimed warm-up child each.  tensorlet's first call runs on the NumPy graph executor without importing jax; the
second queues the XLA compile on a background thread (jax imported there) and calls keep running on the NumPy
executor until the executable is ready.

    python benchmarks/bench_saved_model.py [--rounds 3] [--calls 20] [--model DIR] [--json out.json]
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
x = tf.constant(np.ones({shape!r}, np.float32))
t0 = time.perf_counter()
m = tf.saved_model.load({model!r})
t1 = time.perf_counter()
calls = []
for _ in range({n_calls}):
    c0 = time.perf_counter()
    y = m.serve(x).numpy()
    calls.append(time.perf_counter() - c0)
t3 = time.perf_counter()
during, t_end = [], time.perf_counter() + {window!r}
while time.perf_counter() < t_end:  # a call every millisecond for a while: tensorlet's compile runs meanwhile
    c0 = time.perf_counter()
    m.serve(x).numpy()
    during.append(time.perf_counter() - c0)
    time.sleep(0.001)
t3 = time.perf_counter()
m2 = tf.saved_model.load({model!r})
m2.serve(x).numpy()
t4 = time.perf_counter()
if {module!r} == "tensorlet":  # the background compile finishes (TF has none): then the steady-state calls
    from tensorlet._src.saved_model import bg_compile
    bg_compile.WORKER.idle(300)
steady = []
for _ in range({n_calls}):
    c0 = time.perf_counter()
    m.serve(x).numpy()
    steady.append(time.perf_counter() - c0)
print(json.dumps({{"warm_load_first": t4 - t3, "load": t1 - t0, "first_call": calls[0],
                  "load_plus_first": t1 - t0 + calls[0], "second_call": calls[1], "calls": calls,
                  "steady": steady, "during": during, "import": t_import,
                  "import_load_first": t_import + t1 - t0 + calls[0], "y0": float(y.ravel()[0])}}))
"""


PYCACHE = os.path.join(tempfile.gettempdir(), "tensorlet_bench_pycache")


def _input_shape(model):
    """The recorded input's shape when the model is one of the goldens (values.json beside it), else (3, 4)."""
    try:
        with open(os.path.join(os.path.dirname(model), "values.json")) as f:
            return tuple(json.load(f)[os.path.basename(os.path.normpath(model))]["x"]["shape"])
    except (OSError, KeyError, ValueError):
        return (3, 4)


def run(python, module, model, n_calls=20, window=3.0):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPYCACHEPREFIX=PYCACHE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = CHILD.format(root=ROOT, module=module, model=model, shape=_input_shape(model), n_calls=n_calls,
                        window=window)
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode:
        raise RuntimeError(f"{module} child failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--calls", type=int, default=20, help="calls timed one by one after the load")
    ap.add_argument("--window", type=float, default=3.0, help="seconds of calls (1 ms apart) after calls 1..N")
    ap.add_argument("--json")
    args = ap.parse_args()
    peers = [("tensorlet", sys.executable, "tensorlet")]
    if os.path.exists(TF_PYTHON):
        peers.append(("tensorflow", TF_PYTHON, "tensorflow"))
    results = {name: [] for name, _, _ in peers}
    for _, python, module in peers:  # warm-up: bytecode written, file caches filled
        run(python, module, args.model, args.calls, args.window)
    for _ in range(args.rounds):
        for name, python, module in peers:
            results[name].append(run(python, module, args.model, args.calls, args.window))
    rows = {}
    for name, rs in results.items():
        rows[name] = {k: statistics.median(r[k] for r in rs) * 1e3 for k in (
            "load", "first_call", "load_plus_first", "second_call", "import", "import_load_first",
            "warm_load_first")}
    if len(results) == 2:
        a, b = (results[n][0]["y0"] for n in ("tensorlet", "tensorflow"))
        assert abs(a - b) < 1e-5, (a, b)
    print(f"model {os.path.relpath(args.model, ROOT)}; {args.rounds} interleaved rounds, medians; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'':12s} {'load ms':>10s} {'1st call ms':>12s} {'load+1st ms':>12s} {'2nd call ms':>12s} "
          f"{'import ms':>10s} {'import+load+1st':>16s} {'2nd load+1st':>13s}")
    for name, r in rows.items():
        print(f"{name:12s} {r['load']:10.1f} {r['first_call']:12.1f} {r['load_plus_first']:12.1f} "
              f"{r['second_call']:12.2f} {r['import']:10.1f} {r['import_load_first']:16.1f} "
              f"{r['warm_load_first']:13.1f}")
    print(f"\nper call, ms (median over rounds; calls 1..{args.calls} right after the load, then {args.calls} more "
          "once tensorlet's background compile is done):")
    per = {name: [statistics.median(r["calls"][i] for r in rs) * 1e3 for i in range(args.calls)]
           for name, rs in results.items()}
    steady = {name: statistics.median(t for r in rs for t in r["steady"]) * 1e3 for name, rs in results.items()}
    worst = {name: statistics.median(max(r["calls"][1:]) for r in rs) * 1e3 for name, rs in results.items()}
    total = {name: statistics.median(sum(r["calls"]) for r in rs) * 1e3 for name, rs in results.items()}
    during = {}
    for name, rs in results.items():
        ts = sorted(t for r in rs for t in r["during"])
        during[name] = {"n": len(ts) / len(rs), "p50": ts[len(ts) // 2] * 1e3, "p99": ts[int(len(ts) * 0.99)] * 1e3,
                        "max": statistics.median(max(r["during"]) for r in rs) * 1e3}
    for name in per:
        print(f"{name:12s} " + " ".join(f"{t:.2f}" for t in per[name]))
        print(f"{'':12s} sum of calls 1..{args.calls}: {total[name]:.1f}; worst of calls 2..{args.calls}: "
              f"{worst[name]:.2f}; steady call: {steady[name]:.3f}")
        d = during[name]
        print(f"{'':12s} then {args.window:g} s of calls 1 ms apart ({d['n']:.0f} calls): median {d['p50']:.3f}, "
              f"p99 {d['p99']:.2f}, worst {d['max']:.2f}")
        rows[name].update(calls=per[name], calls_sum=total[name], worst_later_call=worst[name],
                          steady_call=steady[name], during=d)
    if "tensorflow" in rows:
        ratio = rows["tensorlet"]["load_plus_first"] / rows["tensorflow"]["load_plus_first"]
        print(f"tensorlet / TF (load + first call): {ratio:.2f} (target <= 1)")
        rows["ratio_load_plus_first"] = ratio
        ratio2 = rows["tensorlet"]["import_load_first"] / rows["tensorflow"]["import_load_first"]
        print(f"tensorlet / TF (import + load + first call): {ratio2:.2f}")
        rows["ratio_import_load_first"] = ratio2
        for key, what in (("calls_sum", f"sum of calls 1..{args.calls}"), ("worst_later_call",
                          f"worst of calls 2..{args.calls}"), ("steady_call", "steady call")):
            r = rows["tensorlet"][key] / rows["tensorflow"][key]
            print(f"tensorlet / TF ({what}): {r:.2f}")
            rows[f"ratio_{key}"] = r
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
