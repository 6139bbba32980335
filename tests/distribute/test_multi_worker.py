"""MultiWorkerMirroredStrategy: two worker processes on loopback (TF_CONFIG) train as one replica would."""

import json
import os
import pathlib
import socket
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf

HERE = pathlib.Path(__file__).parent


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_cluster(program, *args):
    ports = [_free_port(), _free_port()]
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    for i in range(2):
        env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
        env.pop("TENSORLET_NUM_CPU_DEVICES", None)
        procs.append(subprocess.Popen([sys.executable, str(HERE / program), *args], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    return procs


@pytest.fixture(scope="module")
def workers():
    procs = _start_cluster("multi_worker_program.py")
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, err[-3000:]
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return outs


@pytest.mark.slow
def test_two_workers_match_one_replica(workers):
    a, b = workers
    assert a["replicas"] == b["replicas"] == 2
    assert a["task"] == ["worker", 0] and b["task"] == ["worker", 1]
    assert a["chief"] and not b["chief"]
    np.testing.assert_allclose(a["w"], b["w"], atol=0)  # the same replicated value on both workers
    assert a["losses"] == b["losses"]  # reduce is global: both workers see the sum over all replicas
    # the single-replica reference: the same loop, one device, in this process
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y = (x @ np.arange(5.0) + 1).astype(np.float32)[:, None]
    w = tf.Variable(np.ones((5, 1), np.float32))
    bias = tf.Variable(np.zeros((1,), np.float32))
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    losses = []
    for i in range(10):
        j = (i % 4) * 16
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.reduce_sum((tf.matmul(x[j:j + 16], w) + bias - y[j:j + 16]) ** 2, axis=1))
        opt.apply_gradients(zip(tape.gradient(loss, [w, bias]), [w, bias]))
        losses.append(float(loss))
    np.testing.assert_allclose(a["w"], w.numpy().ravel(), atol=1e-5)
    np.testing.assert_allclose(a["b"], bias.numpy(), atol=1e-5)
    np.testing.assert_allclose(a["losses"], losses, rtol=1e-5)


def test_tf_config_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"chief": ["localhost:2000"],
                                                            "worker": ["localhost:2001", "localhost:2002"]},
                                                "task": {"type": "worker", "index": 1}}))
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 1, None)
    assert r.master() == "localhost:2002"
    assert repr(r.cluster_spec()) == ("ClusterSpec({'chief': ['localhost:2000'], 'worker': ['localhost:2001', "
                                      "'localhost:2002']})")
    cs = tf.train.ClusterSpec({"worker": ["a:1", "b:2"]})
    assert (cs.jobs, cs.num_tasks("worker"), cs.task_address("worker", 1), cs.task_indices("worker")) == \
        (["worker"], 2, "b:2", [0, 1])
    s = tf.distribute.cluster_resolver.SimpleClusterResolver(cs, task_type="worker", task_id=0)
    assert (s.task_type, s.task_id, s.master()) == ("worker", 0, "")


def test_single_task_cluster_is_local(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    s = tf.distribute.MultiWorkerMirroredStrategy()
    assert s.num_replicas_in_sync == 1


def test_tpu_and_parameter_server_errors_as_tf():
    with pytest.raises(ValueError, match="Please provide a TPU Name"):
        tf.distribute.cluster_resolver.TPUClusterResolver()
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
    with pytest.raises(tf.errors.NotFoundError, match="TPUs not found"):
        tf.tpu.experimental.initialize_tpu_system(resolver)
    with pytest.raises(tf.errors.UnimplementedError, match="MultiWorkerMirroredStrategy"):
        tf.distribute.experimental.ParameterServerStrategy()


@pytest.mark.slow
def test_two_workers_keras_fit_matches_one_replica(workers):
    a, b = workers
    rng = np.random.default_rng(1)
    kx = rng.normal(size=(96, 12)).astype(np.float32)
    ky = rng.integers(0, 3, size=(96,)).astype(np.int32)
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    hist = model.fit(kx, ky, batch_size=16, epochs=2, shuffle=False, verbose=0)
    ev = model.evaluate(kx, ky, batch_size=32, verbose=0, return_dict=True)
    pred = model.predict(kx[:32], batch_size=16, verbose=0).ravel()
    for worker in (a, b):
        fit = worker["fit"]
        for got, want in zip(fit["weights"], model.weights):
            np.testing.assert_allclose(got, want.numpy().ravel(), atol=1e-5)
        for key in ("loss", "accuracy"):
            np.testing.assert_allclose(fit["history"][key], hist.history[key], rtol=1e-5)
            np.testing.assert_allclose(fit["evaluate"][key], ev[key], rtol=1e-5)
        np.testing.assert_allclose(fit["predict"], pred, atol=1e-5)


def _finish(procs, timeout=180):
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            outs.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return outs


@pytest.mark.slow
def test_a_dead_worker_fails_the_chief_and_backup_and_restore_resumes(tmp_path):
    backup = str(tmp_path / "backup")
    (rc0, out0, err0), _ = _finish(_start_cluster("backup_program.py", backup, "die"))
    assert rc0 == 3, err0[-2000:]
    failure = json.loads(out0.strip().splitlines()[-1])
    assert "a worker has probably died" in failure["error"]
    assert failure["seconds"] < 30  # a clear error within a bounded time, not a hang
    assert os.path.exists(os.path.join(backup, "training_metadata.json"))  # the chief's backup of epoch 2
    assert json.load(open(os.path.join(backup, "training_metadata.json")))["epoch"] == 2
    resumed = _finish(_start_cluster("backup_program.py", backup, "resume"))
    for rc, _, err in resumed:
        assert rc == 0, err[-2000:]
    weights = [json.loads(out.strip().splitlines()[-1])["weights"] for _, out, _ in resumed]
    # the uninterrupted run on one replica
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 6)).astype(np.float32)
    y = rng.normal(size=(64, 1)).astype(np.float32)
    tf.keras.utils.set_random_seed(11)
    model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    model.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0)
    for w in weights:
        for got, want in zip(w, model.weights):
            np.testing.assert_allclose(got, want.numpy().ravel(), atol=1e-5)
    assert not os.path.exists(backup)  # the chief deletes the backup when training completes
