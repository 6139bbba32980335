"""Records TF's ``saved_model_cli show`` output and signature facts for tests/saved_model (run with /work/tfenv).

    /work/tfenv/bin/python tools/record_tf_goldens/saved_model.py

Writes tests/goldens/saved_model.json.  The models mirror tests/saved_model/test_cli.py's.
"""

import json
import os
import subprocess
import sys
import tempfile

import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "goldens", "saved_model.json")


class Lin(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0], [2.0]], name="w")
        self.b = tf.Variable(0.5, name="b", trainable=False)


class M(tf.Module):
    def __init__(self):
        super().__init__()
        self.layer = Lin()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def f(self, x):
        return tf.matmul(x, self.layer.w) + self.layer.b

    @tf.function
    def g(self, x, y=2.0):
        return x * y


class P(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def h(self, a):
        return {"z": a, "y": a * 2}

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32, name="k")])
    def h2(self, a, b):
        return a, tf.cast(b, tf.float32)


def cli(*args):
    exe = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    r = subprocess.run([exe, "show", *args], capture_output=True, text=True, check=True)
    return r.stdout


def main():
    out = {}
    with tempfile.TemporaryDirectory() as d:
        m = M()
        m.g(tf.constant([1.0]))
        m.g(tf.constant([[1.0]]), 3.0)
        p1 = os.path.join(d, "m1")
        tf.saved_model.save(m, p1)
        p = P()
        p2 = os.path.join(d, "m2")
        tf.saved_model.save(p, p2, signatures={"one": p.h, "two": p.h2.get_concrete_function()})
        for key, path in (("m1", p1), ("m2", p2)):
            out[f"{key}_all"] = cli("--dir", path, "--all").replace(path, "DIR")
            out[f"{key}_tagsets"] = cli("--dir", path)
            out[f"{key}_tag"] = cli("--dir", path, "--tag_set", "serve")
        out["m1_sig"] = cli("--dir", p1, "--tag_set", "serve", "--signature_def", "serving_default")
        out["m2_sig_two"] = cli("--dir", p2, "--tag_set", "serve", "--signature_def", "two")
        loaded = tf.saved_model.load(p1)
        s = loaded.signatures["serving_default"]
        out["m1_outputs"] = {k: v.numpy().tolist() for k, v in s(x=tf.constant([[1.0, 1.0]])).items()}
        loaded2 = tf.saved_model.load(p2)
        out["m2_signatures"] = {name: {"inputs": sorted(fn.structured_input_signature[1]),
                                       "outputs": sorted(fn.structured_outputs)}
                                for name, fn in loaded2.signatures.items()}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
