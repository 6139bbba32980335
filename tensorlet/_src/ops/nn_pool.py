"""Pooling: ``tf.nn.max_pool*``, ``avg_pool*``, ``max_pool_with_argmax``, ``pool``, the pooling gradient ops and
their gradients.

TF's semantics: max pooling ignores padding and NaN (a window's result is at least the
dtype's lowest finite value); average pooling with SAME padding averages over the valid
(non-padded) elements only.  ``MaxPoolGrad`` routes each gradient to the first maximal
element of its window in row-major order; TF's CPU ``MaxPool3DGrad`` to every element
within 1e-5 of the window's maximum; ``MaxPool{,3D}GradGrad`` take the first element
equal to the window's maximum.  Attrs mirror TF's: full-rank ``ksize`` and ``strides``,
``padding`` (``"EXPLICIT"`` with ``explicit_paddings`` for MaxPool) and ``data_format``.
The kernels live in ``nn_pool_kernels``.
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import t, to_shape_tuple
from tensorlet._src.ops.nn_conv_kernels import jit_lowering, known, shape_of, spatial_axes, window_out_dims
from tensorlet._src.ops.nn_pool_kernels import (
    argmax_grad_grad_kernel,
    argmax_grad_kernel,
    argmax_kernel,
    avg_grad_kernel,
    avg_kernel,
    jax_argmax_grad,
    jax_avg,
    jax_max,
    max3d_grad_kernel,
    max_grad_grad_kernel,
    max_grad_kernel,
    max_kernel,
    window,
)
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

D = _dt
MAXPOOL_TYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32, D.int64, D.uint8, D.int16, D.int8, D.uint16)
MAXGRAD_TYPES = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64, D.bfloat16, D.uint16, D.float16,
                 D.uint32, D.uint64)
FLOATS = (D.float16, D.bfloat16, D.float32, D.float64)


# --- checks ------------------------------------------------------------------------------------

_FORMATS = {2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
_SIDES = {2: (("Top", "Bottom"), ("Left", "Right"))}


def _bad_attr(op, attr, value, allowed):
    listed = ", ".join(f'"{a}"' for a in allowed)
    return errors.invalid_argument(op, f'Value for attr \'{attr}\' of "{value}" is not in the list of allowed '
                                       f"values: {listed}")


def _check_window(op, nd, x_shape, ksize, strides, padding, explicit_paddings, data_format, paddings):
    n = nd + 2
    if padding not in paddings:
        raise _bad_attr(op, "padding", padding, paddings)
    if data_format not in _FORMATS[nd]:
        raise _bad_attr(op, "data_format", data_format, _FORMATS[nd])
    if len(x_shape) != n:
        raise errors.invalid_argument(op, f"input must be {n}-dimensional: {errors.shape_str(x_shape)}")
    for name, v in (("ksize", ksize), ("stride", strides)):
        if len(v) != n:
            raise errors.invalid_argument(op, f"Sliding window {name} field must specify {n} dimensions")
        if any(e <= 0 for e in v):
            raise errors.invalid_argument(op, f"Sliding window {name} must be positive. The specified or inferred "
                                              f"{name} is: {','.join(map(str, v))}")
    cf = data_format.startswith("NC")
    c_ax = 1 if cf else n - 1
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.op_error(errors.UnimplementedError, op, "Pooling is not yet supported on the batch dimension.")
    if ksize[c_ax] != 1:
        raise errors.op_error(errors.UnimplementedError, op, "MaxPooling supports exactly one of pooling across "
                                                             "depth or pooling across width/height.")
    if padding == "EXPLICIT":
        ep = explicit_paddings
        check_explicit_paddings(op, ep, n, c_ax)
        for j, a in enumerate(spatial_axes(nd, cf)):
            for side in (0, 1):
                p = ep[2 * a + side]
                if p >= ksize[a]:
                    raise errors.invalid_argument(op, f"{_SIDES[2][j][side]} padding {p} needs to be smaller than "
                                                      f"the window size {ksize[a]}")


def _pool_check(op, nd, paddings):
    def check(x, ksize, strides, padding, explicit_paddings=(), data_format=None):
        _check_window(op, nd, shape_of(x), ksize, strides, padding, explicit_paddings, data_format, paddings)
    return check


def _pool_shape(op, nd, paddings):
    """The traced output shape: the checks above, then the window arithmetic (None where a size is unknown)."""
    check = _pool_check(op, nd, paddings)

    def rule(x, ksize, strides, padding, explicit_paddings=(), data_format=None):
        if x.shape.rank is None:
            return Spec(TensorShape(None), x.dtype)
        check(x, ksize, strides, padding, explicit_paddings, data_format)
        dims = x.shape.as_list()
        data_format = data_format or ("NHWC" if nd == 2 else "NDHWC")
        cf = data_format.startswith("NC")
        ks = tuple(ksize[a] for a in spatial_axes(nd, cf))
        out = window_out_dims(dims, ks, dims[1 if cf else -1], strides, padding, explicit_paddings, data_format,
                              None)
        return Spec(TensorShape(out), x.dtype)
    return rule


def _expect(op, what, got, want):
    if known(got, want) and tuple(got) != tuple(want):
        raise errors.invalid_argument(op, f"Expected {what} shape to be {errors.shape_str(want)}, but got "
                                          f"{errors.shape_str(got)}")


def _out_shape(x_shape, ksize, strides, padding, explicit_paddings, data_format):
    if not known(x_shape):
        return (None,) * len(x_shape)
    cf, _, _, _, _, osz = window(x_shape, ksize, strides, padding, explicit_paddings, data_format)
    return (x_shape[0], x_shape[1]) + osz if cf else (x_shape[0],) + osz + (x_shape[-1],)


def _max_grad_check(op, nd, paddings):
    def check(x, y, g, ksize, strides, padding, explicit_paddings=(), data_format=None):
        xs = shape_of(x)
        _check_window(op, nd, xs, ksize, strides, padding, explicit_paddings, data_format, paddings)
        want = _out_shape(xs, ksize, strides, padding, explicit_paddings, data_format)
        _expect(op, "orig_output", shape_of(y), want)
        _expect(op, "grad", shape_of(g), want)
    return check


def _avg_grad_check(op, nd):
    def check(g, orig_input_shape, ksize, strides, padding, data_format=None):
        xs = tuple(orig_input_shape)
        _check_window(op, nd, xs, ksize, strides, padding, (), data_format, ("SAME", "VALID"))
        _expect(op, "grad", shape_of(g), _out_shape(xs, ksize, strides, padding, (), data_format))
    return check


def _argmax_check(x, ksize, strides, padding, Targmax=np.int64, include_batch_in_index=False):  # noqa: N803
    _check_window("MaxPoolWithArgmax", 2, shape_of(x), ksize, strides, padding, (), "NHWC", ("SAME", "VALID"))


def _max_grad_grad_check(op, nd, paddings):
    def check(x, y, g, ksize, strides, padding, explicit_paddings=(), data_format=None):
        xs = shape_of(x)
        if len(xs) != nd + 2:
            raise errors.invalid_argument(op, f"tensor_in must be {nd + 2}-dimensional")
        _check_window(op, nd, xs, ksize, strides, padding, explicit_paddings, data_format, paddings)
        _expect(op, "orig_output", shape_of(y), _out_shape(xs, ksize, strides, padding, explicit_paddings, data_format))
        _expect(op, "grad", shape_of(g), xs)
    return check


def _argmax_grad_check(op, grad_like_input):
    def check(x, g, argmax, ksize, strides, padding, include_batch_in_index=False):
        xs = shape_of(x)
        _check_window(op, 2, xs, ksize, strides, padding, (), "NHWC", ("SAME", "VALID"))
        out = _out_shape(xs, ksize, strides, padding, (), "NHWC")
        _expect(op, "grad", shape_of(g), xs if grad_like_input else out)
        _expect(op, "argmax", shape_of(argmax), out)
        a = getattr(argmax, "_v", None)
        if a is not None and a.size and known(xs):
            limit = int(np.prod(xs if include_batch_in_index else xs[1:]))
            lo, hi = int(a.min()), int(a.max())
            if lo < 0 or hi >= limit:
                raise errors.invalid_argument(op, f"Invalid argmax index: {lo if lo < 0 else hi}, must be in "
                                                  f"[0, {limit})")
    return check


# --- the primitives and their gradients (TF's nn_grad.py) ----------------------------------------
# MaxPool -> MaxPoolGrad -> MaxPoolGradGrad -> MaxPoolGrad ...: the gradient ops are linear in their last input
# and piecewise constant in orig_input/orig_output, whose gradients are zeros (TF's convention: zeros, not None).

_P2 = ("SAME", "VALID", "EXPLICIT")
_P = ("SAME", "VALID")

J = jit_lowering
F16_32 = (D.float16, D.bfloat16, D.float32)


def _grad_of_grad(other):
    """Gradient of a max-pool gradient op (orig_input, orig_output, grad): zeros, zeros, ``other()`` of g."""
    return lambda g, ans, x, y, dy, **a: (creation.zeros_like(x), creation.zeros_like(y), bind(other(), x, y, g, **a))


def _grad_of_argmax_grad(other):
    """Gradient of MaxPoolGrad{,Grad}WithArgmax (input, grad, argmax): zeros, ``other()`` of g, None."""
    return lambda g, ans, x, dy, argmax, **a: (creation.zeros_like(x), bind(other(), x, g, argmax, **a), None)


MAX_POOL = defop("MaxPool", max_kernel, heavy=True, jax_impl=J(jax_max), dtypes=MAXPOOL_TYPES,
                 check=_pool_check("MaxPool", 2, _P2), shape=_pool_shape("MaxPool", 2, _P2),
                 grad=lambda g, ans, x, **a: bind(MAX_POOL_GRAD, x, ans, g, **a))
MAX_POOL3D = defop("MaxPool3D", max_kernel, jax_impl=J(jax_max), dtypes=F16_32, check=_pool_check("MaxPool3D", 3, _P),
                   shape=_pool_shape("MaxPool3D", 3, _P),
                   grad=lambda g, ans, x, **a: bind(MAX_POOL3D_GRAD, x, ans, g, **a))
AVG_POOL = defop("AvgPool", avg_kernel, jax_impl=J(jax_avg), dtypes=FLOATS, check=_pool_check("AvgPool", 2, _P),
                 shape=_pool_shape("AvgPool", 2, _P), heavy=True,
                 grad=lambda g, ans, x, **a: bind(AVG_POOL_GRAD, g, orig_input_shape=shape_of(x), **a))
AVG_POOL3D = defop("AvgPool3D", avg_kernel, jax_impl=J(jax_avg), dtypes=FLOATS,
                   check=_pool_check("AvgPool3D", 3, _P), shape=_pool_shape("AvgPool3D", 3, _P),
                   grad=lambda g, ans, x, **a: bind(AVG_POOL3D_GRAD, g, orig_input_shape=shape_of(x), **a))
# The gradient and argmax kernels are written against xp (shared by NumPy and jax.numpy).
MAX_POOL_GRAD = defop("MaxPoolGrad", max_grad_kernel, jax_impl=J(max_grad_kernel), dtypes=MAXGRAD_TYPES,
                      check=_max_grad_check("MaxPoolGrad", 2, _P2), grad=_grad_of_grad(lambda: MAX_POOL_GRAD_GRAD))
MAX_POOL3D_GRAD = defop("MaxPool3DGrad", max3d_grad_kernel, jax_impl=J(max3d_grad_kernel), dtypes=F16_32,
                        check=_max_grad_check("MaxPool3DGrad", 3, _P),
                        grad=_grad_of_grad(lambda: MAX_POOL3D_GRAD_GRAD))
# TF's MaxPoolGradGrad has no explicit padding; here it takes MaxPoolGrad's attrs (second derivatives of EXPLICIT).
MAX_POOL_GRAD_GRAD = defop("MaxPoolGradGrad", max_grad_grad_kernel, jax_impl=J(max_grad_grad_kernel),
                           dtypes=MAXGRAD_TYPES, check=_max_grad_grad_check("MaxPoolGradGrad", 2, _P2),
                           grad=_grad_of_grad(lambda: MAX_POOL_GRAD))
MAX_POOL3D_GRAD_GRAD = defop("MaxPool3DGradGrad", max_grad_grad_kernel, jax_impl=J(max_grad_grad_kernel),
                             dtypes=MAXGRAD_TYPES, check=_max_grad_grad_check("MaxPool3DGradGrad", 3, _P),
                             grad=_grad_of_grad(lambda: MAX_POOL3D_GRAD))
AVG_POOL_GRAD = defop("AvgPoolGrad", avg_grad_kernel, jax_impl=J(avg_grad_kernel), dtypes=FLOATS,
                      check=_avg_grad_check("AvgPoolGrad", 2),
                      grad=lambda g, ans, dy, orig_input_shape, **a: bind(AVG_POOL, g, **a))
AVG_POOL3D_GRAD = defop("AvgPool3DGrad", avg_grad_kernel, jax_impl=J(avg_grad_kernel), dtypes=FLOATS,
                        check=_avg_grad_check("AvgPool3DGrad", 3),
                        grad=lambda g, ans, dy, orig_input_shape, **a: bind(AVG_POOL3D, g, **a))
MAX_POOL_ARGMAX = defop("MaxPoolWithArgmax", argmax_kernel, jax_impl=J(argmax_kernel), n_out=2,
                        dtypes=MAXGRAD_TYPES, check=_argmax_check,
                        grad=lambda g, ans, x, Targmax=None, **a: bind(ARGMAX_GRAD, x, g[0], ans[1], **a))
ARGMAX_GRAD = defop("MaxPoolGradWithArgmax", argmax_grad_kernel, jax_impl=J(jax_argmax_grad), dtypes=MAXGRAD_TYPES,
                    check=_argmax_grad_check("MaxPoolGradWithArgmax", False),
                    grad=_grad_of_argmax_grad(lambda: ARGMAX_GRAD_GRAD))
ARGMAX_GRAD_GRAD = defop("MaxPoolGradGradWithArgmax", argmax_grad_grad_kernel, jax_impl=J(argmax_grad_grad_kernel),
                         dtypes=MAXGRAD_TYPES, check=_argmax_grad_check("MaxPoolGradGradWithArgmax", True),
                         grad=_grad_of_argmax_grad(lambda: ARGMAX_GRAD))


# --- public ------------------------------------------------------------------------------------

def _pool_nd(op, x, nd, ksize, strides, padding, data_format, allow_explicit):
    cf = data_format.startswith("NC")
    k = full_seq(ksize, nd, "ksize", cf)
    s = full_seq(strides, nd, "strides", cf)
    pad, ep = padding_arg(padding, nd, allow_explicit)
    attrs = dict(ksize=k, strides=s, padding=pad, data_format=data_format)
    if op is MAX_POOL:
        attrs["explicit_paddings"] = ep
    return bind(op, x, **attrs)


def _pool1d(op, input, ksize, strides, padding, data_format, allow_explicit):  # noqa: A002
    from tensorlet._src.ops.indexing import getitem

    if data_format not in ("NWC", "NCW", "NHWC", "NCHW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    cf = data_format.startswith("NC")
    x = t(input)
    k = full_seq(ksize, 1, "ksize", cf)
    s = full_seq(strides, 1, "strides", cf)
    if isinstance(padding, (list, tuple)) and allow_explicit:
        pairs = [list(p) for p in padding]
        if len(pairs) != 3:
            raise ValueError(f"When padding is a list, it must be of size 3. Received: padding={padding} of size "
                             f"{len(pairs)}")
        padding = pairs[:2] + [[0, 0]] + pairs[2:] if cf else pairs[:1] + [[0, 0]] + pairs[1:]
    x2 = getitem(x, (Ellipsis, None, slice(None)) if cf else (Ellipsis, None, slice(None), slice(None)))
    k2 = (1, k[1], 1, k[2]) if cf else (1, 1, k[1], 1)
    s2 = (1, s[1], 1, s[2]) if cf else (1, 1, s[1], 1)
    out = _pool_nd(op, x2, 2, k2, s2, padding, "NCHW" if cf else "NHWC", allow_explicit)
    return getitem(out, (Ellipsis, 0, slice(None)) if cf else (Ellipsis, 0, slice(None), slice(None)))


@tf_export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """2-D max pooling; ``padding`` may be "SAME", "VALID" or explicit pairs.

    >>> max_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    return _pool_nd(MAX_POOL, t(input), 2, ksize, strides, padding, data_format or "NHWC", True)


