"""Core speed: import time, eager ``a + b`` on 2x2 float32, ``matmul`` 1000x1000 float32.

Prints one table of timings and ratios measured in the same run.  TensorFlow, PyTorch
and JAX are measured too when they are importable (e.g. run this file with a Python
that has them and ``PYTHONPATH`` pointing at tensorlet):

    python benchmarks/bench_core.py            # tensorlet and NumPy
    python benchmarks/bench_core.py --json out.json
    python benchmarks/bench_core.py --fresh-import  # also: import in a new venv after `pip install .` (slow)

Targets (issue "Core"): a + b <= 2 us and <= 3.5x NumPy's own a + b; matmul >= 0.95x
NumPy's throughput; import tensorlet <= 0.35 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = ("tensorflow", "torch", "jax")


def have(mod: str) -> bool:
    return importlib.util.find_spec(mod) is not None


def best_us(stmt, number: int, repeat: int = 7) -> float:
    """Best-of-``repeat`` time per call in microseconds (the least disturbed measurement)."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def import_time(mod: str, runs: int = 5, python: str = sys.executable, path: str | None = ROOT) -> float:
    """Seconds to import ``mod`` in a fresh interpreter (best of ``runs``), with bytecode caches as a user has
    them after ``pip install`` (a warm-up run writes them even where PYTHONDONTWRITEBYTECODE is set)."""
    code = f"import time; t = time.perf_counter(); import {mod}; print(time.perf_counter() - t)"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if path:
        env["PYTHONPATH"] = path + os.pathsep + os.environ.get("PYTHONPATH", "")
    else:
        env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    best = float("inf")
    for _ in range(runs + 1):  # the first run only warms the caches
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
        if out.returncode != 0:
            return float("nan")
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def fresh_import_time(extra=(), runs: int = 5):
    """``import tensorlet`` in a new virtual environment after ``pip install .`` of this checkout (the README's
    install: whatever versions pip resolves today), plus ``extra`` requirements (e.g. ``ml_dtypes==0.5.1``).
    Returns (seconds, {package: version})."""
    with tempfile.TemporaryDirectory(prefix="tensorlet-fresh-") as tmp:
        venv = os.path.join(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        subprocess.run([py, "-m", "pip", "install", "-q", ROOT, *extra], check=True, cwd=tmp,
                       env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
        code = ("import importlib.metadata as m; print({p: m.version(p) for p in ('numpy', 'ml_dtypes')})")
        versions = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        return import_time("tensorlet", runs, python=py, path=None), versions


def bench_add(peers):
    import tensorlet as tl

    na = np.ones((2, 2), np.float32)
    nb = np.ones((2, 2), np.float32)
    ta, tb = tl.constant(na), tl.constant(nb)
    rows = {"numpy": best_us(lambda: na + nb, 200_000), "tensorlet": best_us(lambda: ta + tb, 200_000)}
    if "tensorflow" in peers:
        import tensorflow as tf

        fa, fb = tf.constant(na), tf.constant(nb)
        rows["tensorflow"] = best_us(lambda: fa + fb, 20_000)
    if "torch" in peers:
        import torch

        pa, pb = torch.ones(2, 2), torch.ones(2, 2)
        rows["torch"] = best_us(lambda: pa + pb, 100_000)
    if "jax" in peers:
        import jax.numpy as jnp

        ja, jb = jnp.ones((2, 2), jnp.float32), jnp.ones((2, 2), jnp.float32)
        (ja + jb).block_until_ready()
        rows["jax"] = best_us(lambda: (ja + jb).block_until_ready(), 20_000)
    return rows


def bench_matmul(peers, n=1000):
    import tensorlet as tl

    rng = np.random.default_rng(0)
    na = rng.standard_normal((n, n)).astype(np.float32)
    nb = rng.standard_normal((n, n)).astype(np.float32)
    ta, tb = tl.constant(na), tl.constant(nb)
    np.testing.assert_allclose(tl.matmul(ta, tb).numpy(), na @ nb, rtol=1e-4, atol=1e-3)
    rows = {"numpy": best_us(lambda: na @ nb, 5, 5), "tensorlet": best_us(lambda: tl.matmul(ta, tb), 5, 5)}
    if "tensorflow" in peers:
        import tensorflow as tf

        fa, fb = tf.constant(na), tf.constant(nb)
        rows["tensorflow"] = best_us(lambda: tf.matmul(fa, fb).numpy(), 5, 5)
    if "torch" in peers:
        import torch

        pa, pb = torch.from_numpy(na), torch.from_numpy(nb)
        rows["torch"] = best_us(lambda: pa @ pb, 5, 5)
    if "jax" in peers:
        import jax.numpy as jnp

        ja, jb = jnp.asarray(na), jnp.asarray(nb)
        (ja @ jb).block_until_ready()
        rows["jax"] = best_us(lambda: (ja @ jb).block_until_ready(), 5, 5)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--no-peers", action="store_true", help="skip TF/PyTorch/JAX even if importable")
    ap.add_argument("--fresh-import", action="store_true",
                    help="also measure import in a new venv after `pip install .` (minutes)")
    ap.add_argument("--with", dest="extra", action="append", default=[],
                    help="extra requirement for the fresh venv (e.g. ml_dtypes==0.5.1); repeatable")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    peers = [] if args.no_peers else [p for p in PEERS if have(p)]

    results = {"peers": peers, "import_s": {}, "add_us": {}, "matmul_us": {}}
    for mod in ["numpy", "tensorlet"] + peers:
        results["import_s"][mod] = import_time(mod)
    if args.fresh_import:
        s, versions = fresh_import_time(args.extra)
        results["import_s"]["tensorlet (fresh venv)"] = s
        results["fresh_venv_versions"] = versions
    results["add_us"] = bench_add(peers)
    results["matmul_us"] = bench_matmul(peers)

    print(f"peers measured: {', '.join(peers) or 'none importable'}")
    print(f"{'benchmark':<34}{'lib':<12}{'time':>12}{'vs numpy':>10}")
    for lib, s in results["import_s"].items():
        print(f"{'import':<34}{lib:<12}{s * 1e3:>10.0f}ms{s / results['import_s']['numpy']:>9.2f}x")
    for lib, us in results["add_us"].items():
        print(f"{'eager a + b (2x2 f32)':<34}{lib:<12}{us:>10.3f}us{us / results['add_us']['numpy']:>9.2f}x")
    for lib, us in results["matmul_us"].items():
        gflops = 2 * 1000**3 / (us * 1e-6) / 1e9
        print(f"{'matmul 1000x1000 f32 (GFLOP/s)':<34}{lib:<12}{gflops:>10.1f}  "
              f"{results['matmul_us']['numpy'] / us:>9.2f}x")
    add_ratio = results["add_us"]["tensorlet"] / results["add_us"]["numpy"]
    mm_ratio = results["matmul_us"]["numpy"] / results["matmul_us"]["tensorlet"]
    print("\ntargets:")
    print(f"  a + b: {results['add_us']['tensorlet']:.3f} us (<= 2 us), {add_ratio:.2f}x NumPy (<= 3.5x)")
    print(f"  matmul throughput: {mm_ratio:.3f}x NumPy (>= 0.95x)")
    print(f"  import tensorlet: {results['import_s']['tensorlet']:.3f} s (<= 0.35 s)")
    if args.fresh_import:
        print(f"  import tensorlet, fresh `pip install .` ({results['fresh_venv_versions']}): "
              f"{results['import_s']['tensorlet (fresh venv)']:.3f} s (<= 0.35 s)")
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1)
        os.replace(tmp, args.json)


if __name__ == "__main__":
    main()
