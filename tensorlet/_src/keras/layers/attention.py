"""Attention layers: ``Attention`` (dot-product, ``use_scale``, ``score_mode="concat"``), ``AdditiveAttention``
and ``MultiHeadAttention`` with Keras 3's weight layout: sub-layers ``query``/``key``/``value`` with kernels
``(dim, num_heads, key_dim)`` and biases ``(num_heads, key_dim)``, and ``attention_output`` with kernel
``(num_heads, value_dim, *output_shape)``; ``attention_mask``, ``use_causal_mask``, ``return_attention_scores``
and ``attention_axes``.
"""

from __future__ import annotations

import math
import string

from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops import creation
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.math_einsum import einsum
from tensorlet._src.ops.array_shape import shape, expand_dims, reshape
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.math_binary import cast, greater_equal, less, logical_and, logical_not
from tensorlet._src.ops.math_unary import exp, tanh
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.nn_activations import softmax
from tensorlet._src.ops.reduce import reduce_logsumexp, reduce_sum
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import constraints, initializers, regularizers

_BIG_NEG = -1e9


def _large_negative(dtype):
    return -3e4 if dtype.name == "float16" else _BIG_NEG


def _keras_mask(x):
    from tensorlet._src.keras.engine.base_layer import get_keras_mask

    return get_keras_mask(x)


def _causal_mask(tq, tv):
    """(1, Tq, Tv) bool: True where the query position >= the key position."""
    rows = reshape(creation.range(tq), (1, -1, 1))
    cols = reshape(creation.range(tv), (1, 1, -1))
    return greater_equal(rows, cols)


def _dim(x, axis):
    d = x.shape[axis]
    return d if d is not None else shape(x)[axis]


class _BaseDenseAttention(Layer):
    def _validate(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or [query, "
                             f"value, key]. Received: inputs={inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or [query, "
                             f"value, key]. Received length: {len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. Received: "
                                 f"mask={mask}.")
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: inputs={inputs}, "
                                 f"mask={mask}.")

    def _init_dropout(self, dropout, seed):
        self.dropout = dropout
        self.seed = seed
        if dropout > 0:
            from tensorlet._src.keras.random import SeedGenerator

            self.seed_generator = SeedGenerator(seed=seed)
            self._seed_generators.append(self.seed_generator)

    def _apply_scores(self, scores, value, scores_mask=None, training=False):
        if scores_mask is not None:
            pad = logical_not(scores_mask)
            if len(pad.shape) == 2:
                pad = expand_dims(pad, -2)
            big = 65504.0 if scores.dtype.name == "float16" else 1.0e9
            scores = where(pad, scores - big, scores)
        weights = softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = U.dropout(weights, self.dropout, self.seed_generator)
        return matmul(weights, value), weights

    def _score_mask(self, scores, v_mask, use_causal_mask):
        if use_causal_mask:
            causal = _causal_mask(_dim(scores, -2), _dim(scores, -1))
            if v_mask is not None:
                return logical_and(expand_dims(cast(v_mask, "bool"), -2), causal)
            return causal
        return None if v_mask is None else cast(v_mask, "bool")

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        self._validate(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(q, k)
        out, weights = self._apply_scores(scores, v, self._score_mask(scores, v_mask, use_causal_mask), training)
        if q_mask is not None:
            out = where(expand_dims(cast(q_mask, "bool"), -1), out, zeros_like(out))
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        self._validate(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0][:-1]) + (input_shape[1][-1],)


