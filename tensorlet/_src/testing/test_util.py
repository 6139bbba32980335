"""``tf.test`` functions: gradient checking, build/device queries, ``main``, benchmarks, graph comparison."""

from __future__ import annotations

import importlib.util
import platform
import sys
import time
import unittest

import numpy as np

from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.framework import device as _device
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor

__all__ = ["compute_gradient", "is_gpu_available", "gpu_device_name", "main", "Benchmark"]


# --- gradient checking -------------------------------------------------------------------------------------------

def _flat(x):
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x).reshape(-1)


def _shifted(f, xs, i, flat, shape, k, step):
    """``f`` with element ``k`` of input ``i`` moved by ``step``, flattened to float64."""
    p = flat.copy()
    p[k] = p[k] + step
    args = list(xs)
    args[i] = convert_to_tensor(p.reshape(shape), xs[i].dtype)
    return _flat(f(*args)).astype(np.float64)


@tf_export("test.compute_gradient")
def compute_gradient(f, x, delta=None):
    """``(theoretical, numerical)`` Jacobians of ``f`` at ``x`` (a list of tensors), one ``[y_size, x_size]``
    array per input: the first from the tape, the second by central differences with step ``delta``."""
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of tensors (or values convertible to them)")
    xs = [convert_to_tensor(v) for v in x]
    delta = 1.0 / 1024 if delta is None else float(delta)

    with GradientTape(persistent=True) as tape:
        for v in xs:
            tape.watch(v)
        y = convert_to_tensor(f(*xs))
    y_size = int(np.prod(y.shape.as_list())) if y.shape.rank else 1
    y_np_dtype = y.dtype.as_numpy_dtype
    theoretical = []
    for v in xs:
        x_size = int(np.prod(v.shape.as_list())) if v.shape.rank else 1
        jac = np.zeros((y_size, x_size), dtype=v.dtype.real_dtype.as_numpy_dtype if v.dtype.is_complex
                       else v.dtype.as_numpy_dtype)
        for j in range(y_size):
            seed = np.zeros(y_size, dtype=y_np_dtype)
            seed[j] = 1
            g = tape.gradient(y, v, output_gradients=convert_to_tensor(seed.reshape(y.shape.as_list()), y.dtype))
            if g is not None:
                if not isinstance(g, Tensor):  # IndexedSlices
                    g = convert_to_tensor(g)
                jac[j, :] = _flat(g)
        theoretical.append(jac)
    del tape

    numerical = []
    for i, v in enumerate(xs):
        base = v.numpy()
        x_size = base.size
        jac = np.zeros((y_size, x_size), dtype=base.dtype)
        flat = base.reshape(-1)
        for k in range(x_size):
            jac[:, k] = (_shifted(f, xs, i, flat, base.shape, k, delta) -
                         _shifted(f, xs, i, flat, base.shape, k, -delta)) / (2 * delta)
        numerical.append(jac)
    return tuple(theoretical), tuple(numerical)


# --- what this build and machine have ----------------------------------------------------------------------------

def _has(*modules) -> bool:
    return any(importlib.util.find_spec(m) is not None for m in modules)


@tf_export("test.is_built_with_cuda")
def is_built_with_cuda():
    """Whether tensorlet can run on CUDA GPUs here (a jax CUDA plugin is installed)."""
    return _has("jax_cuda12_plugin", "jax_cuda13_plugin")


@tf_export("test.is_built_with_rocm")
def is_built_with_rocm():
    return _has("jax_rocm_plugin", "jax_rocm60_plugin")


@tf_export("test.is_built_with_gpu_support")
def is_built_with_gpu_support():
    return is_built_with_cuda() or is_built_with_rocm()


@tf_export("test.is_built_with_xla")
def is_built_with_xla():
    """Always: tensorlet compiles with XLA (through jax)."""
    return True


@tf_export("test.is_cpu_target_available")
def is_cpu_target_available(cpu):
    """Whether XLA can generate code for CPU family ``cpu`` (``'x86'``, ``'aarch64'``, ...) on this host."""
    machine = platform.machine().lower()
    fam = {"x86_64": "x86", "amd64": "x86", "i686": "x86", "arm64": "aarch64"}.get(machine, machine)
    return str(cpu).lower() in (fam, machine)


