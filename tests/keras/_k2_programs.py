"""Optimizer and schedule programs run against a ``tf`` module: real TensorFlow (by
tools/record_tf_goldens/keras_optim.py, which writes tests/goldens/keras_optim.json) or tensorlet (by the tests).
"""

import numpy as np

LR = 0.1
OPTIMIZERS = [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {"weight_decay": 0.1}),
    ("RMSprop", {}), ("RMSprop", {"momentum": 0.5, "centered": True}), ("Adagrad", {}),
    ("Adadelta", {"learning_rate": 1.0}), ("Adamax", {}), ("Nadam", {}),
    ("Ftrl", {"l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02,
              "l2_shrinkage_regularization_strength": 0.01, "beta": 0.1}),
    ("Ftrl", {"learning_rate_power": -0.3}), ("Lion", {}),
    ("SGD", {"clipnorm": 0.5}), ("Adam", {"clipvalue": 0.1}), ("SGD", {"global_clipnorm": 0.3}),
    ("Adam", {"weight_decay": 0.05}), ("SGD", {"use_ema": True, "ema_overwrite_frequency": 3}),
    ("Adam", {"use_ema": True, "ema_momentum": 0.5}),
    ("Adam", {"gradient_accumulation_steps": 2}), ("SGD", {"loss_scale_factor": 4.0}),
]
SPARSE = [("SGD", {}), ("SGD", {"momentum": 0.9}), ("Adam", {}), ("Adagrad", {}), ("RMSprop", {}),
          ("RMSprop", {"momentum": 0.3}), ("Adadelta", {"learning_rate": 1.0}), ("Adamax", {}), ("Nadam", {}),
          ("Ftrl", {}), ("Lion", {}), ("SGD", {"clipnorm": 0.2})]
SCHEDULES = [
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5}),
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5, "staircase": True}),
    ("PiecewiseConstantDecay", {"boundaries": [3, 12], "values": [1.0, 0.5, 0.1]}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10, "power": 2.0, "cycle": True,
                         "end_learning_rate": 0.01}),
    ("InverseTimeDecay", {"initial_learning_rate": 0.1, "decay_steps": 5, "decay_rate": 0.5}),
    ("InverseTimeDecay", {"initial_learning_rate": 0.1, "decay_steps": 5, "decay_rate": 0.5, "staircase": True}),
    ("CosineDecay", {"initial_learning_rate": 0.1, "decay_steps": 20, "alpha": 0.1}),
    ("CosineDecay", {"initial_learning_rate": 0.0, "decay_steps": 20, "warmup_target": 0.2, "warmup_steps": 5}),
    ("CosineDecayRestarts", {"initial_learning_rate": 0.1, "first_decay_steps": 4}),
    ("CosineDecayRestarts", {"initial_learning_rate": 0.1, "first_decay_steps": 4, "t_mul": 1.0, "m_mul": 0.5,
                             "alpha": 0.05}),
]
STEPS = [0, 1, 3, 4, 5, 9, 10, 12, 13, 19, 20, 25, 100]


def _grads(n_steps, shapes, seed):
    rs = np.random.RandomState(seed)
    return [[rs.uniform(-1, 1, s).astype("float32") for s in shapes] for _ in range(n_steps)]


def _make(tf, name, kwargs):
    kwargs = dict(kwargs)
    kwargs.setdefault("learning_rate", LR)
    return getattr(tf.keras.optimizers, name)(**kwargs)


def run_dense(tf, name, kwargs, n_steps=4):
    w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2).astype("float32"), name="w")
    b = tf.Variable(np.array([0.5, -0.25], "float32"), name="b")
    opt = _make(tf, name, kwargs)
    trace = []
    for gw, gb in _grads(n_steps, [(3, 2), (2,)], 0):
        opt.apply_gradients([(tf.constant(gw), w), (tf.constant(gb), b)])
        trace.append([w.numpy().tolist(), b.numpy().tolist()])
    return {"trace": trace, "iterations": int(opt.iterations.numpy()),
            "variables": [[getattr(v, "path", v.name), np.asarray(v.numpy(), "float64").tolist()]
                          for v in opt.variables]}


