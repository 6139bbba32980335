"""``tf.signal`` composites: windows, ``frame``/``overlap_and_add``, ``stft``/``inverse_stft``, DCT/MDCT, mel
filterbanks and MFCCs -- written with tensorlet ops over the FFT ops in ``signal_fft.py`` (so they trace and
differentiate).  Formulas follow TF's documented definitions (checked against values recorded from TF)."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.array_blocks import concat, pad
from tensorlet._src.ops.array_shape import reshape, transpose
from tensorlet._src.ops.creation import range as _range
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_unary import cos, sqrt
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.signal_fft import irfft, rfft

D = _dt


def _int(v):
    return int(np.asarray(v.numpy() if hasattr(v, "numpy") else v))


# --- windows ---------------------------------------------------------------------------------

def _raised_cosine(window_length, periodic, dtype, a, b):
    n = _int(window_length)
    dtype = D.as_dtype(dtype)
    if n == 1:
        return convert_to_tensor(np.ones(1, dtype.as_numpy_dtype))
    even = 1 - (n % 2)
    denom = n - 1 + int(bool(periodic)) * even  # TF's rule: an odd periodic window uses n - 1
    count = cast(_range(n), dtype)
    cos_arg = convert_to_tensor(2.0 * np.pi / denom, dtype=dtype) * count
    return convert_to_tensor(a, dtype=dtype) - convert_to_tensor(b, dtype=dtype) * cos(cos_arg)


@tf_export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=D.float32, name=None):
    """``0.5 - 0.5 cos(2 pi n / N)`` (``N = length`` if periodic else ``length - 1``)."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@tf_export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=D.float32, name=None):
    """``0.54 - 0.46 cos(2 pi n / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    from tensorlet._src.ops.math_special import bessel_i0

    n = _int(window_length)
    dtype = D.as_dtype(dtype)
    if n == 1:
        return convert_to_tensor(np.ones(1, dtype.as_numpy_dtype))
    halflen = (n - 1) / 2.0
    arg = (cast(_range(n), dtype) - convert_to_tensor(halflen, dtype=dtype)) / convert_to_tensor(halflen, dtype=dtype)
    beta_t = convert_to_tensor(beta, dtype=dtype)
    return bessel_i0(beta_t * sqrt(convert_to_tensor(1.0, dtype=dtype) - arg * arg)) / bessel_i0(beta_t)


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """The KBD window (used by MDCT): square roots of the normalized cumulative Kaiser window."""
    from tensorlet._src.ops.scan_sort import cumsum

    n = _int(window_length)
    half = n // 2
    kw = kaiser_window(half + 1, beta, dtype)
    shifted = cumsum(kw)
    shifted = shifted / shifted[-1]
    first = sqrt(shifted[:-1])
    from tensorlet._src.ops.array_select import reverse

    return concat([first, reverse(first, [0])], 0)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length, dtype=D.float32, name=None):
    """``sin(pi/2 sin^2(pi (n + 1/2) / N))``."""
    from tensorlet._src.ops.math_unary import sin

    n = _int(window_length)
    dtype = D.as_dtype(dtype)
    arg = (cast(_range(n), dtype) + convert_to_tensor(0.5, dtype=dtype)) * convert_to_tensor(np.pi / n, dtype=dtype)
    s = sin(arg)
    return sin(convert_to_tensor(np.pi / 2, dtype=dtype) * s * s)


# --- framing ---------------------------------------------------------------------------------

@tf_export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Overlapping frames of ``frame_length`` every ``frame_step`` samples along ``axis``."""
    x = convert_to_tensor(signal)
    rank = x.shape.rank
    axis = axis % rank
    fl, fs = _int(frame_length), _int(frame_step)
    n = x.shape[axis]
    if pad_end:
        frames = -(-max(n, 0) // fs) if n else 0
        need = max((frames - 1) * fs + fl - n, 0) if frames else 0
        if need:
            pads = [[0, 0]] * rank
            pads[axis] = [0, need]
            x = pad(x, pads, constant_values=pad_value)
            n += need
    else:
        frames = max(0, 1 + (n - fl) // fs) if n >= fl else 0
    idx = (np.arange(frames)[:, None] * fs + np.arange(fl)[None, :]).astype(np.int64)
    out = gather(x, convert_to_tensor(idx.reshape(-1)), axis=axis)
    dims = x.shape.as_list()
    return reshape(out, dims[:axis] + [frames, fl] + dims[axis + 1:])


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal, frame_step, name=None):
    """Sum overlapping frames ``[..., frames, frame_length]`` spaced ``frame_step`` apart into a signal."""
    from tensorlet._src.ops.segment import unsorted_segment_sum

    x = convert_to_tensor(signal)
    dims = x.shape.as_list()
    frames, fl = dims[-2], dims[-1]
    fs = _int(frame_step)
    out_len = (frames - 1) * fs + fl if frames else 0
    ids = (np.arange(frames)[:, None] * fs + np.arange(fl)[None, :]).reshape(-1)
    outer = dims[:-2]
    flat = reshape(x, [-1, frames * fl])
    summed = unsorted_segment_sum(transpose(flat), convert_to_tensor(ids.astype(np.int32)), out_len)
    return reshape(transpose(summed), outer + [out_len])


# --- STFT ------------------------------------------------------------------------------------

def _enclosing_power_of_two(n):
    return int(2 ** np.ceil(np.log2(n)))


@tf_export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """Short-time Fourier transform: frames windowed by ``window_fn`` then ``rfft`` (``[..., frames, bins]``)."""
    x = convert_to_tensor(signals)
    fl, fs = _int(frame_length), _int(frame_step)
    fft_len = _enclosing_power_of_two(fl) if fft_length is None else _int(fft_length)
    frames = frame(x, fl, fs, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=x.dtype)
    return rfft(frames, [fft_len])


@tf_export("signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Inverse of ``stft`` (with ``inverse_stft_window_fn`` for perfect reconstruction)."""
    from tensorlet._src.ops.array_select import slice as _slice

    s = convert_to_tensor(stfts)
    fl, fs = _int(frame_length), _int(frame_step)
    fft_len = _enclosing_power_of_two(fl) if fft_length is None else _int(fft_length)
    frames = irfft(s, [fft_len])
    dims = frames.shape.as_list()
    frames = _slice(frames, [0] * len(dims), dims[:-1] + [min(fl, fft_len)])
    if fl > fft_len:
        frames = pad(frames, [[0, 0]] * (len(dims) - 1) + [[0, fl - fft_len]])
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=frames.dtype)
    return overlap_and_add(frames, fs)


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window for ``inverse_stft`` that undoes ``forward_window_fn``'s overlapping (sum of squares = 1)."""
    fs = _int(frame_step)

    def window(frame_length, dtype):
        fl = _int(frame_length)
        fw = forward_window_fn(fl, dtype=dtype)
        denom = fw * fw
        overlaps = -(-fl // fs)
        padded = pad(denom, [[0, overlaps * fs - fl]])
        denom = reshape(padded, [overlaps, fs])
        from tensorlet._src.ops.reduce import reduce_sum

        denom = reduce_sum(denom, 0, keepdims=True)
        from tensorlet._src.ops.array_shape import tile

        denom = reshape(tile(denom, [overlaps, 1]), [overlaps * fs])[:fl]
        return fw / denom

    return window


# --- DCT / MDCT ------------------------------------------------------------------------------

@tf_export("signal.dct")
def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's argument names
    """Discrete cosine transform (types 1-4) of the innermost axis; ``norm="ortho"`` for types 2-4."""
    x = convert_to_tensor(input)
    if axis != -1:
        raise ValueError(f"axis must be -1. Got: {axis}")
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported. Got: {type}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")
    if n is not None:
        m = x.shape[-1]
        n = _int(n)
        from tensorlet._src.ops.array_select import slice as _slice

        x = _slice(x, [0] * x.shape.rank, x.shape.as_list()[:-1] + [min(n, m)]) if n < m else \
            pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - m]])
    N = x.shape[-1]  # noqa: N806
    dt = x.dtype
    k = np.arange(N)
    if type == 1:
        # X_k = x_0 + (-1)^k x_{N-1} + 2 sum_{n=1}^{N-2} x_n cos(pi k n / (N - 1))
        basis = 2.0 * np.cos(np.pi * np.outer(np.arange(N), k) / max(N - 1, 1))
        basis[0, :] = 1.0
        basis[-1, :] = (-1.0) ** k
    elif type == 2:
        basis = 2.0 * np.cos(np.pi * np.outer(np.arange(N) + 0.5, k) / N)
        if norm == "ortho":
            scale = np.full(N, np.sqrt(1.0 / (2 * N)))
            scale[0] = np.sqrt(1.0 / (4 * N))
            basis = basis * scale[None, :]
    elif type == 3:
        basis = 2.0 * np.cos(np.pi * np.outer(np.arange(N), k + 0.5) / N)
        basis[0, :] = 1.0
        if norm == "ortho":
            basis = basis * np.sqrt(1.0 / (2 * N))
            basis[0, :] = np.sqrt(1.0 / N)
    else:
        basis = 2.0 * np.cos(np.pi * np.outer(np.arange(N) + 0.5, k + 0.5) / N)
        if norm == "ortho":
            basis = basis * np.sqrt(1.0 / (2 * N))
    from tensorlet._src.ops.matmul import matmul

    flat = reshape(x, [-1, N])
    out = matmul(flat, convert_to_tensor(basis.astype(dt.as_numpy_dtype)))
    return reshape(out, x.shape.as_list())


