"""Fourier transforms: ``tf.signal.fft``/``ifft``/``rfft``/``irfft`` over the innermost 1, 2 or 3 axes (TF's
``FFT``..``IRFFT3D`` ops) and over chosen axes (``FFTND``..``IRFFTND``).

Kernels are ``xp.fft`` (NumPy eagerly, ``jax.numpy.fft`` compiled) cast back to TF's dtypes (complex64 in,
complex64 out; rfft of float32 is complex64).  Gradients are the adjoint transforms in TF's complex convention:
``fft``'s is ``n * ifft``, ``rfft``'s the real part of ``n * ifft`` of the zero-padded half spectrum, ``irfft``'s
``rfft(g) * [1, 2, ..., 2, 1] / n``.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

D = _dt
_COMPLEX = (D.complex64, D.complex128)
_REAL = (D.float32, D.float64)
_C_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}
_R_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def _axes(rank, k):
    return tuple(range(rank - k, rank))


def _c2c_kernel(inverse):
    def kernel(xp, x, axes):
        f = xp.fft.ifftn if inverse else xp.fft.fftn
        return f(x, axes=axes).astype(x.dtype)
    return kernel


def _r2c_kernel(xp, x, fft_length, axes):
    return xp.fft.rfftn(x, s=fft_length, axes=axes).astype(_C_OF[np.dtype(x.dtype)])


def _c2r_kernel(xp, x, fft_length, axes):
    return xp.fft.irfftn(x, s=fft_length, axes=axes).astype(_R_OF[np.dtype(x.dtype)])


def _size(axes_len):
    return float(np.prod(axes_len))


def _c2c_grad(inverse):
    def grad(g, ans, x, axes):
        n = _size([x.shape[a] for a in axes])
        if inverse:  # the adjoint of ifft is fft / n
            return bind(FFT_ND, g, axes=axes) * convert_to_tensor(1.0 / n, dtype=g.dtype)
        return bind(IFFT_ND, g, axes=axes) * convert_to_tensor(n, dtype=g.dtype)
    return grad


def _fit(t, axes, sizes):
    """Crop or zero-pad ``t`` along ``axes`` to ``sizes``."""
    from tensorlet._src.ops.array_blocks import pad
    from tensorlet._src.ops.array_select import slice as _slice

    dims = t.shape.as_list()
    want = list(dims)
    for a, s in zip(axes, sizes):
        want[a] = s
    begin = [0] * len(dims)
    crop = [min(d, w) for d, w in zip(dims, want)]
    if crop != dims:
        t = _slice(t, begin, crop)
    pads = [[0, w - c] for c, w in zip(crop, want)]
    if any(p[1] for p in pads):
        t = pad(t, pads)
    return t


def _r2c_grad(g, ans, x, fft_length, axes):
    from tensorlet._src.ops.math_unary import real

    n = _size(fft_length)
    full = _fit(g, axes, list(fft_length))  # the half spectrum zero-padded to full length
    dx = real(bind(IFFT_ND, full, axes=axes))
    dx = dx * convert_to_tensor(n, dtype=dx.dtype)
    return _fit(dx, axes, [x.shape[a] for a in axes])


def _c2r_grad(g, ans, x, fft_length, axes):
    n = _size(fft_length)
    spec = bind(RFFT_ND, g, fft_length=fft_length, axes=axes)
    last = fft_length[-1]
    w = np.full(last // 2 + 1, 2.0)
    w[0] = 1.0
    if last % 2 == 0:
        w[-1] = 1.0
    shape = [1] * g.shape.rank
    shape[axes[-1]] = w.size
    weights = convert_to_tensor((w / n).reshape(shape).astype(spec.dtype.as_numpy_dtype))
    dx = spec * weights
    return _fit(dx, axes, [x.shape[a] for a in axes])


def _same_shape(x, axes):
    return Spec(x.shape, x.dtype)


def _r2c_shape(x, fft_length, axes):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        return Spec(TensorShape(None), D.as_dtype(_C_OF[np.dtype(x.dtype.as_numpy_dtype)]))
    for a, n in zip(axes, fft_length):
        dims[a] = n
    dims[axes[-1]] = fft_length[-1] // 2 + 1
    return Spec(TensorShape(dims), D.as_dtype(_C_OF[np.dtype(x.dtype.as_numpy_dtype)]))


def _c2r_shape(x, fft_length, axes):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        return Spec(TensorShape(None), D.as_dtype(_R_OF[np.dtype(x.dtype.as_numpy_dtype)]))
    for a, n in zip(axes, fft_length):
        dims[a] = n
    return Spec(TensorShape(dims), D.as_dtype(_R_OF[np.dtype(x.dtype.as_numpy_dtype)]))


FFT_ND = defop("FFTND", _c2c_kernel(False), dtypes=_COMPLEX, shape=_same_shape, grad=_c2c_grad(False))
IFFT_ND = defop("IFFTND", _c2c_kernel(True), dtypes=_COMPLEX, shape=_same_shape, grad=_c2c_grad(True))
RFFT_ND = defop("RFFTND", _r2c_kernel, dtypes=_REAL, shape=_r2c_shape, grad=_r2c_grad)
IRFFT_ND = defop("IRFFTND", _c2r_kernel, dtypes=_COMPLEX, shape=_c2r_shape, grad=_c2r_grad)


def _complex_input(x, op_name):
    x = convert_to_tensor(x)
    if x.dtype not in _COMPLEX:
        raise errors.invalid_argument(op_name, f"Value for attr 'Tcomplex' of {x.dtype.name} is not in the list of "
                                               "allowed values: complex64, complex128")
    return x


def _check_rank(x, k, op_name):
    if x.shape.rank is not None and x.shape.rank < k:
        raise ValueError(f"Shape must be at least rank {k} but is rank {x.shape.rank} for '{{{{node {op_name}}}}} = "
                         f"{op_name}[Tcomplex=DT_COMPLEX64](input)' with input shapes: {x.shape}.")


def _c2c(x, k, inverse, op_name):
    x = _complex_input(x, op_name)
    _check_rank(x, k, op_name)
    return bind(IFFT_ND if inverse else FFT_ND, x, axes=_axes(x.shape.rank, k))


def _lengths(x, k, fft_length, inverse):
    dims = x.shape.as_list()[-k:]
    if fft_length is None:
        if inverse:
            return tuple(dims[:-1]) + (2 * (dims[-1] - 1),)
        return tuple(dims)
    fl = np.asarray(fft_length.numpy() if hasattr(fft_length, "numpy") else fft_length).reshape(-1)
    if fl.size != k:
        raise ValueError(f"fft_length must have {k} elements, got {fl.size}")
    return tuple(int(v) for v in fl)


def _r2c(x, k, fft_length, op_name):
    x = convert_to_tensor(x)
    if x.dtype not in _REAL:
        x = convert_to_tensor(x, dtype=D.float32) if not x.dtype.is_complex else x
    _check_rank(x, k, op_name)
    return bind(RFFT_ND, x, fft_length=_lengths(x, k, fft_length, False), axes=_axes(x.shape.rank, k))


def _c2r(x, k, fft_length, op_name):
    x = _complex_input(x, op_name)
    _check_rank(x, k, op_name)
    return bind(IRFFT_ND, x, fft_length=_lengths(x, k, fft_length, True), axes=_axes(x.shape.rank, k))


@tf_export("signal.fft")
def fft(input, name=None):  # noqa: A002 - TF's argument name
    """Fast Fourier transform over the innermost axis of a complex tensor."""
    return _c2c(input, 1, False, "FFT")


@tf_export("signal.ifft")
def ifft(input, name=None):  # noqa: A002
    return _c2c(input, 1, True, "IFFT")


@tf_export("signal.fft2d")
def fft2d(input, name=None):  # noqa: A002
    return _c2c(input, 2, False, "FFT2D")


@tf_export("signal.ifft2d")
def ifft2d(input, name=None):  # noqa: A002
    return _c2c(input, 2, True, "IFFT2D")


@tf_export("signal.fft3d")
def fft3d(input, name=None):  # noqa: A002
    return _c2c(input, 3, False, "FFT3D")


@tf_export("signal.ifft3d")
def ifft3d(input, name=None):  # noqa: A002
    return _c2c(input, 3, True, "IFFT3D")


@tf_export("signal.rfft")
def rfft(input_tensor, fft_length=None, name=None):
    """FFT of a real signal over the innermost axis: ``fft_length // 2 + 1`` complex outputs."""
    return _r2c(input_tensor, 1, fft_length, "RFFT")


