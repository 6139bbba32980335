"""Serving speed: ``tensorlet serve`` under a bounded load generator on loopback, against a peer.

Models (same weights everywhere): ``mlp`` (784-128-10 Dense, relu) and the seed's MNIST ``cnn`` (Conv2D(16, 3,
relu), Conv2D(16, 3, relu), GlobalAveragePooling2D, Dense(10)); each request is one 28x28x1 image.
For 1, 8 and 64 concurrent clients (threads in this process, each with its own keep-alive connection or gRPC
channel, connected and warmed by one untimed request, then a fixed number of timed requests each, all starting
together): throughput and p50/p99 latency of REST and gRPC, with and without
``--enable_batching``; the peer is a minimal Python HTTP server (``ThreadingHTTPServer``) wrapping real TF's
call of the same model (run with TensorFlow's Python when there is one). Also the bare compiled call of each
model in-process, and at 1 client two views of the server's own cost: the time the server reports for each
request (``--server_timing``: from the app receiving the request to its response being handed to the transport)
less the bare call, and the end-to-end latency less that of a null HTTP server (a raw asyncio protocol answering
the same bytes at once: the client's and loopback's share) less the bare call.

Targets (issue "tensorlet serve"): >= 3x the peer's throughput at 64 clients with batching; p99 <= the peer's
at every concurrency; overhead over the bare call <= 0.3 ms per request at 1 client.

    python benchmarks/bench_serving.py                        # peer with /work/tfvenv/bin/python if present
    options: --requests N (per client and round at 1 client; fewer per client at 8/64)  --rounds R
             --tf-python PATH  --only mlp,cnn  --clients 1,8,64  --json out.json  --no-peer
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
HOST = "127.0.0.1"
DEFAULT_TF_PYTHON = "/work/tfvenv/bin/python"


def weights(kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "mlp":
        return {"w1": rng.normal(0, 0.05, (784, 128)).astype("float32"), "b1": np.zeros(128, "float32"),
                "w2": rng.normal(0, 0.1, (128, 10)).astype("float32"), "b2": np.zeros(10, "float32")}
    return {"k1": rng.normal(0, 0.2, (3, 3, 1, 16)).astype("float32"), "c1": np.zeros(16, "float32"),
            "k2": rng.normal(0, 0.1, (3, 3, 16, 16)).astype("float32"), "c2": np.zeros(16, "float32"),
            "w": rng.normal(0, 0.2, (16, 10)).astype("float32"), "b": np.zeros(10, "float32")}


# the model code, shared by tensorlet and the TF peer (``tf`` is whichever framework runs it)
MODEL_SRC = '''
def build(tf, kind, w):
    v = {k: tf.Variable(a) for k, a in w.items()}

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 28, 28, 1], tf.float32, name="images")])
        def serve(self, images):
            if kind == "mlp":
                h = tf.nn.relu(tf.matmul(tf.reshape(images, [-1, 784]), v["w1"]) + v["b1"])
                return {"logits": tf.matmul(h, v["w2"]) + v["b2"]}
            h = tf.nn.relu(tf.nn.conv2d(images, v["k1"], 1, "VALID") + v["c1"])
            h = tf.nn.relu(tf.nn.conv2d(h, v["k2"], 1, "VALID") + v["c2"])
            return {"logits": tf.matmul(tf.reduce_mean(h, axis=[1, 2]), v["w"]) + v["b"]}

    m = M()
    m.v = v
    return m
'''

PEER_SRC = MODEL_SRC + '''
import json, sys, time, numpy as np, tensorflow as tf
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
port, files = int(sys.argv[1]), sys.argv[2:]
models = {}
for f in files:
    kind = f.rsplit("/", 1)[1].split(".")[0]
    models[kind] = build(tf, kind, dict(np.load(f)))
    models[kind].serve(tf.zeros([1, 28, 28, 1]))

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    def log_message(self, *a):
        pass
    def do_POST(self):
        t0 = time.perf_counter()
        kind = self.path.split("/")[3].split(":")[0]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        x = tf.constant(np.asarray(body["instances"], np.float32))
        t1 = time.perf_counter()
        out = models[kind].serve(x)["logits"].numpy()
        t_call = time.perf_counter() - t1
        data = json.dumps({"predictions": out.tolist()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Server-Timing", "app;dur=%.3f, call;dur=%.3f" % ((time.perf_counter() - t0) * 1e3,
                                                                           t_call * 1e3))
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 1024  # a listen backlog for 64 clients (the default 5 drops connections)
srv = ThreadingHTTPServer(("127.0.0.1", port), H)
print("ready", flush=True)
srv.serve_forever()
'''


NULL_SRC = '''
import asyncio, sys
port, body = int(sys.argv[1]), sys.argv[2].encode()
reply = b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: %d\\r\\n\\r\\n%s" % (len(body), body)

class P(asyncio.Protocol):
    def connection_made(self, t):
        self.t, self.buf = t, b""
    def data_received(self, data):
        self.buf += data
        while True:
            head, sep, rest = self.buf.partition(b"\\r\\n\\r\\n")
            if not sep:
                return
            n = 0
            for line in head.split(b"\\r\\n"):
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            if len(rest) < n:
                return
            self.buf = rest[n:]
            self.t.write(reply)

async def main():
    srv = await asyncio.get_running_loop().create_server(P, "127.0.0.1", port)
    print("ready", flush=True)
    await srv.serve_forever()
asyncio.run(main())
'''


def start_null(root, kind, body):
    port = free_port()
    script = os.path.join(root, f"null_server_{kind}.py")
    with open(script, "w") as f:
        f.write(NULL_SRC)
    proc = subprocess.Popen([sys.executable, script, str(port), body], stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError("null server did not start")
    return proc, port


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def save_models(root, kinds):
    import tensorlet as tf

    ns = {}
    exec(MODEL_SRC, ns)  # noqa: S102 - our own model code, shared with the peer
    paths = {}
    for kind in kinds:
        w = weights(kind)
        np.savez(os.path.join(root, f"{kind}.npz"), **w)
        m = ns["build"](tf, kind, w)
        tf.saved_model.save(m, os.path.join(root, kind, "1"), signatures={"serving_default": m.serve})
        paths[kind] = os.path.join(root, kind)
    return paths


_LOADED = {}


def bare_call_ms(root, kind, n=60, blocks=7):
    """The signature's call on one image in-process (results read back): the best of ``blocks`` timings.  The model
    is loaded once, and its background XLA compile awaited before timing: the bare call is the compiled one, and
    no compile of this process competes with the server's load test that follows."""
    import tensorlet as tf
    from tensorlet._src.saved_model import bg_compile

    f = _LOADED.get(kind)
    if f is None:
        f = _LOADED[kind] = tf.saved_model.load(os.path.join(root, kind, "1")).signatures["serving_default"]
    x = np.random.default_rng(0).random((1, 28, 28, 1), dtype=np.float32)
    for _ in range(5):
        f(images=x)["logits"].numpy()
    bg_compile.WORKER.idle(600)
    best = float("inf")
    for _ in range(blocks):
        t = time.perf_counter()
        for _ in range(n):
            f(images=x)["logits"].numpy()
        best = min(best, (time.perf_counter() - t) / n * 1e3)
    return best


