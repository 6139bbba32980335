"""tf.compat.v1's eager surface: TF1 signatures, losses, the names shared with TF 2, lazy loading."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf

v1 = tf.compat.v1
GOLDEN = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "compat_v1.json")))


def test_same_objects_as_tf2():
    assert v1.log is tf.math.log and v1.random_normal is tf.random.normal and v1.matmul is tf.matmul
    assert v1.keras is not tf.keras and v1.keras.layers.Dense is tf.keras.layers.Dense
    assert v1.data.Dataset is tf.data.Dataset and v1.train.Checkpoint is tf.train.Checkpoint
    assert v1.newaxis is None and v1.Variable is tf.Variable and v1.float32 is tf.float32
    assert v1.train.latest_checkpoint is tf.train.latest_checkpoint
    assert v1.keras.datasets.mnist.load_data is tf.keras.datasets.mnist.load_data


def test_missing_v1_names_say_so():
    with pytest.raises(AttributeError, match="tensorlet does not implement tf.compat.v1.not_a_tf1_name yet"):
        v1.not_a_tf1_name  # noqa: B018


def test_v1_signatures_match_tf():
    g = GOLDEN["v1_ops"]
    x = tf.constant([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert v1.reduce_sum(x, reduction_indices=[1], keep_dims=True).numpy().tolist() == g["reduce_sum_ri_kd"]
    assert v1.reduce_mean(x, 0).numpy().tolist() == g["reduce_mean_axis0"]
    assert v1.argmax(x, dimension=1).numpy().tolist() == g["argmax_dimension"]
    assert v1.argmax(x).numpy().tolist() == g["argmax_default"]
    assert list(v1.expand_dims(x, dim=1).shape) == g["expand_dims_dim"]
    assert list(v1.squeeze(tf.ones([1, 2, 1]), squeeze_dims=[0]).shape) == g["squeeze_dims"]
    assert v1.div(tf.constant([7, -7]), tf.constant([2, 2])).numpy().tolist() == g["div_int"]
    assert v1.div(tf.constant([7.0, -7.0]), tf.constant([2.0, 2.0])).numpy().tolist() == g["div_float"]
    assert v1.to_float(tf.constant([1, 2])).dtype.name == g["to_float"]
    assert v1.where(tf.constant([True, False]), x, -x).numpy().tolist() == g["where_rows"]
    assert v1.nn.dropout(x, keep_prob=1.0).numpy().tolist() == g["dropout_keep1"]
    np.testing.assert_allclose(v1.nn.softmax(x, dim=0).numpy(), g["softmax_dim0"], rtol=1e-6)
    assert int(v1.count_nonzero(tf.constant([[0, 1], [2, 0]]))) == g["count_nonzero"]
    assert v1.shape(x).dtype.name == g["shape_dtype"]
    assert v1.nn.in_top_k(x, tf.constant([1, 0]), 1).numpy().tolist() == g["in_top_k"]
    np.testing.assert_allclose([m.numpy() for m in v1.nn.moments(x, [1], keep_dims=True)], g["moments_kd"],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
        v1.reduce_sum(x, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Only call `sparse_softmax_cross_entropy_with_logits` with named"):
        v1.nn.sparse_softmax_cross_entropy_with_logits([0], [[1.0]])
    assert v1.cond(tf.constant(True), lambda: [tf.constant(1)], lambda: [tf.constant(2)]).numpy() == 1
    assert v1.while_loop(lambda i: i < 5, lambda i: [i + 1], [tf.constant(0)]).numpy() == 5
    with pytest.raises(RuntimeError, match="does not support functions when eager execution is enabled"):
        v1.device(lambda op: "/cpu:0")


def test_losses_match_tf():
    g = GOLDEN["losses"]
    labels = np.array([1, 0, 2, 1])
    logits = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, -1.0], [0.2, 0.1, 0.4], [-1.0, 0.0, 1.0]], np.float32)
    weights = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    onehot = np.eye(3, dtype=np.float32)[labels]
    pred = np.array([[0.9, 0.2], [0.1, 0.6], [0.4, 0.8]], np.float32)
    lab = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    L, R = v1.losses, v1.losses.Reduction
    got = {
        "sparse": L.sparse_softmax_cross_entropy(labels, logits),
        "sparse_w": L.sparse_softmax_cross_entropy(labels, logits, weights=weights),
        "sparse_col": L.sparse_softmax_cross_entropy(labels[:, None], logits),
        "softmax_ls": L.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
        "sigmoid": L.sigmoid_cross_entropy(lab, pred, label_smoothing=0.2),
        "mse": L.mean_squared_error(lab, pred),
        "mse_w": L.mean_squared_error(lab, pred, weights=[[1.0], [0.0], [2.0]]),
        "abs_sum": L.absolute_difference(lab, pred, reduction=R.SUM),
        "abs_mean": L.absolute_difference(lab, pred, weights=[[1.0], [0.0], [2.0]], reduction=R.MEAN),
        "abs_batch": L.absolute_difference(lab, pred, weights=[[1.0], [0.0], [2.0]], reduction=R.SUM_OVER_BATCH_SIZE),
        "abs_none": L.absolute_difference(lab, pred, reduction=R.NONE),
        "huber": L.huber_loss(lab, pred * 3, delta=0.5),
        "log": L.log_loss(lab, pred),
        "hinge": L.hinge_loss(lab, pred * 2 - 1),
        "cosine": L.cosine_distance(tf.math.l2_normalize(lab + 0.1, 1), tf.math.l2_normalize(pred, 1), axis=1),
    }
    for k, v in got.items():
        np.testing.assert_allclose(v.numpy(), g[k], rtol=2e-6, atol=1e-7, err_msg=k)
    assert got["sparse"].dtype == tf.float32 and got["sparse"].shape == ()
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        L.mean_squared_error(lab, pred, reduction="bogus")
    assert L.get_losses() == []


def test_test_module_and_v1_only_helpers():
    assert v1.test.is_gpu_available() is bool(tf.config.list_physical_devices("GPU"))
    assert v1.executing_eagerly() is True
    v1.set_random_seed(3)
    a = v1.random_normal([2])
    v1.set_random_seed(3)
    assert a.numpy().tolist() == v1.random_normal([2]).numpy().tolist()
    w = tf.Variable(1.0)
    v1.assign_add(w, 2.0)
    assert w.numpy() == 3.0
    assert math.isclose(float(v1.log(tf.constant(math.e))), 1.0, rel_tol=1e-6)


def test_import_tensorlet_keeps_the_heavy_parts_lazy():
    code = ("import sys, tensorlet as tf; tf.compat.v1.reduce_sum; "
            "print(sorted(m for m in sys.modules if m.startswith('tensorlet._src.compat')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # v1_graph (TF1 Graph/Session/placeholder) is the light TF1 core, loaded by `import tensorlet` as before it moved;
    # hessians is the top-level tf.hessians (built on v1_graph's gradients), strings tf.compat's own as_bytes & co.,
    # v1_variable_scope tf.compat.v1's variable_scope / get_variable (split out of v1_graph).
    assert out.stdout.strip() == ("['tensorlet._src.compat', 'tensorlet._src.compat.hessians', "
                                  "'tensorlet._src.compat.strings', 'tensorlet._src.compat.v1_graph', "
                                  "'tensorlet._src.compat.v1_ops', 'tensorlet._src.compat.v1_variable_scope']")


def test_v1_logging_and_app_run():
    code = ("import sys, tensorlet as tf\n"
            "L = tf.compat.v1.logging\n"
            "L.info('hidden')\n"
            "L.set_verbosity(L.INFO)\n"
            "L.info('shown %d', 1)\n"
            "for i in range(5):\n"
            "    L.log_first_n(L.WARN, 'first %d', 2, i)\n"
            "tf.compat.v1.app.run(lambda argv: print(argv[1:]) or 4, ['prog', 'a'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 4 and out.stdout == "['a']\n"
    assert out.stderr.splitlines() == ["INFO:tensorflow:shown 1", "WARNING:tensorflow:first 0",
                                       "WARNING:tensorflow:first 1"]
