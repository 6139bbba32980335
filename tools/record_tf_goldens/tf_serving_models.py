"""Records SavedModels written by real TensorFlow the ways TF Serving users write them, and what TF computes on
them, for tests/serving/test_tf_written.py (run outside CI):

    /work/tfvenv/bin/python tools/record_tf_goldens/tf_serving_models.py   # writes tests/goldens/tf_serving/

Each model is ``<name>/1/`` (TF Serving's layout), a few tens of kilobytes:

- ``kfunc``      Keras 3 ``model.export()`` of a functional model with two named inputs joined by Concatenate
- ``kprep``      Keras 3 ``model.export()`` of Normalization, Hashing -> CategoryEncoding, Discretization (a string
                 and a float input)
- ``krnn``       Keras 3 ``model.export()`` of Masking -> LSTM (sequences) -> GRU -> Dense over (None, None, 3)
                 inputs (While loops over TensorLists)
- ``multi``      ``tf.saved_model.save`` of a tf.Module with several signatures: several outputs of different
                 dtypes/ranks (serving_default), int64 + string inputs, a scalar output, a (None, None) input,
                 a uint8 image, half + bfloat16, a string input fed binary bytes
- ``ctl``        a scalar input, tf.while_loop / tf.cond, tf.map_fn / tf.scan, a variable updated by the
                 signature, float64 / int64 / uint8 and a ``*_bytes`` string output
- ``lookup``     tf.lookup.StaticHashTable + Keras StringLookup (serving_default) and TextVectorization (text)
- ``lookupfile`` tf.lookup.StaticVocabularyTable over a vocabulary file (an asset)
- ``v1cls``      a TF1 ``saved_model.Builder`` model: classification / regression / predict SignatureDefs over
                 serialized tf.Example, with a warmup file of classify and regress logs
- ``warm``       a tf.Module with ``assets.extra/tf_serving_warmup_requests`` (PredictionLog records)
- ``values.json`` inputs and the outputs TF's ``loaded.signatures[...]`` returns for them
"""

import base64
import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow_serving.apis import (classification_pb2, model_pb2, predict_pb2, prediction_log_pb2,  # noqa: E402
                                     regression_pb2)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "tf_serving")
RNG = np.random.default_rng(0)


def path(name):
    return os.path.join(OUT, name, "1")


def kfunc():
    keras.utils.set_random_seed(0)
    a, b = keras.Input((3,), name="age"), keras.Input((2,), name="feat")
    o = keras.layers.Dense(2, name="out")(keras.layers.Concatenate()([a, b]))
    keras.Model({"age": a, "feat": b}, o).export(path("kfunc"), verbose=False)


def kprep():
    keras.utils.set_random_seed(0)
    num, cat = keras.Input((2,), name="num"), keras.Input((1,), name="cat", dtype="string")
    norm = keras.layers.Normalization()
    norm.adapt(np.array([[1.0, 2.0], [3.0, 6.0]]))
    onehot = keras.layers.CategoryEncoding(num_tokens=5, output_mode="one_hot")(keras.layers.Hashing(num_bins=5)(cat))
    bins = keras.layers.Discretization(bin_boundaries=[0.0, 1.0])(num)
    x = keras.layers.Concatenate()([norm(num), onehot, keras.layers.Lambda(lambda t: tf.cast(t, "float32"))(bins)])
    keras.Model({"num": num, "cat": cat}, keras.layers.Dense(1)(x)).export(path("kprep"), verbose=False)


def krnn():
    keras.utils.set_random_seed(0)
    x = keras.Input((None, 3), name="seq")
    h = keras.layers.LSTM(2, return_sequences=True)(keras.layers.Masking(0.0)(x))
    keras.Model(x, keras.layers.Dense(1)(keras.layers.GRU(2)(h))).export(path("krnn"), verbose=False)


