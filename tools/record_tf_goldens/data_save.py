"""Records datasets saved by real TF 2.21's ``Dataset.save`` (run by hand, never in CI).

    /work/tfvenv/bin/python tools/record_tf_goldens/data_save.py

Writes tests/goldens/data_save/:
  <case>/            the directories ``Dataset.save`` wrote (kilobytes): dataset_spec.pb, snapshot.metadata, shards
  data_save.json     per case: the compression it was saved with, repr of element_spec, cardinality, and the
                     elements TF's ``Dataset.load`` yields (in TF's order, with the CPU count that order depends on)
"""

import collections
import json
import multiprocessing
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data"))
from snapshot_cases import plain, spec_repr  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "goldens", "data_save")
P = collections.namedtuple("P", ["x", "y"])


def element_json(e):
    return [plain(t.numpy()) for t in tf.nest.flatten(e)]


def cases():
    yield "structs", None, None, tf.data.Dataset.from_tensor_slices(
        {"img": np.arange(24, dtype=np.float32).reshape(6, 4), "name": [f"n{i}" for i in range(5)] + [""],
         "pt": P(np.arange(6), np.array([1, 0, 1, 1, 0, 1], np.bool_))})
    yield "gzip", "GZIP", None, tf.data.Dataset.range(20).map(lambda x: (x, tf.strings.as_string(x) + "s" * 40))
    yield "snappy", "SNAPPY", None, tf.data.Dataset.range(300).map(lambda x: (x % 7, tf.fill([x % 5], x)))
    yield "sharded", None, lambda x: tf.shape(x, out_type=tf.int64)[0] % 3, \
        tf.data.Dataset.range(7).map(lambda x: tf.range(x))
    yield "dtypes", None, None, tf.data.Dataset.range(3).map(lambda x: (
        tf.cast(x, tf.bfloat16) / 3, tf.fill([2, 2], tf.cast(x, tf.uint8)), tf.cast(x, tf.complex64) * 1j,
        tf.cast(x, tf.float16), tf.fill([x], tf.strings.as_string(x)), tf.reshape(tf.range(x * 4), [x, 2, 2])))
    yield "empty", None, None, tf.data.Dataset.range(0).map(lambda x: {"v": x})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    out = {"cpu_count": multiprocessing.cpu_count(), "cases": {}}
    for name, comp, shard_func, ds in cases():
        path = os.path.join(OUT, name)
        ds.save(path, compression=comp, shard_func=shard_func)
        back = tf.data.Dataset.load(path, compression=comp)
        out["cases"][name] = {"compression": comp, "element_spec": spec_repr(back.element_spec),
                              "cardinality": int(back.cardinality()),
                              "elements": [element_json(e) for e in back]}
    with open(os.path.join(OUT, "data_save.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
