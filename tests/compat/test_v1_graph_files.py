"""TF1 graphs out and in: GraphDef export, the ``.meta`` MetaGraphDef of compat.v1 Savers, import_meta_graph and
import_graph_def (of files real TF 2.21 wrote: tools/record_tf_goldens/v1_graphs.py), tf.variable_creator_scope."""

import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.saved_model.tf_ops import opdef

v1 = tf.compat.v1
D = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "v1_graphs")
V = json.load(open(os.path.join(D, "values.json")))
X = np.ones((2, 3), np.float32)
Y = np.ones((2, 1), np.float32)


def _linear_regression():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = v1.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.ones([3, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
        pred = tf.add(tf.matmul(x, w), b, name="pred")
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = v1.global_variables_initializer()
    return g, dict(x=x, y=y, w=w, b=b, pred=pred, loss=loss, train=train, init=init)


def _check_against_opdefs(gd):
    names = {n.name for n in gd.node}
    for nd in gd.node:
        od = opdef(nd.op)
        assert od is not None, nd.op
        for a in od["attrs"]:
            assert a["name"] in nd.attr or "default" in a, (nd.name, nd.op, a["name"])
        for i in nd.input:
            assert i.lstrip("^").split(":")[0] in names, (nd.name, i)


def test_graph_def_has_tf_ops_names_and_attrs():
    g, t = _linear_regression()
    gd = g.as_graph_def()
    _check_against_opdefs(gd)
    by = {n.name: n for n in gd.node}
    assert by["x"].op == "Placeholder" and by["pred"].op == "AddV2" and by["loss"].op == "Mean"
    assert by["w"].op == "VarHandleOp" and by["w/Assign"].op == "AssignVariableOp"
    assert by["w"].attr["shared_name"].s == b"w" and [d.size for d in by["w"].attr["shape"].shape.dim] == [3, 1]
    assert by["GradientDescent"].op == "NoOp" and all(i.startswith("^") for i in by["GradientDescent"].input)
    assert [d.size for d in by["x"].attr["shape"].shape.dim] == [-1, 3]
    assert gd.versions.producer == 2474
    assert t["pred"].name == "pred:0" and t["w"].name == "w:0"
    with g.as_default():
        w2 = tf.Variable(1.0, name="w")
    assert w2.name == "w_1:0"  # TF uniquifies names within a graph
    ops = g.get_operations()
    assert all(isinstance(op, tf.Operation) for op in ops) and isinstance(t["train"], tf.Operation)
    assert g.get_operation_by_name("pred").type == "AddV2"
    assert g.get_operation_by_name("MatMul").get_attr("transpose_a") is False


def test_write_graph_text_and_binary(tmp_path):
    from google.protobuf import text_format

    g, _ = _linear_regression()
    p_txt = tf.io.write_graph(g, str(tmp_path), "g.pbtxt")
    p_bin = tf.io.write_graph(g.as_graph_def(), str(tmp_path / "sub"), "g.pb", as_text=False)
    gd_txt = text_format.Parse(open(p_txt).read(), v1.GraphDef())
    gd_bin = v1.GraphDef.FromString(open(p_bin, "rb").read())
    assert gd_txt == gd_bin == g.as_graph_def()
    assert v1.train.write_graph is tf.io.write_graph


def test_saver_meta_graph_round_trip(tmp_path):
    g, t = _linear_regression()
    with g.as_default():
        saver = v1.train.Saver()
        with v1.Session() as s:
            s.run(t["init"])
            s.run(t["train"], {t["x"]: X, t["y"]: Y})
            want = s.run([t["pred"], t["loss"]], {t["x"]: X, t["y"]: Y})
            prefix = saver.save(s, str(tmp_path / "model"))
            s.run(t["train"], {t["x"]: X, t["y"]: Y})
            want_next = s.run(t["pred"], {t["x"]: X})
            saver.save(s, str(tmp_path / "nometa"), write_meta_graph=False)
    assert os.path.exists(prefix + ".meta") and not os.path.exists(str(tmp_path / "nometa.meta"))
    mg = v1.MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    info = mg.meta_info_def
    assert info.tensorflow_version == "2.21.0"
    ops = [o.name for o in info.stripped_op_list.op]
    assert ops == sorted(ops) and {"MatMul", "VarHandleOp", "SaveV2", "RestoreV2", "NoOp"} <= set(ops)
    assert {n.op for n in mg.graph_def.node} == set(ops)
    _check_against_opdefs(mg.graph_def)
    names = {n.name for n in mg.graph_def.node}
    sd = mg.saver_def
    assert (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name) == (
        "save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert {"save/Const", "save/control_dependency", "save/restore_all"} <= names
    from tensorboard.compat.proto import variable_pb2

    vds = [variable_pb2.VariableDef.FromString(b) for b in mg.collection_def["variables"].bytes_list.value]
    assert [(d.variable_name, d.initializer_name, d.is_resource) for d in vds] == [
        ("w:0", "w/Assign", True), ("b:0", "b/Assign", True)]
    assert list(mg.collection_def["train_op"].node_list.value) == ["GradientDescent"]
    # ... and back: a fresh graph, restored values, the train op runs
    g2 = tf.Graph()
    with g2.as_default():
        saver2 = v1.train.import_meta_graph(prefix + ".meta")
        with v1.Session() as s:
            saver2.restore(s, prefix)
            got = s.run(["pred:0", "loss:0"], {"x:0": X, "y:0": Y})
            s.run(v1.get_collection("train_op")[0], {"x:0": X, "y:0": Y})
            got_next = s.run("pred:0", {"x:0": X})
        assert [v.name for v in v1.trainable_variables()] == ["w:0", "b:0"]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got_next, want_next, rtol=1e-6)
    mg2 = v1.train.export_meta_graph(str(tmp_path / "exported.meta"), graph=g2)
    assert os.path.exists(str(tmp_path / "exported.meta")) and len(mg2.graph_def.node) > 10


# resource variables + Adam; TF1 reference variables (VariableV2) + Nesterov momentum; GradientDescent
@pytest.mark.parametrize("name", ["mlp", "ref", "sgd"])
def test_tf_written_meta_graph_loads_and_trains(name, tmp_path):
    want = V[name]
    g = tf.Graph()
    with g.as_default():
        saver = v1.train.import_meta_graph(os.path.join(D, name + ".meta"))
        assert [v.name for v in v1.trainable_variables()] == ["w1:0", "b1:0", "w2:0"]
        if name == "mlp":
            assert [v.name for v in v1.global_variables()][3:] == [
                "beta1_power:0", "beta2_power:0", "w1/Adam:0", "w1/Adam_1:0", "b1/Adam:0", "b1/Adam_1:0",
                "w2/Adam:0", "w2/Adam_1:0"]
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())  # the imported initializers
            np.testing.assert_allclose(s.run("probs:0", {"x:0": V["x"]}), want["initial_probs"], rtol=1e-5)
            saver.restore(s, os.path.join(D, name))
            probs, loss = s.run(["probs:0", "loss:0"], {"x:0": V["x"], "y:0": V["labels"]})
            np.testing.assert_allclose(probs, want["probs"], rtol=1e-5)
            np.testing.assert_allclose(loss, want["loss"], rtol=1e-5)
            np.testing.assert_allclose(s.run("w1:0"), want["w1"], rtol=1e-6)
            # TF's gradient graph (Shape / BroadcastGradientArgs / Tile / Sum over run-time axes), its update kernels
            s.run(v1.get_collection("train_op")[0], {"x:0": V["x"], "y:0": V["labels"]})
            np.testing.assert_allclose(s.run("probs:0", {"x:0": V["x"]}), want["probs_next"], rtol=1e-5)
            prefix = saver.save(s, str(tmp_path / "again"))
        # the Saver's own SaveV2/RestoreV2 nodes are not imported; using them says so
        with pytest.raises(tf.errors.NotFoundError, match="Saver's subgraph"):
            g.get_operation_by_name("save/restore_all")
    mg = v1.MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    _check_against_opdefs(mg.graph_def)  # written back with TF's ops (real TF trains it on: checked by hand)
    assert mg.saver_def.restore_op_name == "save_1/restore_all"  # (the imported graph holds save/ already)


def test_import_graph_def_of_tf_written_graph():
    gd = v1.GraphDef.FromString(open(os.path.join(D, "mlp_graph.pb"), "rb").read())
    g = tf.Graph()
    with g.as_default():
        a, s_op = tf.import_graph_def(gd, return_elements=["a:0", "s"])
        assert a.name == "import/a:0" and s_op.name == "import/s" and isinstance(s_op, tf.Operation)
        x2 = v1.placeholder(tf.float32, [None, 3], name="feed")
        (s2,) = tf.graph_util.import_graph_def(gd, input_map={"x:0": x2 * 1.0}, return_elements=["s:0"],
                                               name="mapped")
        with v1.Session() as s:
            np.testing.assert_allclose(s.run(a, {"import/x:0": V["x"]}), V["graph"]["a"], rtol=1e-6)
            np.testing.assert_allclose(s.run(s2, {x2: V["x"]}), V["graph"]["s"], rtol=1e-6)
        tf.import_graph_def(gd)
        assert g.get_tensor_by_name("import_1/a:0").shape.as_list() == [None, 2]
        with pytest.raises(ValueError, match="not found in graph_def"):
            tf.import_graph_def(gd, input_map={"nope:0": x2})


def test_import_graph_def_refuses_bad_graphs(tmp_path):
    gd = v1.GraphDef()
    gd.node.add(name="p", op="Placeholder").attr["dtype"].type = 1
    bad = gd.node.add(name="q", op="NoSuchTFOp")
    bad.input.append("p")
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")  # the import goes on; using the node names its op
        with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'NoSuchTFOp'"):
            g.get_tensor_by_name("q:0")
        gd2 = v1.GraphDef()
        gd2.node.add(name="r", op="Identity").input.append("missing")
        with pytest.raises(ValueError, match="Unknown input node 'missing'"):
            tf.import_graph_def(gd2)
        with pytest.raises(TypeError):
            tf.import_graph_def(b"not a proto")
    path = tmp_path / "garbage.meta"
    path.write_bytes(b"\xff\x00garbage\x12\x99" * 10)
    with pytest.raises(tf.errors.DataLossError, match="garbage.meta"):
        v1.train.import_meta_graph(str(path))


def test_variable_creator_scope_matches_tf():
    want = V["creator_scope"]
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
    assert log == want["log"]
    assert (v.name, float(v.numpy()), f.w.name) == (want["v_name"], want["v"], want["w_name"])
    assert tf.Variable(3.0).name == "Variable:0"  # outside the scopes: the default creator only


def test_control_flow_out_and_in():
    want = V["control_flow"]
    gd = v1.GraphDef.FromString(open(os.path.join(D, "control_flow.pb"), "rb").read())  # written by TF
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with v1.Session() as s:
            c, acc = s.run([want["c_name"], want["loop_name"]], {"x:0": [1.0, 2.0]})
            assert c.tolist() == want["c_pos"] and acc.tolist() == want["loop"]
            assert s.run(want["c_name"], {"x:0": [-1.0, -2.0]}).tolist() == want["c_neg"]
    # ... and tensorlet's own tf.cond / tf.while_loop written out: TF's functional ops, branches in the library
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None], name="x")
        w = tf.Variable(2.0, name="w")
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * w, lambda: x - 1.0, name="c")
        _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x], name="loop")
        v1.global_variables_initializer()
    gd = g.as_graph_def()
    _check_against_opdefs(gd)
    assert {"StatelessIf", "StatelessWhile"} <= {n.op for n in gd.node} and len(gd.library.function) == 4
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        with v1.Session() as s:
            s.run("init")
            xv = np.array([1.0, 2.0], np.float32)
            got = s.run([y.name, acc.name], {"x:0": xv})
            np.testing.assert_allclose(got[0], xv * 2.0)
            np.testing.assert_allclose(got[1], xv * 8.0)
            np.testing.assert_allclose(s.run(y.name, {"x:0": -xv}), -xv - 1.0)


