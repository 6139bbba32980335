"""In-process checks of the serving speed paths: the numeric JSON reader, a batch closing early when no other
request is on its way (counting gRPC calls whose model is not known yet; a lone request's batch run by its caller),
and the REST predict on the event loop (inline call, worker thread, batcher, timeout)."""

import asyncio
import json
import threading
import time

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.serving import numeric_json, tensors
from tensorlet._src.serving.batching import Arrivals, Batcher, BatchingOptions
from tensorlet._src.serving.errors import ServingError


@pytest.mark.parametrize("shape", [(1,), (3,), (2, 3), (1, 28, 28, 1), (2, 1, 3, 2)])
def test_fast_numeric_body_matches_the_full_parse(shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    for key in ("instances", "inputs"):
        for kw in ({}, {"separators": (",", ":")}, {"indent": 2}):
            body = json.dumps({key: x.tolist()}, **kw).encode()
            got_key, flat, got_shape = numeric_json.fast_numeric_body(body)
            assert (got_key, got_shape) == (key, shape)
            fast = numeric_json.fast_numeric_array(flat, got_shape, 1)
            full = tensors.from_json(json.loads(body)[key], 1)
            assert fast.dtype == full.dtype == np.float32 and fast.shape == full.shape
            np.testing.assert_array_equal(fast, full)
    # integers stay integers for an int signature; a float for an int input is left to the full path's message
    _, flat, shape = numeric_json.fast_numeric_body(b'{"instances": [[1, 2], [3, 4]]}')
    assert numeric_json.fast_numeric_array(flat, shape, 3).dtype == np.int32
    _, flat, shape = numeric_json.fast_numeric_body(b'{"instances": [[1, 2.5]]}')
    assert numeric_json.fast_numeric_array(flat, shape, 3) is None


@pytest.mark.parametrize("body", [
    b'{"instances": [[1], [2, 3]]}', b'{"instances": [[1, 2], [3]]}', b'{"instances": [[1], []]}',
    b'{"instances": [[], [1]]}', b'{"instances": [1,, 2]}', b'{"instances": [1 2]}', b'{"instances": [NaN]}',
    b'{"instances": [+1]}', b'{"instances": [01]}', b'{"instances": [1.]}', b'{"instances": []}',
    b'{"instances": [1, [2]]}', b'{"instances": [[1], 2]}', b'{"instances": [true]}', b'{"instances": ["a"]}',
    b'{"instances": [1], "signature_name": "s"}', b'{"x": [1]}', b'{"instances": 5}', b'[1]', b'{"instances": [1]',
    b'{"instances": [[[1]], [2]]}'])
def test_fast_numeric_body_leaves_the_rest_to_the_full_parse(body):
    assert numeric_json.fast_numeric_body(body) is None


def _recording(calls):
    def fn(arrays):
        calls.append((arrays["x"].shape[0], threading.current_thread().name))
        return {"y": arrays["x"] * 2}

    return fn


def test_batch_closes_when_no_request_is_on_its_way():
    calls = []
    arrivals = Arrivals()
    b = Batcher(_recording(calls), BatchingOptions(max_batch_size=8, batch_timeout_micros=10_000_000,
                                                   num_batch_threads=1), arrivals=arrivals)
    a, other = arrivals.enter(), arrivals.enter()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("a", b.submit({"x": np.ones((1, 2))}, a)))
    start = time.monotonic()
    t.start()
    time.sleep(0.2)
    assert calls == []  # another request is on its way: the batch waits for it (up to the 10 s timeout)
    c = arrivals.enter()
    t2 = threading.Thread(target=lambda: out.setdefault("b", b.submit({"x": np.full((2, 2), 3.0)}, other)))
    t2.start()  # the awaited request joins the batch; c is still on its way
    t2.join(0.2)
    assert t.is_alive() and t2.is_alive() and not calls
    c.leave()  # it ended without a batch: nothing else can join, the batch closes now
    t.join(5)
    t2.join(5)
    b.close()
    assert time.monotonic() - start < 5 and [n for n, _ in calls] == [3]
    np.testing.assert_array_equal(out["a"]["y"], np.full((1, 2), 2.0))
    np.testing.assert_array_equal(out["b"]["y"], np.full((2, 2), 6.0))
    assert arrivals.n == 0


