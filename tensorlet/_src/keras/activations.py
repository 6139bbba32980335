"""``tf.keras.activations``: Keras 3's activation functions (TF backend formulas).

``softmax`` and ``sigmoid`` remember their input logits (Keras's ``_keras_logits``), so a crossentropy loss with
``from_logits=False`` on their output computes from the logits, exactly as Keras does.

>>> tf.keras.activations.relu(tf.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

import types
import weakref

from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.ops import creation
from tensorlet._src.ops import math_unary
from tensorlet._src.ops import nn_activations
from tensorlet._src.ops.array_shape import shape, reshape
from tensorlet._src.ops.array_identity import stop_gradient
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_blocks import split
from tensorlet._src.ops.creation import fill, zeros_like
from tensorlet._src.ops.math_binary import cast, maximum, minimum
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import exp, expm1, sqrt, square
from tensorlet._src.ops.reduce import reduce_logsumexp, reduce_max, reduce_sum
from tensorlet._src.ops.scan_sort import cumsum, sort
from tensorlet._src.keras import _objects
from tensorlet._src.ops.registry import tf_export

# --- the logits side table (tensors have __slots__, so no `_keras_logits` attribute) ---------------------------

_LOGITS: dict = {}


def _attach_logits(output, logits):
    try:
        output._keras_logits = logits
        return output
    except AttributeError:
        pass
    key = id(output)
    try:
        ref = weakref.ref(output, lambda _r, k=key: _LOGITS.pop(k, None))
    except TypeError:
        return output
    _LOGITS[key] = (ref, logits)
    return output


def get_logits(output):
    """The logits a softmax/sigmoid output was computed from, or None."""
    logits = getattr(output, "_keras_logits", None)
    if logits is not None:
        return logits
    entry = _LOGITS.get(id(output))
    if entry is not None and entry[0]() is output:
        return entry[1]
    return None


def _t(x):
    return convert_to_tensor(x)


def _c(v, x):
    return constant(v, dtype=x.dtype)


# --- activations ------------------------------------------------------------------------------------------------

@tf_export("keras.activations.relu")
def relu(x, negative_slope=0.0, max_value=None, threshold=0.0, alpha=None):
    """``max(x, 0)`` with optional leaky slope, upper clip and threshold (``alpha`` is tf.keras 2's name for the
    slope)."""
    if alpha is not None:
        negative_slope = alpha
    x = _t(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return nn_activations.leaky_relu(x, alpha=negative_slope)
        negative_part = nn_activations.relu(-x + _c(threshold, x)) if threshold != 0 else nn_activations.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = where(x > _c(threshold, x), x, zeros_like(x))
    elif max_value == 6:
        x = nn_activations.relu6(x)
        clip_max = False
    else:
        x = nn_activations.relu(x)
    if clip_max:
        x = clip_by_value(x, _c(0.0, x), _c(max_value, x))
    if negative_slope != 0.0:
        x = x - _c(negative_slope, x) * negative_part
    return x


@tf_export("keras.activations.leaky_relu")
def leaky_relu(x, negative_slope=0.2):
    """``x`` if positive else ``negative_slope * x``."""
    return nn_activations.leaky_relu(_t(x), alpha=negative_slope)


@tf_export("keras.activations.relu6")
def relu6(x):
    """``min(max(x, 0), 6)``."""
    return nn_activations.relu6(_t(x))


@tf_export("keras.activations.softmax")
def softmax(x, axis=-1):
    """Softmax along ``axis`` (``None``: over all elements)."""
    x = _t(x)
    if axis is None:
        out = reshape(nn_activations.softmax(reshape(x, [-1]), axis=-1), shape(x))
    elif isinstance(axis, (tuple, list)):
        m = reduce_max(x, axis=axis, keepdims=True)
        e = exp(x - stop_gradient(m))
        out = e / reduce_sum(e, axis=axis, keepdims=True)
    else:
        out = nn_activations.softmax(x, axis=axis)
    return _attach_logits(out, x)


@tf_export("keras.activations.log_softmax")
def log_softmax(x, axis=-1):
    """``log(softmax(x))`` computed stably."""
    x = _t(x)
    if axis is None:
        return reshape(nn_activations.log_softmax(reshape(x, [-1]), axis=-1), shape(x))
    if isinstance(axis, (tuple, list)):
        return x - reduce_logsumexp(x, axis=axis, keepdims=True)
    return nn_activations.log_softmax(x, axis=axis)


@tf_export("keras.activations.elu")
def elu(x, alpha=1.0):
    """``x`` if positive else ``alpha * (exp(x) - 1)``."""
    x = _t(x)
    res = nn_activations.elu(x)
    if alpha == 1:
        return res
    return where(x > _c(0, x), res, _c(alpha, x) * res)


@tf_export("keras.activations.selu")
def selu(x):
    """Scaled ELU (``1.0507 * elu(x, 1.6733)``)."""
    return nn_activations.selu(_t(x))


@tf_export("keras.activations.softplus")
def softplus(x):
    """``log(exp(x) + 1)``."""
    return nn_activations.softplus(_t(x))


@tf_export("keras.activations.softsign")
def softsign(x):
    """``x / (abs(x) + 1)``."""
    return nn_activations.softsign(_t(x))


@tf_export("keras.activations.soft_shrink")
def soft_shrink(x, threshold=0.5):
    """Shrinks values toward zero by ``threshold``."""
    x = _t(x)
    th = _c(threshold, x)
    return where(x > th, x - th, where(x < -th, x + th, zeros_like(x)))


@tf_export("keras.activations.sparse_plus")
def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` inside, ``x`` for ``x >= 1``."""
    x = _t(x)
    return where(x <= _c(-1, x), zeros_like(x), where(x < _c(1, x), _c(0.25, x) * square(x + _c(1, x)), x))


