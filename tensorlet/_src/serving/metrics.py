"""Prometheus metrics in TF Serving's names and text exposition (``/monitoring/prometheus/metrics``).

TF's metric ``/tensorflow/serving/request_count`` is exported as ``:tensorflow:serving:request_count``; latency
histograms are in microseconds with TF Serving's buckets (10 * 1.8^i).
"""

from __future__ import annotations

import bisect
import threading

DEFAULT_PATH = "/monitoring/prometheus/metrics"
_LATENCY_BUCKETS = [10 * 1.8 ** i for i in range(33)]
_BATCH_BUCKETS = [2.0 ** i for i in range(15)]


def _name(metric: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else ":" for c in metric)


def _label_value(v) -> str:
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class _Histogram:
    __slots__ = ("counts", "sum")

    def __init__(self, n):
        self.counts = [0] * (n + 1)
        self.sum = 0.0


class Metrics:
    def __init__(self):
        self._lock = threading.Lock()
        # metric -> (kind, help, label names, {label values: value or _Histogram}, buckets)
        self._m = {}
        self._declare("/tensorflow/serving/request_count", "counter", "The total number of requests.",
                      ("model_name", "status"))
        self._declare("/tensorflow/serving/request_latency", "histogram",
                      "Distribution of wall time (in microseconds) for Tensorflow Serving request.",
                      ("model_name", "API", "entrypoint"), _LATENCY_BUCKETS)
        self._declare("/tensorflow/serving/runtime_latency", "histogram",
                      "Distribution of wall time (in microseconds) for Tensorflow runtime.",
                      ("model_name", "API", "runtime"), _LATENCY_BUCKETS)
        self._declare("/tensorflow/serving/request_example_count_total", "counter",
                      "The total number of tensorflow.Examples.", ("model",))
        self._declare("/tensorflow/serving/batching_session/processed_batch_size", "histogram",
                      "Tracks the batch size distribution on processing.", ("model_name",), _BATCH_BUCKETS)
        self._declare("/tensorflow/serving/batching_session/padding_size", "histogram",
                      "Tracks the padding size distribution on batches.", ("model_name",), _BATCH_BUCKETS)
        self._declare("/tensorflow/cc/saved_model/load_attempt_count", "counter",
                      "The number of times a SavedModel was successfully loaded.", ("model_path", "status"))
        self._declare("/tensorflow/cc/saved_model/load_latency", "counter",
                      "Latency in microseconds for SavedModels that were successfully loaded.", ("model_path",))
        self._declare("/tensorflow/serving/model_warmup_latency", "histogram",
                      "Distribution of wall time (in microseconds) for warming up the model.", ("model_path",),
                      _LATENCY_BUCKETS)
        self._declare("/tensorflow/serving/model_warmup_records_read", "counter",
                      "Total number of warmup records read during model warmup.", ("model_path",))

    def _declare(self, metric, kind, help_, labels, buckets=None):
        self._m[metric] = (kind, help_, labels, {}, buckets)

    def inc(self, metric, labels, by=1):
        with self._lock:
            cells = self._m[metric][3]
            cells[labels] = cells.get(labels, 0) + by

    def set(self, metric, labels, value):
        with self._lock:
            self._m[metric][3][labels] = value

    def observe(self, metric, labels, value):
        with self._lock:
            _, _, _, cells, buckets = self._m[metric]
            h = cells.get(labels)
            if h is None:
                h = cells[labels] = _Histogram(len(buckets))
            h.counts[bisect.bisect_left(buckets, value)] += 1
            h.sum += value

    # --- the events the server records -----------------------------------------------------------------------------
    def request(self, model, api, entrypoint, status_name, seconds):
        self.inc("/tensorflow/serving/request_count", (model, status_name))
        if status_name == "OK":
            self.observe("/tensorflow/serving/request_latency", (model, api, entrypoint), seconds * 1e6)

    def runtime(self, model, api, seconds):
        self.observe("/tensorflow/serving/runtime_latency", (model, api, "tensorlet"), seconds * 1e6)

    def batch(self, model, rows, padded):
        self.observe("/tensorflow/serving/batching_session/processed_batch_size", (model,), padded)
        self.observe("/tensorflow/serving/batching_session/padding_size", (model,), padded - rows)

    def load_attempt(self, path, status, seconds):
        self.inc("/tensorflow/cc/saved_model/load_attempt_count", (path, status))
        if status == "success":
            self.inc("/tensorflow/cc/saved_model/load_latency", (path,), int(seconds * 1e6))

    def warmup(self, path, records, seconds):
        self.observe("/tensorflow/serving/model_warmup_latency", (path,), seconds * 1e6)
        self.inc("/tensorflow/serving/model_warmup_records_read", (path,), records)

    def render(self) -> str:
        lines = []
        with self._lock:
            for metric, (kind, _help, labels, cells, buckets) in self._m.items():
                if not cells:
                    continue
                name = _name(metric)
                lines.append(f"# TYPE {name} {kind}")
                for values, v in cells.items():
                    lab = ",".join(f'{k}="{_label_value(x)}"' for k, x in zip(labels, values))
                    if kind != "histogram":
                        lines.append(f"{name}{{{lab}}} {v}")
                        continue
                    prefix = f"{name}_bucket{{{lab}{',' if lab else ''}"
                    total = 0
                    for i, c in enumerate(v.counts):
                        total += c
                        le = f"{buckets[i]:g}" if i < len(buckets) else "+Inf"
                        lines.append(f'{prefix}le="{le}"}} {total}')
                    lines.append(f"{name}_sum{{{lab}}} {v.sum:g}")
                    lines.append(f"{name}_count{{{lab}}} {total}")
        return "\n".join(lines) + "\n"
