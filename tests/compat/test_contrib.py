"""tf.contrib.eager (function gradients, eager metrics) and tf.contrib.summary (real TensorBoard events)."""

import glob
import math

import pytest

import tensorlet as tf

tfe = tf.compat.v1.contrib.eager
summary = tf.compat.v1.contrib.summary


def test_gradients_function_orders_and_none():
    def square(x):
        return tf.multiply(x, x)

    grad = tfe.gradients_function(square)
    assert grad(3.0)[0].numpy() == 6.0
    gradgrad = tfe.gradients_function(lambda x: grad(x)[0])
    assert gradgrad(3.0)[0].numpy() == 2.0
    assert tfe.gradients_function(lambda x: gradgrad(x)[0])(3.0) == [None]  # the seed's third derivative
    g = tfe.gradients_function(lambda x, y: x * y * y)
    assert [t.numpy() for t in g(2.0, 3.0)] == [9.0, 12.0]
    assert [t.numpy() for t in tfe.gradients_function(lambda x, y: x * y * y, params=[1])(2.0, 3.0)] == [12.0]
    assert [t.numpy() for t in tfe.gradients_function(lambda x, y: x * y, params=["y"])(2.0, 3.0)] == [2.0]
    assert grad(3.0, dy=tf.constant(0.5))[0].numpy() == 3.0
    with pytest.raises(ValueError, match="cannot receive keyword arguments"):
        grad(3.0, z=1)


def test_custom_gradient_and_log1pexp_from_the_seed():
    def log1pexp(x):
        return tf.compat.v1.log(1 + tf.exp(x))

    g = tfe.gradients_function(log1pexp)
    assert g(0.0)[0].numpy() == 0.5 and math.isnan(g(100.0)[0].numpy())

    @tf.custom_gradient
    def stable(x):
        e = tf.exp(x)
        return tf.compat.v1.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    gs = tfe.gradients_function(stable)
    assert gs(0.0)[0].numpy() == 0.5 and gs(100.0)[0].numpy() == 1.0


def test_value_and_implicit_gradients():
    value, grads = tfe.value_and_gradients_function(lambda x: x ** 3)(2.0)
    assert value.numpy() == 8.0 and grads[0].numpy() == 12.0
    w = tf.Variable(2.0)
    v = tf.Variable(5.0, trainable=False)
    pairs = tfe.implicit_gradients(lambda x: w * w * x + v)(3.0)
    assert [(g.numpy(), var is w) for g, var in pairs] == [(12.0, True)]
    val, pairs = tfe.implicit_value_and_gradients(lambda: w * 4.0)()
    assert val.numpy() == 8.0 and pairs[0][0].numpy() == 4.0
    with pytest.raises(ValueError, match="No trainable variables"):
        tfe.implicit_gradients(lambda: tf.constant(1.0))()


def test_metrics():
    m = tfe.metrics.Mean("loss")
    assert m(0) == 0
    m(5)
    r = m.result()
    assert r.dtype == tf.float64 and r.numpy() == 2.5 and str(r) == "tf.Tensor(2.5, shape=(), dtype=float64)"
    m([8, 9])
    assert m.result().numpy() == 5.5
    m.init_variables()
    assert math.isnan(m.result().numpy())
    w = tfe.metrics.Mean(dtype=tf.float32)
    w([1.0, 3.0], weights=[3.0, 1.0])
    assert w.result().numpy() == 1.5 and w.result().dtype == tf.float32
    acc = tfe.metrics.Accuracy()
    acc([1, 2, 3, 4], [1, 2, 0, 4])
    assert acc.result().numpy() == 0.75
    sacc = tfe.metrics.SparseAccuracy()
    sacc(tf.constant([1, 0]), tf.constant([[0.1, 0.9], [0.2, 0.8]]))
    assert sacc.result().numpy() == 0.5


def test_helpers():
    assert tfe.num_gpus() == len(tf.config.list_physical_devices("GPU"))
    assert tfe.Variable is tf.Variable and tfe.GradientTape is tf.GradientTape
    assert tfe.Checkpoint is tf.train.Checkpoint
    it = tfe.Iterator(tf.data.Dataset.range(3))
    assert [int(x) for x in it] == [0, 1, 2]
    out = tfe.py_func(lambda x: x * 2, [tf.constant([1.0, 2.0])], tf.float32)
    assert out.numpy().tolist() == [2.0, 4.0]


def _scalars(logdir):
    """{tag: [(step, value), ...]} read back with TensorBoard's own event reader."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util

    assert len(glob.glob(f"{logdir}/events.out.tfevents.*")) == 1
    acc = EventAccumulator(logdir, size_guidance={"tensors": 0})
    acc.Reload()
    return {tag: [(e.step, float(tensor_util.make_ndarray(e.tensor_proto).reshape(-1)[0])) for e in acc.Tensors(tag)]
            for tag in acc.Tags()["tensors"]}


def test_contrib_summary_writes_only_when_recording(tmp_path):
    step = tf.compat.v1.train.get_or_create_global_step()
    step.assign(0)
    writer = summary.create_file_writer(str(tmp_path))
    writer.set_as_default()
    try:
        summary.scalar("outside", 1.0)  # no record_summaries block: nothing is written
        for _ in range(10):
            step.assign_add(1)
            with summary.record_summaries_every_n_global_steps(5):
                summary.scalar("every5", tf.cast(step, tf.float32))
            with summary.always_record_summaries():
                summary.scalar("always", 2.0, step=7, family="fam")
                summary.histogram("hist", tf.constant([1.0, 2.0, 2.0]))
            with summary.never_record_summaries():
                assert not summary.should_record_summaries()
                summary.scalar("never", 3.0)
        writer.flush()
    finally:
        tf.summary.create_noop_writer().set_as_default()
    got = _scalars(str(tmp_path))
    assert got["every5"] == [(5, 5.0), (10, 10.0)]
    assert len(got["fam/always"]) == 10 and got["fam/always"][0] == (7, 2.0)
    assert "outside" not in got and "never" not in got and "hist" in got
