"""``tf.compat.v1`` functions whose TF1 signatures differ from TF2's (``keep_dims``, ``dimension``, ``dim``, ...).

Each is a thin wrapper that maps the TF1 arguments onto the TF2 function, so ``tf.compat.v1.reduce_sum(x,
reduction_indices=[1], keep_dims=True)`` runs.  This module imports only core modules (it is cheap to load).

>>> tf.compat.v1.reduce_sum([[1, 2], [3, 4]], reduction_indices=1, keep_dims=True).numpy().tolist()
[[3], [7]]
"""

from __future__ import annotations

from tensorlet._src.framework import context
from tensorlet._src.framework import device as _device
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.graph import control_flow
from tensorlet._src.api_missing import missing
from tensorlet._src.ops import (
    array_select,
    array_shape,
    array_blocks,
    creation,
    gather_scatter,
    linalg,
    math_binary,
    nn_activations,
    nn_conv,
    nn_losses,
    nn_norm,
    reduce as _reduce,
    scan_sort,
)
from tensorlet._src.ops.array_identity import stop_gradient
from tensorlet._src.ops.array_shape import reshape
from tensorlet._src.ops.math_binary import divide, floordiv
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.nn_activations import relu
from tensorlet._src.ops.nn_norm import bias_add
from tensorlet._src.ops.nn_pool import avg_pool2d, max_pool2d
from tensorlet._src.ops.random_gen import categorical, set_seed


