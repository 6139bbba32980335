"""tf.nn activations against NumPy/SciPy references, plus TF's dtype rules and errors."""

import numpy as np
import scipy.special
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import nn_activations as act
from tensorlet._src.ops.registry import bind

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16")
UN = [((2, 3),), ((),), ((0, 4),)]
SOFT = [((5,),), ((2, 3, 4),), ((0, 3),)]


def f64(fn):
    """A float64 reference rounded to the input's dtype."""
    return lambda x: np.asarray(fn(np.asarray(x, np.float64))).astype(x.dtype)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


_A, _S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu(x):
    return _S * np.where(x > 0, x, _A * np.expm1(np.minimum(x, 0)))


def _grad_op(op, **attrs):
    """A gradient kernel (TF's ReluGrad, EluGrad, ...) called as ``op(gradients, features_or_outputs)``."""
    return lambda g, x: bind(op, g, x, **attrs)


def _g64(fn):
    """A float64 reference of ``fn(g, x)`` rounded to the inputs' dtype."""
    return lambda g, x: np.asarray(fn(g.astype(np.float64), x.astype(np.float64))).astype(g.dtype)


GRAD2 = [((2, 3), (2, 3)), ((), ()), ((0, 4), (0, 4))]


def _elu_outputs(rng, shapes, dtype):
    """(gradients, Elu outputs): EluGrad/SeluGrad read the forward outputs."""
    x = rng.uniform(-3, 3, shapes[1])
    return [make(rng, shapes[0], dtype), np.asarray(_elu(x)).astype(dtype)]


def _selu_outputs(rng, shapes, dtype):
    x = rng.uniform(-3, 3, shapes[1])
    return [make(rng, shapes[0], dtype), np.asarray(_selu(x)).astype(dtype)]


def _extremes(rng, shapes, dtype):
    return [np.array([-100.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 100.0], dtype)]


def _big_logits(rng, shapes, dtype):
    return [np.array([[1000.0, 0.0, -1000.0], [-5e3, -5e3, -5e3]], dtype)]


