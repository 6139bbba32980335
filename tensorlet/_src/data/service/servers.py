"""``DispatchServer`` and ``WorkerServer``, and the registry that finds a server of this process by address.

Each server binds its port (``port=0`` picks a free one) and holds it until ``stop()``, so addresses are real and
unique; a client resolves ``"grpc://localhost:PORT"`` to the dispatcher object serving that port here.  The
dispatcher keeps the registered datasets, the workers in registration order and the live iterations (jobs);
each worker runs one task thread per iteration (``jobs.py``).
"""

from __future__ import annotations

import socket
import threading
import weakref

from tensorlet._src.data.service.config import PROTOCOL, DispatcherConfig, ShardingPolicy, WorkerConfig
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import tf_export

__all__ = ["DispatchServer", "WorkerServer", "lookup_dispatcher"]

_LOCK = threading.RLock()
# "localhost:PORT" -> DispatchServer (started, not stopped); weak: a dispatcher nobody holds stops, as in TF
_DISPATCHERS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_WAITING: dict = {}  # dispatcher address -> [WorkerServer] started before their dispatcher
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "[::1]", "::1", "", socket.gethostname()}


def _normalize(address: str) -> str:
    host, sep, port = str(address).rpartition(":")
    if not sep:
        return str(address)
    return f"localhost:{port}" if host in _LOCAL_HOSTS else f"{host}:{port}"


