"""The model manager: which versions of which models are served, loading, hot swap, unloading and status.

Each model has a base path whose numeric subdirectories are versions (``base_path/<version>/``). A version
policy (latest N, all, specific) picks the versions to serve from what is on disk; the file system is polled
every ``file_system_poll_wait_seconds``. Swaps preserve availability: a new version is loaded (and warmed up)
before an old one leaves the serving map, a version that fails to load is reported in status while the
versions already loaded keep serving, and a version that leaves is unloaded only after its in-flight requests.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from tensorlet._src.serving.errors import (INVALID_ARGUMENT, NOT_FOUND, OK, UNKNOWN, ServingError, invalid)
from tensorlet._src.serving.servable import Servable, not_found

log = logging.getLogger("tensorlet.serving")

START, LOADING, AVAILABLE, UNLOADING, END = 10, 20, 30, 40, 50


def load_saved_model(path):
    """``tf.saved_model.load``: whatever format it reads (TF's ``saved_model.pb``, tensorlet's older JSON one)."""
    from tensorlet._src.saved_model.load import load

    return load(path)


class VersionState:
    __slots__ = ("version", "state", "code", "message", "servable")

    def __init__(self, version):
        self.version, self.state, self.code, self.message, self.servable = version, START, OK, "", None


class Model:
    def __init__(self, config):
        self.config = config
        self.versions: dict[int, VersionState] = {}
        self.serving: dict[int, Servable] = {}  # AVAILABLE servables, read without the lock (replaced whole)

    @property
    def name(self):
        return self.config.name


def aspired_versions(config, on_disk):
    """The versions the policy wants, from the sorted versions present on disk."""
    policy = config.model_version_policy
    which = policy.WhichOneof("policy_choice")
    if which == "all":
        return set(on_disk)
    if which == "specific":
        return set(policy.specific.versions) & set(on_disk)
    n = policy.latest.num_versions if which == "latest" and policy.latest.num_versions > 0 else 1
    return set(sorted(on_disk)[-n:])


def list_versions(base_path):
    try:
        names = os.listdir(base_path)
    except OSError:
        return None
    return sorted(int(n) for n in names if n.isdigit() and os.path.isdir(os.path.join(base_path, n)))


class ModelManager:
    def __init__(self, loader=load_saved_model, on_load=None, metrics=None, poll_wait_seconds=1.0, on_unload=None):
        self.loader = loader
        self.on_load = on_load  # called with a new Servable before it serves (batching, warmup)
        self.on_unload = on_unload  # called (no arguments) once unloaded versions are no longer referenced
        self.metrics = metrics
        self.poll_wait_seconds = poll_wait_seconds
        self.models: dict[str, Model] = {}
        self._lock = threading.RLock()  # guards models/versions; held while polling (one poll at a time)
        self._stop = threading.Event()
        self._thread = None
        self._unloaders = []

    # --- configuration ---------------------------------------------------------------------------------------------
    def set_config(self, config):
        """Apply a ModelServerConfig: add, change or remove models, then poll once (loads synchronously)."""
        which = config.WhichOneof("config")
        if which == "custom_model_config":
            raise ServingError(12, "custom_model_config is not supported")
        configs = list(config.model_config_list.config) if which else []
        seen = set()
        for c in configs:
            if not c.name:
                raise invalid("Model config has an empty name")
            if c.name in seen:
                raise invalid(f"Illegal to list model {c.name} multiple times in config list")
            seen.add(c.name)
            if not c.base_path:
                raise invalid(f"Model {c.name} has no base_path")
            if c.model_platform not in ("", "tensorflow"):
                raise invalid(f"Model {c.name} requested unsupported model platform: {c.model_platform}")
        with self._lock:
            for name in list(self.models):
                if name not in seen:
                    model = self.models.pop(name)
                    self._retire(model, set(model.serving), keep_state=False)
            for c in configs:
                if c.name in self.models:
                    self.models[c.name].config = c
                else:
                    self.models[c.name] = Model(c)
            self.poll()

    # --- polling ---------------------------------------------------------------------------------------------------
    def poll(self):
        with self._lock:
            for model in list(self.models.values()):
                self._reconcile(model)

    def _reconcile(self, model):
        on_disk = list_versions(model.config.base_path)
        if on_disk is None:
            log.warning("No versions of servable %s found under base path %s", model.name, model.config.base_path)
            on_disk = []
        aspired = aspired_versions(model.config, on_disk)
        for v in sorted(aspired - set(model.versions), reverse=True):
            self._load(model, v)
        for v in sorted(aspired):  # a version that ended (unloaded) and came back is loaded again
            st = model.versions.get(v)
            if st is not None and st.state == END and st.code == OK and v not in model.serving:
                self._load(model, v)
        if any(v in model.serving for v in aspired) or not aspired:
            self._retire(model, set(model.serving) - aspired)

    def _load(self, model, version):
        st = model.versions.get(version) or VersionState(version)
        model.versions[version] = st
        st.state, st.code, st.message = LOADING, OK, ""
        path = os.path.join(model.config.base_path, str(version))
        t0 = time.perf_counter()
        servable = None
        try:
            servable = Servable(model.name, version, path, self.loader(path))
            if self.on_load is not None:
                self.on_load(servable)
        except Exception as e:  # a bad version must not take the server down
            for b in servable.batchers.values() if servable is not None else ():
                b.close()
            code = getattr(e, "code", None) if isinstance(e, ServingError) else getattr(e, "error_code", UNKNOWN)
            st.state, st.code = END, code if isinstance(code, int) and code else UNKNOWN
            st.message = f"{type(e).__name__}: {e}" if not isinstance(e, ServingError) else e.message
            cause = e.__cause__ if e.__cause__ is not None else e.__context__
            log.error("Loading servable %s version %d failed: %s%s", model.name, version, st.message,
                      f" (caused by {type(cause).__name__}: {cause})" if cause is not None else "")
            if self.metrics:
                self.metrics.load_attempt(path, "error", time.perf_counter() - t0)
            return
        st.servable, st.state = servable, AVAILABLE
        serving = dict(model.serving)
        serving[version] = servable
        model.serving = serving
        log.info("Successfully loaded servable version {name: %s version: %d}", model.name, version)
        if self.metrics:
            self.metrics.load_attempt(path, "success", time.perf_counter() - t0)

    def _retire(self, model, versions, keep_state=True):
        if not versions:
            return
        serving = {v: s for v, s in model.serving.items() if v not in versions}
        gone = [(model.versions[v], model.serving[v]) for v in versions if v in model.serving]
        model.serving = serving  # new requests no longer see them

        def finish():
            while gone:  # popped: nothing here keeps an unloaded version alive for ``on_unload``
                st, servable = gone.pop(0)
                servable.wait_idle()
                for b in servable.batchers.values():
                    b.close()
                st.servable = servable = None
                st.state = END
                log.info("Unloaded servable version {name: %s version: %d}", model.name, st.version)
            if self.on_unload is not None:
                self.on_unload()

        for st, _ in gone:
            st.state = UNLOADING
        t = threading.Thread(target=finish, name=f"unload-{model.name}", daemon=True)
        t.start()
        self._unloaders.append(t)

    def start(self):
        if self.poll_wait_seconds and self.poll_wait_seconds > 0:
            self._thread = threading.Thread(target=self._poll_loop, name="fs-poll", daemon=True)
            self._thread.start()

    def _poll_loop(self):
        while not self._stop.wait(self.poll_wait_seconds):
            try:
                self.poll()
            except Exception:  # keep polling; the error is in the log
                log.exception("file system poll failed")

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            for model in self.models.values():
                self._retire(model, set(model.serving))
        for t in self._unloaders:
            t.join(timeout=30)

    # --- lookups ---------------------------------------------------------------------------------------------------
    def acquire(self, spec_name, version=None, label=None) -> Servable:
        """The servable a request names, with its in-flight count raised (release it when done)."""
        model = self.models.get(spec_name)
        if version is not None and label is not None:
            raise invalid(f"Both model version ({version}) and model version label ({label}) cannot be supplied.")
        if label is not None:
            if model is None or label not in model.config.version_labels:
                raise invalid(f"Unrecognized servable version label: {label}")
            version = model.config.version_labels[label]
        if model is None:
            raise not_found(f"Latest({spec_name})" if version is None else f"Specific({spec_name}, {version})")
        while True:
            serving = model.serving
            if version is None:
                if not serving:
                    raise not_found(f"Latest({spec_name})")
                servable = serving[max(serving)]
            else:
                servable = serving.get(version)
                if servable is None:
                    raise not_found(f"Specific({spec_name}, {version})")
            servable.acquire()
            # still in the serving map after counting ourselves in: an unloader that removes it now waits for us
            if model.serving.get(servable.version) is servable:
                return servable
            servable.release()

    def status(self, name, version=None):
        """[(version, state, code, message)] as GetModelStatus reports it."""
        model = self.models.get(name)
        if version is not None:
            st = model.versions.get(version) if model else None
            if st is None:
                raise ServingError(NOT_FOUND, f"Could not find version {version} of model {name}")
            return [(st.version, st.state, st.code, st.message)]
        if model is None or not model.versions:
            raise ServingError(NOT_FOUND, f"Could not find any versions of model {name}")
        return [(st.version, st.state, st.code, st.message) for _, st in sorted(model.versions.items(), reverse=True)]

    def resolve_label(self, name, label):
        model = self.models.get(name)
        if model is None or label not in model.config.version_labels:
            raise ServingError(INVALID_ARGUMENT, f"Unrecognized servable version label: {label}")
        return model.config.version_labels[label]

    def servables(self):
        return [s for m in list(self.models.values()) for s in m.serving.values()]
