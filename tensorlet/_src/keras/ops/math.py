"""``keras.ops`` math functions: segment reductions, top-k, FFTs (as DFT matrix products, so they trace, lower and
differentiate like any other op), STFT/ISTFT, framing and window functions.

>>> [float(v) for v in segment_sum(np.ones(3, "float32"), np.array([0, 0, 1]))]
[2.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.keras.backend import floatx
from tensorlet._src.keras.ops._dtypes import cast, convert
from tensorlet._src.keras.ops.numpy_elementwise import export
from tensorlet._src.ops import array_blocks, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops import segment as sg
from tensorlet._src.ops.array_shape import size
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary_fn import complex as _complex
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.scan_sort import in_top_k as _in_top_k, top_k as _top_k


def _segment(name, sorted_fn, unsorted_fn):
    def fn(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras's name
        data, ids = convert(data), convert(segment_ids)
        if sorted:
            if num_segments is not None:
                raise ValueError("Argument `num_segments` cannot be set when sorted is True when using the "
                                 f"tensorflow backend.Received: num_segments={num_segments}, sorted={sorted}.")
            return sorted_fn(data, ids)
        if num_segments is None:
            if isinstance(ids, EagerTensor):
                num_segments = int(np.unique(np.asarray(ids)).size)
            else:  # traced: the number of distinct ids, as a graph value
                num_segments = size(sg.unique(ids)[0])
        return unsorted_fn(data, ids, num_segments)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` of ``data`` by ``segment_ids`` (unique ids counted when ``num_segments`` is None)."
    return export(name)(fn)


segment_sum = _segment("segment_sum", sg.segment_sum, sg.unsorted_segment_sum)
segment_max = _segment("segment_max", sg.segment_max, sg.unsorted_segment_max)
segment_min = _segment("segment_min", sg.segment_min, sg.unsorted_segment_min)
segment_prod = _segment("segment_prod", sg.segment_prod, sg.unsorted_segment_prod)


@export("top_k")
def top_k(x, k, sorted=True):  # noqa: A002 - Keras's name
    """``(values, indices)`` of the ``k`` largest entries of the last axis."""
    r = _top_k(convert(x), k=k, sorted=sorted)
    return tuple(r)


@export("in_top_k")
def in_top_k(targets, predictions, k):
    """True where the target class is among the ``k`` top predictions."""
    return _in_top_k(convert(targets), convert(predictions), k)


@export("cdist")
def cdist(x, y):
    """Pairwise Euclidean distances between the rows of ``x`` and ``y`` (batched over leading axes)."""
    x, y = convert(x), convert(y)
    if x.shape.rank < 2 or y.shape.rank < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("Last dimension of inputs to `cdist` must match")
    d = mb.subtract(array_shape.expand_dims(x, -2), array_shape.expand_dims(y, -3))
    return mu.sqrt(rd.reduce_sum(mu.square(d), axis=-1))


@export("logsumexp")
def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` along ``axis``, computed stably."""
    return rd.reduce_logsumexp(convert(x), axis=axis, keepdims=keepdims)


@export("rsqrt")
def rsqrt(x):
    """``1 / sqrt(x)``."""
    return mu.rsqrt(convert(x))


@export("erf")
def erf(x):
    """The error function."""
    return mu.erf(convert(x))


@export("erfc")
def erfc(x):
    """The complementary error function ``1 - erf(x)``."""
    return mu.erfc(convert(x))


@export("erfinv")
def erfinv(x):
    """The inverse error function (float16 computed in float32)."""
    x = convert(x)
    if x.dtype.name in ("float16", "bfloat16"):
        return cast(mu.erfinv(cast(x, "float32")), x.dtype.name)
    if not x.dtype.is_floating:
        x = cast(x, floatx())
    return mu.erfinv(x)


