"""Serving speed: ``tensorlet serve`` under a bounded load generator on loopback, against a peer.

Models (same weights everywhere): ``mlp`` (784-128-10 Dense, relu) and the seed's MNIST ``cnn`` (Conv2D(16, 3,
relu), Conv2D(16, 3, relu), GlobalAveragePooling2D, Dense(10)); each request is one 28x28x1 image.
For 1, 8 and 64 concurrent clients (threads in this process, each with its own keep-alive connection or gRPC
channel, a fixed number of requests each): throughput and p50/p99 latency of REST and gRPC, with and without
``--enable_batching``; the peer is a minimal Python HTTP server (``ThreadingHTTPServer``) wrapping real TF's
call of the same model (run with TensorFlow's Python when there is one). Also the bare compiled call of each
model in-process, to bound the server's overhead at 1 client.

Targets (issue "tensorlet serve"): >= 3x the peer's throughput at 64 clients with batching; p99 <= the peer's
at every concurrency; overhead over the bare call <= 0.3 ms per request at 1 client.

    python benchmarks/bench_serving.py                        # peer with /work/tfvenv/bin/python if present
    options: --requests N (per client at 1 client; fewer per client at 8/64)  --rounds R  --tf-python PATH
             --only mlp,cnn  --json out.json  --no-peer
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
import json, sys, numpy as np, tensorflow as tf
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
        kind = self.path.split("/")[3].split(":")[0]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        x = tf.constant(np.asarray(body["instances"], np.float32))
        out = models[kind].serve(x)["logits"].numpy()
        data = json.dumps({"predictions": out.tolist()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 1024  # a listen backlog for 64 clients (the default 5 drops connections)
srv = ThreadingHTTPServer(("127.0.0.1", port), H)
print("ready", flush=True)
srv.serve_forever()
'''


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


def bare_call_ms(root, kind, n=60, blocks=7):
    """The signature's call on one image in-process (results read back): the best of ``blocks`` timings."""
    import tensorlet as tf

    f = tf.saved_model.load(os.path.join(root, kind, "1")).signatures["serving_default"]
    x = np.random.default_rng(0).random((1, 28, 28, 1), dtype=np.float32)
    for _ in range(5):
        f(images=x)["logits"].numpy()
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
           f"--rest_api_port={rest}", *flags]
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
def _rest_client(port, kind, body, n, lat, errors):
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {"Content-Type": "application/json"}
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
        except OSError as e:
            errors.append(repr(e))
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
            continue
        lat.append(time.perf_counter() - t)
    conn.close()


def _grpc_client(port, kind, x, n, lat, errors):
    import grpc

    from tensorlet._src.serving import protos, tensors
    from tensorlet._src.serving.grpc_api import stub

    ch = grpc.insecure_channel(f"{HOST}:{port}")
    ps = stub(ch, "PredictionService")
    for _ in range(n):
        t = time.perf_counter()
        req = protos.PredictRequest()
        req.model_spec.name = kind
        tensors.to_proto(x, req.inputs["images"])
        try:
            resp = ps.Predict(req, timeout=60)
            tensors.to_numpy(resp.outputs["logits"])
        except grpc.RpcError as e:
            errors.append(e.details())
            continue
        lat.append(time.perf_counter() - t)
    ch.close()


