"""``tensorlet saved_model show`` prints what TF's ``saved_model_cli show`` prints (goldens recorded from TF 2.21
by tools/record_tf_goldens/saved_model.py for the same models)."""

import json
import os
import re
import subprocess
import sys
import warnings

import pytest

import tensorlet as tf
from tensorlet._src import cli

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "saved_model.json")))


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


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli")
    m = M()
    m.g(tf.constant([1.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.g(tf.constant([[1.0]]), 3.0)
    tf.saved_model.save(m, str(base / "m1"))
    p = P()
    tf.saved_model.save(p, str(base / "m2"), signatures={"one": p.h, "two": p.h2.get_concrete_function()})
    return {"m1": str(base / "m1"), "m2": str(base / "m2")}


def _show(capsys, *args):
    assert cli.main(["saved_model", "show", *args]) == 0
    return capsys.readouterr().out


def _normalize(text):
    """The op list names each implementation's own ops, and TF orders a function's options by internal names:
    compare the op line's presence and the options as a set."""
    text = re.sub(r"contains the following ops: \{.*\}", "contains the following ops: {...}", text)
    head, sep, funcs = text.partition("\nConcrete Functions:")
    blocks = []
    for fn in funcs.split("\n\n"):
        parts = re.split(r"(?=    Option #\d+\n)", fn)
        options = sorted(re.sub(r"Option #\d+", "Option", p) for p in parts[1:])
        blocks.append(parts[0] + "".join(options))
    return head + sep + "\n\n".join(blocks)


@pytest.mark.parametrize("model", ["m1", "m2"])
def test_show_all_matches_tf(dirs, capsys, model):
    got = _show(capsys, "--dir", dirs[model], "--all")
    assert _normalize(got) == _normalize(GOLDEN[f"{model}_all"])
    assert "'MatMul'" in got if model == "m1" else "'Cast'" in got


@pytest.mark.parametrize("model", ["m1", "m2"])
def test_show_tag_sets_and_signature_keys(dirs, capsys, model):
    assert _show(capsys, "--dir", dirs[model]) == GOLDEN[f"{model}_tagsets"]
    assert _show(capsys, "--dir", dirs[model], "--tag_set", "serve") == GOLDEN[f"{model}_tag"]


def test_show_one_signature(dirs, capsys):
    got = _show(capsys, "--dir", dirs["m1"], "--tag_set", "serve", "--signature_def", "serving_default")
    assert got == GOLDEN["m1_sig"]
    got = _show(capsys, "--dir", dirs["m2"], "--tag_set", "serve", "--signature_def", "two")
    assert got == GOLDEN["m2_sig_two"]


def test_errors(dirs, capsys, tmp_path):
    assert cli.main(["saved_model", "show", "--dir", str(tmp_path)]) == 1
    assert "SavedModel file does not exist" in capsys.readouterr().err
    assert cli.main(["saved_model", "show", "--dir", dirs["m1"], "--tag_set", "train"]) == 1
    assert "could not be found in the SavedModel" in capsys.readouterr().err


def test_command_line_entry_point(dirs):
    r = subprocess.run([sys.executable, "-m", "tensorlet", "saved_model", "show", "--dir", dirs["m1"], "--tag_set",
                        "serve", "--signature_def", "serving_default"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == GOLDEN["m1_sig"]