def run_sparse(tf, name, kwargs, n_steps=3):
    e = tf.Variable(np.linspace(-1, 1, 18).reshape(6, 3).astype("float32"), name="e")
    opt = _make(tf, name, kwargs)
    rs = np.random.RandomState(1)
    trace = []
    for _ in range(n_steps):
        values = rs.uniform(-1, 1, (4, 3)).astype("float32")
        g = tf.IndexedSlices(tf.constant(values), tf.constant([0, 2, 2, 5]), tf.constant([6, 3]))
        opt.apply_gradients([(g, e)])
        trace.append(e.numpy().tolist())
    return {"trace": trace}


def run_schedule(tf, name, kwargs):
    s = getattr(tf.keras.optimizers.schedules, name)(**kwargs)
    return [float(s(step)) for step in STEPS]


def run_schedule_in_optimizer(tf):
    s = tf.keras.optimizers.schedules.ExponentialDecay(0.5, decay_steps=2, decay_rate=0.5)
    opt = tf.keras.optimizers.SGD(learning_rate=s)
    v = tf.Variable([1.0, 2.0])
    out = []
    for _ in range(4):
        opt.apply_gradients([(tf.constant([1.0, -1.0]), v)])
        out.append(v.numpy().tolist() + [float(opt.learning_rate)])
    return out


def run_loss_scale(tf):
    opt = tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), initial_scale=8.0,
                                                 dynamic_growth_steps=2)
    v = tf.Variable([1.0, 2.0])
    out = [float(opt.scale_loss(tf.constant(1.0)))]
    for g in ([8.0, 16.0], [np.inf, 1.0], [4.0, 4.0], [2.0, 8.0], [8.0, 8.0]):
        opt.apply_gradients([(tf.constant(np.array(g, "float32")), v)])
        out.append(v.numpy().tolist() + [float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy())])
    return out


def run_custom(tf):
    class Boost(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.01, boost=1.5, name="boost", **kwargs):
            super().__init__(learning_rate=learning_rate, name=name, **kwargs)
            self.boost = boost

        def update_step(self, gradient, variable, learning_rate):
            variable.assign_sub(gradient * learning_rate * self.boost)

    opt = Boost(learning_rate=0.1)
    v = tf.Variable([1.0, 2.0])
    for _ in range(3):
        opt.apply_gradients([(tf.constant([1.0, 0.5]), v)])
    return v.numpy().tolist() + [int(opt.iterations.numpy())]


def run_all(tf):
    return {
        "dense": [run_dense(tf, n, kw) for n, kw in OPTIMIZERS],
        "sparse": [run_sparse(tf, n, kw) for n, kw in SPARSE],
        "schedules": [run_schedule(tf, n, kw) for n, kw in SCHEDULES],
        "schedule_in_optimizer": run_schedule_in_optimizer(tf),
        "loss_scale": run_loss_scale(tf),
        "custom": run_custom(tf),
    }


# --- losses --------------------------------------------------------------------------------------------------------

def _loss_data():
    rs = np.random.RandomState(3)
    logits = rs.normal(0, 2, (4, 5)).astype("float32")
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    onehot = np.eye(5, dtype="float32")[[1, 0, 4, 2]]
    labels = np.array([1, 0, 4, 2], "int32")
    binary = (rs.uniform(size=(4, 3)) > 0.5).astype("float32")
    bprobs = rs.uniform(0.0, 1.0, (4, 3)).astype("float32")
    bprobs[0, 0], bprobs[1, 1] = 0.0, 1.0  # exercise the epsilon clipping
    reg_true = rs.normal(0, 1, (4, 3)).astype("float32")
    reg_pred = rs.normal(0, 1, (4, 3)).astype("float32")
    pos_true = rs.uniform(0, 2, (4, 3)).astype("float32")
    pos_pred = rs.uniform(0, 2, (4, 3)).astype("float32")
    sw = np.array([1.0, 0.5, 0.0, 2.0], "float32")
    return dict(logits=logits, probs=probs, onehot=onehot, labels=labels, binary=binary, bprobs=bprobs,
                reg_true=reg_true, reg_pred=reg_pred, pos_true=pos_true, pos_pred=pos_pred, sw=sw)