def _lookup(new_name, new_value, old_name, old_value):
    """TF's ``deprecated_argument_lookup``: at most one of the two spellings may be given."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old_value
    return new_value


def _reducer(v2name):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
        return getattr(_reduce, v2name)(input_tensor, axis=axis, keepdims=bool(keepdims), name=name)

    reduce.__name__ = reduce.__qualname__ = v2name
    reduce.__doc__ = (f"TF1 ``tf.compat.v1.{v2name}``: ``tf.{v2name}`` that also takes ``reduction_indices`` and "
                      "``keep_dims``.")
    return reduce


reduce_sum = _reducer("reduce_sum")
reduce_mean = _reducer("reduce_mean")
reduce_max = _reducer("reduce_max")
reduce_min = _reducer("reduce_min")
reduce_prod = _reducer("reduce_prod")
reduce_all = _reducer("reduce_all")
reduce_any = _reducer("reduce_any")
reduce_logsumexp = _reducer("reduce_logsumexp")


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=_dt.int64, name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002 - TF's argument name
    """TF1 ``count_nonzero`` (``reduction_indices``, ``keep_dims``, ``input_tensor``)."""
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    input_tensor = _lookup("input", input, "input_tensor", input_tensor)
    return _reduce.count_nonzero(input_tensor, axis=axis, keepdims=bool(keepdims), dtype=dtype, name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=_dt.int64):  # noqa: A002 - TF's name
    """TF1 ``argmax``: ``dimension`` is the old name of ``axis`` (default 0)."""
    axis = _lookup("axis", axis, "dimension", dimension)
    return _reduce.argmax(input, axis=0 if axis is None else axis, output_type=output_type, name=name)


def argmin(input, axis=None, name=None, dimension=None, output_type=_dt.int64):  # noqa: A002 - TF's name
    """TF1 ``argmin``: ``dimension`` is the old name of ``axis`` (default 0)."""
    axis = _lookup("axis", axis, "dimension", dimension)
    return _reduce.argmin(input, axis=0 if axis is None else axis, output_type=output_type, name=name)


def arg_max(input, dimension, output_type=_dt.int64, name=None):  # noqa: A002 - TF's name
    """The raw TF1 ``arg_max`` op."""
    return _reduce.argmax(input, axis=dimension, output_type=output_type, name=name)


def arg_min(input, dimension, output_type=_dt.int64, name=None):  # noqa: A002 - TF's name
    """The raw TF1 ``arg_min`` op."""
    return _reduce.argmin(input, axis=dimension, output_type=output_type, name=name)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TF's name
    """TF1 ``expand_dims``: ``dim`` is the old name of ``axis``."""
    axis = _lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return array_shape.expand_dims(input, axis, name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002 - TF's name
    """TF1 ``squeeze``: ``squeeze_dims`` is the old name of ``axis``."""
    axis = _lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if isinstance(axis, int):
        axis = [axis]
    return array_shape.squeeze(input, axis, name=name)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """TF1 ``constant``: with ``verify_shape=True`` the value must already have ``shape``."""
    if verify_shape and shape is not None:
        import numpy as np

        got = tuple(np.shape(value))
        if got != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {got}.")
    return _tensor.constant(value, dtype=dtype, shape=shape, name=name)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """TF1 ``convert_to_tensor`` (``preferred_dtype`` is the old ``dtype_hint``)."""
    dtype_hint = _lookup("dtype_hint", dtype_hint, "preferred_dtype", preferred_dtype)
    return _tensor.convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint, name=name)


def _caster(dtype_name):
    def cast(x, name=None):
        return math_binary.cast(x, getattr(_dt, dtype_name), name=name)

    cast.__name__ = cast.__qualname__ = "to_" + {"float32": "float", "float64": "double"}.get(dtype_name, dtype_name)
    cast.__doc__ = f"TF1 ``tf.{cast.__name__}(x)``: ``tf.cast(x, tf.{dtype_name})``."
    return cast


to_float = _caster("float32")
to_double = _caster("float64")
to_int32 = _caster("int32")
to_int64 = _caster("int64")
to_bfloat16 = _caster("bfloat16")
to_complex64 = _caster("complex64")
to_complex128 = _caster("complex128")


def div(x, y, name=None):
    """TF1 ``div``: Python 2 division -- floor division for integers, true division for floats."""
    x = _tensor.convert_to_tensor(x)
    y = _tensor.convert_to_tensor(y, dtype=x.dtype)
    if x.dtype.is_floating or x.dtype.is_complex:
        return divide(x, y, name=name)
    return floordiv(x, y, name=name)


def floor_div(x, y, name=None):
    """TF1 ``floor_div``: ``tf.math.floordiv``."""
    return floordiv(x, y, name=name)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """TF1 ``gather`` (``name`` before ``axis``)."""
    return gather_scatter.gather(params, indices, axis=axis, batch_dims=batch_dims, name=name)


def shape(input, name=None, out_type=None):  # noqa: A002 - TF's name
    """TF1 ``shape`` (int32 by default)."""
    return array_shape.shape(input, out_type=_dt.int32 if out_type is None else out_type, name=name)


def size(input, name=None, out_type=_dt.int32):  # noqa: A002 - TF's name
    """TF1 ``size`` (int32 by default)."""
    return array_shape.size(input, out_type=out_type, name=name)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """TF1 ``norm`` (``keep_dims``)."""
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    return linalg.norm(tensor, ord=ord, axis=axis, keepdims=keepdims, name=name)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """TF1 ``zeros_like`` (``optimize`` is accepted and ignored)."""
    return creation.zeros_like(tensor, dtype=dtype, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """TF1 ``ones_like`` (``optimize`` is accepted and ignored)."""
    return creation.ones_like(tensor, dtype=dtype, name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """TF1 ``pad`` (``name`` before ``constant_values``)."""
    return array_blocks.pad(tensor, paddings, mode=mode, constant_values=constant_values, name=name)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """TF1 ``transpose`` (``name`` before ``conjugate``)."""
    return array_shape.transpose(a, perm=perm, conjugate=conjugate, name=name)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """TF1 ``boolean_mask`` (``name`` before ``axis``)."""
    return gather_scatter.boolean_mask(tensor, mask, axis=axis, name=name)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """TF1 ``reverse_sequence`` (``seq_dim``/``batch_dim`` are the old names)."""
    seq_axis = _lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    raise missing("tensorlet", "reverse_sequence")  # tf.reverse_sequence is not implemented yet


def where(condition, x=None, y=None, name=None):
    """TF1 ``where``: without ``x``/``y`` the indices of true elements; a 1-D ``condition`` with higher-rank
    ``x``/``y`` picks whole rows (no other broadcasting)."""
    if x is None and y is None:
        return array_select.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    condition = _tensor.convert_to_tensor(condition)
    x = _tensor.convert_to_tensor(x)
    y = _tensor.convert_to_tensor(y, dtype=x.dtype)
    if condition.shape.rank == 1 and x.shape.rank is not None and x.shape.rank > 1:
        condition = reshape(condition, [-1] + [1] * (x.shape.rank - 1))
    return array_select.where(condition, x, y, name=name)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """TF1 ``cond`` (``fn1``/``fn2`` are the old names; ``strict`` keeps singleton lists as lists)."""
    true_fn = _lookup("true_fn", true_fn, "fn1", fn1)
    false_fn = _lookup("false_fn", false_fn, "fn2", fn2)
    if true_fn is None:
        raise TypeError("true_fn must not be None.")
    if false_fn is None:
        raise TypeError("false_fn must not be None.")
    out = control_flow.cond(pred, true_fn, false_fn, name=name)
    if not strict and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """TF1 ``while_loop``: a single loop variable in a list comes back unwrapped unless
    ``return_same_structure``."""
    out = control_flow.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                       parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations, name=name)
    if not return_same_structure and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out


def device(device_name_or_function):
    """TF1 ``device``: a device string or spec (device functions need graph mode)."""
    if callable(device_name_or_function):
        from tensorlet._src.framework.context import executing_eagerly

        if executing_eagerly():
            raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
        import contextlib

        return contextlib.nullcontext()
    return _device.device(device_name_or_function)


def name_scope(name, default_name=None, values=None):
    """TF1 ``name_scope(name, default_name=None, values=None)``."""
    name = default_name if name is None else name
    if name is None:
        raise ValueError("At least one of name (None) and default_name (None) must be provided.")
    return context.name_scope(name)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """TF1 ``multinomial``: ``tf.random.categorical``."""
    return categorical(logits, num_samples, dtype=output_dtype, seed=seed, name=name)


def set_random_seed(seed):
    """TF1 ``set_random_seed``: ``tf.random.set_seed``."""
    set_seed(seed)


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """TF1 ``assign(ref, value)``: ``ref.assign(value)``."""
    return ref.assign(value)


def assign_add(ref, value, use_locking=None, name=None):
    """TF1 ``assign_add(ref, value)``: ``ref.assign_add(value)``."""
    return ref.assign_add(value)


def assign_sub(ref, value, use_locking=None, name=None):
    """TF1 ``assign_sub(ref, value)``: ``ref.assign_sub(value)``."""
    return ref.assign_sub(value)


def executing_eagerly_outside_functions():
    """True when the outermost context (outside any function being traced) is eager."""
    from tensorlet._src.framework.context import executing_eagerly, init_scope

    with init_scope():
        return executing_eagerly()


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """TF1 ``tf.test.is_gpu_available()``: whether a GPU device is visible (prefer
    ``tf.config.list_physical_devices('GPU')``)."""
    from tensorlet._src.framework.device import list_physical_devices

    return bool(list_physical_devices("GPU"))


def gpu_device_name():
    """``tf.test.gpu_device_name()``: ``'/device:GPU:0'`` when a GPU is visible, else ``''``."""
    return "/device:GPU:0" if is_gpu_available() else ""


# --- tf.compat.v1.nn -------------------------------------------------------------------------------------------

def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """TF1 ``nn.dropout``: the second argument is ``keep_prob`` (``rate = 1 - keep_prob``)."""
    if rate is None:
        if keep_prob is None:
            raise ValueError("You must provide a rate to dropout.")
        rate = 1 - keep_prob
    elif keep_prob is not None:
        raise ValueError("You cannot provide both keep_prob and rate.")
    return nn_norm.dropout(x, rate, noise_shape=noise_shape, seed=seed, name=name)


def softmax(logits, axis=None, name=None, dim=None):
    """TF1 ``nn.softmax`` (``dim``)."""
    return nn_activations.softmax(logits, axis=_lookup("axis", axis, "dim", dim), name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """TF1 ``nn.log_softmax`` (``dim``)."""
    return nn_activations.log_softmax(logits, axis=_lookup("axis", axis, "dim", dim), name=name)


def _check_named(fn_name, sentinel):
    if sentinel is not None:
        raise ValueError(f"Only call `{fn_name}` with named arguments (labels=..., logits=..., ...)")


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1 ``nn.softmax_cross_entropy_with_logits``: no gradient flows into ``labels``."""
    _check_named("softmax_cross_entropy_with_logits", _sentinel)
    axis = _lookup("axis", axis, "dim", dim if dim != -1 else None)
    return nn_losses.softmax_cross_entropy_with_logits(stop_gradient(labels), logits, axis=-1 if axis is None else axis,
                                                  name=name)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """TF1 ``nn.softmax_cross_entropy_with_logits_v2`` (gradients flow into labels, as in TF2)."""
    axis = _lookup("axis", axis, "dim", dim)
    return nn_losses.softmax_cross_entropy_with_logits(labels, logits, axis=-1 if axis is None else axis, name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """TF1 ``nn.sparse_softmax_cross_entropy_with_logits`` (named arguments only)."""
    _check_named("sparse_softmax_cross_entropy_with_logits", _sentinel)
    return nn_losses.sparse_softmax_cross_entropy_with_logits(labels, logits, name=name)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """TF1 ``nn.moments`` (``keep_dims``)."""
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    return nn_norm.moments(x, axes, shift=shift, keepdims=bool(keepdims), name=name)


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format="NHWC",  # noqa: A002
           dilations=(1, 1, 1, 1), name=None, filters=None):
    """TF1 ``nn.conv2d`` (``filter``, ``use_cudnn_on_gpu``)."""
    filters = _lookup("filters", filters, "filter", filter)
    return nn_conv.conv2d(input, filters, strides, padding, data_format=data_format, dilations=list(dilations),
                          name=name)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """TF1 ``nn.max_pool`` (``value``)."""
    value = _lookup("input", input, "value", value)
    return max_pool2d(value, ksize, strides, padding, data_format=data_format, name=name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """TF1 ``nn.avg_pool`` (``value``)."""
    value = _lookup("input", input, "value", value)
    return avg_pool2d(value, ksize, strides, padding, data_format=data_format, name=name)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases``."""
    return bias_add(matmul(x, weights), biases, name=name)


def relu_layer(x, weights, biases, name=None):
    """``relu(matmul(x, weights) + biases)``."""
    return relu(xw_plus_b(x, weights, biases), name=name)


def in_top_k(predictions, targets, k, name=None):
    """TF1 ``nn.in_top_k(predictions, targets, k)`` (TF2 swapped the first two)."""
    return scan_sort.in_top_k(targets, predictions, k, name=name)


def executing_eagerly():
    """``tf.compat.v1.executing_eagerly()``: False while building a TF1 graph or tracing a function."""
    from tensorlet._src.framework.context import executing_eagerly as eager

    return eager()
