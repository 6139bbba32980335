"""``tf.train.Coordinator`` (stop threads together, re-raise their errors) and the cluster protos
``tf.train.ClusterDef`` / ``JobDef`` / ``ServerDef``."""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import export_value, tf_export

__all__ = ["Coordinator", "ClusterDef", "JobDef", "ServerDef"]

from tensorboard.compat.proto.cluster_pb2 import ClusterDef, JobDef  # noqa: E402  (TF's own messages)

export_value("train.ClusterDef", __name__, "ClusterDef")
export_value("train.JobDef", __name__, "JobDef")


def _server_def_class():
    """``tensorflow.ServerDef``, built from its field numbers (its .proto does not ship with our dependencies)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from tensorboard.compat.proto import cluster_pb2, config_pb2

    pool = descriptor_pool.Default()
    try:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorboard.ServerDef"))
    except KeyError:
        pass
    fd = descriptor_pb2.FileDescriptorProto(name="tensorlet/tensorflow_server.proto", package="tensorboard",
                                            syntax="proto3")
    fd.dependency.append(cluster_pb2.DESCRIPTOR.name)
    fd.dependency.append(config_pb2.DESCRIPTOR.name)
    m = fd.message_type.add(name="ServerDef")
    for name, num, typ, tname in (("cluster", 1, 11, ".tensorboard.ClusterDef"), ("job_name", 2, 9, ""),
                                  ("replica", 8, 5, ""), ("task_index", 3, 5, ""),
                                  ("default_session_config", 4, 11, ".tensorboard.ConfigProto"),
                                  ("protocol", 5, 9, ""), ("port", 6, 5, "")):
        f = m.field.add(name=name, number=num, type=typ, label=1)
        if tname:
            f.type_name = tname
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorboard.ServerDef"))


ServerDef = _server_def_class()
export_value("train.ServerDef", __name__, "ServerDef")


@tf_export("train.Coordinator")
class Coordinator:
    """Coordinates the termination of a set of threads: any thread may ``request_stop`` (optionally with an
    exception); ``join`` waits for all and re-raises the first exception reported."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Ask every thread to stop; ``ex`` (an exception or exc_info) is re-raised by ``join``."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                    raise ex_instance
                if ex is not None:
                    raise ex
                return
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        self._exc_info_to_raise = ex
                    else:
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if not isinstance(self._exc_info_to_raise[1], Exception):
                        self._exc_info_to_raise = sys.exc_info()
                        if self._exc_info_to_raise[1] is None:
                            raise ValueError("If `ex` is not an exception, `request_stop` must be called inside "
                                             "an exception handler.")
                self._stop_event.set()

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Context manager: an exception in the body requests a stop (and is reported by ``join``)."""
        try:
            yield
        except:  # noqa: E722  (TF reports every exception, including KeyboardInterrupt)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for ``threads`` (and registered ones) to finish; re-raise the exception given to ``request_stop``.
        Threads still alive ``stop_grace_period_secs`` after a stop request raise RuntimeError."""
        with self._lock:
            threads = set(self._registered_threads) | set(threads or [])
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.time() + stop_grace_period_secs
        for t in threads:
            t.join(max(0.0, deadline - time.time()))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
            if stragglers and not ignore_live_threads:
                raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Start a thread calling ``target(*args, **kwargs)`` every ``timer_interval_secs`` until a stop."""
        def run():
            with self.stop_on_exception():
                while not self.should_stop():
                    target(*(args or ()), **(kwargs or {}))
                    if self.wait_for_stop(timer_interval_secs):
                        break

        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t