def test_import_graph_def_inside_tf_function_and_wrap_function():
    gd = v1.GraphDef.FromString(open(os.path.join(D, "mlp_graph.pb"), "rb").read())

    @tf.function(jit_compile=True)
    def f(x):
        return tf.import_graph_def(gd, input_map={"x:0": x}, return_elements=["a:0", "s:0"])

    a, s = f(tf.constant(V["x"]))
    np.testing.assert_allclose(a.numpy(), V["graph"]["a"], rtol=1e-6)
    np.testing.assert_allclose(s.numpy(), V["graph"]["s"], rtol=1e-6)
    with pytest.raises(ValueError, match="must be replaced through input_map"):
        tf.function(lambda: tf.import_graph_def(gd))()
    # the TF 2 migration guide's frozen-graph recipe
    wrapped = v1.wrap_function(lambda: v1.import_graph_def(gd, name=""), [])
    g = wrapped.graph
    pruned = wrapped.prune(tf.nest.map_structure(g.as_graph_element, "x:0"),
                           tf.nest.map_structure(g.as_graph_element, ["a:0", "s:0"]))
    a, s = pruned(tf.constant(V["x"]))
    np.testing.assert_allclose(a.numpy(), V["graph"]["a"], rtol=1e-6)
    np.testing.assert_allclose(tf.function(lambda x: pruned(x)[1])(tf.constant(V["x"])).numpy(), V["graph"]["s"],
                               rtol=1e-6)
    sq = v1.wrap_function(lambda x: x * x + 1.0, [tf.TensorSpec([2], tf.float32)])
    assert sq(tf.constant([1.0, 3.0])).numpy().tolist() == [2.0, 10.0]