def start_server(root, kinds, batching):
    rest, grpc_port = free_port(), free_port()
    cfg = os.path.join(root, "models.config")
    with open(cfg, "w") as f:
        entries = "".join(f'  config {{ name: "{k}" base_path: "{root}/{k}" model_platform: "tensorflow" }}\n'
                          for k in kinds)
        f.write("model_config_list {\n" + entries + "}\n")
    flags = [f"--model_config_file={cfg}", "--file_system_poll_wait_seconds=0"]
    if batching:
        bp = os.path.join(root, "batching.config")
        with open(bp, "w") as f:
            f.write("max_batch_size { value: 64 }\nbatch_timeout_micros { value: 1000 }\n"
                    "max_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 2 }\n"
                    + "".join(f"allowed_batch_sizes: {b}\n" for b in (1, 2, 4, 8, 16, 32, 64)))
        flags += ["--enable_batching", f"--batching_parameters_file={bp}"]
    cmd = [sys.executable, "-m", "tensorlet", "serve", f"--host={HOST}", f"--port={grpc_port}",
           f"--rest_api_port={rest}", "--server_timing", *flags]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    for kind in kinds:
        _wait_ready(rest, kind, proc)
    return proc, rest, grpc_port


def _wait_ready(port, kind, proc, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=5)
            c.request("GET", f"/v1/models/{kind}")
            r = c.getresponse()
            if r.status == 200 and b"AVAILABLE" in r.read():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("server not ready")


