"""TF's core surface outside the op modules against real TF (tests/goldens/core_surface.json and
feature_column_dense.json, cases core_surface_cases.py), plus behaviour TF cannot record: threads on queues,
the profiler's files, TestCase used as a test base."""

import glob
import gzip
import json
import os
import sys
import threading

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from core_surface_cases import CASES, FC_FEATURES, fc_columns  # noqa: E402

GOLDEN = value_cases.load("core_surface.json")
DENSE = value_cases.load("feature_column_dense.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_feature_column_dense_values_match_tf():
    from tensorlet._src.feature_column.columns import dense_tensor

    feats = {k: tf.constant(v) for k, v in FC_FEATURES.items()}
    for col in fc_columns(tf):
        key = col.name + ("_normalized" if getattr(col, "normalizer_fn", None) else "")
        np.testing.assert_allclose(dense_tensor(col, feats).numpy(), DENSE[key], err_msg=key)


def test_embedding_column_is_trainable():
    from tensorlet._src.feature_column.columns import dense_tensor

    fc = tf.feature_column
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 5), 3, combiner="sum")
    state = {}
    feats = {"i": tf.constant([[1, 2], [4, -1]])}
    out = dense_tensor(col, feats, state)
    table = state["i_embedding"]
    want = table.numpy()[[1, 4]] + np.stack([table.numpy()[2], np.zeros(3, np.float32)])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dense_tensor(col, feats, state))
    g = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
    np.testing.assert_allclose(g.sum(axis=1), [0, 3, 3, 0, 3])


def test_queue_blocks_across_threads():
    q = tf.queue.FIFOQueue(1, tf.int32, shapes=[[]])
    got = []
    consumer = threading.Thread(target=lambda: got.extend(int(q.dequeue()) for _ in range(3)))
    consumer.start()
    for i in range(3):
        q.enqueue(i)  # capacity 1: each enqueue waits for the consumer
    consumer.join(10)
    assert got == [0, 1, 2] and not consumer.is_alive()


def test_profiler_writes_tensorboard_layout(tmp_path):
    tf.profiler.experimental.start(str(tmp_path))
    with tf.profiler.experimental.Trace("train", step_num=3, _r=1):
        tf.constant(1.0) + 1
    with pytest.raises(tf.errors.AlreadyExistsError, match="Another profiler is running"):
        tf.profiler.experimental.start(str(tmp_path))
    tf.profiler.experimental.stop()
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    runs = glob.glob(os.path.join(str(tmp_path), "plugins", "profile", "*"))
    assert len(runs) == 1
    from tensorlet._src.profiler import xplane

    space = xplane.classes()["XSpace"]()
    space.ParseFromString(open(glob.glob(os.path.join(runs[0], "*.xplane.pb"))[0], "rb").read())
    host = space.planes[0]
    assert host.name == "/host:CPU" and space.planes[1].name == "Task Environment"
    ev = host.lines[0].events[0]
    assert host.event_metadata[ev.metadata_id].name == "train" and ev.duration_ps > 0
    stats = {host.stat_metadata[s.metadata_id].name: s.uint64_value for s in ev.stats}
    assert stats == {"step_num": 3, "_r": 1}
    trace = json.loads(gzip.decompress(open(glob.glob(os.path.join(runs[0], "*.trace.json.gz"))[0], "rb").read()))
    assert [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"] == ["train"]


def test_testcase_runs_as_a_unittest():
    import unittest

    class T(tf.test.TestCase):
        def test_pass(self):
            self.assertAllClose({"a": tf.constant([1.0, 2.0])}, {"a": np.array([1.0, 2.0])})

        def test_fail(self):
            self.assertAllEqual(tf.constant([1, 2]), [1, 3])

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
    result = unittest.TextTestRunner(stream=open(os.devnull, "w")).run(suite)
    assert result.testsRun == 2 and len(result.failures) == 1 and "test_fail" in str(result.failures[0][0])


def test_sysconfig_points_at_the_native_runtime():
    inc = tf.sysconfig.get_include()
    assert os.path.isdir(inc) and os.path.exists(os.path.join(inc, "xla", "ffi", "api", "ffi.h"))
    assert tf.sysconfig.get_compile_flags()[0] == f"-I{inc}" and tf.sysconfig.CXX11_ABI_FLAG == 1
    assert dict(tf.sysconfig.get_build_info())["is_tensorrt_build"] is False
