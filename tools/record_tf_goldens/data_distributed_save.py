"""Record distributed snapshots written by real TF's ``tf.data.experimental.distributed_save`` into
tests/goldens/data_distributed_save/<compression>/ (read by tests/data/test_data_service.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/data_distributed_save.py
"""

import os
import shutil
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "data_distributed_save")


def dataset():
    return tf.data.Dataset.range(7).map(lambda x: (x, tf.strings.as_string(x), tf.cast(tf.fill([2], x), tf.float32)))


def main():
    svc = tf.data.experimental.service
    work = tempfile.mkdtemp()
    d = svc.DispatchServer(svc.DispatcherConfig(work_dir=work, fault_tolerant_mode=True))
    w = svc.WorkerServer(svc.WorkerConfig(d.target.split("://")[1], heartbeat_interval_ms=100))
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, comp in (("snappy", "AUTO"), ("none", None)):
        path = os.path.join(OUT, name)
        tf.data.experimental.distributed_save(dataset(), path, d.target.split("://")[1], compression=comp)
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(path, "DONE")):
            if time.time() > deadline:
                raise SystemExit(f"{path}: the snapshot did not finish")
            time.sleep(0.1)
        assert sorted(int(a) for a, _, _ in tf.data.Dataset.load(path).as_numpy_iterator()) == list(range(7))
    w.stop()
    d.stop()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
