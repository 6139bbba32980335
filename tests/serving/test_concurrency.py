"""Concurrent REST + gRPC load on one batched model across its NumPy -> XLA switch: every answer is right and
the server stays up.

The batching config has no ``allowed_batch_sizes``, so every batch size the load produces (1..16 rows) is a new
input shape: its first calls run on the NumPy executor, its XLA compile runs on the background worker while the
batch threads and REST's inline path keep calling, and later calls switch to the executable; all of that happens
under the load (``precompile`` only covers size 1).
"""

import http.client
import json
import threading

import numpy as np
import pytest

import serving_util as su
from tensorlet._src.serving import protos, tensors
from tensorlet._src.serving.grpc_api import stub

SEED = 3
CLIENTS = 8  # half REST, half gRPC
REQUESTS = 30  # per client


def _rest_client(port, rng, results):
    conn = http.client.HTTPConnection(su.HOST, port, timeout=60)
    try:
        for _ in range(REQUESTS):
            x = rng.normal(size=(int(rng.integers(1, 5)), 4)).astype(np.float32)
            conn.request("POST", "/v1/models/m:predict", json.dumps({"instances": x.tolist()}),
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            body = r.read()
            results.append((x, r.status, np.asarray(json.loads(body)["predictions"], np.float32)
                            if r.status == 200 else body[:300]))
    finally:
        conn.close()


def _grpc_client(port, rng, results):
    import grpc

    with grpc.insecure_channel(f"{su.HOST}:{port}") as ch:
        ps = stub(ch, "PredictionService")
        for _ in range(REQUESTS):
            x = rng.normal(size=(int(rng.integers(1, 5)), 4)).astype(np.float32)
            req = protos.PredictRequest()
            req.model_spec.name = "m"
            tensors.to_proto(x, req.inputs["x"])
            try:
                got = tensors.to_numpy(ps.Predict(req, timeout=60).outputs["y"])
                results.append((x, 200, got))
            except grpc.RpcError as e:
                results.append((x, e.code(), e.details()))


@pytest.mark.slow
def test_mixed_rest_grpc_batched_load_across_the_xla_switch(tmp_path):
    su.save_mlp(str(tmp_path / "m" / "1"), seed=SEED)
    su.write_config(str(tmp_path / "models.config"), [("m", str(tmp_path / "m"), "", {})])
    (tmp_path / "batching.config").write_text(
        "max_batch_size { value: 16 }\nbatch_timeout_micros { value: 2000 }\nmax_enqueued_batches { value: 1000 }\n"
        "num_batch_threads { value: 3 }\n")
    s = su.Server(f"--model_config_file={tmp_path / 'models.config'}", "--enable_batching",
                  f"--batching_parameters_file={tmp_path / 'batching.config'}", wait_for=("m",), cwd=str(tmp_path))
    try:
        results, threads = [], []
        for i in range(CLIENTS):
            target, port = (_rest_client, s.rest) if i % 2 == 0 else (_grpc_client, s.grpc)
            threads.append(threading.Thread(target=target, args=(port, np.random.default_rng(i), results)))
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert s.proc.poll() is None, f"the server died ({s.proc.returncode}):\n{s.log()}"
        assert len(results) == CLIENTS * REQUESTS, s.log()
        for x, status, got in results:
            assert status == 200, (status, got)
            np.testing.assert_allclose(got, su.mlp_reference(x, SEED), rtol=1e-4, atol=1e-5)
        # still serving afterwards, on the compiled path for a shape seen many times
        x = np.ones((2, 4), np.float32)
        status, body = s.post("/v1/models/m:predict", {"instances": x.tolist()})
        assert status == 200
        np.testing.assert_allclose(body["predictions"], su.mlp_reference(x, SEED), rtol=1e-4, atol=1e-5)
    finally:
        rc = s.stop()
    assert rc == 0, s.log()
    assert "Fatal Python error" not in s.log()


def test_fatal_signal_dumps_every_threads_python_stack(tmp_path):
    """``tensorlet serve`` enables faulthandler: a native crash leaves each thread's Python stack in its stderr."""
    import signal

    su.save_mlp(str(tmp_path / "m" / "1"), seed=SEED)
    s = su.Server("--model_name=m", f"--model_base_path={tmp_path / 'm'}", wait_for=("m",), cwd=str(tmp_path))
    try:
        s.proc.send_signal(signal.SIGSEGV)
        s.proc.wait(30)
    finally:
        s.stop()
    log = s.log()
    assert s.proc.returncode == -signal.SIGSEGV, log
    assert "Fatal Python error: Segmentation fault" in log, log
    assert log.count("(most recent call first)") >= 2, log  # all threads, not only the one that crashed
