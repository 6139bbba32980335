"""``tf.nn`` activations: the relu family, elu/selu, gelu, silu, softplus/softsign, softmax/log_softmax, crelu.

Kernels for half types (float16, bfloat16) compute in float32 and round once at the end.
"""

from __future__ import annotations


import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
FLOATS = D.FLOATS  # TF's half, bfloat16, float, double
RELU_T = D.FLOATS + D.INTS  # Relu/Relu6 also take every integer type


def f32(x):
    """Half-precision arrays upcast to float32 for a kernel's arithmetic (other dtypes unchanged)."""
    return x.astype(np.float32) if x.dtype.itemsize < 4 else x


def const(value, dtype):
    """A scalar tensor of ``dtype`` rounded once by NumPy (Python floats must not detour through float32)."""
    return t(np.asarray(value, dtype.as_numpy_dtype))


def _float_check(x, what="features"):
    if not x.dtype.is_floating:
        raise ValueError(f"`{what}.dtype` must be a floating point tensor.Received:{what}.dtype={x.dtype}")


# --- relu family ------------------------------------------------------------------------

# Gradient kernels (TF's ReluGrad, Relu6Grad, LeakyReluGrad): ``(gradients, features)`` -> backprops.  They
# multiply by a 0/1 mask as TF does, so a NaN upstream gradient stays NaN where the unit is inactive.
RELU_GRAD = defop("ReluGrad", lambda xp, g, x: g * (x > 0).astype(g.dtype), dtypes=RELU_T, shape=shapes.same,
                  grad=lambda gg, ans, g, x: (bind(RELU_GRAD, gg, x), creation.zeros_like(x)))
RELU6_GRAD = defop("Relu6Grad", lambda xp, g, x: g * ((x > 0) & (x < 6)).astype(g.dtype), dtypes=RELU_T,
                   shape=shapes.same, grad=lambda gg, ans, g, x: (bind(RELU6_GRAD, gg, x), creation.zeros_like(x)))
LEAKY_RELU_GRAD = defop(
    "LeakyReluGrad", lambda xp, g, x, alpha: xp.where(x > 0, g, f32(g) * alpha).astype(g.dtype, copy=False),
    dtypes=FLOATS, shape=shapes.same,
    grad=lambda gg, ans, g, x, alpha: (bind(LEAKY_RELU_GRAD, gg, x, alpha=alpha), creation.zeros_like(x)))

# Relu and Relu6 differentiate through their outputs (TF): 0 at x == 0, and Relu6 also 0 at x == 6.
RELU = defop("Relu", lambda xp, x: xp.maximum(x, 0).astype(x.dtype, copy=False), dtypes=RELU_T, shape=shapes.same,
             grad=lambda g, ans, x: bind(RELU_GRAD, g, ans))
RELU6 = defop("Relu6", lambda xp, x: xp.minimum(xp.maximum(x, 0), 6).astype(x.dtype, copy=False),
              dtypes=RELU_T, shape=shapes.same, grad=lambda g, ans, x: bind(RELU6_GRAD, g, ans))
# LeakyRelu's slope at x == 0 is alpha (TF: features > 0 selects the identity).
LEAKY_RELU = defop("LeakyRelu", lambda xp, x, alpha: xp.where(x > 0, x, x * alpha).astype(x.dtype, copy=False),
                   dtypes=FLOATS, shape=shapes.same,
                   grad=lambda g, ans, x, alpha: bind(LEAKY_RELU_GRAD, g, x, alpha=alpha))


@tf_export("nn.relu")
def relu(features, name=None):
    """max(features, 0).  ``tf.nn.relu([-1.0, 2.0])`` -> ``[0.0, 2.0]``; integer tensors are allowed."""
    return bind(RELU, t(features))