@pytest.mark.parametrize("name", ["mlp", "ref"])
def test_freeze_graph_with_graph_util(name):
    gu = v1.graph_util
    g = tf.Graph()
    with g.as_default():
        saver = v1.train.import_meta_graph(os.path.join(D, name + ".meta"))
        with v1.Session() as s:
            saver.restore(s, os.path.join(D, name))
            frozen = gu.convert_variables_to_constants(s, g.as_graph_def(), ["probs"])
        assert gu.tensor_shape_from_node_def_name(g, "probs").as_list() == [None, 2]
    frozen = gu.remove_training_nodes(frozen)
    assert {n.op for n in frozen.node} == {"AddV2", "Const", "MatMul", "Placeholder", "Relu", "Softmax"}
    _check_against_opdefs(frozen)
    g2 = tf.Graph()
    with g2.as_default():
        (probs,) = tf.import_graph_def(frozen, return_elements=["probs:0"], name="")
        with v1.Session() as s:
            np.testing.assert_allclose(s.run(probs, {"x:0": V["x"]}), V[name]["probs"], rtol=1e-5)
    with pytest.raises(AssertionError, match="nope is not in graph"):
        gu.extract_sub_graph(frozen, ["nope"])
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings"):
        gu.extract_sub_graph(frozen, "probs")
    sub = gu.extract_sub_graph(frozen, ["hidden"])
    assert "probs" not in {n.name for n in sub.node} and "x" in {n.name for n in sub.node}
    const_int = v1.NodeDef(name="c", op="Const")
    const_int.attr["dtype"].type = tf.int32.as_datatype_enum
    assert gu.must_run_on_cpu(const_int) and not gu.must_run_on_cpu(v1.NodeDef(name="m", op="MatMul"))


