"""A model defined in a throwaway module is saved in one process and loaded in a fresh one that never imports
(and cannot import) that module: the loaded functions run from the saved graph IR alone."""

import json
import os
import subprocess
import sys
import textwrap

MODEL_SRC = textwrap.dedent('''
    import numpy as np
    import tensorlet as tf


    class Block(tf.Module):
        def __init__(self, n_in, n_out, seed):
            super().__init__()
            rng = np.random.default_rng(seed)
            self.w = tf.Variable(rng.standard_normal((n_in, n_out)).astype(np.float32), name="w")
            self.b = tf.Variable(np.zeros(n_out, np.float32), name="b")

        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)


    class SecretModel(tf.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(4, 8, 0), Block(8, 3, 1)]
            self.scale = tf.Variable(0.5, trainable=False)

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="features")])
        def predict(self, x):
            h = x
            for blk in self.blocks:
                h = blk(h)
            return {"probs": tf.nn.softmax(h * self.scale), "top": tf.argmax(h, axis=1)}

        @tf.function
        def loss(self, x, y):
            p = self.predict(x)["probs"]
            return -tf.reduce_mean(tf.reduce_sum(y * tf.math.log(p + 1e-6), axis=1))
''')

SAVE = textwrap.dedent('''
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import tensorlet as tf
    import secret_model_def
    m = secret_model_def.SecretModel()
    x = np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1]]
    out = m.predict(tf.constant(x))
    loss = m.loss(tf.constant(x), tf.constant(y))
    tf.saved_model.save(m, sys.argv[2])
    json.dump({"x": x.tolist(), "y": y.tolist(), "probs": out["probs"].numpy().tolist(),
               "top": out["top"].numpy().tolist(), "loss": float(loss)}, open(sys.argv[3], "w"))
''')

LOAD = textwrap.dedent('''
    import json, sys
    import numpy as np
    import tensorlet as tf
    ref = json.load(open(sys.argv[2]))
    loaded = tf.saved_model.load(sys.argv[1])
    assert not [k for k in sys.modules if "secret_model_def" in k], "the defining module was imported"
    x, y = tf.constant(np.array(ref["x"], np.float32)), tf.constant(np.array(ref["y"], np.float32))
    sig = loaded.signatures["serving_default"]
    res = {"sig": {k: v.numpy().tolist() for k, v in sig(features=x).items()},
           "probs": loaded.predict(x)["probs"].numpy().tolist(),
           "loss": float(loaded.loss(x, y)),
           "names": sorted(v.name for v in loaded.trainable_variables)}
    # fine-tune: gradient steps through the loaded function lower the loss
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = loaded.loss(x, y)
        grads = tape.gradient(loss, loaded.trainable_variables)
        for v, g in zip(loaded.trainable_variables, grads):
            v.assign_sub(0.5 * g)
    res["loss_after"] = float(loaded.loss(x, y))
    print(json.dumps(res))
''')


def _run(args, cwd):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=180, cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_load_in_fresh_process_without_the_defining_module(tmp_path):
    src_dir = tmp_path / "src"
    src_dir.mkdir()
    (src_dir / "secret_model_def.py").write_text(MODEL_SRC)
    (tmp_path / "save.py").write_text(SAVE)
    (tmp_path / "load.py").write_text(LOAD)
    export, ref = tmp_path / "export", tmp_path / "ref.json"
    _run(["save.py", str(src_dir), str(export), str(ref)], cwd=tmp_path)
    (src_dir / "secret_model_def.py").unlink()  # the code is gone: only the SavedModel remains
    out = json.loads(_run(["load.py", str(export), str(ref)], cwd=tmp_path).strip().splitlines()[-1])
    expect = json.load(open(ref))
    assert out["sig"]["top"] == expect["top"]
    import numpy as np

    np.testing.assert_allclose(out["sig"]["probs"], expect["probs"], rtol=1e-6)
    np.testing.assert_allclose(out["probs"], expect["probs"], rtol=1e-6)
    assert abs(out["loss"] - expect["loss"]) < 1e-5
    assert out["names"] == ["b:0", "b:0", "w:0", "w:0"]
    assert out["loss_after"] < out["loss"] * 0.8


FIRST_CALL = textwrap.dedent('''
    import json, os, sys
    import numpy as np
    import tensorlet as tf
    gold = sys.argv[1]
    values = json.load(open(os.path.join(gold, "values.json")))
    out = {}
    for name in ("mlp", "cnn"):
        x = values[name]["x"]
        x = tf.constant(np.array(x["values"], dtype=x["dtype"]).reshape(x["shape"]))
        m = tf.saved_model.load(os.path.join(gold, name))
        out[name] = m.serve(x).numpy().tolist()
    out["jax_imported"] = "jax" in sys.modules
    out["ml_dtypes_imported"] = "ml_dtypes" in sys.modules  # bfloat16's NumPy type: imported when first used
    print(json.dumps(out))
''')


def test_tf_written_keras_savedmodels_load_and_answer_without_importing_jax(tmp_path):
    # load + first call of a TF-written Keras SavedModel (issue 13's speed target): the graphs are traced and the
    # first call runs on the NumPy executor; shapes are learnt from the NumPy kernels, so jax (seconds to import)
    # is not imported until a later call compiles
    import numpy as np

    gold = os.path.join(os.path.dirname(__file__), "..", "goldens", "tf_saved_model")
    (tmp_path / "first.py").write_text(FIRST_CALL)
    out = json.loads(_run(["first.py", os.path.abspath(gold)], cwd=tmp_path).strip().splitlines()[-1])
    values = json.load(open(os.path.join(gold, "values.json")))
    for name in ("mlp", "cnn"):
        want = values[name]["serve"]
        np.testing.assert_allclose(np.array(out[name]).ravel(), np.array(want["values"]).ravel(), rtol=1e-5,
                                   atol=1e-7)
    assert out["jax_imported"] is False
    assert out["ml_dtypes_imported"] is False
