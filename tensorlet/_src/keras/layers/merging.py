"""Merge layers: ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``, ``Minimum``, ``Concatenate`` and
``Dot`` (with ``normalize``), and their functional forms ``keras.layers.add``, ``concatenate``, ``dot``, ...

Inputs of different ranks are expanded at axis 1 and broadcast, as in Keras.
"""

from __future__ import annotations

from tensorlet._src.ops import math_binary
from tensorlet._src.ops.math_einsum import einsum
from tensorlet._src.ops.array_blocks import concat
from tensorlet._src.ops.array_shape import expand_dims, transpose
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.math_binary import cast, logical_or
from tensorlet._src.ops.math_unary import rsqrt, square
from tensorlet._src.ops.reduce import reduce_any, reduce_sum
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.ops.numpy_array import concatenate as _promoting_concat
from tensorlet._src.ops.registry import tf_export


class Merge(Layer):
    """Base of the element-wise merge layers: ``call`` takes a list of tensors."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._reshape_required = False

    @staticmethod
    def _elemwise_shape(shape1, shape2):
        if shape1 is None or shape2 is None:
            return None
        if len(shape1) < len(shape2):
            shape1, shape2 = shape2, shape1
        if not shape2:
            return tuple(shape1)
        out = list(shape1[:len(shape1) - len(shape2)])
        for i, j in zip(shape1[len(shape1) - len(shape2):], shape2):
            if i is None or j is None:
                out.append(None)
            elif i == 1:
                out.append(j)
            elif j == 1 or i == j:
                out.append(i)
            else:
                raise ValueError(f"Inputs have incompatible shapes. Received shapes {tuple(shape1)} and "
                                 f"{tuple(shape2)}")
        return tuple(out)

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or not input_shape or \
                not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape} (not a list of shapes)")
        batch = {s[0] for s in input_shape if s} - {None}
        if len(batch) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes. Received tensors with shapes "
                             f"{list(input_shape)}")
        out = tuple(input_shape[0][1:])
        for s in input_shape[1:]:
            out = self._elemwise_shape(out, tuple(s[1:]))
        self._reshape_required = len({len(s) for s in input_shape}) != 1
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs} "
                             f"(not a list of tensors)")
        inputs = list(inputs)
        if self._reshape_required:
            top = max(len(x.shape) for x in inputs)
            expanded = []
            for x in inputs:
                for _ in range(top - len(x.shape)):
                    x = expand_dims(x, 1)
                expanded.append(x)
            inputs = expanded
        return self._merge_function(inputs)

    def compute_output_shape(self, input_shape):
        out = tuple(input_shape[0][1:])
        for s in input_shape[1:]:
            out = self._elemwise_shape(out, tuple(s[1:]))
        batch = {s[0] for s in input_shape if s is not None} - {None}
        return ((next(iter(batch)),) if len(batch) == 1 else (None,)) + tuple(out)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        if not isinstance(mask, (tuple, list)):
            raise ValueError(f"`mask` should be a list. Received: mask={mask}")
        if any(m is None for m in mask):
            return None
        out = mask[0]
        for m in mask[1:]:
            out = logical_or(out, m)
        return out


def _fold(fn):
    def merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = fn(out, x)
        return out
    return merge


@tf_export("keras.layers.Add")
class Add(Merge):
    """Element-wise sum of a list of inputs.

    >>> tf.keras.layers.Add()([tf.ones([2, 3]), tf.ones([2, 3])]).numpy()[0]
    array([2., 2., 2.], dtype=float32)
    """

    _merge_function = _fold(lambda a, b: a + b)


@tf_export("keras.layers.Subtract")
class Subtract(Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                             f"input_shape={list(input_shape)}")

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return inputs[0] - inputs[1]


@tf_export("keras.layers.Multiply")
class Multiply(Merge):
    """Element-wise product of a list of inputs."""

    _merge_function = _fold(lambda a, b: a * b)


@tf_export("keras.layers.Average")
class Average(Merge):
    """Element-wise mean of a list of inputs."""

    def _merge_function(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out / len(inputs)


@tf_export("keras.layers.Maximum")
class Maximum(Merge):
    """Element-wise maximum of a list of inputs."""

    _merge_function = _fold(lambda a, b: math_binary.maximum(a, b))


@tf_export("keras.layers.Minimum")
class Minimum(Merge):
    """Element-wise minimum of a list of inputs."""

    _merge_function = _fold(lambda a, b: math_binary.minimum(a, b))


@tf_export("keras.layers.Concatenate")
class Concatenate(Merge):
    """Concatenates a list of inputs along ``axis``.

    >>> tf.keras.layers.Concatenate()([tf.ones([2, 3]), tf.ones([2, 1])]).shape
    TensorShape([2, 4])
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._reshape_required = False

    def build(self, input_shape):
        if len(input_shape) < 1 or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                             f"input_shape={input_shape}")
        if all(s is None for s in input_shape):
            self.built = True
            return
        # Only the concatenation axis is left out of the comparison (Keras 3 keeps size-1 dimensions: its
        # squeeze loop walks the list of shapes, not their dimensions), and ``None`` matches anything.
        shapes = set()
        for s in input_shape:
            r = list(s)
            if len(r) > self.axis:
                del r[self.axis]
            shapes.add(tuple(r))
        if len(shapes) != 1:
            msg = (f"A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
                   f"Received: input_shape={input_shape}")
            ranks = {len(s) for s in shapes}
            if len(ranks) != 1:
                raise ValueError(msg)
            for a in range(next(iter(ranks))):
                if len({s[a] for s in shapes if s[a] is not None}) > 1:
                    raise ValueError(msg)
        self.built = True

    def _merge_function(self, inputs):
        return _promoting_concat(inputs, axis=self.axis)  # Keras promotes mixed dtypes (float32 + int64 -> float32)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape}")
        out = list(input_shape[0])
        for s in input_shape[1:]:
            if out[self.axis] is None or s[self.axis] is None:
                out[self.axis] = None
                break
            out[self.axis] += s[self.axis]
        return tuple(out)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        if not isinstance(mask, (tuple, list)):
            raise ValueError(f"`mask` should be a list. Received mask={mask}")
        if not isinstance(inputs, (tuple, list)):
            raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
        if len(mask) != len(inputs):
            raise ValueError(f"The lists `inputs` and `mask` should have the same length. Received: "
                             f"inputs={inputs} of length {len(inputs)}, and mask={mask} of length {len(mask)}")
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(ones_like(x, dtype="bool"))
            elif len(m.shape) < len(x.shape):
                masks.append(logical_or(expand_dims(m, -1), zeros_like(x, dtype="bool")))
            else:
                masks.append(m)
        return reduce_any(concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis})
        return config


