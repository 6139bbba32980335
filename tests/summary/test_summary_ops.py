"""tf.summary.*: events read back with TensorBoard's own loader and compared with events written by TF 2.21."""

import base64
import glob
import io
import json
import os
import re
import socket
import threading

import numpy as np
import pytest

import tensorlet as tf

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "ckpt", "summaries.json")))


def load_events(logdir):
    from tensorboard.backend.event_processing import event_file_loader

    files = sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*")))
    return [e for f in files for e in event_file_loader.EventFileLoader(f).Load()]


def values(logdir):
    from tensorboard.util import tensor_util

    out = []
    for e in load_events(logdir):
        for v in e.summary.value:
            out.append((e.step, v.tag, v.metadata, tensor_util.make_ndarray(v.tensor)))
    return out


def write_like_golden(logdir):
    """The same calls as tools/record_tf_goldens/checkpoints.py::record_summaries."""
    w = tf.summary.create_file_writer(logdir)
    with w.as_default(step=3):
        tf.summary.scalar("loss", 0.5)
        tf.summary.scalar("loss_int", 2)
        tf.summary.scalar("described", 1.25, step=4, description="a description")
        with tf.name_scope("scope"):
            tf.summary.scalar("inner", 7.0)
        tf.summary.histogram("h", [1.0, 2.0, 2.0, 5.0])
        tf.summary.histogram("h_empty", tf.zeros([0]))
        tf.summary.histogram("h_const", [3.0, 3.0])
        tf.summary.histogram("h_b3", [1.0, 2.0, 2.0, 5.0], buckets=3)
        tf.summary.histogram("h_normal", np.random.RandomState(0).randn(1000).astype(np.float32))
        tf.summary.histogram("h_int", np.arange(10), buckets=4)
        rgb = np.linspace(0, 1, 2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
        tf.summary.image("img", rgb, max_outputs=3)
        tf.summary.image("img_u8", np.arange(2 * 2 * 3, dtype=np.uint8).reshape(1, 2, 3, 2) * 20, max_outputs=1)
        tf.summary.image("img_gray", rgb[:, :, :, :1], max_outputs=1)
        tf.summary.text("t", "hello")
        tf.summary.text("t2", [["a", "b"], ["c", "d"]])
        clip = np.array([[[0.5], [-0.5], [1.0], [-1.0], [3 / 65536], [-3 / 65536], [0.3], [1.7]]], np.float32)
        tf.summary.audio("a", clip, 8000)
        tf.summary.audio("a_stereo", np.stack([clip[0], -clip[0]], axis=-1)[None, :, :, 0], 16000)
        tf.summary.write("raw", tf.constant([1, 2, 3]), metadata=b"")
    w.close()


def png_pixels(data):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)))


def test_events_match_tf(tmp_path):
    write_like_golden(str(tmp_path))
    got = values(str(tmp_path))
    assert [(s, t) for s, t, _, _ in got] == [(e["step"], e["tag"]) for e in GOLDEN["events"]]
    for (_, tag, md, arr), ref in zip(got, GOLDEN["events"]):
        # metadata byte-for-byte as TF writes it (plugin name, content, description)
        assert md.SerializeToString() == base64.b64decode(ref["metadata"]), tag
        t = ref["tensor"]
        assert list(arr.shape) == t["shape"], tag
        if t["dtype"] == "string":
            want = [base64.b64decode(s) for s in t["strings"]]
            have = list(arr.reshape(-1))
            if ref["plugin_name"] == "images":
                assert have[:2] == want[:2]  # width, height
                for a, b in zip(have[2:], want[2:]):  # PNG encoders differ; the pixels must not
                    np.testing.assert_array_equal(png_pixels(a), png_pixels(b))
                assert len(have) == len(want)
            else:
                assert have == want, tag  # text, and WAV bytes exactly
        else:
            assert arr.dtype.name == t["dtype"], tag
            np.testing.assert_array_equal(arr.reshape(-1), np.array(t["values"], dtype=arr.dtype), err_msg=tag)