class Multi(tf.Module):
    def __init__(self):
        self.w = tf.Variable(RNG.normal(size=(3, 2)).astype("float32"))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def multi(self, x):
        y = tf.matmul(x, self.w)
        return {"y": y, "am": tf.argmax(y, axis=1), "s": tf.reduce_sum(y), "b": y > 0, "d": tf.cast(y, tf.float64),
                "i8": tf.cast(y * 10, tf.int8)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64, name="ids"),
                                  tf.TensorSpec([None], tf.string, name="words")])
    def mixed(self, ids, words):
        return {"ids2": ids * 2, "lens": tf.strings.length(words), "up": tf.strings.upper(words)}

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def scalar(self, x):
        return tf.reduce_mean(x)

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32, name="seq")])
    def varlen(self, seq):
        return {"total": tf.reduce_sum(seq, axis=1), "cum": tf.cumsum(seq, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([None, 2, 2, 3], tf.uint8, name="image")])
    def image(self, image):
        return {"mean": tf.reduce_mean(tf.cast(image, tf.float32) / 255.0, axis=[1, 2, 3]),
                "flip": tf.image.flip_left_right(image)}

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float16, name="h"),
                                  tf.TensorSpec([None, 2], tf.bfloat16, name="bf")])
    def half(self, h, bf):
        return {"h2": h * 2, "bf2": bf + bf, "hf": tf.cast(h, tf.float32)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="blob")])
    def blob(self, blob):
        return {"len": tf.strings.length(blob), "echo_bytes": blob}


class Ctl(tf.Module):
    def __init__(self):
        self.count = tf.Variable(0, dtype=tf.int64)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.float32, name="temp")])
    def scaled(self, x, temp):
        return {"y": tf.nn.softmax(x / temp)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32, name="n")])
    def loop(self, n):
        _, acc = tf.while_loop(lambda i, acc: i < tf.reduce_max(n),
                               lambda i, acc: (i + 1, acc + tf.cast(i, tf.float32)), [0, 0.0])
        word = tf.cond(acc > 3.0, lambda: tf.constant("big"), lambda: tf.constant("small"))
        return {"acc": tf.fill(tf.shape(n), acc), "word": tf.fill(tf.shape(n), word)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.bool, name="flags"),
                                  tf.TensorSpec([None], tf.string, name="names")])
    def fmt(self, flags, names):
        self.count.assign_add(1)
        return {"s": tf.where(flags, tf.strings.join([names, "!"]), names),
                "joined": tf.fill(tf.shape(flags), tf.strings.reduce_join(names, separator=",")),
                "count": tf.fill(tf.shape(flags), self.count)}

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64, name="x"),
                                  tf.TensorSpec([None, 2], tf.int64, name="i")])
    def wide(self, x, i):
        return {"x_out_bytes": tf.strings.as_string(x[:, 0]), "prod": x * tf.cast(i, tf.float64),
                "i32": tf.cast(i, tf.int32), "u8": tf.cast(i, tf.uint8)}


    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def seq(self, x):  # TensorLists in While loops of run-time length
        return {"m": tf.map_fn(lambda r: tf.reduce_sum(r * r), x), "s": tf.scan(lambda a, r: a + r, x)}


class Lookup(tf.Module):
    def __init__(self):
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64)), -1)
        self.sl = keras.layers.StringLookup(vocabulary=["cat", "dog", "bird"])
        self.tv = keras.layers.TextVectorization(max_tokens=10, output_sequence_length=4)
        self.tv.adapt(["the cat sat", "the dog ran far away"])

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="keys")])
    def serve(self, keys):
        return {"ids": self.table.lookup(keys), "sl": self.sl(keys)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def text(self, text):
        return {"tokens": self.tv(text)}


class LookupFile(tf.Module):
    def __init__(self, vocab):
        init = tf.lookup.TextFileInitializer(vocab, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                             tf.lookup.TextFileIndex.LINE_NUMBER)
        self.table = tf.lookup.StaticVocabularyTable(init, 1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="keys")])
    def serve(self, keys):
        return {"ids": self.table.lookup(keys)}


class Warm(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def serve(self, x):
        return {"y": x + 1.0}


def example(x):
    return tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
        float_list=tf.train.FloatList(value=x))}))


