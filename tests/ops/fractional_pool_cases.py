"""tf.nn.fractional_max_pool / fractional_avg_pool programs run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/fractional_pool.json) and by tensorlet (tests/ops/test_nn_fractional_pool.py).  With a seed TF's
pooling sequences are reproducible, so outputs, sequences and gradients are compared as recorded."""

import numpy as np

_RNG = np.random.default_rng(1512)
X = _RNG.normal(size=(2, 7, 9, 3)).astype(np.float32).round(3)
BIG = _RNG.normal(size=(1, 25, 23, 1)).astype(np.float32).round(3)
INTS = _RNG.integers(-50, 50, size=(1, 6, 8, 2)).astype(np.int32)


def _pool(what, x, ratio, **kw):
    return lambda tf: getattr(tf.nn, f"fractional_{what}_pool")(x, ratio, **kw)


def _grad(tf, what, x, ratio, **kw):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        r = getattr(tf.nn, f"fractional_{what}_pool")(x, ratio, **kw)
        y = tf.reduce_sum(r.output * tf.reshape(tf.range(1.0, 1.0 + tf.size(r.output, tf.float32).numpy()),
                                                  tf.shape(r.output)))
    return [r.row_pooling_sequence, r.col_pooling_sequence, tape.gradient(y, x)]


def _global_seed(tf, what):
    tf.random.set_seed(1234)  # the sequences' Philox key comes from (global seed, op seed)
    try:
        return getattr(tf.nn, f"fractional_{what}_pool")(X, R, seed=7)
    finally:
        tf.random.set_seed(None)


R = [1.0, 1.44, 1.73, 1.0]
CASES = {}
for what in ("max", "avg"):
    CASES.update({
        f"{what}_random": _pool(what, X, R, seed=7),
        f"{what}_pseudo": _pool(what, X, R, pseudo_random=True, seed=7),
        f"{what}_overlapping": _pool(what, X, R, overlapping=True, seed=11),
        f"{what}_pseudo_overlapping": _pool(what, X, R, pseudo_random=True, overlapping=True, seed=11),
        f"{what}_ratio_2_3": _pool(what, BIG, [1.0, 2.3, 1.2, 1.0], seed=5),
        f"{what}_ratio_2_3_pseudo": _pool(what, BIG, [1.0, 2.3, 1.2, 1.0], pseudo_random=True, seed=5),
        f"{what}_ratio_exact": _pool(what, BIG, [1.0, 1.0, 23.0 / 11.5, 1.0], seed=3),
        f"{what}_float64": _pool(what, X.astype(np.float64), R, seed=9),
        f"{what}_int32": _pool(what, INTS, [1.0, 1.5, 1.5, 1.0], seed=3),
        f"{what}_int64_pseudo": _pool(what, INTS.astype(np.int64), [1.0, 1.5, 1.5, 1.0], pseudo_random=True, seed=4),
        f"{what}_grad": (lambda w: lambda tf: _grad(tf, w, X, R, seed=7))(what),
        f"{what}_grad_overlapping": (lambda w: lambda tf: _grad(tf, w, X, R, overlapping=True, seed=8))(what),
        f"{what}_grad_pseudo_overlapping": (lambda w: lambda tf: _grad(tf, w, BIG, [1.0, 2.3, 1.2, 1.0],
                                                                       pseudo_random=True, overlapping=True,
                                                                       seed=8))(what),
        f"{what}_global_seed": (lambda w: lambda tf: _global_seed(tf, w))(what),
        f"{what}_batch_ratio": _pool(what, X, [2.0, 1.5, 1.5, 1.0], seed=1),
        f"{what}_scalar_ratio": _pool(what, X, 1.5, seed=1),
        f"{what}_short_ratio": _pool(what, X, [1.5, 1.5], seed=1),
        f"{what}_ratio_below_one": _pool(what, X, [1.0, 0.5, 1.5, 1.0], seed=1),
        f"{what}_ratio_too_big": _pool(what, X, [1.0, 20.0, 1.5, 1.0], seed=1),
        f"{what}_rank3": _pool(what, X[0], [1.0, 1.5, 1.5, 1.0], seed=1),
        f"{what}_in_function": (lambda w: lambda tf: tf.function(lambda x: getattr(
            tf.nn, f"fractional_{w}_pool")(x, R, seed=13))(tf.constant(X)))(what),
    })

CASES.update({
    "v1_max_deterministic": lambda tf: tf.compat.v1.nn.fractional_max_pool(X, R, deterministic=True, seed=3,
                                                                           seed2=4),
    "v1_avg_pseudo": lambda tf: tf.compat.v1.nn.fractional_avg_pool(X, R, True, False, True, 5, 6),
    "v1_seed_not_deterministic": lambda tf: tf.compat.v1.nn.fractional_max_pool(X, R, seed=3),
})
