"""The serving process keeps its long-lived objects out of the garbage collector's full passes (``serving.heap``)
and still frees what unloaded versions leave in reference cycles.  Run in a fresh process: freezing the heap of
the test worker would change every later test's collector."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("uvicorn")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
import argparse, gc, os, shutil, sys, tempfile, weakref
sys.path.insert(0, os.path.join(ROOT, "tests", "serving"))
import numpy as np
import serving_util as su
from tensorlet._src.graph import lowering
from tensorlet._src.serving import server

made = []  # every compiled program, weakly: a version's programs sit in reference cycles with its graphs
init = lowering.Compiled.__init__
def counting_init(self, graph):
    init(self, graph)
    made.append(weakref.ref(self))
lowering.Compiled.__init__ = counting_init

base = tempfile.mkdtemp()
su.save_mlp(os.path.join(base, "1"), seed=0)
p = argparse.ArgumentParser()
server.add_arguments(p)
args = p.parse_args([f"--model_base_path={base}", "--model_name=m", "--file_system_poll_wait_seconds=0"])
srv = server.ModelServer(args, settle_heap=SETTLE)
if not RELEASE:
    srv.manager.on_unload = None
srv.reload_config(srv.model_config())
frozen, tracked = gc.get_freeze_count(), len(gc.get_objects())
x = np.ones((2, 4), np.float32)
for v in range(2, 6):  # hot swaps: each new version replaces the last
    shutil.copytree(os.path.join(base, str(v - 1)), os.path.join(base, str(v)))
    shutil.rmtree(os.path.join(base, str(v - 1)))
    srv.manager.poll()
    for t in srv.manager._unloaders:
        t.join(60)
        assert not t.is_alive()
    servable = srv.manager.acquire("m")
    try:
        out = servable.signatures["serving_default"].call({"x": x})["y"]
    finally:
        servable.release()
    np.testing.assert_allclose(out, su.mlp_reference(x, 0), rtol=1e-5)
    del servable
gc.collect()
print(frozen, tracked, sum(r() is not None for r in made), len(made))
'''


def _run(settle, release):
    code = f"ROOT = {ROOT!r}\nSETTLE = {settle}\nRELEASE = {release}\n" + SCRIPT
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    return [int(v) for v in r.stdout.split()]


def test_loaded_server_heap_is_frozen_and_unloads_free_their_cycles():
    frozen, tracked, alive, made = _run(True, True)
    # after the load everything alive sits in the permanent generation: a full pass walks almost nothing
    assert frozen > 50_000 and tracked < frozen // 20
    # four hot swaps: the unloaded versions' programs are freed (at most the last one is still on its way out)
    assert made >= 10 and alive <= 4


def test_without_the_release_a_frozen_heap_would_keep_every_version():
    # the same swaps with the unload hook off: the programs stay -- what ``heap.release`` is there to prevent
    frozen, tracked, alive, made = _run(True, False)
    assert alive == made


def test_in_process_servers_leave_the_collector_alone():
    frozen, tracked, alive, made = _run(False, True)
    assert frozen == 0 and alive <= 4
