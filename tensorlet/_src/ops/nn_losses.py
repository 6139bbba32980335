"""``tf.nn`` losses: softmax / sparse / sigmoid / weighted cross entropy, l2_loss, log_poisson_loss,
compute_average_loss and scale_regularization_loss.

The two softmax cross entropies are fused kernels (TF's ops, returning ``(loss, backprop)``) that work
along the last axis of inputs of any rank >= 1 (TF's kernels take rank 2; its Python wrappers reshape).
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.ops._helpers import same_dtype, t, t as to_tensor
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
FLOATS = D.FLOATS


# --- softmax cross entropy ----------------------------------------------------------------

def _log_probs(xp, logits):
    s = logits - xp.max(logits, axis=-1, keepdims=True)
    return s - xp.log(xp.sum(xp.exp(s), axis=-1, keepdims=True))


def _xent(xp, features, labels):
    f = f32(features)
    lab = f32(labels).astype(f.dtype, copy=False)
    shape = np.broadcast_shapes(f.shape, lab.shape)
    if shape[-1] == 0:
        return xp.zeros(shape[:-1], features.dtype), xp.zeros(shape, features.dtype)
    logp = _log_probs(xp, f)
    loss = -xp.sum(lab * logp, axis=-1)
    backprop = xp.exp(logp) - lab
    return loss.astype(features.dtype, copy=False), backprop.astype(features.dtype, copy=False)


def _xent_check(features, labels):
    fs, ls = tuple(features.shape.as_list()), tuple(labels.shape.as_list())
    ok = len(fs) >= 1 and len(ls) >= 1
    if ok and None not in fs + ls:
        try:
            np.broadcast_shapes(fs, ls)
        except ValueError:
            ok = False
    if not ok:
        raise errors.invalid_argument(
            "SoftmaxCrossEntropyWithLogits", f"logits and labels must be broadcastable: logits_size="
            f"{errors.shape_str(fs)} labels_size={errors.shape_str(ls)}")


def _known_zero(g):
    """True when ``g`` is an eager all-zero gradient and no tape records the backward pass.

    Then a term linear in ``g`` is exactly zero with no higher derivative to keep, so it can be skipped
    (TF skips the zeros it fills in for unused outputs the same way).
    """
    return isinstance(g, EagerTensor) and not ctx.tapes and not np.any(g._v)


def _backprop_grad(g_backprop, features):
    """The gradient reaching ``features`` through the ``backprop`` output (softmax(features) - labels)."""
    s = bind(SOFTMAX, features)
    return (g_backprop - reduce.reduce_sum(g_backprop * s, -1, keepdims=True)) * s


def _xent_grad(g, ans, features, labels):
    # backprop = softmax(features) - labels is d loss / d features; d loss / d labels = -log_softmax(features).
    # A gradient arriving at the backprop output (second derivatives) adds softmax's derivative for features
    # and -1 for labels (TF leaves that labels term out, so its second derivatives in labels are zero).
    g_loss, g_backprop = g
    g_loss = array_shape.expand_dims(g_loss, -1)
    g_features = g_loss * ans[1]
    g_labels = g_loss * -bind(LOG_SOFTMAX, features)
    if not _known_zero(g_backprop):
        g_features = g_features + _backprop_grad(g_backprop, features)
        g_labels = g_labels - g_backprop
    return unbroadcast(g_features, features), unbroadcast(g_labels, labels)


SOFTMAX_XENT = defop("SoftmaxCrossEntropyWithLogits", _xent, dtypes=FLOATS, n_out=2, check=_xent_check, quiet=True,
                     grad=_xent_grad)


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along ``axis``, computed stably.

    ``tf.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[1.0, 2.0]])`` -> ``[0.3133]``.
    """
    logits = t(logits)
    labels = t(labels)
    if labels.dtype is not logits.dtype:
        labels = mb.cast(labels, logits.dtype)
    rank = logits.shape.rank
    if rank == 0:
        raise errors.invalid_argument("SoftmaxCrossEntropyWithLogits", "logits must have >= 1 dimension, got []")
    if axis is not None and rank is not None:
        ax = norm_axis(axis, rank, "SoftmaxCrossEntropyWithLogits")
        if ax != rank - 1:  # move ``axis`` to the end, keeping the other axes in order (the loss's axes)
            perm = [i for i in range(rank) if i != ax] + [ax]
            if labels.shape != logits.shape:
                labels = array_shape.broadcast_to(labels, array_shape.shape(logits))
            transpose = array_shape.transpose
            logits, labels = transpose(logits, perm), transpose(labels, perm)
    return bind(SOFTMAX_XENT, logits, labels)[0]