@tf_export("signal.idct")
def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """Inverse DCT: the DCT of the inverse type, unscaled as TF's (``idct(dct(x)) == 2N x`` unless ``norm="ortho"``)."""
    inverse_type = {1: 1, 2: 3, 3: 2, 4: 4}[type]
    return dct(input, inverse_type, n, axis, norm)


@tf_export("signal.mdct")
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """Modified DCT of frames ``frame_length`` long, hop ``frame_length / 2``: ``[..., frames, frame_length / 2]``."""
    x = convert_to_tensor(signals)
    fl = _int(frame_length)
    if fl % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    frames = frame(x, fl, fl // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=x.dtype)
    else:
        frames = frames * convert_to_tensor(1.0 / np.sqrt(2), dtype=x.dtype)
    q = fl // 4
    a, b, c, d = (frames[..., i * q:(i + 1) * q] for i in range(4))
    from tensorlet._src.ops.array_select import reverse

    rev = lambda t: reverse(t, [-1])  # noqa: E731
    fold = concat([-rev(c) - d, a - rev(b)], -1)
    return dct(fold, type=4, norm=norm)


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """Inverse of ``mdct`` (overlap-add of the unfolded, windowed frames)."""
    from tensorlet._src.ops.array_select import reverse

    m = convert_to_tensor(mdcts)
    half = m.shape[-1]
    fl = 2 * half
    y = dct(m, type=4, norm=norm)
    if norm != "ortho":
        y = y * convert_to_tensor(0.5 / half, dtype=y.dtype)
    q = half // 2
    y0, y1 = y[..., :q], y[..., q:]
    rev = lambda t: reverse(t, [-1])  # noqa: E731
    frames = concat([y1, -rev(y1), -rev(y0), -y0], -1)
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=frames.dtype)
    else:
        frames = frames * convert_to_tensor(1.0 / np.sqrt(2), dtype=frames.dtype)
    return overlap_and_add(frames, half)


