"""Shared helpers for the serving tests and the benchmark: test SavedModels (written by tensorlet's own
``tf.saved_model.save``), a server started as a subprocess on loopback, and small HTTP/gRPC clients."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = "127.0.0.1"
TF_SAVED_MODELS = os.path.join(ROOT, "tests", "goldens", "tf_saved_model")


# --- models --------------------------------------------------------------------------------------------------------
def mlp_weights(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 8)).astype("float32"), rng.normal(size=(8, 3)).astype("float32")


def mlp_reference(x, seed):
    w1, w2 = mlp_weights(seed)
    return np.maximum(x @ w1, 0) @ w2


def save_mlp(path, seed=0):
    """y = relu(x @ w1) @ w2 with x: float32 [None, 4]; also signature 'double' (y = 2x)."""
    import tensorlet as tf

    w1, w2 = mlp_weights(seed)

    class MLP(tf.Module):
        def __init__(self):
            self.w1, self.w2 = tf.Variable(w1), tf.Variable(w2)

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def serve(self, x):
            return {"y": tf.matmul(tf.nn.relu(tf.matmul(x, self.w1)), self.w2)}

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def double(self, x):
            return {"y": x * 2.0}

    m = MLP()
    tf.saved_model.save(m, path, signatures={"serving_default": m.serve, "double": m.double})
    return path


def save_multi(path):
    """Two inputs (a: float32 [None, 2], b: int64 [None]) and two outputs (sum: a + b, label_bytes: strings)."""
    import tensorlet as tf

    class Multi(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="a"),
                                      tf.TensorSpec([None], tf.int64, name="b")])
        def serve(self, a, b):
            s = a + tf.cast(tf.expand_dims(b, 1), tf.float32)
            return {"sum": s, "label_bytes": tf.strings.as_string(b)}

    m = Multi()
    tf.saved_model.save(m, path, signatures={"serving_default": m.serve})
    return path


CLASS_W = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]], np.float32)


def example_features(serialized):
    """The classifier's features of serialized Examples: [len / 10, 1] (plain string ops, no parsing)."""
    n = np.array([len(b) for b in serialized], np.float32) / 10
    return np.stack([n, np.ones_like(n)], axis=1)


def save_classifier(path):
    """serving_default: classify-shaped (serialized Examples -> classes, scores = softmax(features @ CLASS_W));
    'regress': outputs = features[:, 0]."""
    import tensorlet as tf

    class Cls(tf.Module):
        def __init__(self):
            self.w = tf.Variable(CLASS_W)

        def features(self, inputs):
            n = tf.cast(tf.strings.length(inputs), tf.float32) / 10.0
            return tf.stack([n, tf.ones_like(n)], axis=1)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="inputs")])
        def classify(self, inputs):
            s = tf.nn.softmax(tf.matmul(self.features(inputs), self.w))
            classes = tf.gather(tf.constant(["a", "b", "c"]), tf.zeros_like(s, dtype=tf.int32) + tf.range(3))
            return {"scores": s, "classes": classes}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="inputs")])
        def regress(self, inputs):
            return {"outputs": self.features(inputs)[:, 0]}

    m = Cls()
    tf.saved_model.save(m, path, signatures={"serving_default": m.classify, "regress": m.regress})
    return path


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def save_raiser(path):
    """y = 2x, and an assertion that fails (InvalidArgumentError) for negative inputs."""
    import tensorlet as tf

    class Raiser(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
        def serve(self, x):
            tf.debugging.Assert(tf.logical_not(tf.reduce_any(x < 0)), ["x must be non-negative"])
            return {"y": x * 2.0}

    m = Raiser()
    tf.saved_model.save(m, path, signatures={"serving_default": m.serve})
    return path


def save_broken(path):
    """A version directory the loader refuses."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "saved_model.pb"), "wb") as f:
        f.write(b"\x08\x01 this is not a SavedModel")
    return path


# --- server --------------------------------------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """``tensorlet serve`` in a subprocess on loopback; ``rest``/``grpc`` are its ports."""

    def __init__(self, *flags, wait_for=(), timeout=90, cwd=None):
        self.rest, self.grpc = free_port(), free_port()
        cmd = [sys.executable, "-m", "tensorlet", "serve", f"--host={HOST}", f"--port={self.grpc}",
               f"--rest_api_port={self.rest}", *flags]
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   JAX_PLATFORMS="cpu")
        self.log_path = os.path.join(cwd or "/tmp", f"tensorlet_serve_{self.rest}.log")
        self._log = open(self.log_path, "w+b")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        deadline = time.monotonic() + timeout
        for name in wait_for:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited ({self.proc.returncode}):\n{self.log()}")
                try:
                    status, body = self.get(f"/v1/models/{name}")
                    if status == 200 and any(v["state"] == "AVAILABLE" for v in body["model_version_status"]):
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    self.proc.kill()  # (no server left behind by a failed start)
                    self.proc.wait(30)
                    raise RuntimeError(f"model {name} not available in {timeout}s:\n{self.log()}")
                time.sleep(0.1)

    def log(self):
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def request(self, method, path, body=None, timeout=30):
        conn = http.client.HTTPConnection(HOST, self.rest, timeout=timeout)
        try:
            data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            raw = resp.read()
            return resp.status, raw
        finally:
            conn.close()

    def get(self, path):
        status, raw = self.request("GET", path)
        return status, json.loads(raw)

    def post(self, path, body):
        status, raw = self.request("POST", path, body)
        return status, json.loads(raw)

    def channel(self):
        import grpc

        return grpc.insecure_channel(f"{HOST}:{self.grpc}")

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self._log.closed:
            self._log.close()
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


@contextlib.contextmanager
def serving(*flags, wait_for=()):
    s = Server(*flags, wait_for=wait_for)
    try:
        yield s
    finally:
        s.stop()


def write_config(path, models):
    """A text-format ModelServerConfig: models = [(name, base_path, policy text or '', {label: version})]."""
    parts = []
    for name, base, policy, labels in models:
        lab = "".join(f' version_labels {{ key: "{k}" value: {v} }}' for k, v in labels.items())
        pol = f" model_version_policy {{ {policy} }}" if policy else ""
        parts.append(f'  config {{ name: "{name}" base_path: "{base}" model_platform: "tensorflow"{pol}{lab} }}')
    with open(path, "w") as f:
        f.write("model_config_list {\n" + "\n".join(parts) + "\n}\n")
    return path
