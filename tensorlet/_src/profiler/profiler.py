"""``tf.profiler.experimental.start/stop/Trace/Profile`` and the profiler server/client pair.

While a profile runs, ``Trace`` regions (and anything else that calls :func:`record`) are collected per thread;
``stop`` writes them to ``<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb`` (TF's XSpace: a
``/host:CPU`` plane with one line per thread, and the ``Task Environment`` plane with start/stop times) and the
same events as a Chrome trace (``<host>.trace.json.gz``, readable by chrome://tracing and Perfetto).
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import threading
import time
from typing import NamedTuple

from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import tf_export

__all__ = ["start", "stop", "Trace", "Profile", "ProfilerOptions", "record"]


@tf_export("profiler.experimental.ProfilerOptions")
class ProfilerOptions(NamedTuple):
    """What to trace: host (0-3), Python (0/1) and device (0/1) levels; ``delay_ms`` before tracing starts."""

    host_tracer_level: int = 2
    python_tracer_level: int = 0
    device_tracer_level: int = 1
    delay_ms: int | None = None


class _Session:
    def __init__(self, logdir, options):
        self.logdir = logdir
        self.options = options
        self.start_ns = time.time_ns()
        self.start_perf = time.perf_counter_ns()
        self.events: list = []  # (thread id, thread name, name, start perf ns, end perf ns, stats)
        self.lock = threading.Lock()


_session: list = [None]
_lock = threading.Lock()


@tf_export("profiler.experimental.start")
def start(logdir, options=None):
    """Start profiling; ``stop()`` writes the trace under ``logdir``."""
    with _lock:
        if _session[0] is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        opts = options if options is not None else ProfilerOptions()
        if opts.delay_ms:
            time.sleep(opts.delay_ms / 1000.0)
        _session[0] = _Session(os.fspath(logdir), opts)


@tf_export("profiler.experimental.stop")
def stop(save=True):
    """Stop profiling and (``save=True``) write the collected trace."""
    with _lock:
        s = _session[0]
        if s is None:
            raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
        _session[0] = None
    if save:
        _write(s, time.time_ns())


def record(name, start_perf_ns, end_perf_ns, stats=None):
    """Add one host event to the running profile (a no-op when none runs)."""
    s = _session[0]
    if s is None or s.options.host_tracer_level <= 0:
        return
    t = threading.current_thread()
    with s.lock:
        s.events.append((threading.get_ident(), t.name, name, start_perf_ns, end_perf_ns, dict(stats or {})))


@tf_export("profiler.experimental.Trace")
class Trace:
    """Context manager marking a region of the host timeline: ``with Trace('train', step_num=step, _r=1):``
    (``step_num`` and ``_r=1`` make it a step TensorBoard's overview page counts)."""

    def __init__(self, name, **kwargs):
        self._name = name
        self._stats = kwargs
        self._t0 = None

    def __enter__(self):
        self._t0 = time.perf_counter_ns() if _session[0] is not None else None
        return self

    def __exit__(self, *exc):
        if self._t0 is not None:
            record(self._name, self._t0, time.perf_counter_ns(), self._stats)
        return False

    def set_metadata(self, **kwargs):
        self._stats.update(kwargs)


@tf_export("profiler.experimental.Profile")
class Profile:
    """Context manager form of ``start(logdir, options)`` / ``stop()``."""

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()
        return False


# --- writing ---------------------------------------------------------------------------------------------------

def _stat_value(stat, v):
    if isinstance(v, bool) or isinstance(v, int):
        if v >= 0:
            stat.uint64_value = int(v)
        else:
            stat.int64_value = int(v)
    elif isinstance(v, float):
        stat.double_value = v
    elif isinstance(v, bytes):
        stat.bytes_value = v
    else:
        stat.str_value = str(v)


def build_xspace(s: _Session, stop_ns: int):
    """The profile as an ``XSpace`` message."""
    from tensorlet._src.profiler import xplane

    C = xplane.classes()
    space = C["XSpace"]()
    host = space.planes.add(id=0, name="/host:CPU")
    event_ids: dict = {}
    stat_ids: dict = {}

    def stat_id(plane, name):
        if name not in stat_ids:
            sid = len(stat_ids) + 1
            stat_ids[name] = sid
            plane.stat_metadata[sid].id = sid
            plane.stat_metadata[sid].name = name
        return stat_ids[name]

    lines: dict = {}
    base = s.start_perf
    for tid, tname, name, t0, t1, stats in s.events:
        if tid not in lines:
            line = host.lines.add(id=tid, display_id=len(lines), name=tname, timestamp_ns=s.start_ns)
            lines[tid] = line
        line = lines[tid]
        if name not in event_ids:
            eid = len(event_ids) + 1
            event_ids[name] = eid
            host.event_metadata[eid].id = eid
            host.event_metadata[eid].name = name
        ev = line.events.add(metadata_id=event_ids[name], offset_ps=(t0 - base) * 1000,
                             duration_ps=max(t1 - t0, 0) * 1000)
        for k, v in stats.items():
            _stat_value(ev.stats.add(metadata_id=stat_id(host, k)), v)
    for line in lines.values():
        line.duration_ps = (stop_ns - s.start_ns) * 1000
    env = space.planes.add(id=1, name="Task Environment")
    for i, (name, v) in enumerate((("profile_start_time", s.start_ns), ("profile_stop_time", stop_ns)), 1):
        env.stat_metadata[i].id = i
        env.stat_metadata[i].name = name
        env.stats.add(metadata_id=i, uint64_value=v)
    space.hostnames.append(socket.gethostname())
    return space


def chrome_trace(s: _Session) -> dict:
    """The profile in Chrome's trace-event format (complete events, microseconds)."""
    events = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "/host:CPU"}}]
    seen = set()
    for tid, tname, name, t0, t1, stats in s.events:
        if tid not in seen:
            seen.add(tid)
            events.append({"ph": "M", "pid": 0, "tid": tid, "name": "thread_name", "args": {"name": tname}})
        events.append({"ph": "X", "pid": 0, "tid": tid, "name": name, "ts": (t0 - s.start_perf) / 1000.0,
                       "dur": max(t1 - t0, 0) / 1000.0, "args": {k: str(v) for k, v in stats.items()}})
    return {"displayTimeUnit": "ns", "traceEvents": events}