# --- mel / MFCC ------------------------------------------------------------------------------

def _hz_to_mel(f):
    return 1127.0 * np.log1p(np.asarray(f, np.float64) / 700.0)


@tf_export("signal.linear_to_mel_weight_matrix")
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0, dtype=D.float32, name=None):
    """``[num_spectrogram_bins, num_mel_bins]`` triangular filters on the HTK mel scale (``1127 ln(1 + f/700)``)."""
    num_mel_bins, num_spectrogram_bins = _int(num_mel_bins), _int(num_spectrogram_bins)
    sr = float(np.asarray(sample_rate))
    lo, hi = float(lower_edge_hertz), float(upper_edge_hertz)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lo < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lo}")
    if lo >= hi:
        raise ValueError(f"lower_edge_hertz {lo:.1f} >= upper_edge_hertz {hi:.1f}")
    if hi > sr / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got "
                         f"{hi} for sample_rate: {sr}")
    nyquist = sr / 2.0
    linear_freqs = np.linspace(0.0, nyquist, num_spectrogram_bins)[1:]
    spec_mel = _hz_to_mel(linear_freqs)[:, None]
    edges = np.linspace(_hz_to_mel(lo), _hz_to_mel(hi), num_mel_bins + 2)
    lower, center, upper = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    w = np.maximum(0.0, np.minimum((spec_mel - lower) / (center - lower), (upper - spec_mel) / (upper - center)))
    w = np.concatenate([np.zeros((1, num_mel_bins)), w], 0)
    return convert_to_tensor(w.astype(D.as_dtype(dtype).as_numpy_dtype))


@tf_export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal DCT-II of log-mel spectrograms (``dct(x, norm='ortho')``, TF's scaling)."""
    x = convert_to_tensor(log_mel_spectrograms)
    n = x.shape[-1]
    return dct(x, type=2) * convert_to_tensor(float(np.sqrt(0.5 / n)), dtype=x.dtype)
