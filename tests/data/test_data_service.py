"""tf.data service and issue-15 tf.data.experimental transformations: against real TF
(tests/goldens/data_service.json, cases service_cases.py) and tensorlet's own in-process guarantees."""

import os
import sys
import threading
import time

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from service_cases import CASES, cluster  # noqa: E402

GOLDEN = value_cases.load("data_service.json")
svc = tf.data.experimental.service


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_target_not_served_here_is_unavailable():
    d = svc.DispatchServer()
    target = d.target
    d.stop()
    with pytest.raises(tf.errors.UnavailableError, match=r"localhost:\d+.*one process"):
        tf.data.Dataset.range(3).apply(svc.distribute("parallel_epochs", target))
    ds = None
    with cluster(tf, 1) as (t, _):
        ds = tf.data.Dataset.range(1000).apply(svc.distribute("parallel_epochs", t))
        it = iter(ds)
        next(it)
    with pytest.raises(tf.errors.UnavailableError):  # the dispatcher stopped under a live reader
        for _ in it:
            pass


def test_workers_run_in_threads_and_split_the_source():
    """distributed_epoch: each element exactly once, produced by worker threads (both get work when the map is
    slow enough to overlap)."""
    seen = {}

    def tag(x):
        seen.setdefault(threading.current_thread().name, 0)
        seen[threading.current_thread().name] += 1
        time.sleep(0.002)
        return x

    ds = tf.data.Dataset.range(40).map(lambda x: tf.py_function(tag, [x], tf.int64))
    with cluster(tf, 2) as (t, ws):
        got = sorted(int(x) for x in ds.apply(svc.distribute("distributed_epoch", t)))
        assert svc.DispatchServer is not None and len(ws) == 2
    assert got == list(range(40))
    names = [n for n in seen if n.startswith("tensorlet-data-service-")]
    assert len(names) == 2, seen
    assert sum(seen[n] for n in names) == 40


def test_worker_joining_later_and_stop_join():
    d = svc.DispatchServer()
    ds = tf.data.Dataset.range(5).apply(svc.distribute("parallel_epochs", d.target))
    out = []
    reader = threading.Thread(target=lambda: out.extend(int(x) for x in ds), daemon=True)
    reader.start()  # no worker yet: the reader waits, as TF's does
    time.sleep(0.2)
    assert out == [] and d._num_workers() == 0
    w = svc.WorkerServer(svc.WorkerConfig(d.target.split("://")[1]))
    reader.join(10)
    assert sorted(out) == [0, 1, 2, 3, 4] and d._num_workers() == 1
    joined = threading.Event()
    threading.Thread(target=lambda: (d.join(), joined.set()), daemon=True).start()
    time.sleep(0.1)
    assert not joined.is_set()
    w.stop()
    assert d._num_workers() == 0
    d.stop()
    assert joined.wait(5)


def test_worker_before_dispatcher_registers_when_it_starts():
    port = __import__("service_cases")._free_port()
    w = svc.WorkerServer(svc.WorkerConfig(f"localhost:{port}"))
    d = svc.DispatchServer(svc.DispatcherConfig(port=port))
    try:
        assert d.target == f"grpc://localhost:{port}" and d._num_workers() == 1
        got = sorted(int(x) for x in tf.data.Dataset.range(3).apply(svc.distribute("parallel_epochs", d.target)))
        assert got == [0, 1, 2]
    finally:
        w.stop()
        d.stop()


def test_servers_bind_their_ports():
    d = svc.DispatchServer(start=False)
    assert d.target == "grpc://localhost:0"
    d.start()
    port = int(d.target.rsplit(":", 1)[1])
    with pytest.raises(RuntimeError, match="Could not start gRPC server"):
        svc.DispatchServer(svc.DispatcherConfig(port=port))
    with pytest.raises(RuntimeError, match="credentials factory"):
        svc.DispatchServer(svc.DispatcherConfig(protocol="foo"))
    d.stop()


def test_distributed_file_readers_split_by_file(tmp_path):
    paths = []
    for i in range(4):
        p = str(tmp_path / f"f{i}.txt")
        with open(p, "w") as f:
            f.write("\n".join(f"{i}-{j}" for j in range(3)))
        paths.append(p)
    with cluster(tf, 2, fixed=True) as (t, _):
        ds = tf.data.TextLineDataset(paths)
        for policy in ("distributed_epoch", svc.ShardingPolicy.FILE, svc.ShardingPolicy.FILE_OR_DATA):
            got = sorted(x.numpy().decode() for x in ds.apply(svc.distribute(policy, t)))
            assert got == sorted(f"{i}-{j}" for i in range(4) for j in range(3)), policy


def test_in_tf_function():
    with cluster(tf, 1) as (t, _):
        ds = tf.data.Dataset.range(5).apply(svc.distribute("parallel_epochs", t))

        @tf.function
        def total():
            s = tf.constant(0, tf.int64)
            for x in ds:
                s += x
            return s
        assert int(total()) == 10


def _rates(ds, n):
    classes = np.array([int(c) for c, _ in ds.take(n)])
    return np.bincount(classes, minlength=2) / len(classes)


def test_rejection_resample_reaches_the_target():
    """Statistical check with a fixed seed and loose bounds: a 90/10 source resampled to 50/50 and 20/80."""
    labels = np.array([0] * 900 + [1] * 100, np.int32)
    src = tf.data.Dataset.from_tensor_slices(labels).shuffle(1000, seed=1).repeat()
    known = src.rejection_resample(lambda x: x, [0.5, 0.5], [0.9, 0.1], seed=7)
    assert abs(_rates(known, 2000)[1] - 0.5) < 0.05
    est = src.apply(tf.data.experimental.rejection_resample(lambda x: x, [0.2, 0.8], seed=7))
    assert abs(_rates(est, 2000)[1] - 0.8) < 0.06
    data = [int(x) for _, x in src.rejection_resample(lambda x: x, [0.5, 0.5], [0.9, 0.1], seed=7).take(50)]
    assert set(data) <= {0, 1}  # the element rides along with its class


def test_snapshot_reads_back_without_rerunning(tmp_path):
    calls = []

    def f(x):
        calls.append(1)
        return x
    ds = tf.data.Dataset.range(4).map(lambda x: tf.py_function(f, [x], tf.int64)).snapshot(str(tmp_path))
    assert [int(x) for x in ds] == [0, 1, 2, 3]
    n = len(calls)
    assert [int(x) for x in ds] == [0, 1, 2, 3] and len(calls) == n
    (run_dir,) = os.listdir(tmp_path)
    assert sorted(int(x) for x in tf.data.Dataset.load(str(tmp_path / run_dir))) == [0, 1, 2, 3]
