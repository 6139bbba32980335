"""TF.js weight files, shared by the Layers and Graph-model exports: binary shards + the ``weightsManifest``.

Weights are concatenated in order and cut into shards of ``shard_size`` bytes, named ``group1-shardKofN.bin``.
Float32 weights can be stored quantized as tfjs-converter stores them: ``float16``, or affine ``uint8`` /
``uint16`` (``value = q * scale + min`` with 0.0 exactly representable); the manifest entry then carries the
``quantization`` record TF.js dequantizes by.  Like tfjs-converter, int64 values are written as int32 and float64
as float32 (TF.js has neither).
"""

from __future__ import annotations

import fnmatch
import os
import tempfile

import numpy as np

DEFAULT_SHARD = 4 * 1024 * 1024
VERSION = "tensorlet 0.1.0"
_QUANT = ("float16", "uint8", "uint16")


def quantization_map(quantization_dtype_map):
    """Checks ``{"float16"|"uint8"|"uint16": True | [name wildcards]}``; returns it normalized."""
    out = {}
    for k, v in (quantization_dtype_map or {}).items():
        if k not in _QUANT:
            raise ValueError(f"Unsupported quantization dtype {k!r}: use 'float16', 'uint8' or 'uint16'.")
        out[k] = True if v is True or v in ("*", ["*"]) else list(v)
    if len(out) > 1 and any(v is True for v in out.values()):
        raise ValueError("Only one quantization dtype may apply to all weights; give name patterns for the others.")
    return out


def shard_size(weight_shard_size_bytes):
    if weight_shard_size_bytes is None or isinstance(weight_shard_size_bytes, bool) or \
            int(weight_shard_size_bytes) <= 0:
        raise ValueError(f"weight_shard_size_bytes must be a positive integer; got {weight_shard_size_bytes!r}.")
    return int(weight_shard_size_bytes)


def _matches(name, patterns):
    if patterns is True:
        return True
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def _affine(w, bits):
    qmax = 2 ** bits - 1
    if not w.size:
        return np.zeros(w.shape, np.uint8 if bits == 8 else np.uint16), 1.0, 0.0
    lo, hi = float(min(w.min(), 0.0)), float(max(w.max(), 0.0))
    if hi == lo:
        return np.zeros(w.shape, np.uint8 if bits == 8 else np.uint16), 1.0, lo
    scale = (hi - lo) / qmax
    zero = round(-lo / scale)  # nudge the range so that 0.0 maps to an integer
    lo = -zero * scale
    q = np.clip(np.round((w - lo) / scale), 0, qmax).astype(np.uint8 if bits == 8 else np.uint16)
    return q, scale, lo


def dtype_name(dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return "float32"
    if dt == np.bool_:
        return "bool"
    if dt.kind in "iu":
        return "int32"
    raise ValueError(f"TF.js weights cannot hold dtype {dt}.")


def encode(name, w, quantize):
    """(manifest entry, little-endian bytes) of one weight."""
    w = np.asarray(w)
    spec = {"name": name, "shape": [int(d) for d in w.shape], "dtype": dtype_name(w.dtype)}
    mode = None
    if spec["dtype"] == "float32":
        for m, pats in quantize.items():
            if pats and _matches(name, pats):
                mode = m
                break
    if mode == "float16":
        spec["quantization"] = {"dtype": "float16", "original_dtype": "float32"}
        return spec, w.astype("<f2").tobytes()
    if mode in ("uint8", "uint16"):
        q, scale, lo = _affine(w.astype(np.float64), 8 if mode == "uint8" else 16)
        spec["quantization"] = {"dtype": mode, "scale": scale, "min": lo, "original_dtype": "float32"}
        return spec, q.astype(q.dtype.newbyteorder("<")).tobytes()
    if spec["dtype"] == "int32" and w.dtype != np.int32:
        info = np.iinfo(np.int32)
        if w.size and (w.min() < info.min or w.max() > info.max):
            raise ValueError(f"Weight {name!r} ({w.dtype}) has values outside int32, which TF.js cannot hold.")
    out = {"float32": "<f4", "int32": "<i4", "bool": "|b1"}[spec["dtype"]]
    return spec, np.ascontiguousarray(w).astype(out).tobytes()


def atomic_write(path, data: bytes):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_weights(named, artifacts_dir, quantize, shard):
    """Writes ``[(name, array)]`` as shards in ``artifacts_dir``; returns the ``weightsManifest`` list."""
    specs, blobs = [], []
    for name, w in named:
        spec, data = encode(name, w, quantize)
        specs.append(spec)
        blobs.append(data)
    blob = b"".join(blobs)
    n = max(1, -(-len(blob) // shard))
    paths = [f"group1-shard{i + 1}of{n}.bin" for i in range(n)]
    for i, p in enumerate(paths):
        atomic_write(os.path.join(artifacts_dir, p), blob[i * shard:(i + 1) * shard])
    return [{"paths": paths, "weights": specs}]