@tf_export("keras.layers.Attention")
class Attention(_BaseDenseAttention):
    """Dot-product (Luong) attention over ``[query, value]`` or ``[query, value, key]``.

    >>> tf.keras.layers.Attention()([tf.ones([2, 3, 4]), tf.ones([2, 5, 4])]).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self._init_dropout(dropout, seed)
        if score_mode not in ["dot", "concat"]:
            raise ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. Received: "
                             f"score_mode={score_mode}")
        self.supports_masking = True

    def build(self, input_shape):
        self._validate(input_shape)
        self.scale = self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones", dtype=self.dtype,
                                         trainable=True)
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(), initializer="ones",
                                                       dtype=self.dtype, trainable=True)
        self.built = True

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            if self.scale is not None:
                scores = scores * U.cast_like(self.scale, scores)
            return scores
        q = expand_dims(query, -2)
        k = expand_dims(key, -3)
        s = q + k
        if self.scale is not None:
            s = U.cast_like(self.scale, s) * s
        return U.cast_like(self.concat_score_weight, s) * reduce_sum(tanh(s), axis=-1)

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode, "dropout": self.dropout,
                       "seed": self.seed})
        return config


@tf_export("keras.layers.AdditiveAttention")
class AdditiveAttention(_BaseDenseAttention):
    """Additive (Bahdanau) attention: scores ``sum(scale * tanh(q + k), -1)``; weight ``scale`` of shape (dim,)."""

    def __init__(self, use_scale=True, dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self._init_dropout(dropout, seed)
        self.supports_masking = True

    def build(self, input_shape):
        self._validate(input_shape)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=[input_shape[0][-1]], initializer="glorot_uniform",
                                         dtype=self.dtype, trainable=True)
        self.built = True

    def _calculate_scores(self, query, key):
        t = tanh(expand_dims(query, -2) + expand_dims(key, -3))
        if self.use_scale:
            t = U.cast_like(self.scale, t) * t
        return reduce_sum(t, axis=-1)

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "dropout": self.dropout, "seed": self.seed})
        return config


# --- multi-head attention -----------------------------------------------------------------------------------------

class _Projection(Layer):
    """EinsumDense-like projection: the last ``n_in`` input axes -> ``out_shape`` (weights kernel, bias)."""

    def __init__(self, n_in, out_shape, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                 bias_regularizer, kernel_constraint, bias_constraint, activity_regularizer=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.n_in, self.out_shape, self.use_bias = n_in, tuple(out_shape), use_bias
        self._inits = (kernel_initializer, bias_initializer)
        self._regs = (kernel_regularizer, bias_regularizer)
        self._cons = (kernel_constraint, bias_constraint)

    def build(self, input_shape):
        in_dims = tuple(input_shape[-self.n_in:])
        self.kernel = self.add_weight(name="kernel", shape=in_dims + self.out_shape, initializer=self._inits[0],
                                      regularizer=self._regs[0], constraint=self._cons[0], trainable=True)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=self.out_shape, initializer=self._inits[1],
                                        regularizer=self._regs[1], constraint=self._cons[1], trainable=True)
        self.built = True

    def call(self, x):
        rank = len(x.shape)
        letters = string.ascii_lowercase
        lead = letters[:rank - self.n_in]
        contr = letters[rank - self.n_in:rank]
        outl = letters[rank:rank + len(self.out_shape)]
        y = einsum(f"{lead}{contr},{contr}{outl}->{lead}{outl}", x, U.cast_like(self.kernel, x))
        if self.bias is not None:
            y = y + U.cast_like(self.bias, y)
        return y

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-self.n_in]) + self.out_shape


def _attention_equations(rank, attn_axes):
    """Einsum equations over projected tensors of ``rank`` (last two axes: heads, channels).

    Scores are laid out as (batch and non-attention axes, heads, query attention axes, key attention axes)."""
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch = [i for i in range(rank) if i not in attn_axes and i != rank - 1]
    source, nxt = "", rank
    for i in range(rank):
        if i in batch or i == rank - 1:
            source += target[i]
        else:
            source += letters[nxt]
            nxt += 1
    product = "".join(target[i] for i in batch) + "".join(target[i] for i in attn_axes) + \
        "".join(source[i] for i in attn_axes)
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


@tf_export("keras.layers.MultiHeadAttention")
class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.), Keras 3's weights and options.

    >>> mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> mha(tf.ones([1, 3, 8]), tf.ones([1, 5, 8])).shape
    TensorShape([1, 3, 8])
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None, **kwargs):
        if not isinstance(num_heads, int) or num_heads <= 0:
            raise ValueError("Received an invalid value for argument `num_heads`, expected a positive integer. "
                             f"Received: num_heads={num_heads}")
        if not isinstance(key_dim, int) or key_dim <= 0:
            raise ValueError("Received an invalid value for argument `key_dim`, expected a positive integer. "
                             f"Received: key_dim={key_dim}")
        if value_dim is not None and (not isinstance(value_dim, int) or value_dim <= 0):
            raise ValueError("Received an invalid value for argument `value_dim`, expected a positive integer or "
                             f"`None`. Received: value_dim={value_dim}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads, self._key_dim = num_heads, key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout, self._use_bias, self._use_gate = dropout, use_bias, use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the `output_shape` should "
                                 "be of type tuple, list, or int.") from None
        self._output_shape = output_shape
        self._flash_attention = flash_attention
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer_sub = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"`attention_axes` must be an int, list, or tuple.Received: "
                             f"attention_axes={attention_axes}")
        self._attention_axes = attention_axes
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. Received: "
                             f"sliding_window={sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))
        if flash_attention and dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. Please set dropout to 0.0 to "
                             "use flash attention.")
        self._seed_gen = None
        if dropout > 0:
            from tensorlet._src.keras.random import SeedGenerator

            self._seed_gen = SeedGenerator(seed=seed)
            self._seed_generators.append(self._seed_gen)
        self._projections_built = False

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)

    def _proj(self, n_in, out_shape, name, bias=True):
        from tensorlet._src.keras.initializers import get as _init_get

        def clone(init):
            return init.__class__.from_config(init.get_config()) if hasattr(init, "get_config") else init

        return _Projection(n_in, out_shape, self._use_bias and bias, _init_get(clone(self._kernel_initializer)),
                           _init_get(clone(self._bias_initializer)), self._kernel_regularizer,
                           self._bias_regularizer, self._kernel_constraint, self._bias_constraint,
                           activity_regularizer=self._activity_regularizer_sub, name=name, dtype=self.dtype_policy)

    def build(self, query_shape, value_shape=None, key_shape=None):
        if value_shape is None:  # the base class builds with the first argument only: finish on the first call
            self.built = True
            return
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={tuple(value_shape)} and key_shape={tuple(key_shape)}")
        n, kd, vd = self._num_heads, self._key_dim, self._value_dim
        self._query_dense = self._proj(1, (n, kd), "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._proj(1, (n, kd), "key")
        self._key_dense.build(key_shape)
        if self._use_gate:
            self._gate_dense = self._proj(1, (n, vd), "gate")
            self._gate_dense.build(query_shape)
        self._value_dense = self._proj(1, (n, vd), "value")
        self._value_dense.build(value_shape)
        rank = len(query_shape) + 1
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
        self._dot_eq, self._combine_eq, scores_rank = _attention_equations(rank, self._attention_axes)
        self._norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        out = self._output_shape if self._output_shape else (query_shape[-1],)
        self._output_dense = self._proj(2, tuple(out), "attention_output")
        self._output_dense.build(tuple(query_shape[:-1]) + (n, vd))
        self._projections_built = True
        self.built = True

    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def _masked_softmax(self, scores, mask):
        if mask is None:
            if len(self._norm_axes) == 1:
                return softmax(scores, axis=self._norm_axes[0])
            return exp(scores - reduce_logsumexp(scores, axis=list(self._norm_axes), keepdims=True))
        mask = cast(mask, "bool")
        axis = -len(self._attention_axes) * 2 - 1
        for _ in range(len(scores.shape) - len(mask.shape)):
            mask = expand_dims(mask, axis)
        neg = cast(_large_negative(scores.dtype), scores.dtype)
        s = where(mask, scores, neg)
        if len(self._norm_axes) == 1:
            w = softmax(s, axis=self._norm_axes[0])
        else:
            w = exp(s - reduce_logsumexp(s, axis=list(self._norm_axes), keepdims=True))
        return where(mask, w, zeros_like(w))

    def _compute_attention_mask(self, query, value, query_mask=None, value_mask=None, key_mask=None,
                                attention_mask=None, use_causal_mask=False):
        auto = None
        if query_mask is not None:
            auto = expand_dims(cast(query_mask, "bool"), -1)
        for m in (value_mask, key_mask):
            if m is not None:
                m = expand_dims(cast(m, "bool"), -2)
                auto = m if auto is None else logical_and(auto, m)
        if use_causal_mask:
            m = _causal_mask(_dim(query, 1), _dim(value, 1))
            auto = m if auto is None else logical_and(auto, m)
        if self._sliding_window is not None:
            rows = reshape(creation.range(_dim(query, 1)), (1, -1, 1))
            cols = reshape(creation.range(_dim(value, 1)), (1, 1, -1))
            m = less(math_unary.abs(rows - cols), self._sliding_window)
            auto = m if auto is None else logical_and(auto, m)
        if attention_mask is not None:
            attention_mask = cast(attention_mask, "bool")
        if auto is not None:
            attention_mask = auto if attention_mask is None else logical_and(attention_mask, auto)
        return attention_mask

    def _compute_attention(self, query, key, value, attention_mask=None, training=None):
        query = query * cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = einsum(self._dot_eq, key, query)
        scores = self._masked_softmax(scores, attention_mask)
        final = scores
        if self._dropout > 0.0 and training:
            final = U.dropout(scores, self._dropout, self._seed_gen)
        return einsum(self._combine_eq, final, value), scores

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        if key is None:
            key = value
        if not self._projections_built:
            self.build(tuple(query.shape), tuple(value.shape), tuple(key.shape))
        query_mask = query_mask if query_mask is not None else _keras_mask(query)
        value_mask = value_mask if value_mask is not None else _keras_mask(value)
        if key_mask is None and key is not value:
            key_mask = _keras_mask(key)
        attention_mask = self._compute_attention_mask(query, value, query_mask, value_mask, key_mask,
                                                      attention_mask, use_causal_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        out, scores = self._compute_attention(q, k, v, attention_mask, training)
        if gate is not None:
            out = out * gate
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        if value_shape is not None:
            value_shape = tuple(value_shape)
            key_shape = value_shape if key_shape is None else tuple(key_shape)
            if value_shape[1:-1] != key_shape[1:-1]:
                raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. "
                                 f"Received: value_shape={value_shape} and key_shape={key_shape}")
        if self._output_shape:
            return query_shape[:-1] + tuple(self._output_shape)
        return query_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "num_heads": self._num_heads, "key_dim": self._key_dim, "value_dim": self._value_dim,
            "dropout": self._dropout, "use_bias": self._use_bias, "use_gate": self._use_gate,
            "output_shape": self._output_shape, "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            "kernel_initializer": initializers.serialize(self._kernel_initializer),
            "bias_initializer": initializers.serialize(self._bias_initializer),
            "kernel_regularizer": regularizers.serialize(self._kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self._bias_regularizer),
            "activity_regularizer": regularizers.serialize(self._activity_regularizer_sub),
            "kernel_constraint": constraints.serialize(self._kernel_constraint),
            "bias_constraint": constraints.serialize(self._bias_constraint),
            "seed": self.seed})
        return config