CASES = [
    Case(tf.nn.relu, lambda x: np.maximum(x, 0).astype(x.dtype), UN, ("float32",), ops=("Relu",)),
    Case(tf.nn.relu, lambda x: np.maximum(x, 0).astype(x.dtype), [((2, 3),)], FLOATS + INTS, domain=(-9, 9),
         ops=("Relu",), id="relu_dtypes"),
    Case(tf.nn.relu6, lambda x: np.clip(x, 0, 6).astype(x.dtype), UN, ("float64",), domain=(-9, 9), ops=("Relu6",)),
    Case(tf.nn.relu6, lambda x: np.clip(x, 0, 6).astype(x.dtype), [((2, 3),)], FLOATS + INTS, domain=(-9, 9),
         ops=("Relu6",), id="relu6_dtypes"),
    Case(tf.nn.leaky_relu, f64(lambda x: np.where(x > 0, x, 0.2 * x)), UN, FLOATS, ops=("LeakyRelu",)),
    Case(lambda x: tf.nn.leaky_relu(x, alpha=2.0), f64(lambda x: np.where(x > 0, x, 2 * x)), UN[:2], ("float32",),
         ops=("LeakyRelu",), id="leaky_relu_alpha2"),
    Case(tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x.astype(np.float32)).astype(np.float32), UN[:2],
         ("int32", "int64", "uint8"), domain=(-9, 9), ops=("Cast", "LeakyRelu"), id="leaky_relu_int"),
    Case(tf.nn.elu, f64(_elu), UN, FLOATS, ops=("Elu",)),
    Case(tf.nn.selu, f64(_selu), UN, FLOATS, ops=("Selu",)),
    Case(tf.nn.softplus, f64(lambda x: np.logaddexp(0, x)), UN, FLOATS, domain=(-30, 30), ops=("Softplus",)),
    Case(tf.math.softplus, f64(lambda x: np.logaddexp(0, x)), [((7,),)], ("float32", "float64"),
         gen=_extremes, ops=("Softplus",), id="softplus_extremes"),
    Case(tf.nn.softsign, f64(lambda x: x / (1 + np.abs(x))), UN, FLOATS, ops=("Softsign",)),
    Case(tf.nn.gelu, f64(lambda x: 0.5 * x * scipy.special.erfc(-x / np.sqrt(2))), UN, FLOATS, ops=("Erfc",)),
    Case(tf.nn.gelu, f64(lambda x: 0.5 * x * scipy.special.erfc(-x / np.sqrt(2))), [((4,),)], ("float32",),
         gen=lambda rng, s, d: [np.array([-12.0, -6.0, 6.0, 12.0], d)], ops=("Erfc",), id="gelu_tails"),
    Case(lambda x: tf.nn.gelu(x, approximate=True),
         f64(lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))), UN,
         ("float32", "float64"), ops=("Tanh",), id="gelu_tanh"),
    Case(tf.nn.silu, f64(lambda x: x * scipy.special.expit(x)), UN, ("float16", "float32", "float64"),
         ops=("Sigmoid", "Mul")),
    Case(lambda x: tf.nn.swish(x, beta=2.0), f64(lambda x: x * scipy.special.expit(2 * x)), UN[:2],
         ("float32", "float64"), ops=("Sigmoid",), id="swish_beta"),
    Case(tf.nn.softmax, f64(_softmax), SOFT, FLOATS, ops=("Softmax",)),
    Case(tf.math.softmax, f64(_softmax), [((2, 3),)], ("float32", "float64"), gen=_big_logits, ops=("Softmax",),
         id="softmax_large"),
    Case(lambda x: tf.nn.softmax(x, axis=0), f64(lambda x: _softmax(x, 0)), [((3, 4),), ((2, 3, 4),)],
         ("float32",), ops=("Softmax", "Transpose"), id="softmax_axis0"),
    Case(lambda x: tf.nn.softmax(x, axis=tf.constant(-2)), f64(lambda x: _softmax(x, -2)), [((3, 4, 2),)],
         ("float64",), ops=("Softmax",), id="softmax_axis_tensor"),
    Case(tf.nn.log_softmax, f64(_log_softmax), SOFT, FLOATS, ops=("LogSoftmax",)),
    Case(tf.math.log_softmax, f64(_log_softmax), [((2, 3),)], ("float32", "float64"), gen=_big_logits,
         ops=("LogSoftmax",), id="log_softmax_large"),
    Case(lambda x: tf.nn.log_softmax(x, axis=1), f64(lambda x: _log_softmax(x, 1)), [((2, 3, 4),)], ("float32",),
         ops=("LogSoftmax", "Transpose"), id="log_softmax_axis1"),
    # gradient kernels
    Case(_grad_op(act.RELU_GRAD), lambda g, x: (g * (x > 0)).astype(g.dtype), GRAD2, FLOATS + ("int32", "uint8"),
         ops=("ReluGrad",), id="relu_grad"),
    Case(_grad_op(act.RELU6_GRAD), lambda g, x: (g * ((x > 0) & (x < 6))).astype(g.dtype), GRAD2,
         FLOATS + ("int64",), domain=(-9, 9), ops=("Relu6Grad",), id="relu6_grad"),
    Case(_grad_op(act.LEAKY_RELU_GRAD, alpha=0.3), _g64(lambda g, x: np.where(x > 0, g, 0.3 * g)), GRAD2, FLOATS,
         ops=("LeakyReluGrad",), id="leaky_relu_grad"),
    Case(_grad_op(act.ELU_GRAD), _g64(lambda g, y: np.where(y < 0, g * (y + 1), g)), GRAD2, FLOATS,
         gen=_elu_outputs, ops=("EluGrad",), id="elu_grad"),
    Case(_grad_op(act.SELU_GRAD), _g64(lambda g, y: np.where(y < 0, g * (y + _S * _A), g * _S)), GRAD2, FLOATS,
         gen=_selu_outputs, ops=("SeluGrad",), id="selu_grad"),
    Case(_grad_op(act.SOFTPLUS_GRAD), _g64(lambda g, x: g * scipy.special.expit(x)), GRAD2, FLOATS,
         domain=(-30, 30), ops=("SoftplusGrad",), id="softplus_grad"),
    Case(_grad_op(act.SOFTSIGN_GRAD), _g64(lambda g, x: g / (1 + np.abs(x)) ** 2), GRAD2, FLOATS,
         ops=("SoftsignGrad",), id="softsign_grad"),
    Case(tf.nn.crelu, lambda x: np.maximum(np.concatenate([x, -x], -1), 0).astype(x.dtype), [((2, 3),), ((4,),)],
         ("float32", "int32"), ops=("ConcatV2", "Neg", "Relu")),
    Case(lambda x: tf.nn.crelu(x, axis=0), lambda x: np.maximum(np.concatenate([x, -x], 0), 0), [((2, 3),)],
         ("float64",), ops=("Relu",), id="crelu_axis0"),
]