@tf_export("keras.activations.silu", "keras.activations.swish")
def silu(x):
    """``x * sigmoid(x)``."""
    return nn_activations.silu(_t(x))


swish = silu


@tf_export("keras.activations.squareplus")
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _t(x)
    return (x + sqrt(square(x) + _c(b, x))) / _c(2, x)


@tf_export("keras.activations.gelu")
def gelu(x, approximate=False):
    """Gaussian error linear unit (exact erf form unless ``approximate``)."""
    return nn_activations.gelu(_t(x), approximate=approximate)


@tf_export("keras.activations.celu")
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    x = _t(x)
    a = _c(alpha, x)
    return maximum(x, _c(0, x)) + a * expm1(minimum(x, _c(0, x)) / a)


@tf_export("keras.activations.glu")
def glu(x, axis=-1):
    """Gated linear unit: first half times sigmoid of the second half along ``axis``."""
    x = _t(x)
    if x.shape[axis] is not None and x.shape[axis] % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    x1, x2 = split(x, 2, axis=axis)
    return x1 * math_unary.sigmoid(x2)


@tf_export("keras.activations.tanh")
def tanh(x):
    """Hyperbolic tangent."""
    return math_unary.tanh(_t(x))


@tf_export("keras.activations.tanh_shrink")
def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _t(x)
    return x - math_unary.tanh(x)


@tf_export("keras.activations.hard_tanh")
def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    x = _t(x)
    return clip_by_value(x, _c(-1.0, x), _c(1.0, x))


@tf_export("keras.activations.hard_shrink")
def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    x = _t(x)
    return where(math_unary.abs(x) > _c(threshold, x), x, zeros_like(x))


@tf_export("keras.activations.threshold")
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = _t(x)
    return where(x > _c(threshold, x), x, fill(shape(x), _c(default_value, x)))


@tf_export("keras.activations.sigmoid")
def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    x = _t(x)
    return _attach_logits(math_unary.sigmoid(x), x)


@tf_export("keras.activations.exponential")
def exponential(x):
    """``exp(x)``."""
    return exp(_t(x))


@tf_export("keras.activations.hard_sigmoid")
def hard_sigmoid(x):
    """Keras 3's piecewise-linear sigmoid: ``relu6(x + 3) / 6``."""
    x = _t(x)
    return nn_activations.relu6(x + _c(3.0, x)) / _c(6.0, x)