def _sparse_xent(xp, features, labels):
    f = f32(features)
    classes = features.shape[-1]
    onehot = labels[..., None] == xp.arange(classes, dtype=labels.dtype)
    logp = _log_probs(xp, f)
    loss = -xp.sum(xp.where(onehot, logp, 0), axis=-1)
    backprop = xp.exp(logp) - onehot.astype(f.dtype)
    return loss.astype(features.dtype, copy=False), backprop.astype(features.dtype, copy=False)


def _sparse_check(features, labels):
    name = "SparseSoftmaxCrossEntropyWithLogits"
    if labels.dtype not in (D.int32, D.int64):
        raise errors.invalid_argument(
            name, f"Value for attr 'Tlabels' of {_tf_word(labels.dtype)} is not in the list of allowed values: "
                  "int32, int64")
    shape = features.shape.as_list()
    if shape[-1] == 0:
        raise errors.invalid_argument(
            name, f"Must have at least one class, but got logits shape {errors.shape_str(shape)}")
    v = getattr(labels, "_v", None)
    if v is not None and v.size and (v.min() < 0 or v.max() >= shape[-1]):
        bad = v[(v < 0) | (v >= shape[-1])].flat[0]
        flat = v.ravel()
        values = " ".join(str(int(a)) for a in flat[:100]) + (" ..." if flat.size > 100 else "")
        raise errors.invalid_argument(
            name, f"Received a label value of {int(bad)} which is outside the valid range of [0, {shape[-1]}).  "
                  f"Label values: {values}")


def _tf_word(d):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(d.name, d.name)


def _sparse_xent_grad(g, ans, features, labels):
    g_loss, g_backprop = g
    g_features = array_shape.expand_dims(g_loss, -1) * ans[1]
    if not _known_zero(g_backprop):
        g_features = g_features + _backprop_grad(g_backprop, features)
    return g_features, None  # integer labels have no gradient


