"""Loaded functions compile with XLA on a background thread: no call waits for jax's import or XLA's compile.

A function ``tf.saved_model.load`` returns runs its first call on the NumPy graph executor (jax is not imported).
From its second call on, if the graph is worth compiling (``ConcreteFunction._worth_compiling``), the compile is
queued on one worker thread: jax is imported there (``jax_runtime.load`` keeps the user's ``np.random`` stream
intact whichever thread imports it), the graph is lowered and compiled ahead of time for the call's input shapes;
calls meanwhile keep running on the NumPy executor, and the first call after the executable is ready switches to
it.  A function with unknown input dimensions compiles each new shape the same way (up to ``MAX_SHAPES``) and runs
shapes not compiled yet on the NumPy executor.  A compile that fails (an op with no lowering, a lowering jax
rejects, an XLA error) leaves the function on the NumPy executor for good, logged at debug level: the results and
errors callers see are those of the executor that runs the call.  Saved ``jit_compile=True`` / ``False`` keep
their own tiers (always compiled, synchronously, with XLA's errors / never compiled).

The worker is a daemon thread that interpreter shutdown stops and joins (before ``atexit`` handlers, as
``concurrent.futures`` does): queued compiles are dropped, the one under way finishes, so exit waits at most
for one import or compile and never for jax's teardown.
"""

from __future__ import annotations

import _thread
import collections
import logging
import os
import threading
import time

from tensorlet._src.graph.concrete import ConcreteFunction
from tensorlet._src.graph.executor import Plan

MAX_SHAPES = 16  # input shapes compiled per function; calls with other shapes stay on the NumPy executor
_log = logging.getLogger("tensorflow")


class _Worker:
    """One thread running queued compile jobs in order; started on the first job."""

    def __init__(self):
        self._cv = threading.Condition()
        self._jobs = collections.deque()
        self._started = False
        self._done = threading.Event()  # set when the thread has left its loop
        self._ident = None
        self._stopping = False

    def submit(self, job):
        with self._cv:
            if self._stopping:
                return False
            self._jobs.append(job)
            if not self._started:
                self._started = True
                _at_shutdown(self.stop)
                # _thread, not threading.Thread: start() would wait until the new thread runs (milliseconds on a
                # busy machine, inside the caller's call); stop() joins it through _done
                _thread.start_new_thread(self._loop, ())
            self._cv.notify()
        return True

    def _loop(self):
        self._ident = threading.get_ident()
        try:
            while True:
                time.sleep(0.002)  # the GIL back to the thread that queued the job (it is in the middle of a call)
                with self._cv:
                    while not self._jobs and not self._stopping:
                        self._cv.wait()
                    if self._stopping:
                        return
                    job = self._jobs.popleft()
                try:
                    job()
                except Exception as e:  # noqa: BLE001 - a job's failure must not end the worker
                    _log.debug("tensorlet's background compile job failed: %s: %s", type(e).__name__, e)
        finally:
            self._done.set()

    def stop(self):
        with self._cv:
            self._stopping = True
            self._jobs.clear()
            self._cv.notify_all()
            started = self._started
        if started and self._ident != threading.get_ident():
            self._done.wait()

    @property
    def stopping(self):
        return self._stopping

    def idle(self, timeout=None):
        """Waits until no job is queued or running (tests, benchmarks); True if idle."""
        done = threading.Event()
        if not self.submit(done.set):
            return True
        return done.wait(timeout)


def _at_shutdown(fn):
    reg = getattr(threading, "_register_atexit", None)  # runs before atexit's handlers (jax's teardown)
    if reg is not None:
        try:
            reg(fn)
            return
        except RuntimeError:  # the interpreter is already shutting down
            pass
    import atexit

    atexit.register(fn)


WORKER = _Worker()


def _after_fork():  # a forked child has no worker thread: it starts its own on its first job
    global WORKER
    WORKER = _Worker()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class LoadedConcreteFunction(ConcreteFunction):
    """A concrete function of a loaded SavedModel: NumPy executor until its XLA executable is ready."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._bg_lock = threading.Lock()
        self._bg_ready = {}  # shape key -> Compiled, replaced (never mutated) when a shape is ready
        self._bg_asked = set()  # shape keys queued or compiled
        self._bg_compiled = None
        g = self.graph
        self._bg_keyed = not all(ph.shape.is_fully_defined() for ph in g.inputs[:len(g.inputs) - len(g.captures)])

    def _run(self, arrays):
        if self._jit is not None:  # saved with jit_compile=True / False: the ordinary tiers
            return ConcreteFunction._run(self, arrays)
        self._calls += 1
        key = tuple(a.shape for a in arrays) if self._bg_keyed else None
        compiled = self._bg_ready.get(key)
        if compiled is not None:
            return compiled(arrays)
        if self._calls >= 2 and self._no_xla is None and key not in self._bg_asked:
            self._ask(key, arrays)
        plan = self._plan
        if plan is None:
            plan = self._plan = Plan(self.graph)
        return plan.run(arrays)

    def _ask(self, key, arrays):
        with self._bg_lock:
            if key in self._bg_asked or len(self._bg_asked) >= MAX_SHAPES or not self._worth_compiling():
                return
            self._bg_asked.add(key)
        specs = [(a.shape, a.dtype) for a in arrays]
        WORKER.submit(lambda: self._compile(key, specs))

    def _compile(self, key, specs):
        if WORKER.stopping or self._no_xla is not None:
            return
        try:
            compiled = self._precompile(specs)
        except Exception as e:  # noqa: BLE001 - any failure leaves the function on the NumPy executor
            self._no_xla = e
            _log.debug("tf.function '%s' stays on the NumPy graph executor: its XLA compile failed: %s: %s",
                       self._name, type(e).__name__, e)
            return
        with self._bg_lock:
            self._bg_ready = {**self._bg_ready, key: compiled}

    def _precompile(self, specs):
        import numpy as np

        from tensorlet._src.framework import jax_runtime
        from tensorlet._src.graph.lowering import Compiled, _calls_python

        jax = jax_runtime.load()[0]
        if WORKER.stopping:
            raise RuntimeError("the interpreter is shutting down")
        compiled = self._bg_compiled
        if compiled is None:
            compiled = self._bg_compiled = Compiled(self.graph)

        def spec(v):  # a variable's shape and dtype, without moving its value between host and device
            d = v._dev
            x = d if d is not None else v._host
            return jax.ShapeDtypeStruct(x.shape, x.dtype)

        written = [spec(v) for v in compiled.written]
        others = [spec(v) for v in compiled._others]
        args = [jax.ShapeDtypeStruct(s, d) for s, d in specs]
        # the same call signature as Compiled's own calls, so jax's dispatch cache holds the executable.  A graph
        # that writes variables has two jitted functions (``jitted`` donates, for the main thread; ``_kept`` does
        # not, for every other thread: a server's request threads): both are compiled here, so no request thread
        # compiles one itself (several at once, on the first calls after the switch) while others run it
        fns = [compiled.jitted] + ([compiled._kept] if compiled._kept is not compiled.jitted else [])
        for fn in fns:
            fn.lower(written, others, args, compiled.big).compile()
        if not _calls_python(self.graph):
            # XLA sets an executable up on its first run (tens of milliseconds): done here, on zeros (the function
            # is pure: its results and the new variable values are dropped; fresh zeros for each run, since
            # ``jitted`` donates the first group's buffers)
            for fn in fns:
                zeros = [[np.zeros(x.shape, x.dtype) for x in group] for group in (written, others, args)]
                jax.block_until_ready(fn(*zeros, compiled.big))
        return compiled