@tf_export("nn.relu6")
def relu6(features, name=None):
    """min(max(features, 0), 6).  ``tf.nn.relu6([-1.0, 8.0])`` -> ``[0.0, 6.0]``."""
    return bind(RELU6, t(features))


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else alpha * features.  ``tf.nn.leaky_relu([-1.0, 2.0])`` -> ``[-0.2, 2.0]``.

    Integer inputs are cast to float32 first, as in TF.
    """
    x = t(features)
    if x.dtype.is_integer:
        x = math_binary.cast(x, D.float32)
    a = alpha.item() if isinstance(alpha, (np.generic, np.ndarray)) and np.ndim(alpha) == 0 else alpha
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    return bind(LEAKY_RELU, x, alpha=float(a))


# --- exponential family -----------------------------------------------------------------

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _elu(xp, x):
    y = f32(x)
    return xp.where(y > 0, y, xp.expm1(xp.minimum(y, 0))).astype(x.dtype, copy=False)


def _selu(xp, x):
    y = f32(x)
    neg = (_SELU_SCALE * _SELU_ALPHA) * xp.expm1(xp.minimum(y, 0))
    return xp.where(y > 0, _SELU_SCALE * y, neg).astype(x.dtype, copy=False)


def _softplus(xp, x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large x, no underflow loss for small x.
    y = f32(x)
    return (xp.maximum(y, 0) + xp.log1p(xp.exp(-xp.abs(y)))).astype(x.dtype, copy=False)


def _softsign(xp, x):
    y = f32(x)
    return (y / (1 + xp.abs(y))).astype(x.dtype, copy=False)


# Gradient kernels.  EluGrad/SeluGrad take the forward *outputs* y (TF): for y < 0 the slope is y + 1
# (resp. y + scale * alpha), else 1 (resp. scale) -- so the slope at x == 0 is 1 (resp. scale).
def _elu_grad(xp, g, y):
    gf, yf = f32(g), f32(y)
    return xp.where(yf < 0, gf * (yf + 1), gf).astype(g.dtype, copy=False)


def _selu_grad(xp, g, y):
    gf, yf = f32(g), f32(y)
    return xp.where(yf < 0, gf * (yf + _SELU_SCALE * _SELU_ALPHA), gf * _SELU_SCALE).astype(g.dtype, copy=False)


def _softplus_grad(xp, g, x):
    # g * sigmoid(x); exp(-x) overflowing to inf for very negative x gives the right limit 0
    return (f32(g) / (1 + xp.exp(-f32(x)))).astype(g.dtype, copy=False)


def _softsign_grad(xp, g, x):
    return (f32(g) / xp.square(1 + xp.abs(f32(x)))).astype(g.dtype, copy=False)


def _negative_part(y, value):
    """``value`` where the forward output ``y`` is negative, else 0 (the d/dy term of EluGrad/SeluGrad)."""
    return array_select.where(math_binary.less(y, creation.zeros_like(y)), value, creation.zeros_like(value))


ELU_GRAD = defop("EluGrad", _elu_grad, dtypes=FLOATS, shape=shapes.same,
                 grad=lambda gg, ans, g, y: (bind(ELU_GRAD, gg, y), _negative_part(y, gg * g)))
SELU_GRAD = defop("SeluGrad", _selu_grad, dtypes=FLOATS, shape=shapes.same,
                  grad=lambda gg, ans, g, y: (bind(SELU_GRAD, gg, y), _negative_part(y, gg * g)))


def _softplus_grad_grad(gg, ans, g, x):
    # d/dx [g * sigmoid(x)] = g * sigmoid(x) * sigmoid(-x), which neither overflows nor cancels
    sigmoid = mu.sigmoid
    return bind(SOFTPLUS_GRAD, gg, x), gg * g * sigmoid(x) * sigmoid(-x)


def _softsign_grad_grad(gg, ans, g, x):
    # d/dx [g / (1 + |x|)^2] = -2 g sign(x) / (1 + |x|)^3  (TF registers no gradient for SoftsignGrad)
    d = 1 + mu.abs(x)
    return bind(SOFTSIGN_GRAD, gg, x), (-2 * gg * g * mu.sign(x)) / (d * d * d)


SOFTPLUS_GRAD = defop("SoftplusGrad", _softplus_grad, dtypes=FLOATS, shape=shapes.same, quiet=True,
                      grad=_softplus_grad_grad)
SOFTSIGN_GRAD = defop("SoftsignGrad", _softsign_grad, dtypes=FLOATS, shape=shapes.same, grad=_softsign_grad_grad)

ELU = defop("Elu", _elu, dtypes=FLOATS, shape=shapes.same, grad=lambda g, ans, x: bind(ELU_GRAD, g, ans))
SELU = defop("Selu", _selu, dtypes=FLOATS, shape=shapes.same, grad=lambda g, ans, x: bind(SELU_GRAD, g, ans))
SOFTPLUS = defop("Softplus", _softplus, dtypes=FLOATS, shape=shapes.same,
                 grad=lambda g, ans, x: bind(SOFTPLUS_GRAD, g, x))
SOFTSIGN = defop("Softsign", _softsign, dtypes=FLOATS, shape=shapes.same,
                 grad=lambda g, ans, x: bind(SOFTSIGN_GRAD, g, x))


@tf_export("nn.elu")
def elu(features, name=None):
    """x if x > 0 else exp(x) - 1.  ``tf.nn.elu([-1.0, 2.0])`` -> ``[-0.632, 2.0]``."""
    return bind(ELU, t(features))


@tf_export("nn.selu")
def selu(features, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).  ``tf.nn.selu([0.0, 1.0])`` -> ``[0.0, 1.0507]``."""
    return bind(SELU, t(features))


@tf_export("math.softplus", "nn.softplus")
def softplus(features, name=None):
    """log(exp(x) + 1), stable for large |x|.  ``tf.math.softplus([0.0, 100.0])`` -> ``[0.693, 100.0]``."""
    return bind(SOFTPLUS, t(features))


