"""Record TFRecord files written by real TF, and TF's parse results for them, into tests/goldens/tfrecord/.

    /work/tfenv/bin/python tools/record_tf_goldens/tfrecord.py      (a Python that has TensorFlow)

Files: ``examples{,_gzip,_zlib}.tfrecord`` (the same tf.train.Examples, plain / GZIP / ZLIB),
``big_gzip.tfrecord`` (more than TF's 256 KiB zlib input buffer, compressible), ``flushed_gzip.tfrecord``
(``flush()`` between records), ``sequence.tfrecord`` (tf.train.SequenceExamples) and ``expected.json``:
every file's records (base64), and TF's outputs of parse_single_example / parse_example /
parse_single_sequence_example / parse_sequence_example / serialize_tensor on them.
"""

import base64
import json
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "tfrecord")


def b64(b):
    return base64.b64encode(bytes(b)).decode()


def enc(t):
    """A tensor or SparseTensor as JSON."""
    import tensorflow as tf

    if isinstance(t, tf.sparse.SparseTensor):
        return {"sparse": [enc(t.indices), enc(t.values), enc(t.dense_shape)]}
    a = t.numpy()
    if a.dtype == object:
        vals = [b64(v) for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "c":
        vals = [[float(v.real), float(v.imag)] for v in a.reshape(-1)]
    else:
        vals = a.reshape(-1).tolist()
    return {"dtype": t.dtype.name, "shape": list(a.shape), "values": vals}


def examples(tf):
    out = []
    for i in range(6):
        feats = {
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
            "vec": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i, 1e-3 * i])),
            "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"t{j}".encode() for j in range(i % 4)])),
            "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"example-{i}".encode()])),
        }
        if i % 2 == 0:
            feats["opt"] = tf.train.Feature(float_list=tf.train.FloatList(value=[float(i)]))
        out.append(tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString())
    return out


def sequences(tf):
    out = []
    for i in range(3):
        ctx = tf.train.Features(feature={"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[100 + i]))})
        steps = [tf.train.Feature(float_list=tf.train.FloatList(value=[t, t + 0.5])) for t in range(i + 1)]
        toks = [tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"w"] * (t + 1))) for t in range(2 * i)]
        lists = tf.train.FeatureLists(feature_list={"frames": tf.train.FeatureList(feature=steps),
                                                    "tokens": tf.train.FeatureList(feature=toks)})
        out.append(tf.train.SequenceExample(context=ctx, feature_lists=lists).SerializeToString())
    return out


def big_records():
    """~2 KB compressible records, 600 KB in all (more than TF's 256 KiB zlib input buffer); the tests
    rebuild them with the same formula."""
    return [(b"%05d" % k) * 200 + bytes(range(256)) * 4 for k in range(300)]


def write(tf, name, records, compression="", flush_after=None, store=True):
    path = os.path.join(OUT, name)
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=compression)) as w:
        for k, r in enumerate(records):
            w.write(r)
            if flush_after is not None and k == flush_after:
                w.flush()
    entry = {"compression": compression, "count": len(records), "flush_after": flush_after}
    if store:
        entry["records"] = [b64(r) for r in records]
    return entry


def main():
    import tensorflow as tf

    os.makedirs(OUT, exist_ok=True)
    exs = examples(tf)
    seqs = sequences(tf)
    files = {
        "examples.tfrecord": write(tf, "examples.tfrecord", exs),
        "examples_gzip.tfrecord": write(tf, "examples_gzip.tfrecord", exs, "GZIP"),
        "examples_zlib.tfrecord": write(tf, "examples_zlib.tfrecord", exs, "ZLIB"),
        "big_gzip.tfrecord": write(tf, "big_gzip.tfrecord", big_records(), "GZIP", store=False),
        "flushed_gzip.tfrecord": write(tf, "flushed_gzip.tfrecord", exs, "GZIP", flush_after=2),
        "sequence.tfrecord": write(tf, "sequence.tfrecord", seqs),
    }
    read_back = [r.numpy() for r in tf.data.TFRecordDataset(os.path.join(OUT, "examples_gzip.tfrecord"), "GZIP")]
    assert read_back == exs

    F, V, S = tf.io.FixedLenFeature, tf.io.VarLenFeature, tf.io.FixedLenSequenceFeature
    spec = {"label": F([], tf.int64), "vec": F([3], tf.float32), "tags": V(tf.string), "name": F([1], tf.string),
            "opt": F([], tf.float32, default_value=-1.0), "opt_var": V(tf.float32),
            "vec_seq": S([], tf.float32, allow_missing=True)}
    parsed = {
        "single": [{k: enc(v) for k, v in tf.io.parse_single_example(e, {**spec, "vec_seq": S([], tf.float32,
                                                                                            allow_missing=True)}).items()}
                   for e in exs],
        "batch": {k: enc(v) for k, v in tf.io.parse_example(tf.constant(exs), spec).items()},
        "batch_seq3": {k: enc(v) for k, v in tf.io.parse_example(
            tf.constant(exs), {"vec": S([3], tf.float32, allow_missing=True, default_value=9.0)}).items()},
    }
    ctx_spec = {"id": F([], tf.int64)}
    seq_spec = {"frames": S([2], tf.float32), "tokens": V(tf.string)}
    seq_single = []
    for s in seqs:
        c, f = tf.io.parse_single_sequence_example(s, ctx_spec, seq_spec)
        seq_single.append({"context": {k: enc(v) for k, v in c.items()},
                           "lists": {k: enc(v) for k, v in f.items()}})
    c, f, lens = tf.io.parse_sequence_example(tf.constant(seqs), ctx_spec, seq_spec)
    parsed["sequence_single"] = seq_single
    parsed["sequence_batch"] = {"context": {k: enc(v) for k, v in c.items()},
                                "lists": {k: enc(v) for k, v in f.items()},
                                "lengths": {k: enc(v) for k, v in lens.items()}}
    tensors = {
        "f32": tf.constant([[1.5, -2.0], [0.25, 3.0]]), "i64": tf.constant([1, -2, 3], tf.int64),
        "str": tf.constant([b"a", b"", b"xyz"]), "bool": tf.constant([True, False]), "scalar": tf.constant(7),
        "empty": tf.zeros([0, 3]), "f16": tf.constant([1.5, -0.5], tf.float16), "u8": tf.constant([[0, 255]], tf.uint8),
        "c64": tf.constant([1 + 2j], tf.complex64), "bf16": tf.constant([1.5, 2.0], tf.bfloat16),
    }
    serialized = {k: {"tensor": enc(tf.cast(v, tf.float32) if v.dtype == tf.bfloat16 else v), "dtype": v.dtype.name,
                      "bytes": b64(tf.io.serialize_tensor(v).numpy())} for k, v in tensors.items()}
    out = {"files": files, "parsed": parsed, "serialized_tensors": serialized}
    path = os.path.join(OUT, "expected.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
