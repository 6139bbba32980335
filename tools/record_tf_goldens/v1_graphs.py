"""Records small TF1 graph files from TensorFlow 2.21 for tests/compat/test_v1_graph_files.py.

    /work/tfvenv/bin/python tools/record_tf_goldens/v1_graphs.py   # writes tests/goldens/v1_graphs/

Writes (a few kilobytes):
- ``mlp.meta`` + ``mlp.index`` / ``mlp.data-00000-of-00001``: a TF1 MLP (placeholder -> dense relu -> dense ->
  softmax, an Adam train op) with resource variables, saved by ``tf.compat.v1.train.Saver`` after one training
  step (then one more step's result is recorded);
- ``ref.meta`` + ``ref.*``: the same with TF1 reference variables (``VariableV2`` / ``Assign`` / ``w/read``) and
  Nesterov momentum; ``sgd.*``: resource variables and GradientDescent;
- ``mlp_graph.pb``: a GraphDef of an inference graph (placeholders, constants, ops, no variables);
- ``control_flow.pb``: a GraphDef with ``tf.cond`` / ``tf.while_loop`` (If / While and their FunctionDefs);
- ``switch_merge.pb``: ``tf.cond`` as TF1 control flow (Switch / Merge);
- ``values.json``: the inputs and what TF's session returns for them; what ``tf.variable_creator_scope``
  creators see.
"""

import json
import os
import shutil

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "v1_graphs")
v1 = tf.compat.v1
X = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32)
LABELS = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)


def mlp(prefix, resource, optimizer):
    g = tf.Graph()
    out = {}
    with g.as_default():
        v1.set_random_seed(1)
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = v1.placeholder(tf.float32, [None, 2], name="y")
        w1 = v1.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0 - 0.5, name="w1", use_resource=resource)
        b1 = v1.Variable(np.full([4], 0.1, np.float32), name="b1", use_resource=resource)
        w2 = v1.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 5.0 - 0.7, name="w2", use_resource=resource)
        h = tf.nn.relu(tf.matmul(x, w1) + b1, name="hidden")
        logits = tf.matmul(h, w2, name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        train = optimizer().minimize(loss)
        saver = v1.train.Saver()
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            out["initial_probs"] = s.run(probs, {x: X}).tolist()
            s.run(train, {x: X, y: LABELS})
            out["probs"], out["loss"] = [np.asarray(v).tolist() for v in s.run([probs, loss], {x: X, y: LABELS})]
            out["w1"] = s.run(w1).tolist()
            saver.save(s, os.path.join(OUT, prefix), write_state=False)
            s.run(train, {x: X, y: LABELS})  # what a restored graph's next step gives
            out["probs_next"] = s.run(probs, {x: X}).tolist()
    return out


def inference_graph():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        k = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) - 2.0, name="k")
        z = tf.add(tf.matmul(x, k), tf.constant([0.5, -0.5]), name="z")
        a = tf.tanh(z, name="a")
        tf.reduce_sum(a, axis=1, name="s")
        tf.io.write_graph(g, OUT, "mlp_graph.pb", as_text=False)
        with v1.Session() as s:
            a_v, s_v = s.run(["a:0", "s:0"], {"x:0": X})
    return {"a": a_v.tolist(), "s": s_v.tolist()}


def control_flow_graph():
    """tf.cond / tf.while_loop in a TF1 graph (TF 2's functional If / While ops, branches in the library)."""
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None], name="x")
        c = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 3.0, lambda: x - 1.0, name="c")
        _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x], name="loop")
        tf.io.write_graph(g, OUT, "control_flow.pb", as_text=False)
        with v1.Session() as s:
            pos = s.run([c, acc], {"x:0": [1.0, 2.0]})
            neg = s.run(c, {"x:0": [-1.0, -2.0]})
    return {"c_pos": pos[0].tolist(), "loop": pos[1].tolist(), "c_neg": neg.tolist(), "c_name": c.name,
            "loop_name": acc.name, "ops": sorted({n.op for n in g.as_graph_def().node})}


def switch_merge_graph():
    """tf.cond built as TF1 control flow (Switch / Merge, as graphs from before control flow v2 hold it)."""
    v1.disable_control_flow_v2()
    try:
        g = tf.Graph()
        with g.as_default():
            x = v1.placeholder(tf.float32, [None], name="x")
            t = v1.placeholder(tf.bool, [], name="training")
            c = tf.cond(t, lambda: tf.reshape(x * 3.0, [-1, 1]), lambda: tf.reshape(x - 1.0, [-1, 1]), name="c")
            k = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.constant(1.0), lambda: tf.constant(2.0), name="k")
            tf.io.write_graph(g, OUT, "switch_merge.pb", as_text=False)
            with v1.Session() as s:
                pos = s.run([c, k], {x: [1.0, 2.0], t: True})
                neg = s.run([c, k], {x: [-1.0, -2.0], t: False})
    finally:
        v1.enable_control_flow_v2()
    return {"c": c.name, "k": k.name, "pos": [pos[0].tolist(), float(pos[1])], "neg": [neg[0].tolist(),
            float(neg[1])], "ops": sorted({n.op for n in g.as_graph_def().node})}


def creator_scope():
    """tf.variable_creator_scope: the order creators run in and the kwargs TF passes them."""
    log = []

    def outer(next_creator, **kw):
        log.append(["outer", sorted(kw), kw["name"], kw["aggregation"].name,
                    kw["experimental_enable_variable_lifting"], kw["trainable"], kw["validate_shape"]])
        kw["name"] = "renamed"
        return next_creator(**kw)

    def inner(next_creator, **kw):
        log.append(["inner", kw["name"]])
        kw["initial_value"] = 5.0
        return next_creator(**kw)

    with tf.variable_creator_scope(outer):
        with tf.variable_creator_scope(inner):
            v = tf.Variable(1.0, name="v")

        @tf.function
        def f():
            if not hasattr(f, "w"):
                f.w = tf.Variable(2.0, name="w")
            return f.w.read_value()

        f()
    return {"log": log, "v_name": v.name, "v": float(v.numpy()), "w_name": f.w.name}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    values = {"x": X.tolist(), "labels": LABELS.tolist(), "mlp": mlp("mlp", True, lambda: v1.train.AdamOptimizer(0.1)),
              "ref": mlp("ref", False, lambda: v1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)),
              "sgd": mlp("sgd", True, lambda: v1.train.GradientDescentOptimizer(0.5)),
              "graph": inference_graph(), "creator_scope": creator_scope(),
              "control_flow": control_flow_graph(),
              "switch_merge": switch_merge_graph(),
              "tensorflow": tf.__version__}
    with open(os.path.join(OUT, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)
        f.write("\n")
    for name in sorted(os.listdir(OUT)):
        print(f"{name}: {os.path.getsize(os.path.join(OUT, name))} bytes")


if __name__ == "__main__":
    main()
