"""Loaded functions compile with XLA on a background thread (saved_model/bg_compile.py): calls run on the NumPy
executor until the executable is ready, then on it, with the same values and errors; a failed compile leaves the
function on the NumPy executor; jax's import off the caller's thread leaves the user's np.random stream alone."""

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.framework import jax_runtime
from tensorlet._src.graph import executor, lowering
from tensorlet._src.saved_model import bg_compile

GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens", "tf_saved_model")
with open(os.path.join(GOLD, "values.json")) as _f:
    VALUES = json.load(_f)


def _arr(d):
    return np.array(d["values"], dtype=d["dtype"]).reshape(d["shape"])


def _no_interpreter(monkeypatch):
    def refuse(self, arrays):
        raise AssertionError("ran on the NumPy executor")

    monkeypatch.setattr(executor.Plan, "run", refuse)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_tf_keras_export_switches_to_xla_with_the_same_values(name, monkeypatch):
    want = VALUES[name]
    m = tf.saved_model.load(os.path.join(GOLD, name))
    cf = m.serve.concrete_functions[0]
    x = tf.constant(_arr(want["x"]))
    first = m.serve(x).numpy()  # the NumPy executor; the second call queues the compile
    second = m.serve(x).numpy()
    assert bg_compile.WORKER.idle(120)
    if name == "mlp" or cf._bg_ready:
        assert list(cf._bg_ready) in ([None], [(tuple(x.shape),)])
        with monkeypatch.context() as mp:
            _no_interpreter(mp)
            compiled = m.serve(x).numpy()
    else:  # the CNN's Flatten reshapes to a shape computed from tf.shape, which jax cannot trace (today)
        assert cf._no_xla is not None
        compiled = m.serve(x).numpy()
    np.testing.assert_allclose(first, _arr(want["serve"]), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(compiled, first, rtol=1e-6, atol=1e-7)  # XLA's kernels vs NumPy's


def test_each_new_input_shape_compiles_in_the_background(monkeypatch):
    m = tf.saved_model.load(os.path.join(GOLD, "mlp"))
    cf = m.serve.concrete_functions[0]
    rng = np.random.default_rng(0)
    xa, xb = (tf.constant(rng.standard_normal((n, 4)).astype(np.float32)) for n in (3, 5))
    ya = [m.serve(xa).numpy() for _ in range(2)]
    assert bg_compile.WORKER.idle(120)
    assert set(cf._bg_ready) == {((3, 4),)}
    yb = m.serve(xb).numpy()  # a shape not compiled: the NumPy executor, no compile on this thread
    assert set(cf._bg_ready) == {((3, 4),)}
    m.serve(xb)
    assert bg_compile.WORKER.idle(120)
    assert set(cf._bg_ready) == {((3, 4),), ((5, 4),)}
    with monkeypatch.context() as mp:
        _no_interpreter(mp)
        np.testing.assert_allclose(m.serve(xa).numpy(), ya[0], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(m.serve(xb).numpy(), yb, rtol=1e-6, atol=1e-7)


class _Checked(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
        self.steps = tf.Variable(0.0)

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        tf.debugging.assert_non_negative(x, message="x must be >= 0")
        h = tf.nn.relu(tf.matmul(x, self.w))
        for _ in range(4):
            h = tf.tanh(h) * 1.5 + 0.1
        return h

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def bump(self, d):
        self.steps.assign_add(d)
        r = self.steps * 2.0 + tf.reduce_sum(tf.matmul(self.w, self.w, transpose_b=True))
        for _ in range(4):  # enough ops to be worth compiling
            r = tf.abs(r)
        return r


def _error(fn, *args):
    with pytest.raises(Exception) as e:
        fn(*args)
    return type(e.value), str(e.value)


def test_tensorlet_written_functions_errors_and_state_either_path(tmp_path, monkeypatch):
    tf.saved_model.save(_Checked(), str(tmp_path / "m"))
    m = tf.saved_model.load(str(tmp_path / "m"))
    x = tf.constant(np.linspace(0, 1, 8, dtype=np.float32).reshape(2, 4))
    err_interp = _error(m, -x)
    y_interp = m(x).numpy()
    bumps = [float(m.bump(tf.constant(1.0))) for _ in range(2)]
    assert bg_compile.WORKER.idle(120)
    with monkeypatch.context() as mp:
        _no_interpreter(mp)
        np.testing.assert_allclose(m(x).numpy(), y_interp, rtol=1e-6)
        assert _error(m, -x) == err_interp  # the assertion fails the same way in compiled code
        bumps.append(float(m.bump(tf.constant(1.0))))  # the variable write (a donated buffer) persists
    assert err_interp[0] is tf.errors.InvalidArgumentError and "x must be >= 0" in err_interp[1]
    w = np.arange(12).reshape(4, 3) / 10
    w_sum = float(np.sum(w @ w.T))
    np.testing.assert_allclose(bumps, [2 + w_sum, 4 + w_sum, 6 + w_sum], rtol=1e-6)
    assert float(m.steps.numpy()) == 3.0


def test_a_failed_compile_stays_on_the_interpreter_silently(monkeypatch, caplog):
    def boom(self, graph):
        raise RuntimeError("XLA refused")

    monkeypatch.setattr(lowering.Compiled, "__init__", boom)
    want = VALUES["mlp"]
    m = tf.saved_model.load(os.path.join(GOLD, "mlp"))
    cf = m.serve.concrete_functions[0]
    x = tf.constant(_arr(want["x"]))
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append  # on the logger itself: an earlier test may have turned its propagation off
    log = logging.getLogger("tensorflow")
    log.addHandler(handler)
    monkeypatch.setattr(log, "filters", [])  # a TF_CPP_MIN_LOG_LEVEL the environment sets would hide debug notices
    try:
        with caplog.at_level(logging.DEBUG, logger="tensorflow"):
            ys = [m.serve(x).numpy() for _ in range(2)]
            assert bg_compile.WORKER.idle(120)
            ys.append(m.serve(x).numpy())
    finally:
        log.removeHandler(handler)
    assert isinstance(cf._no_xla, RuntimeError) and not cf._bg_ready
    for y in ys:
        np.testing.assert_allclose(y, _arr(want["serve"]), rtol=1e-5, atol=1e-7)
    recs = [r for r in records if "XLA refused" in r.getMessage()]
    assert recs and all(r.levelno == logging.DEBUG for r in recs), [r.getMessage() for r in records]
    assert not [r for r in records if r.levelno >= logging.WARNING]


def test_jax_import_draws_leave_other_threads_numpy_stream_alone():
    # what jax's import does (np.random.rand in its cluster detection), in a thread under the redirect, while
    # this thread seeds and draws: this thread's stream is exactly the seeded one
    started, drawn = threading.Event(), threading.Event()
    importer_draws = []

    def importer():
        with jax_runtime._private_numpy_random():
            started.set()
            drawn.wait(10)
            importer_draws.append(np.random.rand(5))

    t = threading.Thread(target=importer)
    np.random.seed(11)
    head = np.random.rand(3)
    t.start()
    started.wait(10)
    middle = np.random.rand(4)  # drawn through the redirect's wrappers, from the global generator
    drawn.set()
    t.join(10)
    tail = np.random.rand(2)
    ref = np.random.RandomState(11).rand(9)
    np.testing.assert_array_equal(np.concatenate([head, middle, tail]), ref)
    np.testing.assert_array_equal(importer_draws[0], np.random.RandomState(0).rand(5))
    assert np.random.rand.__self__ is np.random.mtrand._rand  # the module functions are back


FRESH = textwrap.dedent('''
    import json, os, sys, threading, time
    import numpy as np
    importers = []

    class Spy:  # records which thread imports jax (it must not be the caller's)
        def find_spec(self, name, path=None, target=None):
            if name == "jax":
                importers.append(threading.get_ident())
            return None

    sys.meta_path.insert(0, Spy())
    import tensorlet as tf
    from tensorlet._src.saved_model import bg_compile
    gold = sys.argv[1]
    v = json.load(open(os.path.join(gold, "values.json")))["mlp"]["x"]
    x = tf.constant(np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"]))
    np.random.seed(5)
    m = tf.saved_model.load(os.path.join(gold, "mlp"))
    cf = m.serve.concrete_functions[0]
    draws, ys, t0 = [], [], time.time()
    while not cf._bg_ready and time.time() - t0 < 120:  # the user's stream, drawn while jax imports
        ys.append(m.serve(x).numpy())
        draws.append(np.random.rand())
        time.sleep(0.002)
    ys.append(m.serve(x).numpy())
    draws.append(np.random.rand())
    main = threading.get_ident()
    print(json.dumps({"ready": bool(cf._bg_ready), "calls": len(ys),
                      "draws_ok": draws == list(np.random.RandomState(5).rand(len(draws))),
                      "same": all(np.allclose(y, ys[0], rtol=1e-6, atol=1e-7) for y in ys),
                      "imported_off_main": bool(importers) and main not in importers}), flush=True)
    c = tf.saved_model.load(os.path.join(gold, "cnn"))  # exit while this one compiles: exit must not hang
    v = json.load(open(os.path.join(gold, "values.json")))["cnn"]["x"]
    xc = tf.constant(np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"]))
    c.serve(xc)
    c.serve(xc)
''')


EXIT_WHILE_IMPORTING = textwrap.dedent('''
    import json, os, sys
    import numpy as np
    import tensorlet as tf
    gold = sys.argv[1]
    v = json.load(open(os.path.join(gold, "values.json")))["mlp"]["x"]
    x = tf.constant(np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"]))
    m = tf.saved_model.load(os.path.join(gold, "mlp"))
    m.serve(x)
    m.serve(x)  # queues the compile: jax starts importing on the worker
    import time
    time.sleep(0.3)  # the program ends while jax imports: exit waits for the worker, which then stops
    print("done", flush=True)
''')


@pytest.mark.slow
def test_fresh_process_stream_intact_jax_off_the_caller_thread_and_exit(tmp_path):
    (tmp_path / "fresh.py").write_text(FRESH)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, "fresh.py", os.path.abspath(GOLD)], capture_output=True, text=True,
                       timeout=240, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out == {"ready": True, "calls": out["calls"], "draws_ok": True, "same": True,
                   "imported_off_main": True}, out
    assert out["calls"] >= 2
    (tmp_path / "exit.py").write_text(EXIT_WHILE_IMPORTING)
    r = subprocess.run([sys.executable, "exit.py", os.path.abspath(GOLD)], capture_output=True, text=True,
                       timeout=240, cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr[-3000:]