# (class name, kwargs, y_true key, y_pred key)
LOSSES = [
    ("MeanSquaredError", {}, "reg_true", "reg_pred"), ("MeanAbsoluteError", {}, "reg_true", "reg_pred"),
    ("MeanAbsolutePercentageError", {}, "reg_true", "reg_pred"),
    ("MeanSquaredLogarithmicError", {}, "pos_true", "pos_pred"), ("Huber", {"delta": 0.5}, "reg_true", "reg_pred"),
    ("LogCosh", {}, "reg_true", "reg_pred"), ("KLDivergence", {}, "onehot", "probs"), ("Poisson", {}, "pos_true",
                                                                                          "pos_pred"),
    ("Hinge", {}, "binary", "reg_pred"), ("SquaredHinge", {}, "binary", "reg_pred"),
    ("CategoricalHinge", {}, "onehot", "logits"), ("CosineSimilarity", {}, "reg_true", "reg_pred"),
    ("CosineSimilarity", {"axis": 0}, "reg_true", "reg_pred"),
    ("BinaryCrossentropy", {}, "binary", "bprobs"), ("BinaryCrossentropy", {"from_logits": True}, "binary",
                                                     "reg_pred"),
    ("BinaryCrossentropy", {"label_smoothing": 0.2}, "binary", "bprobs"),
    ("BinaryFocalCrossentropy", {}, "binary", "bprobs"),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "gamma": 1.5, "from_logits": True,
                                 "label_smoothing": 0.1}, "binary", "reg_pred"),
    ("CategoricalCrossentropy", {}, "onehot", "probs"), ("CategoricalCrossentropy", {"from_logits": True}, "onehot",
                                                         "logits"),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1, "from_logits": True}, "onehot", "logits"),
    ("CategoricalCrossentropy", {"axis": 0, "from_logits": True}, "onehot", "logits"),
    ("CategoricalFocalCrossentropy", {}, "onehot", "probs"),
    ("CategoricalFocalCrossentropy", {"from_logits": True, "alpha": 0.5, "label_smoothing": 0.1}, "onehot",
     "logits"),
    ("SparseCategoricalCrossentropy", {}, "labels", "probs"),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, "labels", "logits"),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 0}, "labels", "logits"),
    ("Dice", {}, "binary", "bprobs"), ("Tversky", {"alpha": 0.3, "beta": 0.7}, "binary", "bprobs"),
]
FUNCTIONS = ["mse", "mae", "mape", "msle", "kld", "logcosh", "poisson", "hinge", "squared_hinge",
             "categorical_hinge", "cosine_similarity", "huber", "binary_crossentropy", "categorical_crossentropy",
             "sparse_categorical_crossentropy", "binary_focal_crossentropy", "categorical_focal_crossentropy"]
FUNCTION_DATA = {"categorical_crossentropy": ("onehot", "probs"), "sparse_categorical_crossentropy":
                 ("labels", "probs"), "binary_crossentropy": ("binary", "bprobs"), "binary_focal_crossentropy":
                 ("binary", "bprobs"), "categorical_focal_crossentropy": ("onehot", "probs"),
                 "categorical_hinge": ("onehot", "logits"), "kld": ("onehot", "probs"),
                 "msle": ("pos_true", "pos_pred"),
                 "poisson": ("pos_true", "pos_pred"), "hinge": ("binary", "reg_pred"),
                 "squared_hinge": ("binary", "reg_pred")}


def run_losses(tf):
    d = _loss_data()
    out = {"classes": [], "functions": {}, "activations": {}}
    for name, kw, t, p in LOSSES:
        row = {}
        for red in ("sum_over_batch_size", "sum", "none", "mean_with_sample_weight"):
            loss = getattr(tf.keras.losses, name)(reduction=red, **kw)
            row[red] = np.asarray(loss(tf.constant(d[t]), tf.constant(d[p]))).tolist()
            try:
                row[red + "_sw"] = np.asarray(loss(tf.constant(d[t]), tf.constant(d[p]),
                                                   sample_weight=d["sw"])).tolist()
            except Exception as e:  # noqa: BLE001  (recorded: the error class must match)
                row[red + "_sw"] = "error:" + type(e).__name__
        out["classes"].append(row)
    for fname in FUNCTIONS:
        t, p = FUNCTION_DATA.get(fname, ("reg_true", "reg_pred"))
        out["functions"][fname] = np.asarray(getattr(tf.keras.losses, fname)(d[t], d[p])).tolist()
    # probabilities from a Keras softmax/sigmoid carry their logits: crossentropy uses them (no clipping)
    big = tf.constant(np.array([[20.0, -20.0, 0.0], [-30.0, 30.0, 5.0]], "float32"))
    cce = tf.keras.losses.CategoricalCrossentropy()
    out["activations"]["cce_softmax_output"] = float(cce(tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
                                                         tf.keras.activations.softmax(big)))
    bce = tf.keras.losses.BinaryCrossentropy()
    out["activations"]["bce_sigmoid_output"] = float(bce(tf.constant([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]),
                                                         tf.keras.activations.sigmoid(big)))
    out["activations"]["cce_plain"] = float(cce(tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
                                                tf.constant(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "float32"))))
    return out