def start_peer(tf_python, root, kinds):
    port = free_port()
    script = os.path.join(root, "peer.py")
    with open(script, "w") as f:
        f.write(PEER_SRC)
    proc = subprocess.Popen([tf_python, script, str(port), *[os.path.join(root, f"{k}.npz") for k in kinds]],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError("peer did not start")
    return proc, port


# --- load generator --------------------------------------------------------------------------------------------
def _server_ms(value):
    """(app, call) durations of a Server-Timing value, in ms (None where absent)."""
    out = {}
    for metric in (value or "").split(","):
        name, _, params = metric.strip().partition(";")
        for part in params.split(";"):
            if part.strip().startswith("dur="):
                out[name] = float(part.strip()[4:])
    return (out["app"], out.get("call")) if "app" in out else None


def _rest_client(port, kind, body, n, lat, errors, server=None, ready=None):
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if ready is not None:  # connected and warm before the timed requests start together
        try:
            conn.request("POST", f"/v1/models/{kind}:predict", body=body, headers=headers)
            conn.getresponse().read()
        except OSError as e:
            errors.append(repr(e))
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
        finally:
            ready.wait()
    for _ in range(n):
        t = time.perf_counter()
        try:
            conn.request("POST", f"/v1/models/{kind}:predict", body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            if r.status != 200:
                errors.append(data[:200])
                continue
            json.loads(data)
            if server is not None:
                server.append(_server_ms(r.getheader("server-timing")))
        except OSError as e:
            errors.append(repr(e))
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
            continue
        lat.append(time.perf_counter() - t)
    conn.close()


def _grpc_client(port, kind, x, n, lat, errors, server=None, ready=None):
    import grpc

    from tensorlet._src.serving import protos, tensors
    from tensorlet._src.serving.grpc_api import stub

    ch = grpc.insecure_channel(f"{HOST}:{port}")
    ps = stub(ch, "PredictionService")
    if ready is not None:  # connected and warm before the timed requests start together
        try:
            req = protos.PredictRequest()
            req.model_spec.name = kind
            tensors.to_proto(x, req.inputs["images"])
            ps.Predict(req, timeout=60)
        except grpc.RpcError as e:
            errors.append(e.details())
        finally:
            ready.wait()
    for _ in range(n):
        t = time.perf_counter()
        req = protos.PredictRequest()
        req.model_spec.name = kind
        tensors.to_proto(x, req.inputs["images"])
        try:
            resp, call = ps.Predict.with_call(req, timeout=60)
            tensors.to_numpy(resp.outputs["logits"])
            if server is not None:
                server.append(_server_ms(dict(call.trailing_metadata() or ()).get("server-timing")))
        except grpc.RpcError as e:
            errors.append(e.details())
            continue
        lat.append(time.perf_counter() - t)
    ch.close()


def request_body(kind):
    x = np.random.default_rng(1).random((1, 28, 28, 1), dtype=np.float32)
    return x, json.dumps({"instances": x.tolist()}).encode()


def run_load(transport, port, kind, clients, per_client):
    """Latencies (s) of ``clients`` concurrent clients, the wall time, errors and the server's own times (ms)."""
    x, body = request_body(kind)
    lats = [[] for _ in range(clients)]
    server = []
    errors = []
    target = _rest_client if transport == "rest" else _grpc_client
    payload = body if transport == "rest" else x
    # a few warm requests (first compiles per batch size) are not timed; each client connects and sends one untimed
    # request before the timed ones start together (the figures are steady-state, not connection setup)
    target(port, kind, payload, 3, [], errors)
    ready = threading.Barrier(clients + 1)
    threads = [threading.Thread(target=target, args=(port, kind, payload, per_client, lats[i], errors,
                                                     server if clients == 1 else None, ready))
               for i in range(clients)]
    for th in threads:
        th.start()
    ready.wait()
    t = time.perf_counter()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    return [v for lst in lats for v in lst], wall, len(errors), [v for v in server if v is not None]


def summarize(lat, wall, errors, server):
    lat = sorted(lat)
    if not lat:
        return {"rps": 0.0, "p50_ms": float("nan"), "p99_ms": float("nan"), "errors": errors}
    out = {"rps": len(lat) / wall, "p50_ms": 1e3 * statistics.median(lat),
           "p99_ms": 1e3 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], "errors": errors}
    if server:
        out["server_p50_ms"] = statistics.median(a for a, _ in server)
        if all(c is not None for _, c in server):  # the server's own time beside the model call's
            out["server_over_call_p50_ms"] = statistics.median(a - c for a, c in server)
            out["call_p50_ms"] = statistics.median(c for _, c in server)
    return out


CONFIGS = ("tensorlet rest plain", "tensorlet grpc plain", "tensorlet rest batching", "tensorlet grpc batching")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=100, help="requests per client and round at 1 client")
    ap.add_argument("--rounds", type=int, default=6, help="interleaved rounds (short ones even out a busy machine)")
    ap.add_argument("--only", default="mlp,cnn")
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--tf-python", default=DEFAULT_TF_PYTHON)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    kinds = args.only.split(",")
    levels = [int(c) for c in args.clients.split(",")]
    per = {c: max(20, args.requests // max(1, c // 4 if c > 1 else 1)) for c in levels}
    root = tempfile.mkdtemp(prefix="bench_serving_")
    load_start = os.getloadavg()
    save_models(root, kinds)
    bare = {k: [] for k in kinds}
    procs = {}
    nulls = {}
    pooled = {}  # (model, config, clients) -> [latencies, wall, errors, server times], over all rounds
    try:
        procs["plain"] = start_server(root, kinds, batching=False)
        procs["batching"] = start_server(root, kinds, batching=True)
        peer = None
        if not args.no_peer and os.path.exists(args.tf_python):
            peer = start_peer(args.tf_python, root, kinds)
        for kind in kinds:
            nulls[kind] = start_null(root, kind, _null_reply(procs["plain"][1], kind))
        for r in range(args.rounds):
            for kind in kinds:
                bare[kind].append(bare_call_ms(root, kind))
                for c in levels:  # interleaved: every configuration at this level, then the next level
                    runs = [(f"tensorlet {t} {b}", t, procs[b][1] if t == "rest" else procs[b][2])
                            for b in ("plain", "batching") for t in ("rest", "grpc")]
                    if peer is not None:
                        runs.append(("peer tf rest", "rest", peer[1]))
                    if c == 1:
                        runs.append(("null rest server", "rest", nulls[kind][1]))
                    for name, transport, port in runs:
                        lat, wall, errors, server = run_load(transport, port, kind, c, per[c])
                        acc = pooled.setdefault((kind, name, c), [[], 0.0, 0, []])
                        acc[0] += lat
                        acc[1] += wall
                        acc[2] += errors
                        acc[3] += server
                        res = summarize(lat, wall, errors, server)
                        print(f"round {r} {kind:4s} {name:26s} clients={c:3d} {res['rps']:8.1f} req/s "
                              f"p50 {res['p50_ms']:7.2f} ms p99 {res['p99_ms']:7.2f} ms errors {res['errors']}",
                              flush=True)
    finally:
        died = {b: p[0].returncode for b, p in procs.items() if p[0].poll() is not None}
        for p in list(procs.values()):
            p[0].terminate()
        for p in [*nulls.values(), *([peer] if locals().get("peer") is not None else [])]:
            p[0].terminate()
        for p in list(procs.values()):
            p[0].wait(60)
    results = {k: summarize(*v) for k, v in pooled.items()}
    bare_ms = {k: statistics.median(v) for k, v in bare.items()}
    load_end = os.getloadavg()
    print(f"\nload average (1, 5, 15 min) at start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}, "
          f"at end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; {os.cpu_count()} CPUs")
    print(f"{args.rounds} interleaved rounds, latencies pooled over them")
    for b, rc in died.items():
        print(f"WARNING: the {b} server exited during the run (rc {rc}); its later figures count errors")
    print("bare compiled call (in-process, 1 row, median of rounds): "
          + ", ".join(f"{k} {v:.3f} ms" for k, v in bare_ms.items()))
    summary = []
    for kind in kinds:
        for c in levels:
            peer_res = results.get((kind, "peer tf rest", c))
            null_res = results.get((kind, "null rest server", c))
            for name in CONFIGS:
                res = results[(kind, name, c)]
                line = f"{kind:4s} c={c:3d} {name:24s} {res['rps']:8.1f} req/s p50 {res['p50_ms']:6.2f} p99 " \
                       f"{res['p99_ms']:6.2f} ms"
                if peer_res:
                    line += f"  | x{res['rps'] / peer_res['rps']:.2f} peer rps, p99 {res['p99_ms']:.2f} vs " \
                            f"{peer_res['p99_ms']:.2f}"
                if c == 1 and "server_p50_ms" in res:
                    srv = res["server_p50_ms"]
                    line += f"  | server {srv:.3f} ms, over bare {srv - bare_ms[kind]:.3f}"
                    if "server_over_call_p50_ms" in res:
                        line += f", over its call ({res['call_p50_ms']:.3f}) {res['server_over_call_p50_ms']:.3f}"
                    if null_res and name.startswith("tensorlet rest"):
                        line += f"; e2e - null server - bare {res['p50_ms'] - null_res['p50_ms'] - bare_ms[kind]:.3f}"
                summary.append(line)
            if peer_res:
                line = f"{kind:4s} c={c:3d} {'peer (TF + http.server)':24s} {peer_res['rps']:8.1f} req/s " \
                       f"p50 {peer_res['p50_ms']:6.2f} p99 {peer_res['p99_ms']:6.2f} ms"
                if "server_p50_ms" in peer_res:
                    line += f"  | server {peer_res['server_p50_ms']:.3f} ms"
                    if "server_over_call_p50_ms" in peer_res:
                        line += f", over its call ({peer_res['call_p50_ms']:.3f}) " \
                                f"{peer_res['server_over_call_p50_ms']:.3f}"
                summary.append(line)
            if null_res:
                summary.append(f"{kind:4s} c={c:3d} {'null server (client cost)':24s} {null_res['rps']:8.1f} req/s "
                               f"p50 {null_res['p50_ms']:6.2f} p99 {null_res['p99_ms']:6.2f} ms")
    print("\n".join(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bare_ms": bare_ms, "load_average": [load_start, load_end],
                       "results": [dict(model=k[0], config=k[1], clients=k[2], **v) for k, v in results.items()]},
                      f, indent=1)
    return 0


def _null_reply(port, kind):
    """The body our server answers for the benchmark's request (the null server answers the same bytes)."""
    _, body = request_body(kind)
    c = http.client.HTTPConnection(HOST, port, timeout=60)
    c.request("POST", f"/v1/models/{kind}:predict", body=body, headers={"Content-Type": "application/json"})
    data = c.getresponse().read()
    c.close()
    return data.decode()


if __name__ == "__main__":
    sys.exit(main())
