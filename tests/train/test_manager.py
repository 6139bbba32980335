"""tf.train.CheckpointManager and the ``checkpoint`` state file, against TF 2.21's behaviour."""

import json
import os
import re

import pytest

import tensorlet as tf
from tensorlet._src.train import checkpoint_manager as cm

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "ckpt", "checkpoints.json")))


def state_lines(text):
    """The state file with timestamps masked (they are wall-clock times)."""
    return re.sub(r"(timestamps?: )[0-9.e+]+", r"\1T", text).splitlines()


def test_max_to_keep_files_and_state_like_tf(tmp_path):
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    ck.save(str(tmp_path / "first"))  # the counter is shared with Checkpoint.save, as in TF
    mgr = tf.train.CheckpointManager(ck, str(tmp_path / "mgr"), max_to_keep=2)
    saved = [mgr.save(), mgr.save(), mgr.save(checkpoint_number=10)]
    assert [os.path.relpath(p, tmp_path) for p in saved] == GOLDEN["manager_saved"]
    assert sorted(os.listdir(tmp_path / "mgr")) == GOLDEN["manager_files"]
    text = open(tmp_path / "mgr" / "checkpoint").read()
    assert state_lines(text) == state_lines(GOLDEN["manager_state"])
    stamps = [float(v) for v in re.findall(r"all_model_checkpoint_timestamps: (\S+)", text)]
    assert len(stamps) == 2 and stamps[0] <= stamps[1]
    assert mgr.checkpoints == saved[1:] and mgr.latest_checkpoint == saved[2]
    assert tf.train.latest_checkpoint(str(tmp_path / "mgr")) == saved[2]
    state = tf.train.get_checkpoint_state(str(tmp_path / "mgr"))
    assert state.model_checkpoint_path == saved[2] and list(state.all_model_checkpoint_paths) == saved[1:]
    assert list(state.all_model_checkpoint_timestamps) == stamps
    # a new manager picks the kept checkpoints up from the state file
    mgr2 = tf.train.CheckpointManager(ck, str(tmp_path / "mgr"), max_to_keep=2)
    assert mgr2.checkpoints == saved[1:] and mgr2.latest_checkpoint == saved[2]
    mgr2.save()
    assert mgr2.checkpoints == [saved[2], str(tmp_path / "mgr" / "ckpt-5")]
    assert not os.path.exists(saved[1] + ".index")


def test_keep_all_and_properties(tmp_path):
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=None, checkpoint_name="model")
    paths = [mgr.save() for _ in range(4)]
    assert mgr.checkpoints == paths and paths[-1].endswith("model-4")
    assert mgr.directory == str(tmp_path) and mgr.checkpoint_interval is None
    assert all(os.path.exists(p + ".index") for p in paths)


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(cm.time, "time", lambda: clock[0])
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=1, keep_checkpoint_every_n_hours=1)
    kept = []
    for _ in range(5):
        clock[0] += 1500.0  # 25 minutes
        kept.append(mgr.save())
    # every checkpoint at least an hour after the last preserved one survives
    survivors = sorted(p for p in kept if os.path.exists(p + ".index"))
    assert survivors == sorted([kept[2], kept[4]])
    assert mgr.checkpoints == [kept[4]]


def test_checkpoint_interval_and_restore_or_initialize(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    x = tf.Variable(1.0)
    ck = tf.train.Checkpoint(x=x, step=step)
    calls = []
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=3, step_counter=step, checkpoint_interval=5,
                                     init_fn=lambda: calls.append("init"))
    assert mgr.restore_or_initialize() is None and calls == ["init"]
    results = []
    for _ in range(12):
        results.append(mgr.save())
        step.assign_add(1)
    assert [i for i, r in enumerate(results) if r is not None] == [0, 5, 10]
    assert mgr.save(check_interval=False) is not None
    x.assign(42.0)
    mgr2 = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=3)
    assert mgr2.restore_or_initialize() == mgr.latest_checkpoint and x.numpy() == 1.0


def test_errors_like_tf(tmp_path):
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    err = GOLDEN["errors"]
    with pytest.raises(ValueError) as e:
        tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=0)
    assert str(e.value) == err["max_to_keep"][1]
    with pytest.raises(ValueError) as e:
        tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=1, checkpoint_interval=3)
    assert str(e.value) == err["interval"][1]
    with pytest.raises(TypeError):
        tf.train.CheckpointManager(ck, None, max_to_keep=3)


def test_state_file_edge_cases(tmp_path):
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "gone-1"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # named files missing: not "latest"
    (tmp_path / "checkpoint").write_text("this is { not a state file")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "a"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.get_checkpoint_state(str(tmp_path))
    # non-ASCII and quotes survive the text format
    d = tmp_path / 'qu"o té'
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    p = ck.save(str(d / "naïve"))
    assert tf.train.latest_checkpoint(str(d)) == p
    assert (d / "checkpoint").read_bytes() == (b'model_checkpoint_path: "na\xc3\xafve-1"\n'
                                               b'all_model_checkpoint_paths: "na\xc3\xafve-1"\n')  # as TF 2.21


def test_checkpoints_iterator(tmp_path):
    ck = tf.train.Checkpoint(x=tf.Variable(1.0))
    p = ck.save(str(tmp_path / "c"))
    it = tf.train.checkpoints_iterator(str(tmp_path), timeout=0)
    assert next(it) == p
    assert list(it) == []  # no newer checkpoint before the timeout