def _write(s: _Session, stop_ns: int) -> str:
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(s.start_ns / 1e9))
    out = os.path.join(s.logdir, "plugins", "profile", run)
    os.makedirs(out, exist_ok=True)
    host = socket.gethostname()
    _atomic(os.path.join(out, f"{host}.xplane.pb"), build_xspace(s, stop_ns).SerializeToString())
    _atomic(os.path.join(out, f"{host}.trace.json.gz"),
            gzip.compress(json.dumps(chrome_trace(s)).encode("utf-8")))
    return out


def _atomic(path, data: bytes):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# --- server / client -------------------------------------------------------------------------------------------

_servers: dict = {}


@tf_export("profiler.experimental.server.start")
def server_start(port):
    """Start a profiler server on ``port`` in this process (``client.trace('grpc://localhost:port', ...)``
    from this process then captures a profile)."""
    port = int(port)
    if port in _servers:
        raise errors.AlreadyExistsError(None, None, f"Profiler server already started on port {port}.")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("localhost", port))
        sock.listen(1)
    except OSError as e:
        sock.close()
        raise errors.UnavailableError(None, None, f"Failed to start profiler server on port {port}: {e}") from None
    _servers[port] = sock


def _local_port(service_addr):
    addr = str(service_addr).split("://", 1)[-1].split(",")[0]
    host, _, port = addr.rpartition(":")
    if host in ("localhost", "127.0.0.1", "", socket.gethostname()) and port.isdigit() and int(port) in _servers:
        return int(port)
    raise errors.UnavailableError(None, None, f"No profiler server is reachable at {service_addr!r} (tensorlet "
                                              "traces profiler servers started in this process).")


@tf_export("profiler.experimental.client.trace")
def client_trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3, options=None):
    """Capture ``duration_ms`` of profile from the profiler server at ``service_addr`` into ``logdir``."""
    if duration_ms <= 0:
        raise errors.InvalidArgumentError(None, None, "duration_ms must be greater than zero.")
    _local_port(service_addr)
    start(logdir, options)
    time.sleep(duration_ms / 1000.0)
    stop()


@tf_export("profiler.experimental.client.monitor")
def client_monitor(service_addr, duration_ms, level=1):
    """A short text summary of host activity seen by the profiler server over ``duration_ms``."""
    _local_port(service_addr)
    t0 = time.process_time()
    time.sleep(duration_ms / 1000.0)
    busy = time.process_time() - t0
    return f"Host CPU time over {duration_ms} ms: {busy * 1000:.1f} ms"
