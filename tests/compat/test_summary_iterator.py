"""tf.compat.v1.train.summary_iterator reads the event files tf.summary writes."""

import glob
import os

import pytest

import tensorlet as tf


def test_reads_scalars_written_by_tf_summary(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
    w.flush()
    (path,) = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
    events = list(tf.compat.v1.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    tagged = [(e.step, v.tag) for e in events for v in e.summary.value]
    assert tagged == [(0, "loss"), (1, "loss"), (2, "loss")]


def test_corrupt_file_is_data_loss(tmp_path):
    p = tmp_path / "events.out.tfevents.bad"
    p.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00garbagegarbage")
    with pytest.raises(tf.errors.DataLossError):
        list(tf.compat.v1.train.summary_iterator(str(p)))
