"""TF's top-level misc ops against results recorded from real TF (tests/goldens/array_sequence.json; cases
array_sequence_cases.py), plus reference cases for the op table."""

import numpy as np
import pytest
import value_cases
from array_sequence_cases import CASES as GOLDEN_CASES
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

GOLDEN = value_cases.load("array_sequence.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def _rev_ref(x, lengths, seq_axis, batch_axis):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch_axis] = b
        seq = np.take(x[tuple(src)], np.arange(n)[::-1], axis=seq_axis - (seq_axis > batch_axis))
        dst = list(src)
        dst[seq_axis] = slice(0, n)
        out[tuple(dst)] = seq
    return out


_L = np.array([2, 0, 3])
CASES = [
    Case(lambda x: tf.reverse_sequence(x, _L, seq_axis=1, batch_axis=0), lambda x: _rev_ref(x, _L, 1, 0),
         [((3, 4),), ((3, 3, 2),)], ("float32", "float64", "int32"), ops=("ReverseSequence",)),
    Case(lambda x: tf.reverse_sequence(x, _L, seq_axis=0, batch_axis=1), lambda x: _rev_ref(x, _L, 0, 1),
         [((4, 3),)], ("float64",), ops=("ReverseSequence",), id="reverse_sequence_batch_axis1"),
    Case(lambda x: x + tf.cast(tf.timestamp() > 0, x.dtype) * 0, lambda x: x, [((2,),)], ("float64",),
         ops=("Timestamp",), jax=False,  # reads the host clock: no XLA lowering, as in TF
         grad=False),  # nothing to differentiate: the clock has no inputs
]

ERRORS = [
    Err(lambda: tf.reverse_sequence(tf.zeros([2, 3]), [4, 1], seq_axis=1), tf.errors.InvalidArgumentError,
        r"seq_lens\(0\) > input.dims\(1\)"),
    Err(lambda: tf.reverse_sequence(tf.zeros([2, 3]), [1, 1, 1], seq_axis=1), tf.errors.InvalidArgumentError,
        "Length of seq_lengths"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)


def test_approx_k_on_other_axes_and_min():
    # TF's CPU kernels only reduce the last axis of a max-k (else NotFoundError); here every axis works
    x = tf.constant([[1.0, 5.0], [3.0, 2.0], [0.0, 7.0]])
    v, i = tf.math.approx_max_k(x, 2, reduction_dimension=0)
    assert v.numpy().tolist() == [[3.0, 7.0], [1.0, 5.0]] and i.numpy().tolist() == [[1, 2], [0, 0]]
    v, i = tf.nn.approx_min_k(x, 1)
    assert v.numpy().tolist() == [[1.0], [2.0], [0.0]] and i.numpy().tolist() == [[0], [1], [0]]


def test_register_gradient_and_no_gradient_on_new_op_types():
    @tf.RegisterGradient("TensorletTestOnlyOp")
    def _g(op, grad):
        return grad

    with pytest.raises(KeyError, match="Registering two gradient"):
        tf.RegisterGradient("TensorletTestOnlyOp")(_g)
    tf.no_gradient("TensorletTestOnlyOp2")


def test_conv2d_backprop_v2_are_conv2d_gradients():
    # TF 2.21 registers no kernel for Conv2DBackprop{Filter,Input}V2 (NotFoundError); here they compute what the
    # names say, checked against the tape's gradients of conv2d
    x = tf.reshape(tf.range(50.0), [1, 5, 5, 2]) / 10
    w = tf.reshape(tf.range(24.0), [2, 2, 2, 3]) / 10
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
        loss = tf.reduce_sum(y * tf.reshape(tf.range(27.0), [1, 3, 3, 3]))
    dy = tf.reshape(tf.range(27.0), [1, 3, 3, 3])
    np.testing.assert_allclose(tf.conv2d_backprop_filter_v2(x, w, dy, [1, 2, 2, 1], "SAME").numpy(),
                               tape.gradient(loss, w).numpy(), rtol=1e-5)
    np.testing.assert_allclose(tf.conv2d_backprop_input_v2(x, w, dy, [1, 2, 2, 1], "SAME").numpy(),
                               tape.gradient(loss, x).numpy(), rtol=1e-5)
