"""The example web page (examples/tfjs_mnist) in headless Chromium: TF.js loads the exported Layers model from a
local http.server (tf.min.js from the local @tensorflow/tfjs copy, no network) and writes its predictions for the
sample digits into the page; they must equal Keras's.  Skipped when chromium or @tensorflow/tfjs is missing
(`apt-get install chromium`; `npm ci` in tests/tfjs)."""

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import threading

import numpy as np
import pytest

import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TFJS = os.path.join(HERE, "node_modules", "@tensorflow", "tfjs")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="headless browser test needs chromium (apt-get install chromium)"),
    pytest.mark.skipif(not os.path.isdir(TFJS), reason="needs @tensorflow/tfjs (run `npm ci` in tests/tfjs)"),
]


def _example():
    spec = importlib.util.spec_from_file_location("tfjs_mnist_site", os.path.join(ROOT, "examples", "tfjs_mnist",
                                                                                  "build_site.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dump_dom(url, profile):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={profile}",
           "--virtual-time-budget=60000", "--dump-dom", url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.mark.slow
def test_browser_page_predicts_like_keras(tmp_path):
    ex = _example()
    model = ex.seed_cnn(tf.keras)  # untrained is enough to compare numbers; the page works the same when trained
    site = str(tmp_path / "site")
    _, x, y = ex.build_site(site, model=model, samples=8, tfjs_dir=TFJS)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        dom = _dump_dom(f"http://127.0.0.1:{httpd.server_address[1]}/index.html?backend=cpu", str(tmp_path / "profile"))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert 'data-status="done"' in dom, dom[-3000:]
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    got = json.loads(m.group(1).replace("&quot;", '"'))
    want = model.predict(x, verbose=0)
    np.testing.assert_allclose(np.asarray(got["probs"]).reshape(want.shape), want, atol=2e-3)
    assert got["predicted"] == [int(v) for v in np.argmax(want, 1)]
    assert f"/ {len(y)}" in dom
