"""tf.nn.fractional_max_pool / fractional_avg_pool against results recorded from real TF
(tests/goldens/fractional_pool.json; cases fractional_pool_cases.py): outputs, TF's seeded pooling sequences and
gradients."""

import numpy as np
import pytest
import value_cases
from fractional_pool_cases import CASES as GOLDEN_CASES

import tensorlet as tf
from tensorlet._src.ops import nn_fractional_pool as fp

GOLDEN = value_cases.load("fractional_pool.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    try:
        value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)
    finally:
        tf.random.set_seed(None)


@pytest.mark.parametrize("pseudo", [False, True])
def test_unseeded_sequences_follow_tf_rule(pseudo):
    for n_in, n_out in ((7, 4), (25, 10), (23, 19), (9, 3)):
        rows, _ = fp.pooling_sequences(n_in, n_in, n_out, n_out, pseudo, 0, 0)
        gaps = np.diff(rows)
        k = n_in // n_out
        assert rows[0] == 0 and rows[-1] == n_in and len(rows) == n_out + 1
        assert set(gaps.tolist()) <= {k, k + 1}


def _max_ref(x):  # ratio 2 on an even size: every random sequence is the regular 2x2 grid
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _avg_ref(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).mean(axis=(2, 4)).astype(x.dtype)


def _tape(pool):
    def fn(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(pool(x, [1.0, 2.0, 2.0, 1.0], seed=3).output)
        return tape.gradient(y, x)
    return fn


def _max_grad_ref(x):
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4).reshape(n, h // 2, w // 2, c, 4)
    first = blocks.argmax(-1)
    mask = np.zeros_like(blocks)
    np.put_along_axis(mask, first[..., None], 1.0, -1)
    return mask.reshape(n, h // 2, w // 2, c, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(x.shape)


from opcheck import Case, op_tests  # noqa: E402

# NumPy-only (pooling regions are drawn on the host: no XLA form); graph runs are golden cases ("in_function")
_NP = dict(jax=False, graph=False)
CASES = [
    # first order only (test_max_pool_first_order_gradient): TF defines no gradient of FractionalMaxPoolGrad
    Case(lambda x: tf.nn.fractional_max_pool(x, [1.0, 2.0, 2.0, 1.0], seed=3).output, _max_ref,
         [((2, 4, 6, 3),)], ("float32", "float64"), ops=("FractionalMaxPool",), grad=False, **_NP),
    Case(lambda x: tf.nn.fractional_avg_pool(x, [1.0, 2.0, 2.0, 1.0], seed=3).output, _avg_ref,
         [((2, 4, 6, 3),)], ("float32", "float64"), ops=("FractionalAvgPool",), **_NP),
    Case(_tape(tf.nn.fractional_max_pool), _max_grad_ref, [((1, 4, 4, 2),)], ("float64",),
         ops=("FractionalMaxPoolGrad",), grad=False, **_NP),
    Case(_tape(tf.nn.fractional_avg_pool), lambda x: np.full(x.shape, 0.25), [((1, 4, 4, 2),)], ("float64",),
         ops=("FractionalAvgPoolGrad",), grad=False, **_NP),
]
test_values, test_lowering, _ = op_tests(CASES)


def test_max_pool_first_order_gradient():
    import dataclasses

    from gradcheck import check_case_gradients

    check_case_gradients(dataclasses.replace(CASES[0], grad=True), order=1)


def test_second_order_is_a_lookup_error_as_in_tf():
    x = tf.constant(np.random.default_rng(0).normal(size=(1, 4, 4, 1)))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.fractional_max_pool(x, [1.0, 2.0, 2.0, 1.0], seed=3).output ** 2)
        g = inner.gradient(y, x)
    with pytest.raises(LookupError, match="FractionalMaxPoolGrad"):
        outer.gradient(g, x)
