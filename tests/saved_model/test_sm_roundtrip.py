"""tf.saved_model.save / load round trips: structure, signatures (TF's key names), functions, fine-tuning."""

import json
import os
import warnings

import numpy as np
import pytest

import tensorlet as tf


class Lin(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0], [2.0]], name="w")
        self.b = tf.Variable(0.5, name="b", trainable=False)


class M(tf.Module):
    def __init__(self):
        super().__init__()
        self.layer = Lin()
        self.extra = [tf.Variable(3.0, name="e0")]

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def f(self, x):
        return tf.matmul(x, self.layer.w) + self.layer.b

    @tf.function
    def g(self, x, y=2.0):
        return x * y, {"a": x + self.extra[0]}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    m = M()
    m.g(tf.constant([1.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the second trace is the point
        m.g(tf.constant([[1.0]]), 3.0)
    path = str(tmp_path_factory.mktemp("sm") / "m")
    tf.saved_model.save(m, path)
    return m, path


def test_layout_and_format(saved):
    _, path = saved
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(path, "variables"))) == ["variables.data-00000-of-00001",
                                                                   "variables.index"]
    from tensorlet._src.saved_model.tf_load import read_pb

    sm = read_pb(path)
    assert sm.saved_model_schema_version == 1 and list(sm.meta_graphs[0].meta_info_def.tags) == ["serve"]
    assert tf.saved_model.contains_saved_model(path)
    assert not tf.saved_model.contains_saved_model(os.path.dirname(path))
    # the variables directory is a real tensorlet checkpoint with TF's object-graph keys
    keys = dict(tf.train.list_variables(os.path.join(path, "variables", "variables")))
    assert keys["layer/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 1]
    assert keys["extra/0/.ATTRIBUTES/VARIABLE_VALUE"] == []


def test_structure_variables_and_calls(saved):
    m, path = saved
    loaded = tf.saved_model.load(path)
    assert float(loaded.layer.b) == 0.5 and loaded.layer.w.shape == (2, 1)
    assert float(loaded.extra[0]) == 3.0
    assert sorted(v.name for v in loaded.variables) == ["b:0", "e0:0", "w:0"]
    assert sorted(v.name for v in loaded.trainable_variables) == ["e0:0", "w:0"]
    assert not loaded.layer.b.trainable
    x = tf.constant([[1.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(loaded.f(x).numpy(), m.f(x).numpy())
    a, d = loaded.g(tf.constant([4.0]))  # default y=2.0 applied, as TF matches it
    np.testing.assert_allclose(a.numpy(), [8.0])
    np.testing.assert_allclose(d["a"].numpy(), [7.0])
    a, _ = loaded.g(x=tf.constant([[2.0]]), y=3.0)
    np.testing.assert_allclose(a.numpy(), [[6.0]])
    with pytest.raises(ValueError, match="Could not find matching concrete function to call loaded from the "
                                         "SavedModel"):
        loaded.g(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="Option 2"):
        loaded.g(tf.constant([1.0]), 5.0)
    assert len(loaded.g.concrete_functions) == 2
    assert loaded.f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32)) is loaded.f.concrete_functions[0]
    assert loaded.g.get_concrete_function(tf.TensorSpec([1, 1], tf.float32), 3.0) is loaded.g.concrete_functions[1]


def test_default_signature_tf_names(saved):
    _, path = saved
    loaded = tf.saved_model.load(path)
    assert list(loaded.signatures) == ["serving_default"]
    sig = loaded.signatures["serving_default"]
    _, kwargs = sig.structured_input_signature
    assert list(kwargs) == ["x"] and kwargs["x"].shape.as_list() == [None, 2]
    assert list(sig.structured_outputs) == ["output_0"]
    out = sig(x=tf.constant([[1.0, 1.0]]))
    assert list(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"].numpy(), [[3.5]])  # recorded from TF (goldens)
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        sig(z=tf.constant([[1.0, 1.0]]))
    assert "(*, x: TensorSpec(shape=(None, 2), dtype=tf.float32, name='x')) -> Dict[['output_0'" in repr(sig)


class P(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def h(self, a):
        return {"z": a, "y": a * 2}

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32, name="k")])
    def h2(self, a, b):
        return a, tf.cast(b, tf.float32)


def test_explicit_signatures_and_key_names(tmp_path):
    golden = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "saved_model.json")))
    p = P()
    tf.saved_model.save(p, str(tmp_path / "a"), signatures={"one": p.h, "two": p.h2.get_concrete_function()})
    loaded = tf.saved_model.load(str(tmp_path / "a"))
    got = {name: {"inputs": sorted(fn.structured_input_signature[1]), "outputs": sorted(fn.structured_outputs)}
           for name, fn in loaded.signatures.items()}
    assert got == golden["m2_signatures"]
    out = loaded.signatures["two"](a=tf.constant([1.0, 2.0]), k=tf.constant(3))
    assert float(out["output_1"]) == 3.0
    np.testing.assert_allclose(loaded.signatures["one"](a=tf.constant([1.0, 2.0]))["y"].numpy(), [2.0, 4.0])
    # two functions with input signatures: no default signature (TF's rule)
    tf.saved_model.save(p, str(tmp_path / "b"))
    assert list(tf.saved_model.load(str(tmp_path / "b")).signatures) == []