@tf_export("signal.irfft")
def irfft(input_tensor, fft_length=None, name=None):
    """Inverse of ``rfft``: a real signal of ``fft_length`` samples (default ``2 * (n - 1)``)."""
    return _c2r(input_tensor, 1, fft_length, "IRFFT")


@tf_export("signal.rfft2d")
def rfft2d(input_tensor, fft_length=None, name=None):
    return _r2c(input_tensor, 2, fft_length, "RFFT2D")


@tf_export("signal.irfft2d")
def irfft2d(input_tensor, fft_length=None, name=None):
    return _c2r(input_tensor, 2, fft_length, "IRFFT2D")


@tf_export("signal.rfft3d")
def rfft3d(input_tensor, fft_length=None, name=None):
    return _r2c(input_tensor, 3, fft_length, "RFFT3D")


@tf_export("signal.irfft3d")
def irfft3d(input_tensor, fft_length=None, name=None):
    return _c2r(input_tensor, 3, fft_length, "IRFFT3D")


def _nd_args(x, fft_length, axes, inverse_real=False):
    rank = x.shape.rank
    if axes is None:
        axes = tuple(range(rank)) if fft_length is None else tuple(range(rank - len(fft_length), rank))
    axes = tuple(int(a) % rank for a in np.asarray(axes.numpy() if hasattr(axes, "numpy") else axes).reshape(-1))
    if fft_length is None:
        dims = [x.shape[a] for a in axes]
        if inverse_real:
            dims[-1] = 2 * (dims[-1] - 1)
        return tuple(dims), axes
    fl = np.asarray(fft_length.numpy() if hasattr(fft_length, "numpy") else fft_length).reshape(-1)
    return tuple(int(v) for v in fl), axes