def test_file_name_and_first_event(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path / "a" / "b"))
    w.close()
    (name,) = os.listdir(tmp_path / "a" / "b")
    pattern = rf"events\.out\.tfevents\.\d{{10}}\.{re.escape(socket.gethostname())}\.{os.getpid()}\.\d+\.v2"
    assert re.fullmatch(pattern, name)
    (first,) = load_events(str(tmp_path / "a" / "b"))
    assert first.file_version == "brain.Event:2"
    w2 = tf.summary.create_file_writer(str(tmp_path / "c"), filename_suffix=".xx")
    w2.close()
    assert os.listdir(tmp_path / "c")[0].endswith(".xx")
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.[^.]+\.\d+\.\d+\.v2", GOLDEN["file_names"][0])  # TF's


def test_event_accumulator_reads_scalars(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator

    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for step in range(5):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tf.summary.histogram("w", np.arange(100.0), step=2)
    w.flush()
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    assert sorted(acc.Tags()["tensors"]) == ["loss", "w"]
    from tensorboard.util import tensor_util

    events = acc.Tensors("loss")
    assert [e.step for e in events] == list(range(5))
    np.testing.assert_allclose([tensor_util.make_ndarray(e.tensor_proto) for e in events],
                               [1.0 / (s + 1) for s in range(5)], rtol=1e-7)
    assert acc.SummaryMetadata("w").plugin_data.plugin_name == "histograms"
    w.close()


def test_return_values_and_record_if(tmp_path):
    assert not bool(tf.summary.scalar("x", 1.0, step=1))  # no default writer
    assert not bool(tf.summary.should_record_summaries())
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=1):
        assert bool(tf.summary.should_record_summaries())
        assert bool(tf.summary.scalar("x", 1.0))
        with tf.summary.record_if(False):
            assert not bool(tf.summary.should_record_summaries())
            assert not bool(tf.summary.scalar("skipped", 1.0))
        flag = {"on": False}
        with tf.summary.record_if(lambda: flag["on"]):
            assert not bool(tf.summary.scalar("lazy", 1.0))
            flag["on"] = True
            assert bool(tf.summary.scalar("lazy", 2.0))
        with tf.summary.record_if(tf.constant(True)):
            assert bool(tf.summary.text("tt", "x"))
    with tf.summary.create_noop_writer().as_default():
        assert not bool(tf.summary.should_record_summaries())
        assert not bool(tf.summary.scalar("noop", 1.0, step=1))
    w.close()
    tags = [t for _, t, _, _ in values(str(tmp_path))]
    assert tags == ["x", "lazy", "tt"]