def _frame_index(n, length, step):
    count = max(0, (n - length) // step + 1)
    return (np.arange(count)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)


@export("extract_sequences")
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` along the last axis every ``sequence_stride`` (no padding)."""
    x = convert(x)
    return gather(x, convert(_frame_index(x.shape[-1], sequence_length, sequence_stride)), axis=-1)


# ---- Fourier transforms ------------------------------------------------------------------------------------------


def _pair(x):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"Input `x` should be a tuple of two tensors - real and imaginary.Received: x={x}")
    re, im = convert(x[0]), convert(x[1])
    if tuple(re.shape) != tuple(im.shape):
        raise ValueError("Input `x` should be a tuple of two tensors - real and imaginary.Both the real and imaginary "
                         f"parts should have the same shape. Received: x[0].shape = {re.shape}, "
                         f"x[1].shape = {im.shape}")
    if not re.dtype.is_floating or not im.dtype.is_floating:
        raise ValueError(f"At least one tensor in input `x` is not of type float.Received: x={x}.")
    return re, im


def _dft(n, n_out, dtype):
    j = np.arange(n)[:, None]
    k = np.arange(n_out)[None, :]
    ang = 2.0 * np.pi * ((j * k) % max(n, 1)) / max(n, 1)
    return convert(np.cos(ang).astype(dtype)), convert(np.sin(ang).astype(dtype))


def _fft_last(re, im, inverse=False):
    n = re.shape[-1]
    c, s = _dft(n, n, re.dtype.as_numpy_dtype)
    if not inverse:
        out_re = mb.add(matmul_last(re, c), matmul_last(im, s))
        out_im = mb.subtract(matmul_last(im, c), matmul_last(re, s))
        return out_re, out_im
    out_re = mb.subtract(matmul_last(re, c), matmul_last(im, s))
    out_im = mb.add(matmul_last(im, c), matmul_last(re, s))
    scale = mb.cast(1.0 / n, re.dtype)
    return mb.multiply(out_re, scale), mb.multiply(out_im, scale)


def matmul_last(x, m):
    """``x @ m`` over the last axis of any-rank ``x``."""
    shp = list(x.shape)
    flat = array_shape.reshape(x, [-1, shp[-1]])
    return array_shape.reshape(matmul(flat, m), [(-1 if d is None else d) for d in shp[:-1]] + [m.shape[-1]])


def _swap_last2(x):
    nd = x.shape.rank
    return array_shape.transpose(x, list(range(nd - 2)) + [nd - 1, nd - 2])


@export("fft")
def fft(x):
    """The 1-D discrete Fourier transform of ``(real, imag)`` over the last axis."""
    return _fft_last(*_pair(x))


def _fft2(x, inverse):
    re, im = _pair(x)
    re, im = _fft_last(re, im, inverse)
    re, im = _fft_last(_swap_last2(re), _swap_last2(im), inverse)
    return _swap_last2(re), _swap_last2(im)


@export("fft2")
def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes."""
    return _fft2(x, False)


@export("ifft2")
def ifft2(x):
    """The inverse 2-D discrete Fourier transform over the last two axes."""
    return _fft2(x, True)


def _fit_last(x, n):
    m = x.shape[-1]
    if m == n:
        return x
    if m > n:
        return x[..., :n]
    return array_blocks.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - m]])


@export("rfft")
def rfft(x, fft_length=None):
    """``(real, imag)`` of the real-input DFT over the last axis (``fft_length // 2 + 1`` bins)."""
    x = convert(x)
    n = x.shape[-1] if fft_length is None else int(fft_length)
    x = _fit_last(x, n)
    c, s = _dft(n, n // 2 + 1, x.dtype.as_numpy_dtype)
    return matmul_last(x, c), mu.negative(matmul_last(x, s))


@export("irfft")
def irfft(x, fft_length=None):
    """The real signal whose ``rfft`` is ``(real, imag)``."""
    re, im = _pair(x)
    m = re.shape[-1]
    n = 2 * (m - 1) if fft_length is None else int(fft_length)
    bins = n // 2 + 1
    re, im = _fit_last(re, bins), _fit_last(im, bins)
    k = np.arange(bins)[:, None]
    j = np.arange(n)[None, :]
    w = np.full((bins, 1), 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    ang = 2.0 * np.pi * ((k * j) % n) / n
    dt = re.dtype.as_numpy_dtype
    c = convert((w * np.cos(ang) / n).astype(dt))
    s = convert((w * np.sin(ang) / n).astype(dt))
    return mb.subtract(matmul_last(re, c), matmul_last(im, s))


def _window(window, length, dtype):
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError('If a string is passed to `window`, it must be one of `"hann"`, `"hamming"`. '
                             f"Received: window={window}")
        a = 0.5 if window == "hann" else 0.54
        n = np.arange(length)
        return (a - (1 - a) * np.cos(2 * np.pi * n / length)).astype(dtype)
    w = np.asarray(convert(window, dtype.__name__ if hasattr(dtype, "__name__") else dtype))
    if w.ndim != 1 or w.shape[-1] != length:
        raise ValueError(f"The shape of `window` must be equal to [sequence_length].Received: window shape={w.shape}")
    return w


@export("stft")
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """``(real, imag)`` of the short-time Fourier transform over the last axis."""
    x = convert(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Invalid input type. Expected `float32` or `float64`. Received: input type={x.dtype}")
    if fft_length < sequence_length:
        raise ValueError("`fft_length` must equal or larger than `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")
    dt = x.dtype.as_numpy_dtype
    w = _window(window, sequence_length, dt)
    if center:
        x = array_blocks.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]], mode="REFLECT")
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    frames = extract_sequences(x, fft_length, sequence_stride)
    if w is not None:
        frames = mb.multiply(frames, convert(np.pad(w, (l_pad, r_pad))))
    return rfft(frames, fft_length)