def run_load(transport, port, kind, clients, per_client):
    x = np.random.default_rng(1).random((1, 28, 28, 1), dtype=np.float32)
    body = json.dumps({"instances": x.tolist()}).encode()
    lats = [[] for _ in range(clients)]
    errors = []
    target = _rest_client if transport == "rest" else _grpc_client
    payload = body if transport == "rest" else x
    # a few warm requests (connections, first compiles per batch size) are not timed
    target(port, kind, payload, 3, [], errors)
    threads = [threading.Thread(target=target, args=(port, kind, payload, per_client, lats[i], errors))
               for i in range(clients)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    all_lat = sorted(v for lst in lats for v in lst)
    if not all_lat:
        return {"rps": 0.0, "p50_ms": float("nan"), "p99_ms": float("nan"), "errors": len(errors)}
    return {"rps": len(all_lat) / wall, "p50_ms": 1e3 * statistics.median(all_lat),
            "p99_ms": 1e3 * all_lat[min(len(all_lat) - 1, int(0.99 * len(all_lat)))], "errors": len(errors)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=300, help="requests per client at 1 client")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", default="mlp,cnn")
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--tf-python", default=DEFAULT_TF_PYTHON)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    kinds = args.only.split(",")
    levels = [int(c) for c in args.clients.split(",")]
    per = {c: max(10, args.requests // max(1, c // 4 if c > 1 else 1)) for c in levels}
    root = tempfile.mkdtemp(prefix="bench_serving_")
    save_models(root, kinds)
    bare = {k: bare_call_ms(root, k) for k in kinds}
    procs = {}
    results = {}
    try:
        procs["plain"] = start_server(root, kinds, batching=False)
        procs["batching"] = start_server(root, kinds, batching=True)
        peer = None
        if not args.no_peer and os.path.exists(args.tf_python):
            peer = start_peer(args.tf_python, root, kinds)
        for r in range(args.rounds):
            for kind in kinds:
                for c in levels:  # interleaved: every configuration at this level, then the next level
                    runs = [(f"tensorlet {t} {b}", t, procs[b][1] if t == "rest" else procs[b][2])
                            for b in ("plain", "batching") for t in ("rest", "grpc")]
                    if peer is not None:
                        runs.append(("peer tf rest", "rest", peer[1]))
                    for name, transport, port in runs:
                        res = run_load(transport, port, kind, c, per[c])
                        key = (kind, name, c)
                        best = results.get(key)
                        if best is None or res["rps"] > best["rps"]:
                            results[key] = res
                        print(f"round {r} {kind:4s} {name:26s} clients={c:3d} {res['rps']:8.1f} req/s "
                              f"p50 {res['p50_ms']:7.2f} ms p99 {res['p99_ms']:7.2f} ms errors {res['errors']}",
                              flush=True)
    finally:
        for p in list(procs.values()):
            p[0].terminate()
        if not args.no_peer and "peer" in locals() and peer is not None:
            peer[0].terminate()
        for p in list(procs.values()):
            p[0].wait(60)
    print("\nbare compiled call (in-process, 1 row): " + ", ".join(f"{k} {v:.3f} ms" for k, v in bare.items()))
    summary = []
    for kind in kinds:
        for c in levels:
            peer_res = results.get((kind, "peer tf rest", c))
            for name in ("tensorlet rest plain", "tensorlet grpc plain", "tensorlet rest batching",
                         "tensorlet grpc batching"):
                res = results[(kind, name, c)]
                line = f"{kind:4s} c={c:3d} {name:24s} {res['rps']:8.1f} req/s p50 {res['p50_ms']:6.2f} p99 " \
                       f"{res['p99_ms']:6.2f} ms"
                if peer_res:
                    line += f"  | x{res['rps'] / peer_res['rps']:.2f} peer rps, p99 {res['p99_ms']:.2f} vs " \
                            f"{peer_res['p99_ms']:.2f}"
                if c == 1:
                    line += f"  | overhead over bare call {res['p50_ms'] - bare[kind]:.3f} ms"
                summary.append(line)
            if peer_res:
                summary.append(f"{kind:4s} c={c:3d} {'peer (TF + http.server)':24s} {peer_res['rps']:8.1f} req/s "
                               f"p50 {peer_res['p50_ms']:6.2f} p99 {peer_res['p99_ms']:6.2f} ms")
    print("\n".join(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bare_ms": bare, "results": [dict(model=k[0], config=k[1], clients=k[2], **v)
                                                     for k, v in results.items()]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
