"""TFRecord reading speed: tensorlet's reader against ``tf.data.TFRecordDataset`` in the same run.

Writes ``--mb`` MB of ``tf.train.Example`` records (a random ``bytes`` feature of the record size plus an int64
label) for each record size, then times one full pass of

* tensorlet: ``iter_records(path)`` (the reader behind ``tf.data.TFRecordDataset``: framing, both CRC-32C
  checks, yielding ``bytes``) and, when it exists, ``tensorlet.data.TFRecordDataset`` (tensors);
* TensorFlow (when importable): ``for r in tf.data.TFRecordDataset(path)`` (eager iteration, tensors).

    python benchmarks/bench_tfrecord.py                   # tensorlet only
    PYTHONPATH=. /work/tfenv/bin/python benchmarks/bench_tfrecord.py    # with TensorFlow in the same run

Target (issue "tf.data"): reading 100 MB of Examples >= 0.8x tf.data's MB/s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def make_file(path, size, total_mb):
    from tensorlet._src.io import example as E
    from tensorlet._src.io.tfrecord import TFRecordWriter

    rng = np.random.default_rng(size)
    n = max(1, int(total_mb * 1e6) // (size + 40))
    payloads = [rng.integers(0, 256, size, dtype=np.uint8).tobytes() for _ in range(16)]
    t = time.perf_counter()
    with TFRecordWriter(path) as w:
        for i in range(n):
            ex = E.Example(features=E.Features(feature={
                "image": E.Feature(bytes_list=E.BytesList(value=[payloads[i % 16]])),
                "label": E.Feature(int64_list=E.Int64List(value=[i % 10]))}))
            w.write(ex.SerializeToString())
    return n, time.perf_counter() - t


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    from tensorlet._src.io.tfrecord import iter_records

    tfm = None
    if importlib.util.find_spec("tensorflow") is not None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tfm
    tl_ds = None
    try:
        import tensorlet

        tl_ds = getattr(tensorlet.data, "TFRecordDataset", None)
    except Exception:  # noqa: BLE001 - tf.data may not be there yet
        tl_ds = None

    rows = []
    with tempfile.TemporaryDirectory() as d:
        for size in [int(s) for s in args.sizes.split(",")]:
            path = os.path.join(d, f"ex_{size}.tfrecord")
            n, write_s = make_file(path, size, args.mb)
            mb = os.path.getsize(path) / 1e6
            row = {"record_bytes": size, "records": n, "file_mb": round(mb, 1), "write_mb_s": round(mb / write_s)}

            def tl_read(path=path):
                k = 0
                for r in iter_records(path):
                    k += len(r)
                assert k > 0

            row["tensorlet_reader_mb_s"] = round(mb / best_of(tl_read, args.repeat))
            if tl_ds is not None:
                def tl_data(path=path):
                    for _ in tl_ds(path):
                        pass

                row["tensorlet_tf_data_mb_s"] = round(mb / best_of(tl_data, args.repeat))
            if tfm is not None:
                def tf_read(path=path):
                    for _ in tfm.data.TFRecordDataset(path):
                        pass

                row["tf_data_mb_s"] = round(mb / best_of(tf_read, args.repeat))
                row["ratio_reader_vs_tf"] = round(row["tensorlet_reader_mb_s"] / row["tf_data_mb_s"], 2)
                if "tensorlet_tf_data_mb_s" in row:
                    row["ratio_tf_data_vs_tf"] = round(row["tensorlet_tf_data_mb_s"] / row["tf_data_mb_s"], 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
            os.remove(path)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
