"""Versions appearing and disappearing under load, config reloads (gRPC and polling), warmup, batching and
graceful shutdown, each against a ``tensorlet serve`` subprocess on loopback."""

import http.client
import json
import os
import shutil
import socket
import threading
import time

import numpy as np
import pytest

import serving_util as su
from tensorlet._src.serving import protos, tensors
from tensorlet._src.serving.grpc_api import stub

X = np.array([[1.0, 2.0, -1.0, 0.5]], np.float32)
REFS = {seed: su.mlp_reference(X, seed) for seed in (1, 2, 3)}


def _deploy(writer, base, version, tmp, **kw):
    """Write a version next to the base path and rename it in, as a deployment does."""
    staging = os.path.join(tmp, f"staging_{version}_{time.monotonic_ns()}")
    writer(staging, **kw)
    os.rename(staging, os.path.join(base, str(version)))


def _which(pred):
    for seed, ref in REFS.items():
        if np.allclose(pred, ref, rtol=1e-5):
            return seed
    return None


def _wait(cond, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _states(server, name):
    status, body = server.get(f"/v1/models/{name}")
    return {int(v["version"]): v for v in body.get("model_version_status", [])}


def test_versions_swap_under_load_without_dropping_requests(server, zoo, tmp_path):
    base, s = str(zoo / "hot"), server
    stop, results = threading.Event(), []

    def client():
        while not stop.is_set() and len(results) < 20000:
            status, body = s.post("/v1/models/hot:predict", {"instances": X.tolist()})
            results.append((status, _which(body["predictions"]) if status == 200 else body))

    threads = [threading.Thread(target=client) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        _deploy(su.save_mlp, base, 2, str(tmp_path), seed=2)  # a new version: served, then the old one unloaded
        _wait(lambda: _states(s, "hot").get(1, {}).get("state") == "END", what="v1 unloaded")
        assert _states(s, "hot")[2]["state"] == "AVAILABLE"
        n = len(results)
        _wait(lambda: len(results) > n + 5, what="requests after the swap")
        assert results[-1] == (200, 2)

        _deploy(su.save_broken, base, 3, str(tmp_path))  # a broken version: reported, v2 keeps serving
        st = _wait(lambda: _states(s, "hot").get(3, {}).get("state") == "END" and _states(s, "hot")[3],
                   what="v3 failure")
        assert st["status"]["error_code"] != "OK" and st["status"]["error_message"]
        n = len(results)
        _wait(lambda: len(results) > n + 5, what="requests after the failed load")
        assert results[-1] == (200, 2)

        shutil.rmtree(os.path.join(base, "3"))
        shutil.rmtree(os.path.join(base, "2"))  # v2 removed: v1 (still on disk) is the latest again
        _wait(lambda: _states(s, "hot").get(2, {}).get("state") == "END", what="v2 unloaded")
        n = len(results)
        _wait(lambda: len(results) > n + 5, what="requests after the removal")
        assert results[-1] == (200, 1)
    finally:
        stop.set()
        for t in threads:
            t.join()
    bad = [r for r in results if r[0] != 200 or r[1] is None]
    assert not bad, bad[:5]
    assert {r[1] for r in results} == {1, 2}


def test_config_reload_by_grpc(server, zoo):
    from google.protobuf import text_format

    with open(server.config_path) as f:
        original = text_format.Parse(f.read(), protos.ModelServerConfig())
    ms = stub(server.channel(), "ModelService")
    req = protos.ReloadConfigRequest()
    req.config.CopyFrom(original)
    req.config.model_config_list.config.add().CopyFrom(original.model_config_list.config[0])
    resp = ms.HandleReloadConfigRequest(req, timeout=60)  # a model listed twice is refused; the config stays
    assert resp.status.error_code == 3 and "multiple times" in resp.status.error_message
    assert server.post("/v1/models/mlp:predict", {"instances": X.tolist()})[0] == 200

    c = req.config.model_config_list.config[-1]
    c.name, c.base_path = "extra", str(zoo / "mlp")
    c.model_version_policy.specific.versions.append(1)
    try:
        resp = ms.HandleReloadConfigRequest(req, timeout=60)
        assert resp.status.error_code == 0, resp
        status, body = server.post("/v1/models/extra:predict", {"instances": X.tolist()})
        assert status == 200 and _which(body["predictions"]) == 1
    finally:
        req.config.CopyFrom(original)
        assert ms.HandleReloadConfigRequest(req, timeout=60).status.error_code == 0
    assert server.post("/v1/models/extra:predict", {"instances": X.tolist()})[0] == 404


def _warmup_file(path, requests):
    from tensorlet._src.io.tfrecord import TFRecordWriter

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with TFRecordWriter(path) as w:
        for inputs in requests:
            log = protos.PredictionLog()
            log.predict_log.request.model_spec.name = "ignored"
            for k, v in inputs.items():
                tensors.to_proto(v, log.predict_log.request.inputs[k])
            w.write(log.SerializeToString())


def _metric(text, name, **labels):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


@pytest.mark.slow
def test_batching_warmup_config_polling_and_graceful_shutdown(tmp_path):
    su.save_mlp(str(tmp_path / "b" / "1"), seed=1)
    _warmup_file(str(tmp_path / "b" / "1" / "assets.extra" / "tf_serving_warmup_requests"),
                 [{"x": np.ones((1, 4), np.float32)}] * 2)
    su.save_mlp(str(tmp_path / "w" / "1"), seed=2)
    _warmup_file(str(tmp_path / "w" / "1" / "assets.extra" / "tf_serving_warmup_requests"),
                 [{"wrong_name": np.ones((1, 4), np.float32)}])
    cfg = su.write_config(str(tmp_path / "models.config"),
                          [("b", str(tmp_path / "b"), "", {}), ("w", str(tmp_path / "w"), "", {})])
    (tmp_path / "batching.config").write_text(
        "max_batch_size { value: 8 }\nbatch_timeout_micros { value: 500000 }\nmax_enqueued_batches { value: 2 }\n"
        "num_batch_threads { value: 1 }\nallowed_batch_sizes: 2\nallowed_batch_sizes: 4\nallowed_batch_sizes: 8\n")
    (tmp_path / "monitoring.config").write_text("prometheus_config { enable: true }\n")
    s = su.Server(f"--model_config_file={cfg}", "--model_config_file_poll_wait_seconds=1", "--enable_batching",
                  f"--batching_parameters_file={tmp_path / 'batching.config'}",
                  f"--monitoring_config_file={tmp_path / 'monitoring.config'}", wait_for=("b",))
    try:
        # warmup: b replayed its 2 records; w's bad record failed its load
        text = s.request("GET", "/monitoring/prometheus/metrics")[1].decode()
        assert _metric(text, ":tensorflow:serving:model_warmup_records_read") == 2
        st = _states(s, "w")[1]
        assert st["state"] == "END" and "Warmup request 1" in st["status"]["error_message"]

        # 8 concurrent one-row requests: each answered with its own rows; requests that reach the server together
        # share a padded batch (a batch closes early only when no other request is on its way to it, so how many
        # merge depends on how the requests arrive: a burst is retried a few times before concluding none merge)
        n = 8
        xs = [np.random.default_rng(i).normal(size=(1, 4)).astype(np.float32) for i in range(n)]
        name = ":tensorflow:serving:batching_session:processed_batch_size"

        def batches():
            text = s.request("GET", "/monitoring/prometheus/metrics")[1].decode()
            sizes = {le: _metric(text, name + "_bucket", le=le) for le in ("1", "2", "4", "8")}
            # every batch is padded to an allowed size (2, 4 or 8)
            assert sizes["1"] == 0 and sizes["8"] == _metric(text, name + "_count"), text
            return sizes["8"]

        def rest_burst():
            # every request but its last byte sent first, then the last bytes back to back from one thread: the
            # requests reach the server within microseconds of each other
            socks, tails = [], []
            for x in xs:
                body = json.dumps({"instances": x.tolist()}).encode()
                head = (f"POST /v1/models/b:predict HTTP/1.1\r\nHost: {su.HOST}\r\nContent-Type: application/json"
                        f"\r\nContent-Length: {len(body)}\r\n\r\n").encode()
                sock = socket.create_connection((su.HOST, s.rest), timeout=30)
                sock.sendall(head + body[:-1])
                socks.append(sock)
                tails.append(body[-1:])
            for sock, tail in zip(socks, tails):
                sock.sendall(tail)
            for i, sock in enumerate(socks):
                resp = http.client.HTTPResponse(sock)
                resp.begin()
                body = json.loads(resp.read())
                sock.close()
                assert resp.status == 200, body
                np.testing.assert_allclose(body["predictions"], su.mlp_reference(xs[i], 1), rtol=1e-5)

        def merged(burst):
            for _ in range(3):
                before = batches()
                burst()
                if batches() - before < n:  # fewer batches than requests: some were merged
                    return True
            return False

        assert batches() == 2  # the warmup's two one-row batches
        assert merged(rest_burst)

        # the same over gRPC: a call counts for batching from its arrival, before its message is read
        ch = s.channel()
        ps = stub(ch, "PredictionService")
        reqs = []
        for x in xs:
            req = protos.PredictRequest()
            req.model_spec.name = "b"
            tensors.to_proto(x, req.inputs["x"])
            reqs.append(req)

        def grpc_burst():
            futures = [ps.Predict.future(r, timeout=30) for r in reqs]  # issued back to back from one thread
            for i, f in enumerate(futures):
                np.testing.assert_allclose(tensors.to_numpy(f.result().outputs["y"]), su.mlp_reference(xs[i], 1),
                                           rtol=1e-5)

        assert merged(grpc_burst)
        # a lone call is answered at once: the calls above left no count behind (a batch would wait its 0.5 s)
        took = []
        for _ in range(3):
            t0 = time.monotonic()
            ps.Predict(reqs[0], timeout=30)
            took.append(time.monotonic() - t0)
        assert min(took) < 0.25, took
        ch.close()

        status, body = s.post("/v1/models/b:predict", {"instances": np.zeros((9, 4)).tolist()})
        assert status == 400 and "Task size 9 is larger than maximum input batch size 8" in body["error"]

        # the polled config file: a model added to it is served
        su.save_mlp(str(tmp_path / "c" / "4"), seed=3)
        su.write_config(cfg, [("b", str(tmp_path / "b"), "", {}), ("w", str(tmp_path / "w"), "", {}),
                              ("c", str(tmp_path / "c"), "", {})])
        _wait(lambda: s.post("/v1/models/c:predict", {"instances": X.tolist()})[0] == 200, what="c served")

        # SIGTERM while requests wait in a batch: they are answered, then the server exits cleanly
        late = [None] * 3

        def slow(i):
            late[i] = s.post("/v1/models/b:predict", {"instances": X.tolist()})

        threads = [threading.Thread(target=slow, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        time.sleep(0.1)
        rc = s.stop()
        for t in threads:
            t.join()
        assert rc == 0, s.log()
        assert all(r is not None and r[0] == 200 for r in late), late
    finally:
        s.stop()