def test_bad_signature_arguments(tmp_path):
    class D(tf.Module):
        @tf.function
        def f(self, a):
            return a

    d = D()
    for bad in (d.f, 3):
        with pytest.raises(ValueError, match="Only `tf.functions` with an input signature or concrete functions can "
                                             "be used as a signature"):
            tf.saved_model.save(d, str(tmp_path / "x"), signatures=bad)
    assert not os.path.exists(tmp_path / "x")


def test_py_function_cannot_be_saved(tmp_path):
    class Q(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return tf.py_function(lambda v: v * 2, [x], tf.float32)

    with pytest.raises(ValueError, match=r"EagerPyFunc.*calls a Python function"):
        tf.saved_model.save(Q(), str(tmp_path / "q"))
    assert not os.path.exists(tmp_path / "q")


class Flow(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(1.5)
        self.count = tf.Variable(0, dtype=tf.int32, trainable=False)
        self.table = tf.constant(np.arange(1000, dtype=np.float32))  # > 1 KiB: stored in constants/

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)])
    def loop(self, x, n):
        i = tf.constant(0)
        acc = x
        while i < n:
            acc = acc * self.w
            i += 1
        self.count.assign_add(1)
        if acc > 10.0:
            acc = acc - 10.0
        else:
            acc = acc + tf.reduce_sum(self.table) * 0.0
        return acc

    @tf.function(jit_compile=True)
    def sliced(self, x):
        return x[1:, ..., None, ::-1] * self.w


def test_control_flow_state_constants_and_xla(tmp_path):
    m = Flow()
    want = float(m.loop(tf.constant(2.0), tf.constant(3)))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    want_sl = m.sliced(x).numpy()
    path = str(tmp_path / "flow")
    tf.saved_model.save(m, path)
    loaded = tf.saved_model.load(path)
    start = int(loaded.count)
    for i in range(3):  # first call on the NumPy executor, then compiled
        assert float(loaded.loop(tf.constant(2.0), tf.constant(3))) == pytest.approx(want)
        assert int(loaded.count) == start + i + 1  # variable writes inside the loaded function persist
    cf = loaded.sliced.concrete_functions[0]
    assert cf._jit is True
    np.testing.assert_allclose(loaded.sliced(x).numpy(), want_sl)
    assert cf._compiled is not None  # jit_compile=True survived the round trip: it ran through XLA


def test_fine_tuning_gradients_flow(tmp_path):
    m = Flow()
    path = str(tmp_path / "ft")
    tf.saved_model.save(m, path)
    loaded = tf.saved_model.load(path)
    assert loaded.w.trainable
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.loop(x, tf.constant(3))  # x * w**3 (w=1.5: 6.75 < 10)
    gx, gw = tape.gradient(y, [x, loaded.w])
    assert float(gx) == pytest.approx(1.5 ** 3)
    assert float(gw) == pytest.approx(3 * 2.0 * 1.5 ** 2)
    # a few SGD steps on the loaded variable: the loss goes down
    target = 4.0
    losses = []
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = (loaded.loop(x, tf.constant(3)) - target) ** 2
        (g,) = tape.gradient(loss, [loaded.w])
        loaded.w.assign_sub(0.01 * g)
        losses.append(float(loss))
    assert losses[-1] < losses[0] / 2


def test_signature_gradient_and_trainable_variables(saved):
    _, path = saved
    loaded = tf.saved_model.load(path)
    with tf.GradientTape() as tape:
        out = loaded.signatures["serving_default"](x=tf.constant([[1.0, 1.0]]))["output_0"]
    grads = tape.gradient(out, loaded.trainable_variables)
    by_name = {v.name: g for v, g in zip(loaded.trainable_variables, grads)}
    np.testing.assert_allclose(by_name["w:0"].numpy(), [[1.0], [1.0]])


