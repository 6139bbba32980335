"""In-process checks of the serving pieces: generated descriptors, JSON tensor rules, batching, deps error."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from tensorlet._src.serving import tensors
from tensorlet._src.serving.batching import Batcher, BatchingOptions
from tensorlet._src.serving.errors import ServingError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_descriptors_are_current():
    pytest.importorskip("grpc_tools")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_serving_protos.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_protos_match_tf_serving_field_numbers():
    from tensorlet._src.serving import protos

    f = protos.PredictRequest.DESCRIPTOR.fields_by_name
    assert (f["model_spec"].number, f["inputs"].number, f["output_filter"].number) == (1, 2, 3)
    assert protos.PredictResponse.DESCRIPTOR.fields_by_name["outputs"].number == 1
    assert protos.ModelSpec.DESCRIPTOR.fields_by_name["version_label"].number == 4
    policy = protos.POOL.FindMessageTypeByName("tensorflow.serving.FileSystemStoragePathSourceConfig."
                                               "ServableVersionPolicy")
    assert [policy.fields_by_name[k].number for k in ("latest", "all", "specific")] == [100, 101, 102]


def test_json_tensor_rules():
    assert tensors.from_json([[1, 2.5]], 1).dtype == np.float32
    with pytest.raises(ServingError, match=r'JSON Value: 1.5 Type: Number is not of expected type: int32'):
        tensors.from_json([1, 1.5], 3)
    with pytest.raises(ServingError, match=r"Type: True is not of expected type: float"):
        tensors.from_json([True], 1)
    with pytest.raises(ServingError, match=r"Encountered list at unexpected size: 1 at level: 1 expected size: 2"):
        tensors.from_json([[1, 2], [3]], 1)
    assert tensors.from_json([{"b64": "aGk="}], 7).tolist() == [b"hi"]
    with pytest.raises(ServingError, match="Unable to base64 decode"):
        tensors.from_json([{"b64": "!!!"}], 7)


def test_float_output_like_tf_serving():
    # shortest form that round-trips, '.0' on whole numbers, full precision when six digits do not round-trip
    out = tensors.json_value(np.array([0.2, 3.0, 1e-05, 1 / 3, float("nan")], np.float32))
    assert out == "[0.2, 3.0, 1e-05, 0.333333343, NaN]"
    assert tensors.json_value(np.array([1 / 3])) == "[0.33333333333333331]"


def test_tensor_proto_rules():
    from tensorlet._src.serving import protos

    t = protos.TensorProto(dtype=1, float_val=[7.0])
    t.tensor_shape.dim.add().size = 3
    assert tensors.to_numpy(t).tolist() == [7.0, 7.0, 7.0]  # one value fills the shape, as in TF
    t = protos.TensorProto(dtype=1, tensor_content=b"\x00" * 5)
    t.tensor_shape.dim.add().size = 2
    with pytest.raises(ServingError, match="does not match shape"):
        tensors.to_numpy(t)


def _doubling(calls):
    def fn(arrays):
        calls.append(arrays["x"].shape[0])
        return {"y": arrays["x"] * 2}

    return fn


def test_batcher_merges_pads_and_splits():
    calls = []
    b = Batcher(_doubling(calls), BatchingOptions(max_batch_size=8, batch_timeout_micros=200000, num_batch_threads=1,
                                                  allowed_batch_sizes=[4, 8]))
    out = [None] * 3

    def one(i):
        out[i] = b.submit({"x": np.full((i + 1, 2), float(i))})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    b.close()
    assert calls == [8]  # 1 + 2 + 3 rows, padded to 8
    for i in range(3):
        np.testing.assert_array_equal(out[i]["y"], np.full((i + 1, 2), 2.0 * i))


def test_batcher_full_queue_and_oversized_task():
    release = threading.Event()

    def slow(arrays):
        release.wait(10)
        return {"y": arrays["x"]}

    b = Batcher(slow, BatchingOptions(max_batch_size=2, batch_timeout_micros=0, num_batch_threads=1,
                                      max_enqueued_batches=1))
    with pytest.raises(ServingError, match="Task size 3 is larger than maximum input batch size 2"):
        b.submit({"x": np.zeros((3, 1))})
    errors, threads = [], []

    def one():
        try:
            b.submit({"x": np.zeros((2, 1))})
        except ServingError as e:
            errors.append(e)

    for _ in range(4):  # one runs, one waits in the queue, the rest find it full
        t = threading.Thread(target=one)
        t.start()
        threads.append(t)
        time.sleep(0.05)
    release.set()
    for t in threads:
        t.join()
    b.close()
    assert errors and all(e.code == 14 and e.http_status == 503 for e in errors)
    assert "queue to which this task was submitted is full" in errors[0].message


def test_missing_extra_is_named(monkeypatch):
    from tensorlet._src.serving.server import require_serving_deps

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    with pytest.raises(ImportError, match=r'needs uvicorn, which come with the serving extra: pip install '
                                          r'"tensorlet\[serving\]"'):
        require_serving_deps()


class _SlowService:
    def rest_predict_route(self, method, path):
        return None  # every request takes the worker-thread path

    def rest(self, method, path, body):
        time.sleep(0.5)
        return 200, "{}", "m", "predict"


def _asgi(app, method, path, chunks, headers=()):
    import asyncio

    sent = []

    async def run():
        msgs = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

        async def receive():
            return msgs.pop(0) if msgs else {"type": "http.disconnect"}

        async def send(msg):
            sent.append(msg)

        await app({"type": "http", "method": method, "path": path, "headers": list(headers)}, receive, send)

    asyncio.run(run())
    if not sent:
        return None, None
    return sent[0]["status"], sent[1]["body"]


def test_rest_timeout_body_limit_and_disconnect():
    from concurrent import futures

    from tensorlet._src.serving.rest import RestApp

    pool = futures.ThreadPoolExecutor(2)
    app = RestApp(_SlowService(), pool, timeout_s=0.05, max_body_bytes=100)
    status, body = _asgi(app, "POST", "/v1/models/m:predict", [b"{}"])
    assert status == 504 and b"error" in body  # DEADLINE_EXCEEDED -> 504, as TF Serving maps it
    status, body = _asgi(app, "POST", "/v1/models/m:predict", [b"x" * 60, b"x" * 60])
    assert status == 413 and b"larger than the limit of 100 bytes" in body
    status, body = _asgi(app, "POST", "/v1/models/m:predict", [b"{}"], [(b"content-length", b"1000")])
    assert status == 413
    assert _asgi(app, "POST", "/v1/models/m:predict", []) == (None, None)  # the client went away: no answer
    status, _ = _asgi(app, "GET", "/nope", [b""])
    assert status == 404
    pool.shutdown()


def test_version_policies():
    from google.protobuf import text_format

    from tensorlet._src.serving import protos
    from tensorlet._src.serving.manager import aspired_versions

    def aspired(policy):
        cfg = text_format.Parse(f'name: "m" base_path: "/x" {policy}', protos.ModelConfig())
        return sorted(aspired_versions(cfg, [1, 2, 5, 9]))

    assert aspired("") == [9]  # TF Serving's default: the latest version
    assert aspired("model_version_policy { latest { num_versions: 2 } }") == [5, 9]
    assert aspired("model_version_policy { all {} }") == [1, 2, 5, 9]
    assert aspired("model_version_policy { specific { versions: 2 versions: 7 } }") == [2]