@tf_export("keras.activations.log_sigmoid")
def log_sigmoid(x):
    """``log(sigmoid(x))`` computed stably."""
    return math_unary.log_sigmoid(_t(x))


@tf_export("keras.activations.sparse_sigmoid")
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between."""
    x = _t(x)
    return where(x <= _c(-1, x), _c(0.0, x), where(x >= _c(1, x), _c(1.0, x), _c(0.5, x) * (x + _c(1, x))))


@tf_export("keras.activations.hard_silu", "keras.activations.hard_swish")
def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x = _t(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@tf_export("keras.activations.linear")
def linear(x):
    """The identity (returns ``x`` unchanged)."""
    return x


@tf_export("keras.activations.mish")
def mish(x):
    """``x * tanh(softplus(x))``."""
    x = _t(x)
    return x * math_unary.tanh(nn_activations.softplus(x))


@tf_export("keras.activations.sparsemax")
def sparsemax(x, axis=-1):
    """Euclidean projection of ``x`` onto the probability simplex along ``axis``."""
    x = _t(x)
    srt = sort(x, direction="DESCENDING", axis=axis)
    cum = cumsum(srt, axis=axis)
    rank = len(x.shape)
    r = creation.range(1, shape(x)[axis] + 1, dtype=x.dtype)
    r_shape = [1] * rank
    r_shape[axis] = -1
    r = reshape(r, r_shape)
    support = srt - (cum - _c(1, x)) / r > _c(0, x)
    k = reduce_sum(cast(support, x.dtype), axis=axis, keepdims=True)
    tau = (reduce_sum(where(support, cum, zeros_like(cum)), axis=axis, keepdims=True) - _c(1, x)) / k
    return maximum(x - tau, _c(0.0, x))


# --- get / serialize --------------------------------------------------------------------------------------------

ALL_OBJECTS = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign, squareplus, soft_shrink,
               sparse_plus, silu, gelu, glu, tanh, tanh_shrink, threshold, sigmoid, sparse_sigmoid, exponential,
               hard_sigmoid, hard_silu, hard_tanh, hard_shrink, linear, mish, log_softmax, log_sigmoid, sparsemax)
ALL_OBJECTS_DICT = {fn.__name__: fn for fn in ALL_OBJECTS}
ALL_OBJECTS_DICT["swish"] = silu
ALL_OBJECTS_DICT["hard_swish"] = hard_silu


@tf_export("keras.activations.serialize")
def serialize(activation):
    """A built-in activation's name (``"relu"``), or the config dict of an activation object (a layer)."""
    if isinstance(activation, types.FunctionType):
        name = activation.__name__
        if ALL_OBJECTS_DICT.get(name) is activation:
            return name
        registered = _objects.registered_name(activation)
        if registered:
            return {"module": activation.__module__, "class_name": "function", "config": registered,
                    "registered_name": "function"}
        if name == "<lambda>":
            raise ValueError(f"Unknown activation function '{activation}' cannot be serialized due to invalid "
                             "function name. Make sure to use an activation name that matches the references "
                             "defined in activations.py or use `@keras.saving.register_keras_serializable()`to "
                             "register any custom activations. config={...}")
        return {"module": activation.__module__, "class_name": "function", "config": name,
                "registered_name": "function"}
    if hasattr(activation, "get_config"):
        return _objects.serialize_object(activation)
    raise ValueError(f"Unknown activation function '{activation}' cannot be serialized.")


@tf_export("keras.activations.deserialize")
def deserialize(config, custom_objects=None):
    """An activation from its name or config."""
    if isinstance(config, dict) and config.get("class_name") not in ("function", None) and \
            config.get("module", "").startswith("keras.layers"):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        return deserialize_keras_object(config, custom_objects=custom_objects)
    return _objects.deserialize_object(config, ALL_OBJECTS_DICT, custom_objects, kind="activation function")


@tf_export("keras.activations.get")
def get(identifier):
    """An activation function from a name (``"relu"``), a config, or a callable; ``None`` gives ``linear``."""
    return _objects.get_object(identifier, "activation function", ALL_OBJECTS_DICT, deserialize, none=linear,
                               instantiate=False)