def test_assets(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")

    class H(tf.Module):
        def __init__(self):
            self.asset = tf.saved_model.Asset(str(vocab))

        @tf.function(input_signature=[])
        def content(self):
            return tf.io.read_file(self.asset.asset_path)

    path = str(tmp_path / "with_asset")
    tf.saved_model.save(H(), path)
    import sm_tf_checks

    sm_tf_checks.check_saved_model(sm_tf_checks.parse(os.path.join(path, "saved_model.pb")))
    vocab.unlink()
    loaded = tf.saved_model.load(path)
    new = os.path.join(path, "assets", "vocab.txt")
    assert loaded.asset.asset_path.numpy() == new.encode()
    assert loaded.content().numpy() == b"a\nb\n"
    assert loaded.signatures["serving_default"]()["output_0"].numpy() == b"a\nb\n"


def test_resave_loaded_and_overwrite(saved, tmp_path):
    m, path = saved
    loaded = tf.saved_model.load(path)
    again = str(tmp_path / "again")
    tf.saved_model.save(loaded, again)  # the loaded signatures are saved again
    twice = tf.saved_model.load(again)
    x = tf.constant([[1.0, 2.0]])
    np.testing.assert_allclose(twice.f(x).numpy(), m.f(x).numpy())
    np.testing.assert_allclose(twice.signatures["serving_default"](x=x)["output_0"].numpy(), m.f(x).numpy())
    np.testing.assert_allclose(twice.g(tf.constant([1.0]))[0].numpy(), [2.0])
    # saving over an existing SavedModel replaces it
    twice.layer.w.assign([[10.0], [10.0]])
    tf.saved_model.save(twice, again)
    np.testing.assert_allclose(tf.saved_model.load(again).f(x).numpy(), [[30.5]])


def test_checkpoint_restores_from_saved_model_variables(saved):
    _, path = saved
    fresh = M()
    fresh.layer.w.assign([[0.0], [0.0]])
    tf.train.Checkpoint(fresh).restore(os.path.join(path, "variables", "variables"))
    np.testing.assert_allclose(fresh.layer.w.numpy(), [[1.0], [2.0]])


def test_loaded_function_inside_tf_function(saved):
    _, path = saved
    loaded = tf.saved_model.load(path)

    @tf.function
    def outer(x):
        return loaded.f(x) * 2.0

    np.testing.assert_allclose(outer(tf.constant([[1.0, 1.0]])).numpy(), [[7.0]])


def test_save_inside_function_and_untrackable(tmp_path):
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(3, str(tmp_path / "n"))

    @tf.function
    def inner():
        tf.saved_model.save(M(), str(tmp_path / "n"))
        return tf.constant(1)

    with pytest.raises(AssertionError, match="not supported inside a traced @tf.function"):
        inner()


def test_load_missing_and_tags(saved, tmp_path):
    _, path = saved
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(str(tmp_path / "nothing"))
    assert tf.saved_model.load(path, tags=["serve"]) is not None
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        tf.saved_model.load(path, tags="train")


def test_lazy_package():
    import subprocess
    import sys

    code = ("import sys, tensorlet as tf; assert not [m for m in sys.modules if "
            "m.startswith('tensorlet._src.saved_model')]; tf.saved_model.SaveOptions(); tf.saved_model.LoadOptions()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_interrupted_save_keeps_the_previous_model(saved, tmp_path, monkeypatch):
    m, _ = saved
    path = str(tmp_path / "crash")
    tf.saved_model.save(m, path)

    def boom(*a, **k):
        raise OSError("disk full")

    from tensorlet._src.saved_model import tf_save

    monkeypatch.setattr(tf_save, "_write_file", boom)  # fails after the new variables were written
    m.layer.w.assign([[5.0], [5.0]])
    with pytest.raises(OSError, match="disk full"):
        tf.saved_model.save(m, path)
    with pytest.raises(OSError, match="disk full"):
        tf.saved_model.save(m, str(tmp_path / "fresh"))
    monkeypatch.undo()
    assert not os.path.exists(tmp_path / "fresh")
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]  # no leftovers
    np.testing.assert_allclose(tf.saved_model.load(path).layer.w.numpy(), [[1.0], [2.0]])
    m.layer.w.assign([[1.0], [2.0]])
    assert sorted(os.listdir(tmp_path)) == ["crash"]