def _l2_normalize(x, axis):
    inv = rsqrt(reduce_sum(square(x), axis=axis, keepdims=True))
    return x * math_binary.minimum(inv, cast(1e7, x.dtype))


def batch_dot(x, y, axes):
    """Keras's batch_dot: contract x's ``axes[0]`` with y's ``axes[1]`` per batch example."""
    xs, ys = list(x.shape), list(y.shape)
    xn, yn = len(xs), len(ys)
    if xn < 2 or yn < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes "
                         f"{tuple(xs)} and {tuple(ys)}.")
    if xs[0] is not None and ys[0] is not None and xs[0] != ys[0]:
        raise ValueError(f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with shapes "
                         f"{tuple(xs)} and {tuple(ys)}.")
    a0, a1 = [axes, axes] if isinstance(axes, int) else list(axes)
    a0, a1 = a0 % xn, a1 % yn
    if 0 in (a0, a1):
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy batch "
                         "dimension to your inputs using keras.ops.expand_dims(x, 0)")
    if xs[a0] is not None and ys[a1] is not None and xs[a0] != ys[a1]:
        raise ValueError(f"Cannot do batch_dot on inputs with shapes {tuple(xs)} and {tuple(ys)} with axes="
                         f"{[a0, a1]}. x.shape[{a0}] != y.shape[{a1}] ({xs[a0]} != {ys[a1]}).")
    # move x's contracted axis last and y's to position 1, then one batched einsum
    xperm = [i for i in range(xn) if i != a0] + [a0]
    yperm = [0, a1] + [i for i in range(1, yn) if i != a1]
    letters = "abcdefghijklmnopqrstuvwxyz"
    xl = "z" + letters[:xn - 2] + "y"
    yl = "zy" + letters[xn - 2:xn - 2 + yn - 2]
    out = xl[:-1] + yl[2:]
    r = einsum(f"{xl},{yl}->{out}", transpose(x, xperm), transpose(y, yperm))
    if len(r.shape) == 1:
        r = expand_dims(r, 1)
    return r