@tf_export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling (MaxPool over a unit height)."""
    return _pool1d(MAX_POOL, input, ksize, strides, padding, data_format or "NWC", True)


@tf_export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D max pooling."""
    return _pool_nd(MAX_POOL3D, t(input), 3, ksize, strides, padding, data_format or "NDHWC", False)


@tf_export("nn.avg_pool2d")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """2-D average pooling; SAME windows average over their valid elements only.

    >>> avg_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, "SAME").shape
    TensorShape([1, 2, 2, 1])
    """
    return _pool_nd(AVG_POOL, t(input), 2, ksize, strides, padding, data_format or "NHWC", False)


@tf_export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling (AvgPool over a unit height)."""
    return _pool1d(AVG_POOL, input, ksize, strides, padding, data_format or "NWC", False)


@tf_export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D average pooling."""
    return _pool_nd(AVG_POOL3D, t(input), 3, ksize, strides, padding, data_format or "NDHWC", False)


def _by_rank(x, fns, data_format):
    x = t(x)
    r = len(shape_of(x))
    if r not in (3, 4, 5):
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={shape_of(x)} of rank {r}.")
    defaults = {3: "NWC", 4: "NHWC", 5: "NDHWC"}
    fmt = defaults[r]
    if data_format is not None and data_format.startswith("NC"):
        fmt = {3: "NCW", 4: "NCHW", 5: "NCDHW"}[r]
    elif data_format is not None and data_format != fmt:
        fmt = data_format  # let the op reject it with TF's message
    return x, fns[r], fmt