def _bind(port, what):
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise RuntimeError(f"Could not start gRPC server: invalid port {port!r} for the {what}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as e:
        sock.close()
        raise RuntimeError(f"Could not start gRPC server: the {what} cannot bind port {port} ({e.strerror})") \
            from None
    return sock


def _check_protocol(protocol):
    if protocol != PROTOCOL:
        raise RuntimeError(f"No credentials factory has been registered for protocol {protocol}. The available "
                           f"types are: [ {PROTOCOL} ]")


def lookup_dispatcher(address: str, what="tf.data service"):
    """The running dispatcher of this process at ``address``, else UnavailableError saying why."""
    addr = _normalize(address)
    with _LOCK:
        d = _DISPATCHERS.get(addr)
    if d is None:
        raise errors.UnavailableError(
            None, None, f"Failed to reach the {what} dispatcher at {address}: no DispatchServer of this process "
                        f"serves it. tensorlet's tf.data service runs in one process (a dataset is a Python object "
                        f"and is never unpickled), so start the DispatchServer and WorkerServers in the process "
                        f"that reads from them, and pass `dispatcher.target`.")
    return d


@tf_export("data.experimental.service.DispatchServer")
class DispatchServer:
    """The tf.data service dispatcher: ``d = DispatchServer(); d.target`` is ``"grpc://localhost:PORT"``.

    >>> d = tf.data.experimental.service.DispatchServer()
    >>> d.target.startswith("grpc://localhost:")
    True
    >>> d.stop()
    """

    def __init__(self, config=None, start=True):
        config = DispatcherConfig() if config is None else config
        if not isinstance(config, DispatcherConfig):
            raise TypeError(f"`config` must be a `tf.data.experimental.service.DispatcherConfig`, got {config!r}")
        _check_protocol(config.protocol)
        self._config = config
        self._port = config.port
        self._sock = None
        self._stopped = threading.Event()
        self._lock = threading.RLock()
        self._datasets: dict = {}  # dataset id (str) -> RegisteredDataset
        self._next_id = 1000
        self._workers: list = []
        self._jobs: dict = {}  # job_name -> (RegisteredDataset, ShardingPolicy, num_consumers) it was created with
        self._iterations: dict = {}  # (job_name, repetition) -> Iteration
        self._live: list = []  # every iteration not yet closed (named and anonymous)
        self._worker_list = None if config.worker_addresses is None else [
            _normalize(a) for a in config.worker_addresses]
        if start:
            self.start()

    # --- server lifecycle ----------------------------------------------------------------------------------
    def start(self):
        """Starts the dispatcher (a no-op when it runs); a stopped dispatcher cannot start again."""
        with _LOCK:
            if self._sock is not None:
                return
            if self._stopped.is_set():
                raise RuntimeError(f"The tf.data service dispatcher at {self._address} was stopped; start a new "
                                   f"DispatchServer instead.")
            self._sock = _bind(self._port, "tf.data service dispatcher")
            self._port = self._sock.getsockname()[1]
            _DISPATCHERS[self._address] = self
            waiting = _WAITING.pop(self._address, [])
        for w in waiting:
            if w._running():
                self._add_worker(w)

    def stop(self):
        """Stops the dispatcher: readers of its jobs get UnavailableError, its workers stop working for it."""
        with _LOCK:
            if _DISPATCHERS.get(self._address) is self:
                del _DISPATCHERS[self._address]
            sock, self._sock = self._sock, None
            self._stopped.set()
        with self._lock:
            live, self._live = self._live, []
            self._iterations.clear()
            self._jobs.clear()
        for it in live:
            it.close(f"the tf.data service dispatcher at {self.target} was stopped")
        if sock is not None:
            sock.close()

    def join(self):
        """Blocks until the dispatcher is stopped (from another thread)."""
        while not self._stopped.wait(0.5):
            pass

    @property
    def target(self) -> str:
        """``"grpc://localhost:PORT"``: pass it as ``service`` to ``distribute`` and friends."""
        return f"{self._config.protocol}://localhost:{self._port}"

    @property
    def _address(self) -> str:
        return f"localhost:{self._port}"

    def _num_workers(self) -> int:
        with self._lock:
            return len(self._workers)

    def __del__(self):
        sock = getattr(self, "_sock", None)
        if sock is not None:
            self.stop()

    # --- dispatcher state ----------------------------------------------------------------------------------
    def _add_worker(self, worker):
        with self._lock:
            if worker in self._workers:
                return
            self._workers.append(worker)
            live = list(self._live)
        for it in live:
            it.add_worker(worker)

    def _remove_worker(self, worker):
        with self._lock:
            if worker not in self._workers:
                return
            self._workers.remove(worker)
            live = list(self._live)
        for it in live:
            it.lose_worker(worker)

    def _register(self, dataset, compression, dataset_id):
        from tensorlet._src.data.service.jobs import RegisteredDataset

        with self._lock:
            if dataset_id is not None:
                old = self._datasets.get(dataset_id)
                if old is None:
                    self._datasets[dataset_id] = RegisteredDataset(dataset_id, dataset, compression)
                elif old.dataset is not dataset and (old.element_spec != dataset.element_spec
                                                     or old.cardinality != dataset._card()):
                    raise errors.InvalidArgumentError(
                        None, "RegisterDatasetV2", f"Failed to register dataset: Datasets with the same ID should "
                                                   f"have the same structure, got diff for dataset ID {dataset_id}: "
                                                   f"element_spec {old.element_spec} -> {dataset.element_spec}, "
                                                   f"cardinality {old.cardinality} -> {dataset._card()}. To fix "
                                                   f"this error, make sure you're registering the same dataset "
                                                   f"with the same ID.")
                return dataset_id
            while str(self._next_id) in self._datasets:
                self._next_id += 1
            did = str(self._next_id)
            self._next_id += 1
            self._datasets[did] = RegisteredDataset(did, dataset, compression)
            return did

    def _dataset(self, dataset_id):
        with self._lock:
            reg = self._datasets.get(dataset_id)
        if reg is None:
            raise errors.NotFoundError(None, None, f"Dataset id {dataset_id} not found in the tf.data service "
                                                   f"dispatcher at {self.target}")
        return reg

    def _iteration(self, reg, policy: ShardingPolicy, job_name, repetition, num_consumers, cross_trainer_cache):
        """The iteration a reader joins: a named job's iteration ``repetition`` is shared by every reader that
        asks for it; an anonymous job is a fresh iteration per reader."""
        from tensorlet._src.data.service.jobs import Iteration

        with self._lock:
            if self._stopped.is_set():
                lookup_dispatcher(self._address)
            key = (job_name, repetition)
            if job_name is not None:
                first = self._jobs.setdefault(job_name, (reg, policy, num_consumers))
                first_reg, first_policy, first_consumers = first
                if policy != first_policy or num_consumers != first_consumers:
                    Iteration.mismatch(job_name, first_policy, first_consumers, reg, policy, num_consumers)
                reg = first_reg  # a job keeps the dataset it was created with, for every repetition
            it = self._iterations.get(key) if job_name is not None else None
            if it is not None:
                return it
            it = Iteration(self, reg, policy, job_name, num_consumers, cross_trainer_cache is not None)
            if job_name is not None:
                self._iterations[key] = it
            self._live.append(it)
            for w in self._workers:  # before any other reader can find it: round-robin rounds map onto these tasks
                it.add_worker(w)
        return it

    def _release(self, iteration):
        """Forget a finished anonymous iteration (named ones stay: a late reader of a finished job gets end of
        input, as in TF)."""
        with self._lock:
            if iteration.job_name is None and iteration in self._live:
                self._live.remove(iteration)


@tf_export("data.experimental.service.WorkerServer")
class WorkerServer:
    """A tf.data service worker: registers with the dispatcher at ``config.dispatcher_address`` and runs the
    tasks the dispatcher assigns it, one thread each.

    >>> d = tf.data.experimental.service.DispatchServer()
    >>> w = tf.data.experimental.service.WorkerServer(
    ...     tf.data.experimental.service.WorkerConfig(dispatcher_address=d.target.split("://")[1]))
    >>> ds = tf.data.Dataset.range(3).apply(tf.data.experimental.service.distribute("parallel_epochs", d.target))
    >>> sorted(int(x) for x in ds)
    [0, 1, 2]
    >>> w.stop(); d.stop()
    """

    def __init__(self, config, start=True):
        if not isinstance(config, WorkerConfig):
            raise TypeError(f"`config` must be a `tf.data.experimental.service.WorkerConfig`, got {config!r}")
        _check_protocol(config.protocol)
        self._config = config
        self._port = config.port
        self._sock = None
        self._stopped = threading.Event()
        self._dispatcher_address = _normalize(config.dispatcher_address.split("://")[-1])
        if start:
            self.start()

    def start(self):
        """Starts the worker and registers it with its dispatcher (or waits for that dispatcher to start)."""
        with _LOCK:
            if self._sock is not None:
                return
            if self._stopped.is_set():
                raise RuntimeError(f"The tf.data service worker at {self._address} was stopped; start a new "
                                   f"WorkerServer instead.")
            self._sock = _bind(self._port, "tf.data service worker")
            self._port = self._sock.getsockname()[1]
            dispatcher = _DISPATCHERS.get(self._dispatcher_address)
            if dispatcher is None:
                _WAITING.setdefault(self._dispatcher_address, []).append(self)
        if dispatcher is not None:
            dispatcher._add_worker(self)

    def stop(self):
        """Stops the worker: its tasks end (their unread elements are lost) and the dispatcher forgets it."""
        with _LOCK:
            sock, self._sock = self._sock, None
            self._stopped.set()
            waiting = _WAITING.get(self._dispatcher_address, [])
            if self in waiting:
                waiting.remove(self)
            dispatcher = _DISPATCHERS.get(self._dispatcher_address)
        if dispatcher is not None:
            dispatcher._remove_worker(self)
        if sock is not None:
            sock.close()

    def join(self):
        """Blocks until the worker is stopped (from another thread)."""
        while not self._stopped.wait(0.5):
            pass

    def _running(self):
        return self._sock is not None

    @property
    def _address(self) -> str:
        """The worker's address as the dispatcher's worker list names it (``%port%`` filled in)."""
        return _normalize(self._config.worker_address.replace("%port%", str(self._port)))

    def __del__(self):
        if getattr(self, "_sock", None) is not None:
            self.stop()