def _c2c_nd(x, fft_length, axes, inverse, op_name):
    x = _complex_input(x, op_name)
    lengths, axes = _nd_args(x, fft_length, axes)
    x = _fit(x, axes, list(lengths))
    return bind(IFFT_ND if inverse else FFT_ND, x, axes=axes)


@tf_export("signal.fftnd", "fftnd")
def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """FFT over ``axes`` (default: all), after cropping/padding them to ``fft_length``."""
    return _c2c_nd(input_tensor, fft_length, axes, False, "FFTND")


@tf_export("signal.ifftnd", "ifftnd")
def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _c2c_nd(input_tensor, fft_length, axes, True, "IFFTND")


@tf_export("signal.rfftnd", "rfftnd")
def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    x = convert_to_tensor(input_tensor)
    lengths, axes = _nd_args(x, fft_length, axes)
    return bind(RFFT_ND, x, fft_length=lengths, axes=axes)


@tf_export("signal.irfftnd", "irfftnd")
def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    x = _complex_input(input_tensor, "IRFFTND")
    lengths, axes = _nd_args(x, fft_length, axes, inverse_real=True)
    return bind(IRFFT_ND, x, fft_length=lengths, axes=axes)


@tf_export("signal.fftshift")
def fftshift(x, axes=None, name=None):
    """Move the zero-frequency term to the center (NumPy's ``fftshift``)."""
    from tensorlet._src.ops.array_select import roll

    x = convert_to_tensor(x)
    axes = list(range(x.shape.rank)) if axes is None else [int(a) for a in np.atleast_1d(axes)]
    return roll(x, [x.shape[a] // 2 for a in axes], axes)


@tf_export("signal.ifftshift")
def ifftshift(x, axes=None, name=None):
    from tensorlet._src.ops.array_select import roll

    x = convert_to_tensor(x)
    axes = list(range(x.shape.rank)) if axes is None else [int(a) for a in np.atleast_1d(axes)]
    return roll(x, [-(x.shape[a] // 2) for a in axes], axes)