def test_unrouted_requests_hold_the_batch_open():
    """A gRPC call counts in ``Service.unrouted`` from its arrival, before its message says which model it is for:
    an open batch waits for it (and a request does not run its batch alone); a ticket dropped without leaving (a
    call cancelled before its handler ran) stops counting."""
    calls = []
    unrouted = Arrivals()
    arrivals = Arrivals(unrouted)
    b = Batcher(_recording(calls), BatchingOptions(max_batch_size=8, batch_timeout_micros=10_000_000,
                                                   num_batch_threads=1), arrivals=arrivals)
    pending, lost = unrouted.enter(), unrouted.enter()
    out = {}
    first = arrivals.enter()
    t = threading.Thread(target=lambda: out.setdefault("a", b.submit({"x": np.ones((1, 2))}, first)))
    start = time.monotonic()
    t.start()
    time.sleep(0.2)
    assert calls == [] and t.is_alive()  # two calls may be on their way to this model: the batch waits
    mine = arrivals.enter()  # one of them is routed here (counted for the model before it leaves the unrouted count)
    pending.leave()
    t2 = threading.Thread(target=lambda: out.setdefault("b", b.submit({"x": np.full((2, 2), 3.0)}, mine)))
    t2.start()
    t2.join(0.2)
    assert t2.is_alive() and not calls
    del lost  # the other never reaches a handler: nothing else can join, the batch closes now
    t.join(5)
    t2.join(5)
    b.close()
    assert time.monotonic() - start < 5 and [n for n, _ in calls] == [3]
    np.testing.assert_array_equal(out["a"]["y"], np.full((1, 2), 2.0))
    np.testing.assert_array_equal(out["b"]["y"], np.full((2, 2), 6.0))
    assert arrivals.n == 0 and unrouted.n == 0 and arrivals.idle()


def test_unrouted_calls_cannot_arrive_while_every_thread_is_busy():
    calls = []
    unrouted = Arrivals(capacity=2)  # two worker threads carry the unrouted calls
    arrivals = Arrivals(unrouted)
    b = Batcher(_recording(calls), BatchingOptions(max_batch_size=8, batch_timeout_micros=10_000_000,
                                                   num_batch_threads=1), arrivals=arrivals)
    queued = unrouted.enter()  # a call waiting for a thread
    unrouted.started()  # one thread has a request for the model
    first = arrivals.enter()
    t = threading.Thread(target=lambda: b.submit({"x": np.ones((1, 2))}, first))
    t.start()
    time.sleep(0.2)
    assert calls == [] and t.is_alive()  # a thread is free: the queued call may still come
    unrouted.started()  # the other thread takes a request too: the queued call cannot arrive before a batch ends
    t.join(5)
    assert not t.is_alive() and [n for n, _ in calls] == [1]
    unrouted.finished()
    unrouted.finished()
    queued.leave()
    b.close()
    assert unrouted.n == 0 and unrouted.active == 0


def test_lone_request_runs_its_batch_on_the_calling_thread():
    calls = []
    arrivals = Arrivals()
    b = Batcher(_recording(calls), BatchingOptions(max_batch_size=4, batch_timeout_micros=10_000_000,
                                                   num_batch_threads=1, allowed_batch_sizes=[2, 4]),
                arrivals=arrivals)
    out = b.submit({"x": np.ones((1, 3))}, arrivals.enter())
    np.testing.assert_array_equal(out["y"], np.full((1, 3), 2.0))
    assert calls == [(2, threading.current_thread().name)]  # padded to an allowed size, run here at once
    # without an arrival count the batcher keeps TF Serving's rule: a batch waits for its timeout
    b2 = Batcher(_recording(calls), BatchingOptions(max_batch_size=4, batch_timeout_micros=200_000,
                                                    num_batch_threads=1))
    start = time.monotonic()
    b2.submit({"x": np.ones((1, 3))})
    assert time.monotonic() - start >= 0.19 and calls[-1][1].startswith("batch-")
    b.close()
    b2.close()


# --- the REST predict on the event loop, with a real Service over a stand-in manager ------------------------------
class _Fn:
    def __init__(self, fn):
        self.structured_input_signature = ((), {"x": tf.TensorSpec([None, 2], tf.float32, name="x")})
        self.structured_outputs = {"y": tf.TensorSpec([None, 2], tf.float32, name="y")}
        self.fn = fn

    def __call__(self, x):
        return {"y": self.fn(np.asarray(x))}