def v1cls():
    g = tf.Graph()
    with g.as_default():
        ser = tf.compat.v1.placeholder(tf.string, [None], name="tf_example")
        x = tf.io.parse_example(ser, {"x": tf.io.FixedLenFeature([2], tf.float32)})["x"]
        w = tf.compat.v1.get_variable("w", initializer=tf.constant([[1.0, -1.0, 0.5], [0.5, 2.0, -1.0]]))
        scores = tf.nn.softmax(tf.matmul(x, w))
        classes = tf.tile(tf.constant([["c0", "c1", "c2"]]), [tf.shape(x)[0], 1])
        reg = tf.reduce_sum(x, axis=1, keepdims=True) * 1.5
        px = tf.compat.v1.placeholder(tf.float32, [None, 2], name="px")
        v1 = tf.compat.v1.saved_model
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            b = v1.Builder(path("v1cls"))
            b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
                "serving_default": v1.classification_signature_def(ser, classes, scores),
                "classify_scores": v1.classification_signature_def(ser, None, scores),
                "regress": v1.regression_signature_def(ser, reg),
                "predict": v1.predict_signature_def({"px": px}, {"logits": tf.matmul(px, w)})})
            b.save()
    logs = []
    req = classification_pb2.ClassificationRequest(model_spec=model_pb2.ModelSpec(name="v1cls"))
    req.input.example_list.examples.add().CopyFrom(example([1.0, 2.0]))
    logs.append(prediction_log_pb2.PredictionLog(classify_log=prediction_log_pb2.ClassifyLog(request=req)))
    req = regression_pb2.RegressionRequest(model_spec=model_pb2.ModelSpec(name="v1cls", signature_name="regress"))
    req.input.example_list.examples.add().CopyFrom(example([1.0, 2.0]))
    logs.append(prediction_log_pb2.PredictionLog(regress_log=prediction_log_pb2.RegressLog(request=req)))
    write_warmup("v1cls", logs)


def write_warmup(name, logs):
    os.makedirs(os.path.join(path(name), "assets.extra"), exist_ok=True)
    with tf.io.TFRecordWriter(os.path.join(path(name), "assets.extra", "tf_serving_warmup_requests")) as w:
        for log in logs:
            w.write(log.SerializeToString())


def encode(a):
    a = np.asarray(a)
    if a.dtype == object or a.dtype.kind == "S":
        vals = [base64.b64encode(x).decode() for x in a.reshape(-1).tolist()]
    else:
        vals = a.astype(np.float64 if a.dtype.kind == "f" or a.dtype.name == "bfloat16" else a.dtype).reshape(-1)
        vals = vals.tolist()
    name = "string" if a.dtype == object or a.dtype.kind == "S" else tf.as_dtype(a.dtype).name
    return {"dtype": name, "shape": list(a.shape), "values": vals}