@tf_export("test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Deprecated in TF for ``tf.config.list_physical_devices('GPU')``: whether a GPU is usable."""
    gpus = _device._accelerators("GPU")
    if not gpus:
        return False
    if min_cuda_compute_capability is None:
        return True
    want = tuple(min_cuda_compute_capability)
    for d in gpus:
        cc = getattr(d, "compute_capability", None)
        if cc and tuple(int(x) for x in str(cc).split(".")) >= want:
            return True
    return False


@tf_export("test.gpu_device_name")
def gpu_device_name():
    """``'/device:GPU:0'`` when a GPU is usable, else ``''``."""
    return "/device:GPU:0" if _device._accelerators("GPU") else ""


@tf_export("test.experimental.sync_devices")
def sync_devices():
    """Wait until every device has finished the work queued so far (host ops are synchronous already)."""
    if "jax" in sys.modules:
        sys.modules["jax"].effects_barrier()


# --- decorators and main -----------------------------------------------------------------------------------------

@tf_export("test.with_eager_op_as_function")
def with_eager_op_as_function(cls=None, only_as_function=False):
    """Class decorator kept for TF's test suites: eager ops already run as functions in TF 2.21 (and in
    tensorlet they run directly), so the test class is returned unchanged."""
    if cls is None:
        return lambda c: c
    return cls


@tf_export("test.disable_with_predicate")
def disable_with_predicate(pred, skip_message):
    """Decorator: skip the test method when ``pred()`` is true."""
    def deco(fn):
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return fn(self, *args, **kwargs)

        wrapper.__name__ = fn.__name__
        wrapper.__doc__ = fn.__doc__
        return wrapper

    return deco


@tf_export("test.main")
def main(argv=None):
    """Run the test cases of ``__main__`` (TF's ``tf.test.main()`` at the bottom of a test file)."""
    return unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


# --- graph comparison --------------------------------------------------------------------------------------------

@tf_export("test.assert_equal_graph_def")
def assert_equal_graph_def(expected, actual, checkpoint_v2=False, hash_table_shared_name=False):
    """Raise AssertionError unless two GraphDef protos have the same nodes (in any order) and versions."""
    for g, what in ((expected, "expected"), (actual, "actual")):
        if not hasattr(g, "node"):
            raise TypeError(f"{what} must be a GraphDef proto, got {type(g).__name__}")

    def nodes(g):
        out = {}
        for n in g.node:
            c = type(n)()
            c.CopyFrom(n)
            if checkpoint_v2 and c.op == "SaveV2":
                continue
            if hash_table_shared_name and "shared_name" in c.attr and c.op.endswith("HashTableV2"):
                del c.attr["shared_name"]
            out[c.name] = c
        return out

    a, b = nodes(expected), nodes(actual)
    if set(a) != set(b):
        raise AssertionError(f"Graph nodes differ: only in expected {sorted(set(a) - set(b))}, only in actual "
                             f"{sorted(set(b) - set(a))}")
    for name in a:
        if a[name] != b[name]:
            raise AssertionError(f"{name!r} differs:\nexpected:\n{a[name]}\nactual:\n{b[name]}")
    if expected.HasField("versions") and actual.HasField("versions") and expected.versions != actual.versions:
        raise AssertionError(f"versions differ: {expected.versions} vs {actual.versions}")


# --- benchmarks ----------------------------------------------------------------------------------------------------

@tf_export("test.benchmark_config")
def benchmark_config():
    """The ConfigProto TF benchmarks run with (dependency optimization off)."""
    from tensorboard.compat.proto import config_pb2, rewriter_config_pb2

    c = config_pb2.ConfigProto()
    c.graph_options.rewrite_options.dependency_optimization = rewriter_config_pb2.RewriterConfig.OFF
    return c


@tf_export("test.Benchmark")
class Benchmark:
    """Base class for benchmarks: ``benchmark*`` methods call ``report_benchmark`` with their figures."""

    def __init__(self):
        self.reports = []

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None,
                         metrics=None):
        """Record one result (and print it as TF does when no benchmark output file is configured)."""
        name = name or self._caller_name()
        entry = {"name": name, "iters": iters, "cpu_time": cpu_time, "wall_time": wall_time,
                 "throughput": throughput, "extras": dict(extras or {}), "metrics": list(metrics or [])}
        self.reports.append(entry)
        print(f"entry {{\n  name: \"{name}\"\n  iters: {iters}\n  wall_time: {wall_time}\n}}")
        return entry

    def _caller_name(self):
        frame = sys._getframe(2)
        return f"{type(self).__name__}.{frame.f_code.co_name}"

    def evaluate(self, tensors):
        from tensorlet._src.util import nest

        return nest.map_structure(lambda t: t.numpy() if isinstance(t, Tensor) else t, tensors)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10, store_trace=False,
                         store_memory_usage=True, name=None, extras=None, mbs=0):
        """Time ``op_or_tensor`` (a callable, or a fetch for ``sess.run``) and report the median wall time."""
        def once():
            if callable(op_or_tensor):
                return op_or_tensor()
            return sess.run(op_or_tensor, feed_dict=feed_dict)

        for _ in range(burn_iters):
            once()
        times = []
        for _ in range(min_iters):
            t0 = time.perf_counter()
            once()
            times.append(time.perf_counter() - t0)
        wall = float(np.median(times))
        extras = dict(extras or {})
        if mbs:
            extras["throughput_mb_per_sec"] = mbs / wall
        return self.report_benchmark(iters=min_iters, wall_time=wall, extras=extras, name=name)

