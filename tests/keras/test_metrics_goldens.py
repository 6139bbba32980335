"""Keras metrics against results recorded from real Keras 3 (tools/record_tf_goldens/keras_metrics.py)."""

import json
import os

import numpy as np
import pytest

import tensorlet as tf

GOLDENS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "keras_metrics.json")
with open(GOLDENS) as f:
    CASES = json.load(f)["cases"]

# float32 accumulations in a different order than TF's kernels: a few ulps
RTOL, ATOL = 1e-6, 1e-7


def _array(x):
    a = np.asarray(x)
    return a.astype(np.float32) if a.dtype == np.float64 else a


def _run(case, metric):
    got = []
    for yt, yp, sw in case["batches"]:
        args = [_array(yt)] if yp is None else [_array(yt), _array(yp)]
        kw = {} if sw is None else {"sample_weight": np.asarray(sw, np.float32)}
        metric.update_state(*args, **kw)
        got.append(metric.result())
    return got


@pytest.mark.filterwarnings("ignore:You are passing weight as `float`")
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_metric_matches_keras(case):
    metric = getattr(tf.keras.metrics, case["cls"])(**case["kwargs"])
    for i, (r, e) in enumerate(zip(_run(case, metric), case["results"])):
        a = np.asarray(r)
        where = f"{case['name']} after batch {i + 1}"
        assert a.dtype.name == e["dtype"], f"{where}: dtype {a.dtype.name}, Keras {e['dtype']}"
        assert list(a.shape) == e["shape"], f"{where}: shape {a.shape}, Keras {e['shape']}"
        np.testing.assert_allclose(a.ravel(), e["value"], rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=where)
    if "config" in case:
        cfg = metric.get_config()
        cfg.pop("name", None)
        assert json.loads(json.dumps(cfg)) == case["config"]


@pytest.mark.parametrize("case", [c for c in CASES if c["cls"] in ("AUC", "Precision", "MeanIoU", "F1Score",
                                                                    "R2Score", "Mean", "BinaryAccuracy")][:12],
                         ids=lambda c: c["name"])
def test_reset_and_rerun_gives_the_same(case):
    metric = getattr(tf.keras.metrics, case["cls"])(**case["kwargs"])
    first = [np.asarray(r) for r in _run(case, metric)]
    metric.reset_state()
    for v in metric.variables:
        assert not np.any(np.asarray(v)), f"{case['name']}: {v.name} not reset"
    second = [np.asarray(r) for r in _run(case, metric)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
