"""MirroredStrategy over 2 and 4 logical CPU devices: one SPMD program per step, same numbers as one replica."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf

HERE = pathlib.Path(__file__).parent


@pytest.fixture(scope="module")
def results():
    env = dict(os.environ)
    env.pop("TENSORLET_NUM_CPU_DEVICES", None)
    proc = subprocess.run([sys.executable, str(HERE / "mirrored_program.py")], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cpu_split_into_logical_devices(results):
    assert results["logical"] == [f"/device:CPU:{i}" for i in range(4)]


@pytest.mark.parametrize("n", [2, 4])
def test_custom_loop_matches_one_replica(results, n):
    one, many = results["loop1"], results[f"loop{n}"]
    np.testing.assert_allclose(many["w"], one["w"], atol=1e-5)
    np.testing.assert_allclose(many["b"], one["b"], atol=1e-5)
    np.testing.assert_allclose(many["losses"], one["losses"], rtol=1e-5)
    assert many["iterations"] == one["iterations"] == 10
    assert one["losses"][-1] < one["losses"][0] / 5  # it trains


@pytest.mark.parametrize("n", [2])
def test_run_inside_tf_function_matches_one_replica(results, n):
    one, many = results["fn1"], results[f"fn{n}"]
    np.testing.assert_allclose(many["w"], one["w"], atol=1e-5)
    np.testing.assert_allclose(many["losses"], one["losses"], rtol=1e-5)
    assert many["traces"] == [1, 1, 1]


@pytest.mark.parametrize("n", [2, 4])
def test_keras_fit_matches_one_replica(results, n):
    one, many = results["fit1"], results[f"fit{n}"]
    assert many["strategy_ok"]
    for a, b in zip(many["weights"], one["weights"]):
        np.testing.assert_allclose(a, b, atol=1e-5)
    for key in ("loss", "accuracy"):
        np.testing.assert_allclose(many["history"][key], one["history"][key], rtol=1e-5)
    for key in ("loss", "accuracy"):
        np.testing.assert_allclose(many["evaluate"][key], one["evaluate"][key], rtol=1e-5)
    np.testing.assert_allclose(many["predict"], one["predict"], atol=1e-5)


@pytest.mark.parametrize("n", [2])
def test_synchronized_batch_normalization_matches_one_replica(results, n):
    for a, b in zip(results[f"bn{n}"], results["bn1"]):
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_collectives_and_cross_replica_reductions(results):
    # replica values [0.] and [1.]: all-reduce SUM = 1 on both (+ replica id), MEAN = 0.5, gather = [0, 1]
    assert results["sum"] == [[1.0], [2.0]]
    assert results["mean"] == [[0.5], [0.5]]
    assert results["gathered"] == [[0.0, 1.0], [0.0, 1.0]]
    assert results["cross_in_run"] == [False, False]
    assert results["reduce_sum"] == [3.0]
    assert results["reduce_mean_axis0"] == 1.5
    assert results["gather"] == [1.0, 2.0]
    assert results["values_repr"] == ("PerReplica:{\n  0: tf.Tensor([0.], shape=(1,), dtype=float32),\n"
                                      "  1: tf.Tensor([1.], shape=(1,), dtype=float32)\n}")


def test_merge_call_reduces_across_replicas(results):
    # replicas hold 2*[0.] and 2*[1.]: the merged SUM is [2.] and gathered row 1 is 2.
    assert results["merge_call"] == [[4.0], [4.0]]


def test_checkpoint_of_a_mirrored_variable(results):
    assert results["checkpoint"] == [1.0, 2.0]


def test_contexts_follow_tf(results):
    assert results["scope_ctx"] == [True, True]  # cross-replica inside scope(): no replica context
    assert results["outside_ctx"] == [True, False]  # the default replica context outside


def test_mean_aggregated_variable(results):
    assert results["mean_var"] == 5.0  # replicas assign 0 and 10


def test_errors_name_the_problem(results):
    assert "batch of 5" in results["uneven"] and "2 replicas" in results["uneven"]
    assert "/device:CPU:7" in results["missing_device"] and "set_logical_device_configuration" in \
        results["missing_device"]


def test_single_replica_contexts_in_process():
    assert tf.distribute.get_replica_context() is not None
    assert not tf.distribute.in_cross_replica_context()
    s = tf.distribute.MirroredStrategy(["/cpu:0"])
    with s.scope():
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        with pytest.raises(ValueError, match="Mixing different"):
            with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
                pass
    r = s.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    assert r == 0
