"""The README's main job: ``tensorlet demo`` trains the Keras CNN offline; ``tensorlet tour`` fits the regression."""

import os
import re
import subprocess
import sys


def test_demo_trains_the_cnn(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tensorlet", "demo", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.rstrip().splitlines()
    assert "4,000 images of the bundled sample (1,000 held out)" in lines[0]
    for name in ("conv2d (Conv2D)", "max_pooling2d_1 (MaxPooling2D)", "flatten (Flatten)", "dropout (Dropout)",
                 "Total params: 34,826"):
        assert name in out.stdout, name
    assert out.stdout.count("Epoch ") == 5 and "125/125" in out.stdout  # Keras progress bar, batch 32
    m = re.fullmatch(r"test accuracy: (0\.\d{3})", lines[-1])
    assert m and float(m.group(1)) >= 0.95, lines[-1]
    png = tmp_path / "out" / "training.png"
    assert png.stat().st_size > 5000 and str(png) in out.stdout
    logs = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path / "out" / "logs") for f in fs]
    assert any("/train/events.out.tfevents." in p for p in logs)
    assert any("/validation/events.out.tfevents." in p for p in logs)


def test_tour_runs_and_fits():
    out = subprocess.run([sys.executable, "-m", "tensorlet", "tour"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    m = re.search(r"fitted W = ([\d.]+), B = ([\d.]+)", out.stdout)
    assert m, out.stdout
    assert abs(float(m.group(1)) - 3) < 0.05 and abs(float(m.group(2)) - 2) < 0.05
    assert "InvalidArgumentError: cannot compute AddV2" in out.stdout
    assert "logits for 256 MNIST images: (256, 10) float32" in out.stdout