CASES = [
    ("kfunc", "serving_default", {"age": np.arange(6, dtype=np.float32).reshape(2, 3),
                                  "feat": np.array([[1, -1], [0.5, 2]], np.float32)}),
    ("kprep", "serving_default", {"num": np.array([[1, 2], [0.5, -1]], np.float32),
                                  "cat": np.array([[b"a"], [b"zz"]], object)}),
    ("krnn", "serving_default", {"seq": np.array([[[1, 2, 0.5], [0, 0, 0], [-1, 0.5, 2]],
                                                  [[0.5, -1, 1], [2, 1, 0], [0, 0, 0]]], np.float32)}),
    ("multi", "serving_default", {"x": np.arange(6, dtype=np.float32).reshape(2, 3) - 2}),
    ("multi", "mixed", {"ids": np.array([1, 2, 3 << 40], np.int64), "words": np.array([b"ab", b"cde", b""], object)}),
    ("multi", "scalar", {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}),
    ("multi", "varlen", {"seq": np.arange(8, dtype=np.float32).reshape(2, 4)}),
    ("multi", "image", {"image": np.arange(24, dtype=np.uint8).reshape(2, 2, 2, 3) * 10}),
    ("multi", "half", {"h": np.array([[1.5, 2.25]], np.float16), "bf": np.array([[1.5, -3.0]], np.float32)}),
    ("multi", "blob", {"blob": np.array([b"\x00\xff\x10", b"hi"], object)}),
    ("ctl", "serving_default", {"x": np.array([1.0, 2.0, 3.0], np.float32), "temp": np.float32(0.5)}),
    ("ctl", "loop", {"n": np.array([1, 4], np.int32)}),
    ("ctl", "fmt", {"flags": np.array([True, False]), "names": np.array([b"ab", b"cd"], object)}),
    ("ctl", "wide", {"x": np.array([[1.5, 2.0]], np.float64), "i": np.array([[3, 4]], np.int64)}),
    ("ctl", "seq", {"x": np.arange(6, dtype=np.float32).reshape(2, 3) - 1}),
    ("lookup", "serving_default", {"keys": np.array([b"a", b"cat", b"the dog", b"zz"], object)}),
    ("lookup", "text", {"text": np.array([b"The cat, sat!", b"", b"dog ran far away now ok"], object)}),
    ("lookupfile", "serving_default", {"keys": np.array([b"x", b"z", b"q"], object)}),
    ("warm", "serving_default", {"x": np.array([[1, 2]], np.float32)}),
    ("v1cls", "predict", {"px": np.array([[1, 2], [0.5, -1]], np.float32)}),
]
EXAMPLES = [[1.0, 2.0], [0.5, -1.0]]


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    kfunc()
    kprep()
    krnn()
    m = Multi()
    tf.saved_model.save(m, path("multi"), signatures={"serving_default": m.multi, "mixed": m.mixed,
                                                      "scalar": m.scalar, "varlen": m.varlen, "image": m.image,
                                                      "half": m.half, "blob": m.blob})
    c = Ctl()
    tf.saved_model.save(c, path("ctl"), signatures={"serving_default": c.scaled, "loop": c.loop, "fmt": c.fmt,
                                                    "wide": c.wide, "seq": c.seq})
    lk = Lookup()
    tf.saved_model.save(lk, path("lookup"), signatures={"serving_default": lk.serve, "text": lk.text})
    vocab = os.path.join(OUT, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("x\ny\nz\n")
    lf = LookupFile(vocab)
    tf.saved_model.save(lf, path("lookupfile"), signatures={"serving_default": lf.serve})
    os.remove(vocab)  # (the SavedModel holds its copy under assets/)
    w = Warm()
    tf.saved_model.save(w, path("warm"), signatures={"serving_default": w.serve})
    req = predict_pb2.PredictRequest(model_spec=model_pb2.ModelSpec(name="warm"),
                                     inputs={"x": tf.make_tensor_proto([[1.0, 2.0]], tf.float32)})
    write_warmup("warm", [prediction_log_pb2.PredictionLog(predict_log=prediction_log_pb2.PredictLog(request=req))] * 3)
    v1cls()

    cases = []
    for model, sig, inputs in CASES:
        fn = tf.saved_model.load(path(model)).signatures[sig]  # a fresh load: ctl's counter starts at 0
        feed = {k: tf.constant(v, tf.bfloat16 if k == "bf" else None) for k, v in inputs.items()}
        out = fn(**feed)
        cases.append({"model": model, "signature": sig, "inputs": {k: encode(v.numpy()) for k, v in feed.items()},
                      "outputs": {k: encode(v.numpy()) for k, v in out.items()}})
    loaded = tf.saved_model.load(path("v1cls"))
    ser = tf.constant([example(x).SerializeToString() for x in EXAMPLES])
    examples = {"examples": EXAMPLES,
                "classify": {k: encode(v.numpy()) for k, v in loaded.signatures["serving_default"](inputs=ser).items()},
                "classify_scores": encode(loaded.signatures["classify_scores"](inputs=ser)["scores"].numpy()),
                "regress": encode(loaded.signatures["regress"](inputs=ser)["outputs"].numpy())}
    metadata = {}
    for model in sorted({c[0] for c in CASES}):
        sm = tf.saved_model.load(path(model))
        metadata[model] = sorted(sm.signatures)
    with open(os.path.join(OUT, "values.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "keras": keras.__version__, "cases": cases, "v1cls": examples,
                   "signatures": metadata}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