SPARSE_SOFTMAX_XENT = defop("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent, dtypes=FLOATS, n_out=2,
                            check=_sparse_check, quiet=True, grad=_sparse_xent_grad)


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """-log_softmax(logits)[label] for integer class labels, computed stably.

    ``tf.nn.sparse_softmax_cross_entropy_with_logits([1], [[1.0, 2.0]])`` -> ``[0.3133]``.
    """
    labels = t(labels)
    logits = t(logits)
    ls, xs = labels.shape, logits.shape
    if xs.rank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={_value_text(logits)}`")
    if ls.rank is not None and xs.rank is not None:
        if ls.rank != xs.rank - 1:
            raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                             f"{ls} of rank {ls.rank} and logits.shape={xs} of rank {xs.rank}")
        if not ls.is_compatible_with(xs[:-1]):
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                             f"labels.shape={ls} and logits.shape={xs}")
    return bind(SPARSE_SOFTMAX_XENT, logits, labels)[0]


def _value_text(x):
    v = getattr(x, "_v", None)
    return repr(v.item()) if v is not None and v.ndim == 0 else str(x)


# --- sigmoid cross entropy ----------------------------------------------------------------

def _same_shape(logits, labels, first="logits", second="labels"):
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"`{first}` and `{second}` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).")


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits x and labels z.

    ``tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[0.0])`` -> ``[0.6931]``.
    """
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
                         f"Received: labels={labels!r} and logits={logits!r}")
    logits, labels = same_dtype("Mul", logits, labels)
    _same_shape(logits, labels)
    # log1p(exp(-|x|)) is softplus(-|x|), computed stably by the Softplus kernel.
    return relu(logits) - logits * labels + softplus(mu.negative(mu.abs(logits)))


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Logistic loss with positive examples weighted by ``pos_weight``:
    ``(1 - z) * x + (1 + (pos_weight - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))``.

    ``tf.nn.weighted_cross_entropy_with_logits([1.0], [0.0], 2.0)`` -> ``[1.3863]``.
    """
    logits, labels = same_dtype("Mul", logits, labels)
    _same_shape(logits, labels)
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (softplus(mu.negative(mu.abs(logits))) + relu(mu.negative(logits)))


# --- l2 / poisson ---------------------------------------------------------------------------

def _l2_loss(xp, x):
    y = f32(x)
    return (xp.sum(y * y) / 2).astype(x.dtype)


L2LOSS = defop("L2Loss", _l2_loss, dtypes=FLOATS, grad=lambda g, ans, x: x * g)


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):  # TF's argument name; the conversion helper is ``to_tensor`` here
    """sum(t ** 2) / 2, a scalar.  ``tf.nn.l2_loss([1.0, 2.0])`` -> ``2.5``."""
    return bind(L2LOSS, to_tensor(t))


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """Negative log likelihood of ``targets`` under a Poisson with log-rate ``log_input``:
    ``exp(log_input) - log_input * targets`` (plus Stirling's term where targets > 1 when
    ``compute_full_loss``).  ``tf.nn.log_poisson_loss([1.0], [0.0])`` -> ``[1.0]``.
    """
    log_input, targets = same_dtype("Mul", log_input, targets)
    _same_shape(log_input, targets, "log_input", "targets")
    exp, log = mu.exp, mu.log
    result = exp(log_input) - log_input * targets
    if compute_full_loss:
        d = targets.dtype
        where = array_select.where
        small = mb.logical_and(targets >= 0, targets <= 1)
        z = where(small, creation.ones_like(targets), targets)  # keeps log() finite where the term is unused
        stirling = z * log(z) - z + const(0.5, d) * log(const(2 * math.pi, d) * z)
        result = result + where(small, creation.zeros_like(targets), stirling)
    return result


# --- averaging helpers for custom training loops ---------------------------------------------

def _num_replicas():
    # tf.distribute is not wired into tensorlet yet: one replica.
    return 1


@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (the per-replica batch size
    times the number of replicas when not given).  ``tf.nn.compute_average_loss([1.0, 3.0])`` -> ``2.0``.
    """
    loss = t(per_example_loss)
    dtype = loss.dtype
    if loss.shape.rank == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={_value_text(loss)} with rank 0")
    if sample_weight is not None:
        w = mb.cast(t(sample_weight), dtype)
        diff = w.shape.rank - loss.shape.rank
        if diff == 1 and w.shape[-1] == 1:
            w = array_shape.squeeze(w, [-1])
        elif diff == -1:
            w = array_shape.expand_dims(w, -1)
        loss = mb.multiply(loss, w)
    if global_batch_size is None:
        global_batch_size = loss.shape[0] * _num_replicas()
    gbs = t(global_batch_size)
    if not gbs.dtype.is_integer:
        raise TypeError(f"global_batch_size must be an integer..  Expected \"x\" to be integer type.  Found: tensor "
                        f"of dtype {gbs.dtype!s}")
    if bool(np.any(gbs.numpy() < 0)):
        raise errors.invalid_argument("AssertGreaterEqual", "global_batch_size must be non-negative.  Condition x >= "
                                      f"0 did not hold element-wise: x = {gbs.numpy()}")
    return mb.divide_no_nan(reduce.reduce_sum(loss), mb.cast(gbs, dtype))


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """sum(regularization_loss) / number of replicas.  ``tf.nn.scale_regularization_loss(3.0)`` -> ``3.0``."""
    return mb.truediv(reduce.reduce_sum(t(regularization_loss)), _num_replicas())


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_select, array_shape, creation, reduce  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
from tensorlet._src.ops import math_binary as mb  # noqa: E402
from tensorlet._src.ops import math_unary as mu  # noqa: E402
from tensorlet._src.ops.nn_activations import LOG_SOFTMAX, SOFTMAX, const, f32, norm_axis, relu, softplus  # noqa: E402