class _Manager:
    def __init__(self, servable):
        self.servable = servable
        self.models = {"m": object()}

    def acquire(self, name, version=None, label=None):
        return self.servable.acquire()


def _app(fn, timeout_s=5.0):
    from concurrent import futures

    from tensorlet._src.serving.rest import RestApp
    from tensorlet._src.serving.servable import Servable
    from tensorlet._src.serving.service import Service

    class Loaded:
        signatures = {"serving_default": _Fn(fn)}

    servable = Servable("m", 1, "/nowhere", Loaded())
    service = Service(_Manager(servable))
    pool = futures.ThreadPoolExecutor(2, thread_name_prefix="rest")
    return RestApp(service, pool, timeout_s=timeout_s, server_timing=True), servable, service, pool


def _post(app, body):
    sent = []

    async def run():
        msgs = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive():
            return msgs.pop(0) if msgs else {"type": "http.disconnect"}

        async def send(msg):
            sent.append(msg)

        await app({"type": "http", "method": "POST", "path": "/v1/models/m:predict", "headers": []}, receive, send)

    asyncio.run(run())
    headers = dict(sent[0]["headers"])
    return sent[0]["status"], json.loads(sent[1]["body"]), headers.get(b"server-timing", b"").decode()


def test_rest_predict_inline_worker_thread_and_batcher():
    threads = []

    def fn(x):
        threads.append(threading.current_thread().name)
        return x * 2

    app, servable, service, pool = _app(fn)
    sig = servable.signatures["serving_default"]
    body = json.dumps({"instances": [[1.0, 2.0], [3.0, 4.0]]}).encode()
    status, out, timing = _post(app, body)  # the call's cost is not known yet: a worker thread runs it
    assert status == 200 and out == {"predictions": [[2.0, 4.0], [6.0, 8.0]]}
    assert threads[-1].startswith("rest") and sig.cost is not None
    assert timing.startswith("app;dur=") and ", call;dur=" in timing
    sig.cost = 1e-5  # a short call runs on the event loop
    status, out, _ = _post(app, body)
    assert status == 200 and out["predictions"] == [[2.0, 4.0], [6.0, 8.0]]
    assert threads[-1] == threading.current_thread().name  # asyncio.run's loop runs on this thread
    status, out, _ = _post(app, b'{"inputs": [[1, 2]]}')  # columnar, ints for a float input
    assert status == 200 and out == {"outputs": [[2.0, 4.0]]}
    assert not sig.short({"x": np.zeros((1000, 2), np.float32)})  # many more rows than the calls measured
    status, out, _ = _post(app, b'{"instances": [[1, 2, 3]]}')
    assert status == 400 and "The shape of input 'x' is [1,3]" in out["error"]
    status, out, _ = _post(app, b'{"instances": [[1, 2]], "signature_name": "nope"}')
    assert status == 400 and 'Serving signature name: "nope" not found' in out["error"]

    # with a batcher: a lone request's batch runs at once (on the loop), and through the batch thread otherwise
    batcher = Batcher(sig.call, BatchingOptions(max_batch_size=4, batch_timeout_micros=10_000_000,
                                                num_batch_threads=1), arrivals=service.arrivals("m"))
    servable.batchers[sig.name] = batcher
    start = time.monotonic()
    status, out, _ = _post(app, body)
    assert status == 200 and out["predictions"] == [[2.0, 4.0], [6.0, 8.0]] and time.monotonic() - start < 5
    sig.cost = None
    status, out, _ = _post(app, body)
    assert status == 200 and threads[-1].startswith("batch-")
    with pytest.raises(ServingError):
        batcher.submit({"x": np.zeros((5, 2), np.float32)})  # larger than max_batch_size
    batcher.close()
    assert servable.wait_idle(1) and service.arrivals("m").n == 0
    pool.shutdown()


def test_rest_predict_timeout_keeps_the_servable_until_the_call_ends():
    release = threading.Event()

    def slow(x):
        release.wait(5)
        return x

    app, servable, service, pool = _app(slow, timeout_s=0.05)
    status, out, _ = _post(app, b'{"instances": [[1, 2]]}')
    assert status == 504 and out["error"] == "Deadline Exceeded"
    assert not servable.wait_idle(0.1)  # the call still runs: the version cannot be unloaded under it
    release.set()
    assert servable.wait_idle(5) and service.arrivals("m").n == 0
    pool.shutdown()