ERRORS = [
    Err(lambda: tf.nn.relu(tf.constant([True])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of bool is not in the list of allowed values: .* \[Op:Relu\]"),
    Err(lambda: tf.nn.relu(tf.constant([1j])), tf.errors.InvalidArgumentError, "attr 'T' of complex128"),
    Err(lambda: tf.nn.elu(tf.constant([1])), tf.errors.InvalidArgumentError,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double"),
    Err(lambda: tf.nn.selu([1, 2]), tf.errors.InvalidArgumentError, r"\[Op:Selu\]"),
    Err(lambda: tf.nn.softplus(tf.constant([1], tf.int64)), tf.errors.InvalidArgumentError, r"\[Op:Softplus\]"),
    Err(lambda: tf.nn.softsign(tf.constant([1], tf.uint8)), tf.errors.InvalidArgumentError, r"\[Op:Softsign\]"),
    Err(lambda: tf.nn.softmax(tf.constant([1, 2])), tf.errors.InvalidArgumentError, r"attr 'T' of int32.*Softmax"),
    Err(lambda: tf.nn.softmax(tf.constant(1.0)), tf.errors.InvalidArgumentError,
        r"logits must have >= 1 dimension, got \[\]"),
    Err(lambda: tf.nn.log_softmax(tf.constant(1.0)), tf.errors.InvalidArgumentError,
        r"logits must have >= 1 dimension.*LogSoftmax"),
    Err(lambda: tf.nn.softmax(tf.zeros([2, 2]), axis=5), tf.errors.InvalidArgumentError,
        r"`dim` must be in the range \[-2, 2\) where 2 is the number of dimensions in the input. Received: dim=5"),
    Err(lambda: tf.nn.log_softmax(tf.zeros([2, 2]), axis=-3), tf.errors.InvalidArgumentError, "Received: dim=-3"),
    Err(lambda: tf.nn.gelu(tf.constant([1])), ValueError, "`features.dtype` must be a floating point tensor"),
    Err(lambda: tf.nn.gelu(tf.constant([1j])), ValueError, "floating point"),
    Err(lambda: tf.nn.leaky_relu(tf.constant([1.0]), alpha=tf.constant(0.5)), TypeError,
        "Expected float for argument 'alpha'"),
    Err(lambda: tf.nn.leaky_relu(tf.constant([True])), tf.errors.InvalidArgumentError, r"\[Op:LeakyRelu\]"),
    Err(lambda: tf.nn.crelu(tf.constant([1], tf.uint8)), tf.errors.InvalidArgumentError, "attr 'T' of uint8"),
    Err(lambda: tf.nn.silu(tf.constant([1])), tf.errors.InvalidArgumentError, "attr 'T' of int32"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_public_names_are_shared():
    assert tf.nn.softplus is tf.math.softplus
    assert tf.nn.softsign is tf.math.softsign
    assert tf.nn.softmax is tf.math.softmax
    assert tf.nn.log_softmax is tf.math.log_softmax
    assert tf.nn.silu is tf.nn.swish


def test_relu_family_keeps_dtype_and_saturates():
    r = tf.nn.relu6(tf.constant([100, -3, 7], tf.int8))
    assert r.dtype == tf.int8 and r.numpy().tolist() == [6, 0, 6]
    assert tf.nn.relu([-1, 2]).dtype == tf.int32
    assert tf.nn.leaky_relu([-1, 2]).dtype == tf.float32


def test_softplus_is_stable():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        r = tf.nn.softplus(tf.constant([1e4, -1e4, 88.0, -88.0], tf.float32)).numpy()
    assert np.isfinite(r).all()
    np.testing.assert_allclose(r[:3], [1e4, 0.0, 88.0], rtol=1e-6, atol=1e-30)


def test_softmax_is_stable_and_normalized():
    r = tf.nn.softmax(tf.constant([[1e4, 1e4 - 1.0], [-1e4, -1e4]], tf.float16)).numpy().astype(np.float64)
    assert np.isfinite(r).all()
    np.testing.assert_allclose(r.sum(-1), 1.0, rtol=1e-3)
test_compiled = compiled_tests(CASES)
