"""``tf.audio.decode_wav`` / ``encode_wav``: 16-bit PCM WAV files, byte-identical to TF's writer.

The reader walks the RIFF chunks with explicit bounds checks (a truncated or malformed file raises
``InvalidArgumentError``, never reads past the buffer); samples become float32 in [-1, 1) (int16 / 32768).
"""

from __future__ import annotations

import struct
from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.ops.shapes import Spec

DecodeWav = namedtuple("DecodeWav", ["audio", "sample_rate"])


def _bad(msg):
    return errors.invalid_argument("DecodeWav", msg)


def _parse(data: bytes):
    if len(data) < 12:
        raise _bad(f"Data too short when trying to read RIFF header: {len(data)} bytes")
    if data[0:4] != b"RIFF":
        raise _bad(f"Header mismatch: Expected RIFF but found {data[0:4]!r}")
    if data[8:12] != b"WAVE":
        raise _bad(f"Header mismatch: Expected WAVE but found {data[8:12]!r}")
    pos, fmt, samples = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = pos + 8
        if body + size > len(data):
            raise _bad(f"Chunk {cid!r} of {size} bytes runs past the end of the file ({len(data)} bytes)")
        if cid == b"fmt ":
            if size < 16:
                raise _bad(f"Bad fmt chunk size: {size}")
            fmt = struct.unpack("<HHIIHH", data[body:body + 16])
        elif cid == b"data":
            if fmt is None:
                raise _bad("The fmt chunk must come before the data chunk")
            samples = data[body:body + size]
        pos = body + size + (size & 1)
    if fmt is None or samples is None:
        raise _bad("WAV file has no fmt or no data chunk")
    audio_format, channels, rate, _, block_align, bits = fmt
    if audio_format != 1:
        raise _bad(f"Bad audio format {audio_format}. Expected 1 (PCM)")
    if bits != 16:
        raise _bad(f"Can only read 16-bit WAV files, but received {bits}")
    if channels < 1:
        raise _bad("Bad number of channels: 0")
    n = len(samples) // (2 * channels)
    pcm = np.frombuffer(samples[:n * 2 * channels], "<i2").reshape(n, channels)
    return pcm.astype(np.float32) / 32768.0, rate


def _decode_kernel(xp, contents, desired_channels=-1, desired_samples=-1):
    audio, rate = _parse(np.asarray(contents).item())
    if desired_channels > 0 and desired_channels != audio.shape[1]:
        if audio.shape[1] == 1:
            audio = np.repeat(audio, desired_channels, axis=1)
        elif desired_channels < audio.shape[1]:
            audio = audio[:, :desired_channels]
        else:
            raise _bad(f"Can't expand {audio.shape[1]} channels to {desired_channels}")
    if desired_samples >= 0:
        if desired_samples <= audio.shape[0]:
            audio = audio[:desired_samples]
        else:
            audio = np.concatenate([audio, np.zeros((desired_samples - audio.shape[0], audio.shape[1]),
                                                    np.float32)])
    return np.ascontiguousarray(audio), np.int32(rate)


def _decode_shape(contents, desired_channels=-1, desired_samples=-1):
    return (Spec(TensorShape([desired_samples if desired_samples >= 0 else None,
                              desired_channels if desired_channels > 0 else None]), D.float32),
            Spec(TensorShape([]), D.int32))


DECODE_WAV = io_op("DecodeWav", _decode_kernel, n_out=2, shape=_decode_shape)


@tf_export("audio.decode_wav")
def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """``(audio [samples, channels] float32 in [-1, 1), sample_rate int32)`` of a 16-bit PCM WAV file; optionally
    padded/cut to ``desired_samples`` and mixed to ``desired_channels``.

    >>> w = tf.audio.encode_wav([[0.5], [-0.25]], 8000)
    >>> tf.audio.decode_wav(w).audio.numpy().ravel().tolist()
    [0.5, -0.25]
    """
    return DecodeWav(*bind(DECODE_WAV, strings(contents), desired_channels=int(desired_channels),
                           desired_samples=int(desired_samples)))


def _encode_kernel(xp, audio, sample_rate):
    a = np.asarray(audio, np.float32)
    if a.ndim != 2:
        raise errors.invalid_argument("EncodeWav", f"audio must be 2-dimensional, got shape {list(a.shape)}")
    rate = int(np.asarray(sample_rate))
    if not 0 <= rate < 2 ** 31:
        raise errors.invalid_argument("EncodeWav", f"sample_rate must be in [0, 2^31), got {rate}")
    n, ch = a.shape
    pcm = np.clip(np.round(a * 32768.0), -32768, 32767).astype("<i2")
    data = pcm.tobytes()
    header = (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE" + b"fmt " +
              struct.pack("<IHHIIHH", 16, 1, ch, rate, rate * ch * 2, ch * 2, 16) + b"data" +
              struct.pack("<I", len(data)))
    return np.array(header + data, dtype=object)


ENCODE_WAV = io_op("EncodeWav", _encode_kernel, shape=lambda audio, rate: Spec(TensorShape([]), D.string))


@tf_export("audio.encode_wav")
def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV file (scalar string) of ``audio`` ``[samples, channels]`` float32 in [-1, 1].

    >>> len(tf.audio.encode_wav(tf.zeros([4, 2]), 16000).numpy())
    60
    """
    return bind(ENCODE_WAV, convert_to_tensor(audio, dtype=D.float32), convert_to_tensor(sample_rate,
                                                                                        dtype=D.int32))