def test_steps(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(5, dtype=tf.int64)
    tf.summary.experimental.set_step(None)
    with w.as_default():
        with pytest.raises(ValueError, match=r"No step set\. Please specify one either through the `step` "
                                             r"argument or through tf\.summary\.experimental\.set_step\(\)"):
            tf.summary.scalar("x", 1.0)
        tf.summary.experimental.set_step(step)
        assert tf.summary.experimental.get_step() is step
        tf.summary.scalar("a", 1.0)
        step.assign_add(2)  # the variable is read at write time
        tf.summary.scalar("a", 2.0)
        tf.summary.scalar("b", 3.0, step=np.int64(11))
    with w.as_default(step=20):
        tf.summary.scalar("c", 1.0)
    assert tf.summary.experimental.get_step() is step  # as_default(step=) restores the outer step
    tf.summary.experimental.set_step(None)
    w.close()
    assert [(s, t) for s, t, _, _ in values(str(tmp_path))] == [(5, "a"), (7, "a"), (11, "b"), (20, "c")]


def test_errors(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=0):
        with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(2,\)\.$"):
            tf.summary.scalar("v", [1.0, 2.0])
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 4\.  Received rank 3, shape \(2, 2, 3\)$"):
            tf.summary.image("im", np.zeros((2, 2, 3)))
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 3\.  Received rank 2, shape \(2, 3\)$"):
            tf.summary.audio("au", np.zeros((2, 3)), 8000)
        with pytest.raises(ValueError, match=r"^Unknown encoding: 'mp3'$"):
            tf.summary.audio("au", np.zeros((2, 3, 1)), 8000, encoding="mp3")
    w.close()
    with pytest.raises(RuntimeError, match="is already closed"):
        w.as_default()
    with pytest.raises(ValueError, match="not tf.Graph"):
        tf.summary.graph(42)


def test_queue_and_flush(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=3, flush_millis=10 ** 9)
    with w.as_default(step=0):
        for i in range(3):
            tf.summary.scalar("q", float(i))
    assert len(values(str(tmp_path))) == 3  # leaving as_default flushes
    w.set_as_default(step=1)
    for i in range(3):
        tf.summary.scalar("r", float(i))
    assert len(values(str(tmp_path))) == 3  # queued, not yet on disk
    tf.summary.scalar("r", 3.0)  # the queue overflows: everything is written
    assert len(values(str(tmp_path))) == 7
    tf.summary.scalar("r", 4.0)
    tf.summary.flush()
    assert len(values(str(tmp_path))) == 8
    w.close()
    with tf.summary.create_noop_writer().as_default():  # leave no default file writer behind
        pass


def test_default_writer_is_per_thread(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    seen = {}
    with w.as_default(step=1):
        t = threading.Thread(target=lambda: seen.setdefault("rec", bool(tf.summary.should_record_summaries())))
        t.start()
        t.join()
        assert bool(tf.summary.should_record_summaries())
    assert seen["rec"] is False
    w.close()


def test_summary_scope_and_graph(tmp_path):
    with tf.summary.experimental.summary_scope("ss", "default") as (tag, scope):
        assert (tag, scope) == ("ss", "ss/")
    with tf.name_scope("outer"):
        with tf.summary.experimental.summary_scope("a b") as (tag, scope):
            assert (tag, scope) == ("outer/a b", "outer/ab/")
    from tensorboard.compat.proto import graph_pb2

    gd = graph_pb2.GraphDef()
    gd.node.add(name="x", op="Placeholder")
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        assert bool(tf.summary.graph(gd))
    w.close()
    graphs = [e.graph_def for e in load_events(str(tmp_path)) if e.graph_def]
    assert len(graphs) == 1 and graph_pb2.GraphDef.FromString(graphs[0]).node[0].name == "x"


def test_trace_export(tmp_path):
    from tensorboard.compat.proto import config_pb2, graph_pb2

    from tensorlet._src.summary import summary_ops

    gd = graph_pb2.GraphDef()
    gd.node.add(name="add", op="AddV2")
    assert not summary_ops.is_tracing_graphs()
    summary_ops.record_function_graph(gd)  # ignored: tracing is off
    tf.summary.trace_on(graph=True)
    assert summary_ops.is_tracing_graphs()
    summary_ops.record_function_graph(gd)
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.trace_export("trace", step=4)
    assert not summary_ops.is_tracing_graphs()
    w.close()
    ((step, tag, md, arr),) = values(str(tmp_path))
    assert (step, tag, md.plugin_data.plugin_name, md.plugin_data.content) == (4, "trace", "graph_run_metadata_graph",
                                                                                b"1")
    # TensorBoard's loader migrates this plugin's tensor to a blob sequence (shape [1]): it recognised it
    meta = config_pb2.RunMetadata.FromString(arr.reshape(-1)[0])
    assert [g.pre_optimization_graph.node[0].op for g in meta.function_graphs] == ["AddV2"]


def test_histogram_edge_cases():
    from tensorlet._src.summary.summary_ops import histogram_buckets

    np.testing.assert_array_equal(histogram_buckets([1.0, 2.0], 0), np.zeros((0, 3)))
    np.testing.assert_array_equal(histogram_buckets([], 5), np.zeros((5, 3)))
    h = histogram_buckets(np.arange(10.0), 5)
    np.testing.assert_array_equal(h[:, 2], [2, 2, 2, 2, 2])
    assert h[0, 0] == 0.0 and h[-1, 1] == 9.0
    np.testing.assert_array_equal(h[1:, 0], h[:-1, 1])


@pytest.mark.parametrize("jit", [None, True])
def test_inside_tf_function_writes_on_every_call(tmp_path, jit):
    w = tf.summary.create_file_writer(str(tmp_path))
    counter = tf.Variable(0.0)

    @tf.function(jit_compile=jit)
    def step(x, i):
        counter.assign_add(x)
        with tf.name_scope("train"):
            tf.summary.scalar("inside", counter, step=i)
        return x * 2

    with w.as_default():
        for i in range(3):
            assert float(step(tf.constant(1.5), tf.constant(i, tf.int64))) == 3.0
    assert step.experimental_get_tracing_count() == 1
    w.close()
    got = [(step_, tag, float(v)) for step_, tag, _, v in values(str(tmp_path))]
    assert got == [(0, "train/inside", 1.5), (1, "train/inside", 3.0), (2, "train/inside", 4.5)]
