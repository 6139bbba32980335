"""The README's main job: ``tensorlet demo`` runs and fits the regression."""

import re
import subprocess
import sys


def test_demo_runs_and_fits():
    out = subprocess.run([sys.executable, "-m", "tensorlet", "demo"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    m = re.search(r"fitted W = ([\d.]+), B = ([\d.]+)", out.stdout)
    assert m, out.stdout
    assert abs(float(m.group(1)) - 3) < 0.05 and abs(float(m.group(2)) - 2) < 0.05
    assert "InvalidArgumentError: cannot compute AddV2" in out.stdout
    assert "logits for 256 MNIST images: (256, 10) float32" in out.stdout
