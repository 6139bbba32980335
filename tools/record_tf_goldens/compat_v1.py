"""Records TF1 optimizer steps and tf.compat.v1.losses values from TensorFlow 2.21 (eager, v1 API).

    /work/tfenv/bin/python tools/record_tf_goldens/compat_v1.py   # writes tests/goldens/compat_v1.json
"""

import json
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
v1 = tf.compat.v1

W0 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
X = [[1.0, 2.0], [-1.0, 0.5], [0.3, -0.2], [2.0, 1.0]]
Y = [[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [0.0, 1.0, 0.0], [-1.0, 2.0, 1.0]]

OPTIMIZERS = {
    "GradientDescent": lambda: v1.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: v1.train.MomentumOptimizer(0.05, 0.9),
    "MomentumNesterov": lambda: v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "Adam": lambda: v1.train.AdamOptimizer(0.01),
    "AdamEps": lambda: v1.train.AdamOptimizer(0.1, beta1=0.8, beta2=0.99, epsilon=0.5),
    "RMSProp": lambda: v1.train.RMSPropOptimizer(0.01),
    "RMSPropCentered": lambda: v1.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-3, centered=True),
    "Adagrad": lambda: v1.train.AdagradOptimizer(0.1),
    "Adadelta": lambda: v1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
}


def optimizer_runs():
    out = {}
    for name, make in OPTIMIZERS.items():
        w = tf.Variable(W0, name="w")
        b = tf.Variable([0.1, 0.2, 0.3], name="b")
        opt = make()
        step = tf.Variable(0, dtype=tf.int64)

        def loss(w=w, b=b):
            return tf.reduce_mean(tf.square(tf.matmul(tf.constant(X), w) + b - tf.constant(Y)))

        traj = []
        for i in range(5):
            if i % 2:
                opt.minimize(loss, global_step=step, var_list=[w, b])
            else:
                with tf.GradientTape() as tape:
                    value = loss()
                grads = tape.gradient(value, [w, b])
                opt.apply_gradients(zip(grads, [w, b]), global_step=step)
            traj.append({"w": w.numpy().tolist(), "b": b.numpy().tolist()})
        out[name] = {"traj": traj, "step": int(step.numpy()), "slots": sorted(opt.get_slot_names()),
                     "variables": sorted(v.name for v in opt.variables())}
    return out


def losses():
    labels = np.array([1, 0, 2, 1])
    logits = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, -1.0], [0.2, 0.1, 0.4], [-1.0, 0.0, 1.0]], np.float32)
    weights = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    onehot = np.eye(3, dtype=np.float32)[labels]
    pred = np.array([[0.9, 0.2], [0.1, 0.6], [0.4, 0.8]], np.float32)
    lab = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    L = v1.losses
    R = L.Reduction
    out = {
        "sparse": float(L.sparse_softmax_cross_entropy(labels, logits)),
        "sparse_w": float(L.sparse_softmax_cross_entropy(labels, logits, weights=weights)),
        "sparse_col": float(L.sparse_softmax_cross_entropy(labels[:, None], logits)),
        "softmax_ls": float(L.softmax_cross_entropy(onehot, logits, label_smoothing=0.1)),
        "sigmoid": float(L.sigmoid_cross_entropy(lab, pred, label_smoothing=0.2)),
        "mse": float(L.mean_squared_error(lab, pred)),
        "mse_w": float(L.mean_squared_error(lab, pred, weights=[[1.0], [0.0], [2.0]])),
        "abs_sum": float(L.absolute_difference(lab, pred, reduction=R.SUM)),
        "abs_mean": float(L.absolute_difference(lab, pred, weights=[[1.0], [0.0], [2.0]], reduction=R.MEAN)),
        "abs_batch": float(L.absolute_difference(lab, pred, weights=[[1.0], [0.0], [2.0]],
                                                 reduction=R.SUM_OVER_BATCH_SIZE)),
        "abs_none": L.absolute_difference(lab, pred, reduction=R.NONE).numpy().tolist(),
        "huber": float(L.huber_loss(lab, pred * 3, delta=0.5)),
        "log": float(L.log_loss(lab, pred)),
        "hinge": float(L.hinge_loss(lab, pred * 2 - 1)),
        "cosine": float(L.cosine_distance(tf.math.l2_normalize(lab + 0.1, 1), tf.math.l2_normalize(pred, 1), axis=1)),
    }
    return out


def v1_ops():
    x = tf.constant([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    return {
        "reduce_sum_ri_kd": v1.reduce_sum(x, reduction_indices=[1], keep_dims=True).numpy().tolist(),
        "reduce_mean_axis0": v1.reduce_mean(x, 0).numpy().tolist(),
        "argmax_dimension": v1.argmax(x, dimension=1).numpy().tolist(),
        "argmax_default": v1.argmax(x).numpy().tolist(),
        "expand_dims_dim": list(v1.expand_dims(x, dim=1).shape),
        "squeeze_dims": list(v1.squeeze(tf.ones([1, 2, 1]), squeeze_dims=[0]).shape),
        "div_int": v1.div(tf.constant([7, -7]), tf.constant([2, 2])).numpy().tolist(),
        "div_float": v1.div(tf.constant([7.0, -7.0]), tf.constant([2.0, 2.0])).numpy().tolist(),
        "to_float": v1.to_float(tf.constant([1, 2])).dtype.name,
        "where_rows": v1.where(tf.constant([True, False]), x, -x).numpy().tolist(),
        "dropout_keep1": v1.nn.dropout(x, keep_prob=1.0).numpy().tolist(),
        "softmax_dim0": v1.nn.softmax(x, dim=0).numpy().tolist(),
        "count_nonzero": int(v1.count_nonzero(tf.constant([[0, 1], [2, 0]]), reduction_indices=None)),
        "shape_dtype": v1.shape(x).dtype.name,
        "in_top_k": v1.nn.in_top_k(x, tf.constant([1, 0]), 1).numpy().tolist(),
        "moments_kd": [m.numpy().tolist() for m in v1.nn.moments(x, [1], keep_dims=True)],
    }


def main():
    data = {"optimizers": optimizer_runs(), "losses": losses(), "v1_ops": v1_ops(),
            "inputs": {"W0": W0, "X": X, "Y": Y}}
    with open(os.path.join(ROOT, "tests", "goldens", "compat_v1.json"), "w") as f:
        json.dump(data, f, indent=1)
    print("wrote tests/goldens/compat_v1.json")


if __name__ == "__main__":
    main()