def test_corrupt_meta_graphs_fail_closed(tmp_path):
    data = open(os.path.join(D, "mlp.meta"), "rb").read()
    rng = np.random.default_rng(0)
    outcomes = set()
    for i in range(36):
        b = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, len(b)))
            b[k] ^= 1 << int(rng.integers(0, 8))
        if i % 6 == 0:
            b = b[:int(rng.integers(0, len(b)))]
        path = tmp_path / f"c{i}.meta"
        path.write_bytes(bytes(b))
        try:
            with tf.Graph().as_default():
                v1.train.import_meta_graph(str(path))
            outcomes.add("loaded")
        except tf.errors.DataLossError as e:
            assert str(path) in str(e)
            outcomes.add("DataLossError")
        except ValueError as e:  # a graph that parses but does not hold together, as TF's importer says
            assert "Node '" in str(e) or "node name" in str(e) or "tensor name" in str(e) or "node '" in str(e), e
            outcomes.add("ValueError")
    assert outcomes >= {"DataLossError", "ValueError"}


def test_tf1_switch_merge_control_flow():
    want = V["switch_merge"]
    gd = v1.GraphDef.FromString(open(os.path.join(D, "switch_merge.pb"), "rb").read())  # TF1-style tf.cond
    assert {"Switch", "Merge"} <= set(want["ops"])

    def run(graph_def):
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(graph_def, name="")
            with v1.Session() as s:
                pos = s.run([want["c"], want["k"]], {"x:0": [1.0, 2.0], "training:0": True})
                neg = s.run([want["c"], want["k"]], {"x:0": [-1.0, -2.0], "training:0": False})
                assert pos[0].tolist() == want["pos"][0] and float(pos[1]) == want["pos"][1]
                assert neg[0].tolist() == want["neg"][0] and float(neg[1]) == want["neg"][1]
                with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value"):
                    s.run("c/mul:0", {"x:0": [1.0], "training:0": False})  # the untaken branch
        return g

    g = run(gd)
    ours = g.as_graph_def()  # written back: TF's Switch / Merge again
    _check_against_opdefs(ours)
    assert {"Switch", "Merge"} <= {n.op for n in ours.node}
    run(ours)
