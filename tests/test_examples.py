"""examples/ run unchanged on tensorlet through `tensorlet run` (short settings; the defaults take < 1 min each)."""

import os
import re

import numpy as np
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(name, *args, cwd):
    out = subprocess.run([sys.executable, "-m", "tensorlet", "run", os.path.join(ROOT, "examples", name), *args],
                         capture_output=True, text=True, cwd=cwd, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return out.stdout


def _accuracy(stdout):
    m = re.search(r"^test accuracy: (\d\.\d{3})$", stdout, re.M)
    assert m, stdout[-2000:]
    return float(m.group(1))


def test_linear_regression(tmp_path):
    out = _run("linear_regression.py", cwd=tmp_path)
    m = re.search(r"W = ([\d.]+), B = ([\d.]+)", out)
    assert abs(float(m.group(1)) - 3) < 0.05 and abs(float(m.group(2)) - 2) < 0.05
    # TF 2.21 prints the same numbers (tensorlet's random.normal draws TF's bits)
    assert "Initial loss: 68.948" in out and "Loss at step 050: 9.662" in out and "W = 2.996, B = 2.028" in out


def test_custom_training_loop(tmp_path):
    out = _run("custom_training_loop.py", "--steps", "150", cwd=tmp_path)
    first_step = float(re.search(r"step    0: loss ([\d.]+)", out).group(1))
    assert abs(first_step - np.log(10)) < 0.15  # an untrained 10-way classifier
    assert float(re.search(r"step  100: loss ([\d.]+)", out).group(1)) < 1.0
    first, last = map(float, re.search(r"first 20 steps ([\d.]+), of the last 20 steps ([\d.]+)", out).groups())
    assert last < first / 3
    assert _accuracy(out) > 0.8


def test_functional_api(tmp_path):
    out = _run("functional_api.py", "--epochs", "1", cwd=tmp_path)
    assert 'Model: "two_branch_mlp"' in out and "residual (Add)" in out
    assert "rebuilt from config, same predictions: True" in out
    assert _accuracy(out) > 0.8


def test_mnist_cnn_writes_plot_and_tensorboard_logs(tmp_path):
    out = _run("mnist_cnn.py", "--epochs", "1", "--train-images", "1000", cwd=tmp_path)
    assert 0.05 < _accuracy(out) <= 1.0
    assert (tmp_path / "loss.png").stat().st_size > 5000
    assert any(f.startswith("events.out.tfevents.") for f in os.listdir(tmp_path / "logs" / "mnist_cnn" / "train"))