# --- initializers, activations, regularizers, constraints ----------------------------------------------------------

INITIALIZERS = ["GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal", "LecunUniform",
                "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal"]
INIT_SHAPES = [(3, 4), (2, 2, 3, 5), (5, 2)]
ACTIVATIONS = {
    "relu": {}, "relu_slope": {"negative_slope": 0.1}, "relu_max": {"max_value": 2.5},
    "relu_all": {"negative_slope": 0.1, "max_value": 3.0, "threshold": 0.5}, "relu_threshold": {"threshold": 1.0},
    "relu_six": {"max_value": 6}, "gelu": {}, "gelu_approx": {"approximate": True}, "softmax": {},
    "softmax_axis1": {"axis": 1}, "log_softmax": {}, "elu_alpha": {"alpha": 2.0}, "celu": {"alpha": 1.5},
    "leaky_relu": {}, "squareplus": {"b": 2}, "soft_shrink": {"threshold": 0.7}, "hard_shrink": {"threshold": 0.7},
    "sparsemax": {}, "glu": {},
}
PLAIN_ACTIVATIONS = ["sigmoid", "tanh", "elu", "selu", "softplus", "softsign", "swish", "silu", "hard_sigmoid",
                     "hard_silu", "hard_swish", "exponential", "linear", "relu6", "mish", "log_sigmoid",
                     "sparse_sigmoid", "sparse_plus", "hard_tanh", "tanh_shrink"]


def run_basics(tf):
    out = {"initializers": {}, "activations": {}, "regularizers": {}, "constraints": {}}
    K = tf.keras
    for name in INITIALIZERS:
        for shape in INIT_SHAPES:
            out["initializers"][f"{name}{shape}"] = np.asarray(getattr(K.initializers, name)(seed=7)(shape)).tolist()
    out["initializers"]["variance_scaling"] = np.asarray(K.initializers.VarianceScaling(
        0.5, "fan_out", "untruncated_normal", seed=2**33 + 5)((4, 3))).tolist()
    out["initializers"]["float64"] = np.asarray(K.initializers.GlorotNormal(seed=3)((3, 3), dtype="float64")).tolist()
    # unseeded initializers draw their seed from Python's random, which keras.utils.set_random_seed seeds
    K.utils.set_random_seed(3)
    out["initializers"]["after_set_random_seed"] = [np.asarray(K.initializers.GlorotUniform()((3, 4))).tolist(),
                                                    np.asarray(K.initializers.get("he_normal")((2, 2))).tolist()]
    x = np.linspace(-4, 4, 24).astype("float32").reshape(2, 3, 4)
    for key, kw in ACTIVATIONS.items():
        fn = getattr(K.activations, key.split("_")[0] if key.startswith(("relu_", "gelu_", "softmax_", "elu_"))
                     else key)
        out["activations"][key] = np.asarray(fn(tf.constant(x), **kw), "float64").tolist()
    for key in PLAIN_ACTIVATIONS:
        out["activations"][key] = np.asarray(getattr(K.activations, key)(tf.constant(x)), "float64").tolist()
    w = tf.constant((np.arange(12, dtype="float32").reshape(3, 4) - 5.0) / 3.0)
    regs = {"l1": K.regularizers.L1(0.1), "l2": K.regularizers.L2(0.2), "l1l2": K.regularizers.L1L2(0.1, 0.2),
            "orth_rows": K.regularizers.OrthogonalRegularizer(0.1),
            "orth_cols": K.regularizers.OrthogonalRegularizer(0.1, mode="columns")}
    for key, r in regs.items():
        out["regularizers"][key] = float(r(w))
    cons = {"max_norm": K.constraints.MaxNorm(2.0), "max_norm_axis1": K.constraints.MaxNorm(1.0, axis=1),
            "non_neg": K.constraints.NonNeg(), "unit_norm": K.constraints.UnitNorm(),
            "min_max": K.constraints.MinMaxNorm(1.0, 2.0, rate=0.5, axis=1)}
    for key, c in cons.items():
        out["constraints"][key] = np.asarray(c(w)).tolist()
    return out