@tf_export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """N-D max pooling for rank 3, 4 or 5 inputs."""
    x, fn, fmt = _by_rank(input, {3: max_pool1d, 4: max_pool2d, 5: max_pool3d}, data_format)
    return fn(x, ksize, strides, padding, fmt)


@tf_export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """N-D average pooling for rank 3, 4 or 5 inputs."""
    x, fn, fmt = _by_rank(input, {3: avg_pool1d, 4: avg_pool2d, 5: avg_pool3d}, data_format)
    return fn(x, ksize, strides, padding, fmt)


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


@tf_export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype=_dt.int64,  # noqa: A002
                         include_batch_in_index=False, name=None):
    """Max pooling plus the flat index of each maximum: (y * width + x) * channels + c (+ batch offset)."""
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    k = full_seq(ksize, 2, "ksize", False)
    s = full_seq(strides, 2, "strides", False)
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    od = _dt.as_dtype(output_dtype)
    out, idx = bind(MAX_POOL_ARGMAX, t(input), ksize=k, strides=s, padding=padding, Targmax=od.as_numpy_dtype,
                    include_batch_in_index=bool(include_batch_in_index))
    return MaxPoolWithArgmax(out, idx)


@tf_export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """Generic N-D "MAX" or "AVG" pooling (dilations of 1 only)."""
    x = t(input)
    w = [int(v) for v in to_shape_tuple(window_shape)]
    nd = len(w)
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{nd}-D {pooling_type} pooling is not supported.")
    s = [1] * nd if strides is None else [int(v) for v in to_shape_tuple(strides)]
    d = [1] * nd if dilations is None else [int(v) for v in to_shape_tuple(dilations)]
    if any(v < 1 for v in d):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={d}")
    if any(v > 1 for v in d):
        if padding == "SAME":
            raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                             f"padding={padding} and dilation_rate={d}")
        if any(v > 1 for v in s):
            raise ValueError(f"`strides` > 1 not supported in conjunction with `dilation_rate` > 1. Received: "
                             f"strides={s} and dilation_rate={d}")
        raise NotImplementedError("tensorlet does not implement tf.nn.pool with dilations > 1 yet")
    fn = max_pool if pooling_type == "MAX" else avg_pool
    return fn(x, w, s, padding, data_format)


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import creation  # noqa: E402
from tensorlet._src.ops.nn_conv import check_explicit_paddings, full_seq, padding_arg  # noqa: E402
