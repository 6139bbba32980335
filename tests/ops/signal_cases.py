"""tf.signal programs run by real TF (tools/record_tf_goldens/signal.py -> tests/goldens/signal.json) and by
tensorlet (tests/ops/test_signal.py): values, dtypes, shapes and gradients."""

import numpy as np

X = np.sin(np.arange(16) * 0.7) + 0.1 * np.arange(16)
C = (np.arange(8) - 3.0) + 1j * np.cos(np.arange(8))
M = np.arange(12, dtype=np.float64).reshape(3, 4) ** 1.5


def _grad(tf, fn, x):
    v = tf.Variable(x)
    with tf.GradientTape() as t:
        y = fn(tf, v)
    return t.gradient(y, v)


CASES = {
    "fft": lambda tf: tf.signal.fft(tf.constant(C, tf.complex64)),
    "ifft": lambda tf: tf.signal.ifft(tf.constant(C, tf.complex128)),
    "fft2d": lambda tf: tf.signal.fft2d(tf.constant(M.astype(np.complex64))),
    "ifft2d": lambda tf: tf.signal.ifft2d(tf.constant(M.astype(np.complex128))),
    "fft3d": lambda tf: tf.signal.fft3d(tf.constant(np.arange(8.0).reshape(2, 2, 2).astype(np.complex64))),
    "rfft": lambda tf: tf.signal.rfft(tf.constant(X, tf.float32)),
    "rfft_len_pad": lambda tf: tf.signal.rfft(tf.constant(X[:5], tf.float32), [8]),
    "rfft_len_crop": lambda tf: tf.signal.rfft(tf.constant(X, tf.float64), [6]),
    "irfft": lambda tf: tf.signal.irfft(tf.signal.rfft(tf.constant(X, tf.float32))),
    "irfft_len": lambda tf: tf.signal.irfft(tf.constant(C[:5], tf.complex64), [7]),
    "rfft2d": lambda tf: tf.signal.rfft2d(tf.constant(M, tf.float32)),
    "irfft2d": lambda tf: tf.signal.irfft2d(tf.constant(M[:, :3].astype(np.complex64))),
    "rfft3d": lambda tf: tf.signal.rfft3d(tf.constant(np.arange(8.0).reshape(2, 2, 2), tf.float32)),
    "fftshift": lambda tf: tf.signal.fftshift(tf.constant(M)),
    "ifftshift": lambda tf: tf.signal.ifftshift(tf.constant(np.arange(7))),
    "fft_real_input": lambda tf: tf.signal.fft(tf.constant([1.0, 2.0])),
    "hann": lambda tf: tf.signal.hann_window(8),
    "hann_odd": lambda tf: tf.signal.hann_window(7),
    "hann_symmetric": lambda tf: tf.signal.hann_window(8, periodic=False),
    "hamming": lambda tf: tf.signal.hamming_window(9, dtype=tf.float64),
    "kaiser": lambda tf: tf.signal.kaiser_window(8, beta=5.0),
    "kbd": lambda tf: tf.signal.kaiser_bessel_derived_window(8),
    "vorbis": lambda tf: tf.signal.vorbis_window(8),
    "frame": lambda tf: tf.signal.frame(tf.constant(np.arange(10)), 4, 3),
    "frame_pad": lambda tf: tf.signal.frame(tf.constant(np.arange(10)), 4, 3, pad_end=True, pad_value=-1),
    "frame_axis0": lambda tf: tf.signal.frame(tf.constant(np.arange(12).reshape(6, 2)), 3, 2, axis=0),
    "overlap_and_add": lambda tf: tf.signal.overlap_and_add(tf.constant(np.arange(12.0).reshape(3, 4)), 2),
    "overlap_and_add_batch": lambda tf: tf.signal.overlap_and_add(tf.constant(np.ones((2, 3, 4))), 3),
    "stft": lambda tf: tf.signal.stft(tf.constant(np.tile(X, 2), tf.float32), 8, 4),
    "stft_fft_len": lambda tf: tf.signal.stft(tf.constant(X, tf.float32), 6, 3, fft_length=16, pad_end=True),
    "inverse_stft": lambda tf: tf.signal.inverse_stft(
        tf.signal.stft(tf.constant(np.tile(X, 2), tf.float32), 8, 2), 8, 2,
        window_fn=tf.signal.inverse_stft_window_fn(2)),
    "inverse_stft_window": lambda tf: tf.signal.inverse_stft_window_fn(3)(8, tf.float32),
    "dct2": lambda tf: tf.signal.dct(tf.constant(M, tf.float32)),
    "dct2_ortho": lambda tf: tf.signal.dct(tf.constant(M, tf.float64), norm="ortho"),
    "dct1": lambda tf: tf.signal.dct(tf.constant(M, tf.float32), type=1),
    "dct3": lambda tf: tf.signal.dct(tf.constant(M, tf.float32), type=3),
    "dct3_ortho": lambda tf: tf.signal.dct(tf.constant(M, tf.float32), type=3, norm="ortho"),
    "dct4": lambda tf: tf.signal.dct(tf.constant(M, tf.float32), type=4),
    "dct4_ortho": lambda tf: tf.signal.dct(tf.constant(M, tf.float64), type=4, norm="ortho"),
    "dct_n": lambda tf: tf.signal.dct(tf.constant(M, tf.float32), n=6),
    "idct2": lambda tf: tf.signal.idct(tf.constant(M, tf.float32)),
    "idct1": lambda tf: tf.signal.idct(tf.constant(M, tf.float32), type=1),
    "idct2_ortho": lambda tf: tf.signal.idct(tf.constant(M, tf.float32), norm="ortho"),
    "mdct": lambda tf: tf.signal.mdct(tf.constant(np.tile(X, 2), tf.float32), 8),
    "inverse_mdct": lambda tf: tf.signal.inverse_mdct(tf.signal.mdct(tf.constant(np.tile(X, 2), tf.float32), 8)),
    "mdct_ortho": lambda tf: tf.signal.mdct(tf.constant(X, tf.float32), 8, norm="ortho"),
    "mel_matrix": lambda tf: tf.signal.linear_to_mel_weight_matrix(6, 17, 8000, 100.0, 3000.0),
    "mel_matrix_default": lambda tf: tf.signal.linear_to_mel_weight_matrix()[::16],
    "mfccs": lambda tf: tf.signal.mfccs_from_log_mel_spectrograms(tf.constant(M, tf.float32)),
    "grad_rfft_abs": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(tf.abs(tf.signal.rfft(v))), X.astype(np.float32)),
    "grad_rfft_weighted": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(
        tf.math.real(tf.signal.rfft(v, [20]) * tf.constant(np.resize(C, 11), tf.complex64))), X.astype(np.float32)),
    "grad_irfft": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(
        tf.signal.irfft(tf.complex(v, v * 0.5)) * tf.constant(np.arange(8.0), tf.float32)),
        np.arange(1.0, 6.0, dtype=np.float32)),
    "grad_fft": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(tf.abs(tf.signal.fft(tf.complex(v, v * v)))),
                                 X[:8].astype(np.float32)),
    "grad_ifft2d": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(tf.math.imag(tf.signal.ifft2d(
        tf.complex(v, 1.0 - v))) * tf.constant(M, tf.float32)), M.astype(np.float32) / 10),
    "grad_stft": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(tf.abs(tf.signal.stft(v, 8, 4))),
                                  np.tile(X, 2).astype(np.float32)),
    "grad_rfft2d": lambda tf: _grad(tf, lambda tf, v: tf.reduce_sum(tf.abs(tf.signal.rfft2d(v)) ** 2),
                                    M.astype(np.float32)),
}