@export("istft")
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """The inverse of ``stft`` (overlap-add with TF's window normalization)."""
    re, im = _pair(x)
    dt = re.dtype.as_numpy_dtype
    nframes = re.shape[-2]
    expected = fft_length + sequence_stride * (nframes - 1)
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    frames = irfft((re, im), fft_length)[..., :fft_length]
    w = _window(window, sequence_length, dt)
    if w is not None:
        w = np.pad(w, (l_pad, r_pad)).astype(np.float64)
        step = sequence_stride
        overlaps = -(-fft_length // step)
        denom = np.pad(w * w, (0, overlaps * step - fft_length)).reshape(overlaps, step).sum(0, keepdims=True)
        denom = np.tile(denom, (overlaps, 1)).reshape(-1)[:fft_length]
        frames = mb.multiply(frames, convert((w / denom).astype(dt)))
    # overlap-add: out[t] = sum over frames f with t = f * step + i
    idx = (np.arange(nframes)[:, None] * sequence_stride + np.arange(fft_length)[None, :]).reshape(-1)
    lead = list(frames.shape[:-2])
    flat = array_shape.reshape(frames, [-1, nframes * fft_length])
    summed = sg.unsorted_segment_sum(array_shape.transpose(flat), convert(idx.astype(np.int32)), expected)
    out = array_shape.reshape(array_shape.transpose(summed), [(-1 if d is None else d) for d in lead] + [expected])
    start = 0 if not center else fft_length // 2
    if length is not None:
        end = start + length
    elif center:
        end = expected - fft_length // 2
    else:
        end = expected
    return out[..., start:end]


@export("view_as_real")
def view_as_real(x):
    """A complex tensor as ``[..., 2]`` real pairs."""
    x = convert(x)
    return array_blocks.stack([mu.real(x), mu.imag(x)], -1)


@export("view_as_complex")
def view_as_complex(x):
    """``[..., 2]`` real pairs as a complex tensor."""
    x = convert(x)
    if x.shape[-1] != 2:
        raise ValueError(f"Last dimension of input must be size 2 (real and imaginary). Received shape: {x.shape}")
    if x.dtype.name == "float64":
        pass
    elif x.dtype.name != "float32":
        x = cast(x, "float32")
    return _complex(x[..., 0], x[..., 1])


# ---- window functions (NumPy's, symmetric) -----------------------------------------------------------------------


def _win(name, f):
    def fn(x):
        n = int(np.asarray(convert(x)))
        if n <= 0:
            return convert(np.zeros(0, floatx()))
        if n == 1:
            return convert(np.ones(1, floatx()))
        return convert(f(n).astype(floatx()))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NumPy's symmetric ``{name}`` window of length ``x`` (floatx)."
    return export(name, "numpy")(fn)


bartlett = _win("bartlett", np.bartlett)
blackman = _win("blackman", np.blackman)
hamming = _win("hamming", np.hamming)
hanning = _win("hanning", np.hanning)


@export("kaiser", "numpy")
def kaiser(x, beta):
    """NumPy's Kaiser window of length ``x`` with shape ``beta`` (floatx)."""
    n = int(np.asarray(convert(x)))
    return convert(np.kaiser(n, float(beta)).astype(floatx()))

