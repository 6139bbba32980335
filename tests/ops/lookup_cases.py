"""tf.lookup programs run by real TF (tools/record_tf_goldens/lookup.py -> tests/goldens/lookup.json) and by
tensorlet (tests/ops/test_lookup.py)."""

import os
import tempfile


def _vocab_file():
    path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(path, "w") as f:
        f.write("emerson\t10\nlake\t20\npalmer\t30\n")
    return path


def _kv(tf):
    return tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b", "c"]), tf.constant([7, 8, 9], tf.int64))


CASES = {
    "static_lookup": lambda tf: tf.lookup.StaticHashTable(_kv(tf), -1).lookup(tf.constant(["b", "z", "a", "c"])),
    "static_2d": lambda tf: tf.lookup.StaticHashTable(_kv(tf), -1).lookup(tf.constant([["a", "q"], ["c", "b"]])),
    "static_size": lambda tf: tf.lookup.StaticHashTable(_kv(tf), -1).size(),
    "static_int_keys": lambda tf: tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([3, 1, 2], tf.int64), tf.constant([0.5, 1.5, 2.5])),
        -1.0).lookup(tf.constant([1, 5, 3], tf.int64)),
    "static_str_values": lambda tf: tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), tf.constant(["x", "y"])),
        "?").lookup(tf.constant([2, 9], tf.int64)),
    "vocab_oov": lambda tf: tf.lookup.StaticVocabularyTable(_kv(tf), num_oov_buckets=5).lookup(
        tf.constant(["a", "zebra", "c", "unknown", "b"])),
    "vocab_size": lambda tf: tf.lookup.StaticVocabularyTable(_kv(tf), num_oov_buckets=5).size(),
    "text_file": lambda tf: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        _vocab_file(), tf.string, 0, tf.int64, 1, delimiter="\t"), -1).lookup(tf.constant(["lake", "x", "palmer"])),
    "text_file_line_number": lambda tf: tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        _vocab_file(), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER),
        -1).lookup(tf.constant(["lake\t20", "emerson\t10"])),
    "mutable": lambda tf: _mutable(tf),
    "in_function": lambda tf: _in_function(tf),
}


def _mutable(tf):
    t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    t.insert(tf.constant(["x", "y"]), tf.constant([1, 2], tf.int64))
    t.insert(tf.constant(["y"]), tf.constant([5], tf.int64))
    t.remove(tf.constant(["x"]))
    return t.lookup(tf.constant(["x", "y", "w"])), t.size()


def _in_function(tf):
    table = tf.lookup.StaticHashTable(_kv(tf), -1)

    @tf.function
    def f(x):
        return table.lookup(x) * 2

    return f(tf.constant(["c", "nope"]))
