"""``tensorlet serve``: tensorflow_model_server's flags, wiring and lifecycle.

    tensorlet serve --rest_api_port=8501 --model_name=mnist --model_base_path=/models/mnist
    tensorlet serve --port=8500 --rest_api_port=8501 --model_config_file=models.config \\
        --enable_batching --batching_parameters_file=batching.config

REST runs on uvicorn (our ASGI app), gRPC on grpcio; SIGTERM/SIGINT stop accepting, let in-flight requests
finish, then unload the models.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import signal
import sys
import threading
import time
from concurrent import futures

log = logging.getLogger("tensorlet.serving")
EXTRA = 'the serving extra: pip install "tensorlet[serving]"'


def require_serving_deps():
    missing = []
    for mod in ("uvicorn", "grpc", "orjson"):
        try:
            __import__(mod)
        except ImportError:
            missing.append({"grpc": "grpcio"}.get(mod, mod))
    if missing:
        raise ImportError(f"tensorlet serve needs {', '.join(missing)}, which come with {EXTRA}")


def _bool(v):
    return str(v).lower() not in ("false", "0", "no", "")


def add_arguments(p: argparse.ArgumentParser):
    a = p.add_argument
    a("--port", type=int, default=8500, help="port to listen on for the gRPC API (0: do not serve gRPC)")
    a("--rest_api_port", type=int, default=0, help="port for the HTTP/REST API (0: no REST API)")
    a("--host", default="0.0.0.0", help="address to bind (tensorlet addition; TF Serving binds all interfaces)")
    a("--rest_api_num_threads", type=int, default=0,
      help="threads running REST requests (default: one per CPU, or enough to fill a batch with --enable_batching)")
    a("--rest_api_timeout_in_ms", type=int, default=30000, help="REST request timeout (<= 0: none)")
    a("--model_name", default="default", help="name of the model (with --model_base_path)")
    a("--model_base_path", default="", help="path to export: numeric version subdirectories")
    a("--model_config_file", default="", help="text-format ModelServerConfig (several models, policies, labels)")
    a("--model_config_file_poll_wait_seconds", type=int, default=0,
      help="re-read --model_config_file this often (0: read once)")
    a("--file_system_poll_wait_seconds", type=int, default=1,
      help="seconds between polls of the file system for new versions (0: poll once at start)")
    a("--enable_batching", type=_bool, nargs="?", const=True, default=False, help="batch concurrent requests")
    a("--batching_parameters_file", default="", help="text-format BatchingParameters")
    a("--monitoring_config_file", default="", help="text-format MonitoringConfig (Prometheus endpoint)")
    a("--grpc_max_threads", type=int, default=0,
      help="gRPC worker threads (default 4 per CPU; with batching at least min(max_batch_size, 16))")
    a("--server_timing", type=_bool, nargs="?", const=True, default=False,
      help="tensorlet addition: report the server's time on each request (REST: a Server-Timing header; gRPC: "
           "server-timing trailing metadata)")


def _read_text(path, message_cls, what):
    from google.protobuf import text_format

    try:
        with open(path, encoding="utf-8") as f:
            return text_format.Parse(f.read(), message_cls())
    except OSError as e:
        raise SystemExit(f"cannot read {what} {path}: {e}") from None
    except text_format.ParseError as e:
        raise SystemExit(f"invalid {what} {path}: {e}") from None


class ModelServer:
    """The running server; ``stop()`` is graceful. Used by ``main`` and usable in-process."""

    def __init__(self, args, settle_heap=False):
        """``settle_heap``: keep the long-lived objects out of the garbage collector's full passes (``heap``; the
        ``tensorlet serve`` process does, a server started inside another program leaves its collector alone)."""
        from tensorlet._src.serving import heap, protos
        from tensorlet._src.serving.batching import Batcher, BatchingOptions
        from tensorlet._src.serving.manager import ModelManager
        from tensorlet._src.serving.metrics import DEFAULT_PATH, Metrics
        from tensorlet._src.serving.service import Service

        self.args = args
        self.metrics = Metrics()
        self.batching = None
        if args.enable_batching:
            params = protos.BatchingParameters()
            if args.batching_parameters_file:
                params = _read_text(args.batching_parameters_file, protos.BatchingParameters, "batching parameters")
            try:
                self.batching = BatchingOptions.from_proto(params)
            except ValueError as e:
                raise SystemExit(f"invalid batching parameters: {e}") from None
        self.metrics_path = None
        if args.monitoring_config_file:
            mon = _read_text(args.monitoring_config_file, protos.MonitoringConfig, "monitoring config")
            if mon.prometheus_config.enable:
                self.metrics_path = mon.prometheus_config.path or DEFAULT_PATH

        def on_load(servable):
            if self.batching is not None:
                for sig in servable.signatures.values():
                    servable.batchers[sig.name] = Batcher(
                        sig.call, self.batching,
                        on_batch=lambda rows, size, n=servable.name: self.metrics.batch(n, rows, size),
                        arrivals=self.service.arrivals(servable.name))
                servable.precompile(self.batching.allowed_batch_sizes or (1,))
            else:
                servable.precompile((1,))
            service, t0 = self.service, time.perf_counter()
            n = servable.warmup(lambda s, kind, req: _warm(service, s, kind, req))
            if n:
                self.metrics.warmup(servable.path, n, time.perf_counter() - t0)
            if settle_heap:
                heap.settle()

        self.manager = ModelManager(on_load=on_load, metrics=self.metrics,
                                    poll_wait_seconds=args.file_system_poll_wait_seconds,
                                    on_unload=heap.release if settle_heap else None)
        self.service = Service(self.manager, self.metrics, reload_config=self.reload_config)
        self._config_lock = threading.Lock()
        self._stopped = threading.Event()
        self.rest_server = self.grpc_server = None
        self._threads = []

    def model_config(self):
        from tensorlet._src.serving import protos

        a = self.args
        if a.model_config_file:
            return _read_text(a.model_config_file, protos.ModelServerConfig, "model config")
        if not a.model_base_path:
            raise SystemExit("Both server_model_config_file and model_base_path are empty!")
        cfg = protos.ModelServerConfig()
        m = cfg.model_config_list.config.add()
        m.name, m.base_path, m.model_platform = a.model_name, os.path.abspath(a.model_base_path), "tensorflow"
        return cfg

    def reload_config(self, config):
        with self._config_lock:
            self.manager.set_config(config)

    def start(self):
        import uvicorn

        from tensorlet._src.serving.grpc_api import make_server
        from tensorlet._src.serving.rest import RestApp

        a = self.args
        self.reload_config(self.model_config())
        self.manager.start()
        cpus = os.cpu_count() or 1
        # a gRPC request waiting in a batch holds its thread (idle, GIL released), so its batches hold at most as many
        # requests as there are threads; but every thread more contends for the GIL: at 64 clients on 2 CPUs, 16
        # threads took 3-30% less server CPU a request than 128 in interleaved runs (mean batch 5-6 either way).
        # (A REST predict waits for its batch on the event loop, holding no thread.)
        batch = min(self.batching.max_batch_size, 256) if self.batching is not None else 0
        if a.port:
            self.grpc_server, bound = make_server(self.service, a.port, a.host,
                                                  a.grpc_max_threads or max(4 * cpus, min(batch, 16)),
                                                  server_timing=a.server_timing)
            self.grpc_server.start()
            print(f"Running gRPC ModelServer at {a.host}:{bound} ...", file=sys.stderr, flush=True)
        if a.rest_api_port:
            self.executor = futures.ThreadPoolExecutor(a.rest_api_num_threads or max(cpus, 2 * batch),
                                                       thread_name_prefix="rest")
            app = RestApp(self.service, self.executor, a.rest_api_timeout_in_ms / 1000.0, self.metrics,
                          self.metrics_path, server_timing=a.server_timing)
            cfg = uvicorn.Config(app, host=a.host, port=a.rest_api_port, log_level="warning", lifespan="off",
                                 access_log=False, timeout_graceful_shutdown=30, backlog=4096)
            self.rest_server = uvicorn.Server(cfg)
            t = threading.Thread(target=self.rest_server.run, name="rest", daemon=True)
            t.start()
            self._threads.append(t)
            while not self.rest_server.started and t.is_alive():
                t.join(0.01)
            if not t.is_alive() and not self.rest_server.started:
                raise SystemExit(f"could not start the REST API on {a.host}:{a.rest_api_port}")
            print(f"Exporting HTTP/REST API at:{a.host}:{a.rest_api_port} ...", file=sys.stderr, flush=True)
        if a.model_config_file and a.model_config_file_poll_wait_seconds > 0:
            t = threading.Thread(target=self._config_poll, name="config-poll", daemon=True)
            t.start()

    def _config_poll(self):
        while not self._stopped.wait(self.args.model_config_file_poll_wait_seconds):
            try:
                self.reload_config(self.model_config())
            except (SystemExit, Exception) as e:  # a bad edit of the file keeps the running config
                log.error("reloading %s failed: %s", self.args.model_config_file, e)

    def stop(self):
        """Stop accepting requests, finish the in-flight ones, unload the models."""
        self._stopped.set()
        if self.rest_server is not None:
            self.rest_server.should_exit = True
        grace = self.grpc_server.stop(grace=30) if self.grpc_server is not None else None
        for t in self._threads:
            t.join(timeout=35)
        if grace is not None:
            grace.wait(35)
        self.manager.stop()


def _synchronous_cpu_dispatch():
    """Run CPU computations on the calling thread: jax's asynchronous CPU dispatch hands each call to a worker
    thread and the caller then waits for it, a thread hop per model call (tens of microseconds, more on a busy
    machine) that a server answering one request per call only pays. The GIL is released while it runs."""
    from tensorlet._src.graph.jaxrt import jax

    try:
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    except (AttributeError, KeyError, ValueError):  # a jax without the option: keep its default
        pass


def _warm(service, servable, kind, request):
    """Run one warmup request through the servable (not the request path: no metrics, no lookups)."""
    from tensorlet._src.serving import tensors
    from tensorlet._src.serving.service import _examples

    if kind == "predict_log":
        inputs = {k: tensors.to_numpy(v) for k, v in request.inputs.items()}
        servable.predict(request.model_spec.signature_name, inputs, list(request.output_filter))
    elif kind == "classify_log":
        servable.classify(request.model_spec.signature_name, _examples(request.input))
    elif kind == "regress_log":
        servable.regress(request.model_spec.signature_name, _examples(request.input))
    else:
        for t in request.tasks:
            if t.method_name.endswith("classify"):
                servable.classify(t.model_spec.signature_name, _examples(request.input))
            else:
                servable.regress(t.model_spec.signature_name, _examples(request.input))


def main(args) -> int:
    require_serving_deps()
    # a fatal signal (a native crash in a model call) dumps every thread's Python stack to stderr before the
    # process dies, so a crash in the field says which request path and which call it was in
    if not faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr, all_threads=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # request threads are CPU-bound Python between model calls: hand the GIL over sooner than the 5 ms default so
    # the event loop (REST) keeps answering while they parse and format (cuts the REST latency tail under load)
    sys.setswitchinterval(0.0005)
    _synchronous_cpu_dispatch()
    server = ModelServer(args, settle_heap=True)
    done = threading.Event()

    def on_signal(signum, frame):
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    while not done.wait(0.5):
        pass
    print("Shutting down ...", file=sys.stderr, flush=True)
    server.stop()
    return 0
