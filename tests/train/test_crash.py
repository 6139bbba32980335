"""A save killed with SIGKILL halfway leaves the previous checkpoint intact and ``latest_checkpoint`` on it; the
next save of the same prefix removes the temporaries it left."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorlet as tf

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import tensorlet as tf
    from tensorlet._src.train import tf_bundle as F

    directory = sys.argv[1]
    v = tf.Variable(np.full((4,), 1.0, np.float32))
    big = tf.Variable(np.zeros((1 << 20,), np.float32))  # 4 MiB
    ck = tf.train.Checkpoint(v=v, big=big)
    mgr = tf.train.CheckpointManager(ck, directory, max_to_keep=1)
    mgr.save()
    F._CHUNK = 1 << 16  # write the next checkpoint slowly, 64 KiB at a time
    slow = F._write_chunks

    def chunks(f, buf, crc):
        out = slow(f, buf, crc)
        f.flush()
        time.sleep(0.05)
        return out

    F._write_chunks = chunks
    v.assign(np.full((4,), 2.0, np.float32))
    big.assign(np.ones((1 << 20,), np.float32))
    print("saving", flush=True)
    mgr.save()  # max_to_keep=1 would delete ckpt-1 once ckpt-2 is complete
    print("done", flush=True)
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_during_save_keeps_previous_checkpoint(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    ckdir = tmp_path / "ckpts"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(script), str(ckdir)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "saving"
        deadline = time.time() + 30
        while time.time() < deadline:  # wait until the new data file is being written
            tmps = [f for f in os.listdir(ckdir) if ".data-" in f and ".tmp" in f]
            if tmps and os.path.getsize(ckdir / tmps[0]) > 0:
                break
            time.sleep(0.005)
        else:
            pytest.fail("the child never started writing the second checkpoint")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    names = sorted(os.listdir(ckdir))
    assert "ckpt-2.index" not in names and "ckpt-2.data-00000-of-00001" not in names
    assert tf.train.latest_checkpoint(str(ckdir)) == str(ckdir / "ckpt-1")
    v, big = tf.Variable(np.zeros(4, np.float32)), tf.Variable(np.full((1 << 20,), 5.0, np.float32))
    tf.train.Checkpoint(v=v, big=big).restore(tf.train.latest_checkpoint(str(ckdir))).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), np.ones(4))
    assert not big.numpy().any()
    # a new manager carries on from the surviving checkpoint
    ck = tf.train.Checkpoint(v=v, big=big)
    mgr = tf.train.CheckpointManager(ck, str(ckdir), max_to_keep=1)
    assert mgr.restore_or_initialize() == str(ckdir / "ckpt-1")
    assert mgr.save() == str(ckdir / "ckpt-2")
    assert tf.train.latest_checkpoint(str(ckdir)) == str(ckdir / "ckpt-2")
    assert not [f for f in os.listdir(ckdir) if ".tmp" in f]  # the killed save's temporaries were removed