@tf_export("math.softsign", "nn.softsign")
def softsign(features, name=None):
    """x / (|x| + 1).  ``tf.nn.softsign([-1.0, 3.0])`` -> ``[-0.5, 0.75]``."""
    return bind(SOFTSIGN, t(features))


@tf_export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * P(X <= x) for a standard normal X.

    ``tf.nn.gelu([1.0])`` -> ``[0.8413]``; ``approximate=True`` uses the tanh approximation.
    """
    x = t(features)
    _float_check(x)
    d = x.dtype
    if approximate:
        inner = const(0.7978845608028654, d) * (x + const(0.044715, d) * (x * x * x))
        return 0.5 * x * (1.0 + mu.tanh(inner))
    # erfc(-x / sqrt(2)) = 1 + erf(x / sqrt(2)) without the cancellation for negative x
    return 0.5 * x * mu.erfc(mu.negative(x) * const(0.7071067811865476, d))


@tf_export("nn.silu", "nn.swish")
def silu(features, beta=1.0):
    """x * sigmoid(beta * x).  ``tf.nn.silu([1.0])`` -> ``[0.7311]``."""
    x = t(features)
    b = math_binary.cast(t(beta), x.dtype)
    return x * mu.sigmoid(b * x)


@tf_export("nn.crelu")
def crelu(features, axis=-1, name=None):
    """relu of [x, -x] concatenated along ``axis``.  ``tf.nn.crelu([-1.0, 2.0])`` -> ``[0.0, 2.0, 1.0, 0.0]``."""
    x = t(features)
    return relu(array_blocks.concat([x, -x], axis))


# --- softmax ----------------------------------------------------------------------------

def _softmax(xp, x):
    if x.shape[-1] == 0:
        return x
    y = f32(x)
    e = xp.exp(y - xp.max(y, axis=-1, keepdims=True))
    return (e / xp.sum(e, axis=-1, keepdims=True)).astype(x.dtype, copy=False)


def _log_softmax(xp, x):
    if x.shape[-1] == 0:
        return x
    y = f32(x)
    s = y - xp.max(y, axis=-1, keepdims=True)
    return (s - xp.log(xp.sum(xp.exp(s), axis=-1, keepdims=True))).astype(x.dtype, copy=False)


def _rank_check(x, op_name):
    if x.shape.rank == 0:
        raise errors.invalid_argument(op_name, "logits must have >= 1 dimension, got []")


# Softmax/LogSoftmax normalize over the last axis (TF's kernels); other axes are moved there and back.
def _softmax_grad(g, ans, x):
    # d softmax: (g - sum(g * s)) * s along the last axis, in terms of the output s (TF)
    return (g - reduce.reduce_sum(g * ans, -1, keepdims=True)) * ans


def _log_softmax_grad(g, ans, x):
    return g - reduce.reduce_sum(g, -1, keepdims=True) * mu.exp(ans)


SOFTMAX = defop("Softmax", _softmax, dtypes=FLOATS, shape=shapes.same, quiet=True,
                check=lambda x: _rank_check(x, "Softmax"), grad=_softmax_grad)
LOG_SOFTMAX = defop("LogSoftmax", _log_softmax, dtypes=FLOATS, shape=shapes.same, quiet=True,
                    check=lambda x: _rank_check(x, "LogSoftmax"), grad=_log_softmax_grad)


def norm_axis(axis, rank, op_name):
    """``axis`` (an int or scalar tensor) as a non-negative int, with TF's range check."""
    axis = int(static(axis))
    if not -rank <= axis < rank:
        raise errors.invalid_argument(
            op_name, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions "
                     f"in the input. Received: dim={axis}")
    return axis % rank


def swap_to_end(op, x, axis, op_name):
    """Run ``op`` (a last-axis op) along ``axis`` by swapping that axis with the last one and back."""
    rank = x.shape.rank
    if axis is None or rank is None or rank == 0:
        return bind(op, x)
    axis = norm_axis(axis, rank, op_name)
    if axis == rank - 1:
        return bind(op, x)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    transpose = array_shape.transpose
    return transpose(bind(op, transpose(x, perm)), perm)


@tf_export("math.softmax", "nn.softmax")
def softmax(logits, axis=None, name=None):
    """exp(x) / sum(exp(x)) along ``axis`` (default -1).  ``tf.nn.softmax([0.0, 0.0])`` -> ``[0.5, 0.5]``."""
    return swap_to_end(SOFTMAX, t(logits), axis, "Softmax")


@tf_export("math.log_softmax", "nn.log_softmax")
def log_softmax(logits, axis=None, name=None):
    """x - log(sum(exp(x))) along ``axis`` (default -1).  ``tf.nn.log_softmax([0.0, 0.0])`` -> ``[-0.693, -0.693]``."""
    return swap_to_end(LOG_SOFTMAX, t(logits), axis, "LogSoftmax")


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_select, array_blocks, array_shape, creation, math_binary, reduce  # noqa: E402
from tensorlet._src.ops import math_unary as mu  # noqa: E402