@tf_export("keras.layers.Dot")
class Dot(Merge):
    """Batched dot product of two inputs along ``axes`` (``normalize=True``: cosine similarity).

    >>> tf.keras.layers.Dot(axes=1)([tf.ones([2, 3]), tf.ones([2, 3])]).numpy()
    array([[3.],
           [3.]], dtype=float32)
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. Received: "
                                f"axes={axes}")
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two elements. Received: "
                                 f"axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should be integers. Received: "
                                 f"axes={axes}")
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _axes(self, r1, r2):
        if isinstance(self.axes, int):
            return [self.axes % r1, self.axes % r2] if self.axes < 0 else [self.axes] * 2
        return [a % r for a, r in zip(self.axes, (r1, r2))]

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                             f"input_shape={input_shape}")
        s1, s2 = input_shape
        a = self._axes(len(s1), len(s2))
        if s1[a[0]] != s2[a[1]]:
            raise ValueError(f"Incompatible input shapes: axis values {s1[a[0]]} (at axis {a[0]}) != {s2[a[1]]} (at "
                             f"axis {a[1]}). Full input shapes: {tuple(s1)}, {tuple(s2)}")
        self.built = True

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x1, x2 = inputs
        a = self._axes(len(x1.shape), len(x2.shape))
        if self.normalize:
            x1, x2 = _l2_normalize(x1, a[0]), _l2_normalize(x2, a[1])
        return batch_dot(x1, x2, a)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                             f"input_shape={input_shape}")
        s1, s2 = list(input_shape[0]), list(input_shape[1])
        a = self._axes(len(s1), len(s2))
        s1.pop(a[0])
        s2.pop(a[1])
        s2.pop(0)
        out = s1 + s2
        return tuple(out + [1] if len(out) == 1 else out)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def _functional(cls, doc):
    def fn(inputs, **kwargs):
        return cls(**kwargs)(inputs)

    fn.__doc__ = doc
    fn.__name__ = fn.__qualname__ = cls.__name__.lower()
    return fn


add = tf_export("keras.layers.add")(_functional(Add, "Functional form of ``Add``: ``add([a, b])``."))
subtract = tf_export("keras.layers.subtract")(_functional(Subtract, "Functional form of ``Subtract``."))
multiply = tf_export("keras.layers.multiply")(_functional(Multiply, "Functional form of ``Multiply``."))
average = tf_export("keras.layers.average")(_functional(Average, "Functional form of ``Average``."))
maximum = tf_export("keras.layers.maximum")(_functional(Maximum, "Functional form of ``Maximum``."))
minimum = tf_export("keras.layers.minimum")(_functional(Minimum, "Functional form of ``Minimum``."))


@tf_export("keras.layers.concatenate")
def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of ``Concatenate``: ``concatenate([a, b], axis=1)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


@tf_export("keras.layers.dot")
def dot(inputs, axes=-1, **kwargs):
    """Functional form of ``Dot``: ``dot([a, b], axes=1)``."""
    return Dot(axes=axes, **kwargs)(inputs)
