"""Records checkpoint and TensorBoard-summary goldens from real TF 2.21 / Keras 3 (run by hand, never in CI).

    /work/tfenv/bin/python tools/record_tf_goldens/checkpoints.py

Writes tests/goldens/ckpt/:
  checkpoints.json   object-graph keys, the object graph of a nested tf.Module, state-file text, error messages
  summaries.json     events written by tf.summary.* (tags, steps, metadata, tensors), and Keras's TensorBoard
                     callback layout (directories, tags, steps)
  tf_ckpt/           a tiny checkpoint in TF's own TensorBoard-bundle format (for the TF-format reader)
(needs `pip install tensorboard` in the TF virtualenv).
"""

import base64
import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "goldens", "ckpt")


def b64(b):
    return base64.b64encode(b).decode()


def tensor_json(t):
    arr = tf.make_ndarray(t)
    if arr.dtype == object:
        return {"dtype": "string", "shape": list(arr.shape), "strings": [b64(x) for x in arr.reshape(-1)]}
    return {"dtype": arr.dtype.name, "shape": list(arr.shape), "values": arr.reshape(-1).tolist()}


def events_json(path):
    from tensorboard.backend.event_processing import event_file_loader

    out = []
    for e in event_file_loader.EventFileLoader(path).Load():
        for v in e.summary.value:
            md = v.metadata
            out.append({"step": e.step, "tag": v.tag, "plugin_name": md.plugin_data.plugin_name,
                        "content": b64(md.plugin_data.content), "description": md.summary_description,
                        "display_name": md.display_name, "metadata": b64(md.SerializeToString()),
                        "tensor": tensor_json(v.tensor)})
    return out


def record_checkpoints():
    d = tempfile.mkdtemp()

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, 2.0])
            self.lst = [tf.Variable(1), {"a": tf.Variable(2.0), "b/c": [tf.Variable(3.0)]}]
            self.sub = tf.Module()
            self.sub.v = tf.Variable("hello")
            self.d = {"k.x": tf.Variable(5)}
            self.tup = (tf.Variable(6, dtype=tf.int64),)

    m = M()
    x = tf.Variable(10.0)
    ck = tf.train.Checkpoint(x=x, m=m)
    p1 = ck.save(os.path.join(d, "ckpt"))
    state1 = open(os.path.join(d, "checkpoint")).read()
    keys = [[k, s] for k, s in tf.train.list_variables(p1)]
    reader = tf.train.load_checkpoint(p1)
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    from google.protobuf import text_format

    g = trackable_object_graph_pb2.TrackableObjectGraph()
    g.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    dtypes = {k: v.name for k, v in reader.get_variable_to_dtype_map().items()}

    errors = {}
    v = tf.Variable([1.0, 2.0])
    pv = tf.train.Checkpoint(v=v).write(os.path.join(d, "v"))
    for label, fn in [
        ("shape", lambda: tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0])).restore(pv)),
        ("dtype", lambda: tf.train.Checkpoint(v=tf.Variable([1, 2])).restore(pv)),
        ("missing", lambda: tf.train.Checkpoint(v=v).restore(os.path.join(d, "nonexistent"))),
        ("not_trackable", lambda: tf.train.Checkpoint(a=1)),
        ("max_to_keep", lambda: tf.train.CheckpointManager(ck, d, max_to_keep=0)),
        ("interval", lambda: tf.train.CheckpointManager(ck, d, max_to_keep=1, checkpoint_interval=3)),
        ("no_ckpt_dir", lambda: tf.train.load_checkpoint(tempfile.mkdtemp())),
        ("get_tensor", lambda: tf.train.load_checkpoint(pv).get_tensor("nope")),
        ("restore_none", lambda: tf.train.Checkpoint(v=v).restore(None).assert_consumed()),
    ]:
        try:
            fn()
            errors[label] = None
        except Exception as e:  # noqa: BLE001
            errors[label] = [type(e).__name__, str(e).replace(d, "<DIR>")]

    mgr_dir = os.path.join(d, "mgr")
    mgr = tf.train.CheckpointManager(ck, mgr_dir, max_to_keep=2)
    saved = [mgr.save(), mgr.save(), mgr.save(checkpoint_number=10)]
    state2 = open(os.path.join(mgr_dir, "checkpoint")).read()
    out = {
        "keys": keys, "dtypes": dtypes, "object_graph": text_format.MessageToString(g),
        "state_after_save": state1, "manager_saved": [os.path.relpath(s, d) for s in saved],
        "manager_files": sorted(os.listdir(mgr_dir)), "manager_state": state2, "errors": errors,
        "values": {k: (reader.get_tensor(k).tolist() if k.startswith("m/w") else None) for k, _ in keys},
    }
    # a tiny checkpoint in TF's own format, for tensorlet's TF-format reader
    tfd = os.path.join(OUT, "tf_ckpt")
    shutil.rmtree(tfd, ignore_errors=True)
    os.makedirs(tfd)
    vals = tf.train.Checkpoint(
        f=tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3)), i=tf.Variable(np.int64(-7)),
        s=tf.Variable([b"a", b"", b"xyz" * 50]), b=tf.Variable(tf.constant([1.5, -2.25], tf.bfloat16)),
        t=tf.Variable([True, False, True]), h=tf.Variable(np.float16(0.5)), m=m)
    vals.write(os.path.join(tfd, "tfck"))
    out["tf_ckpt_keys"] = [[k, s] for k, s in tf.train.list_variables(os.path.join(tfd, "tfck"))]
    shutil.rmtree(d)
    return out


def record_summaries():
    d = tempfile.mkdtemp()
    w = tf.summary.create_file_writer(d)
    with w.as_default(step=3):
        tf.summary.scalar("loss", 0.5)
        tf.summary.scalar("loss_int", 2)
        tf.summary.scalar("described", 1.25, step=4, description="a description")
        with tf.name_scope("scope"):
            tf.summary.scalar("inner", 7.0)
        tf.summary.histogram("h", [1.0, 2.0, 2.0, 5.0])
        tf.summary.histogram("h_empty", tf.zeros([0]))
        tf.summary.histogram("h_const", [3.0, 3.0])
        tf.summary.histogram("h_b3", [1.0, 2.0, 2.0, 5.0], buckets=3)
        tf.summary.histogram("h_normal", np.random.RandomState(0).randn(1000).astype(np.float32))
        tf.summary.histogram("h_int", np.arange(10), buckets=4)
        rgb = np.linspace(0, 1, 2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
        tf.summary.image("img", rgb, max_outputs=3)
        tf.summary.image("img_u8", np.arange(2 * 2 * 3, dtype=np.uint8).reshape(1, 2, 3, 2) * 20, max_outputs=1)
        tf.summary.image("img_gray", rgb[:, :, :, :1], max_outputs=1)
        tf.summary.text("t", "hello")
        tf.summary.text("t2", [["a", "b"], ["c", "d"]])
        clip = np.array([[[0.5], [-0.5], [1.0], [-1.0], [3 / 65536], [-3 / 65536], [0.3], [1.7]]], np.float32)
        tf.summary.audio("a", clip, 8000)
        tf.summary.audio("a_stereo", np.stack([clip[0], -clip[0]], axis=-1)[None, :, :, 0], 16000)
        tf.summary.write("raw", tf.constant([1, 2, 3]), metadata=b"")
    w.close()
    files = os.listdir(d)
    out = {"file_names": files, "events": events_json(os.path.join(d, files[0]))}
    shutil.rmtree(d)
    return out


def record_keras_callback():
    import keras

    d = tempfile.mkdtemp()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d1"), keras.layers.Dense(1, name="d2")])
    model.compile(keras.optimizers.SGD(0.01), "mse", metrics=["mae"])
    x = np.ones((20, 4), np.float32)
    y = np.ones((20, 1), np.float32)
    layouts = {}
    for label, kw in [("epoch", dict(histogram_freq=1, update_freq="epoch", write_graph=False)),
                      ("int2", dict(histogram_freq=0, update_freq=2, write_graph=False))]:
        sub = os.path.join(d, label)
        cb = keras.callbacks.TensorBoard(sub, **kw)
        model.fit(x, y, batch_size=4, epochs=2, validation_data=(x[:8], y[:8]), callbacks=[cb], verbose=0)
        entries = []
        for root, _, fs in sorted(os.walk(sub)):
            for f in sorted(fs):
                for ev in events_json(os.path.join(root, f)):
                    entries.append([os.path.relpath(root, sub), ev["step"], ev["tag"], ev["plugin_name"],
                                    ev["tensor"]["dtype"], ev["tensor"]["shape"]])
        layouts[label] = entries
    shutil.rmtree(d)
    return layouts


def main():
    os.makedirs(OUT, exist_ok=True)
    ck = record_checkpoints()
    with open(os.path.join(OUT, "checkpoints.json"), "w") as f:
        json.dump(ck, f, indent=1, sort_keys=True)
    summ = record_summaries()
    summ["keras_callback"] = record_keras_callback()
    with open(os.path.join(OUT, "summaries.json"), "w") as f:
        json.dump(summ, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
