"""CRC-32C (Castagnoli), as TFRecord framing uses it.

The ``google-crc32c`` package (a declared dependency; hardware CRC instructions, ~3 GB/s) computes it when its
C extension is available.  Otherwise the checksum is computed in NumPy with tables:

* short inputs: pure-Python slicing-by-8 (eight 256-entry tables, one step per 8 bytes);
* many or long inputs (:func:`crc32c_many`): every record is cut into 64-byte chunks (the first one
  zero-padded at the front, which leaves an initial-value-0 CRC unchanged), all chunks advance together
  8 bytes per step through 16-bit tables (a few NumPy calls per step over all chunks at once), and the
  chunk CRCs of each record are folded pairwise in a tree, ``crc(A + B) = shift(crc(A), len(B)) ^ crc(B)``,
  where ``shift`` by ``2**k`` bytes is a linear map on 32 bits applied with four byte tables.  The initial
  value 0xFFFFFFFF and final xor only add ``crc32c(b"\\0" * length)``, which depends on the length alone.

The CRC is linear over GF(2), which is all the above relies on.
"""

from __future__ import annotations

import struct

import numpy as np

POLY = 0x82F63B78  # CRC-32C, reflected
MASK_DELTA = 0xA282EAD8
CHUNK = 128  # bytes per lane in the vectorised path
_BLOCK = 1 << 20  # bytes of lanes advanced together
_SMALL = 2048  # below this many bytes in total, pure Python is faster than NumPy's per-call overhead

_state: dict = {}
_native_state: dict = {}


def _byte_tables() -> np.ndarray:
    """``T[k][b]``: the CRC register after byte ``b`` followed by ``k`` zero bytes (initial value 0)."""
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(POLY), t >> 1).astype(np.uint32)
    tables = [t]
    for _ in range(7):
        p = tables[-1]
        tables.append((p >> 8) ^ t[p & 0xFF])
    return np.stack(tables)


def _tables():
    s = _state
    if not s:
        t = _byte_tables()
        v = np.arange(65536, dtype=np.uint32)
        # U[k][v]: two bytes v (low byte first) followed by 2k zero bytes; one 8-byte step is
        # U[3][lo16(x)] ^ U[2][hi16(x)] ^ U[1][lo16(y)] ^ U[0][hi16(y)] with x = crc ^ word0, y = word1.
        s["u"] = [(t[2 * k + 1][v & 0xFF] ^ t[2 * k][v >> 8]).astype(np.uint32) for k in range(4)]
        s["py"] = [row.tolist() for row in t]
        s["shift"] = {}
    return s


def _shift_table(k: int) -> np.ndarray:
    """Byte tables (flattened ``[4 * 256]``) of the linear map "append ``2**k`` zero bytes" on the register."""
    s = _tables()
    cache = s["shift"]
    if k not in cache:
        if k == 0:
            t0 = np.asarray(s["py"][0], np.uint32)
            cols = np.array([1 << i for i in range(32)], np.uint32)
            cols = t0[cols & 0xFF] ^ (cols >> 8)  # one zero byte applied to each basis vector
        else:
            prev = _shift_table(k - 1)
            basis = np.array([1 << i for i in range(32)], np.uint32)
            cols = _apply(prev, _apply(prev, basis))
        # byte tables from the 32 columns: table[m][b] = xor of columns 8m+i over the set bits i of b
        b = np.arange(256, dtype=np.uint32)
        tab = np.zeros((4, 256), np.uint32)
        for m in range(4):
            for i in range(8):
                tab[m] ^= np.where((b >> i) & 1, cols[8 * m + i], np.uint32(0)).astype(np.uint32)
        cache[k] = tab.reshape(-1)
    return cache[k]


_OFFS = np.array([0, 256, 512, 768], np.intp)


def _apply(tab: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Apply a shift map (from :func:`_shift_table`) to a uint32 array."""
    idx = np.ascontiguousarray(v, np.uint32).view(np.uint8).reshape(-1, 4).astype(np.intp)
    if np.little_endian is False:  # pragma: no cover - the byte view is little-endian everywhere tensorlet runs
        idx = idx[:, ::-1]
    idx += _OFFS
    r = tab[idx]
    return r[:, 0] ^ r[:, 1] ^ r[:, 2] ^ r[:, 3]


def _shift(v: np.ndarray, nbytes: np.ndarray) -> np.ndarray:
    """Append ``nbytes[i]`` zero bytes to registers ``v[i]`` (binary decomposition of the lengths)."""
    nbytes = np.asarray(nbytes, np.int64)
    top = int(nbytes.max(initial=0)).bit_length()
    for k in range(top):
        sel = (nbytes >> k) & 1
        if sel.any():
            v = np.where(sel.astype(bool), _apply(_shift_table(k), v), v)
    return v


def zeros_crc(lengths) -> np.ndarray:
    """``crc32c(b"\\0" * n)`` for every ``n`` in ``lengths``: what the initial value and final xor contribute."""
    lengths = np.asarray(lengths, np.int64)
    v = np.full(lengths.shape, 0xFFFFFFFF, np.uint32)
    return _shift(v, lengths) ^ np.uint32(0xFFFFFFFF)


# --- pure Python, for short inputs ----------------------------------------------------------------------

_WORDS = struct.Struct("<Q")


def crc32c_py(data, crc: int = 0) -> int:
    """CRC-32C of ``data`` (bytes-like), continuing from ``crc``; slicing-by-8 in pure Python."""
    t0, t1, t2, t3, t4, t5, t6, t7 = _tables()["py"]
    crc ^= 0xFFFFFFFF
    mv = memoryview(data).cast("B")
    n8 = len(mv) & ~7
    for (w,) in _WORDS.iter_unpack(mv[:n8]):
        x = crc ^ (w & 0xFFFFFFFF)
        h = w >> 32
        crc = (t7[x & 0xFF] ^ t6[(x >> 8) & 0xFF] ^ t5[(x >> 16) & 0xFF] ^ t4[x >> 24]
               ^ t3[h & 0xFF] ^ t2[(h >> 8) & 0xFF] ^ t1[(h >> 16) & 0xFF] ^ t0[h >> 24])
    for b in mv[n8:]:
        crc = t0[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# --- vectorised ------------------------------------------------------------------------------------------

def _lanes(z: np.ndarray) -> np.ndarray:
    """Register values (initial 0) of every row of ``z`` (``[n, CHUNK]`` uint8), all rows at once.

    Rows go in blocks of about 1 MiB so that a block's transposed words stay in cache."""
    u0, u1, u2, u3 = _tables()["u"]
    n = z.shape[0]
    out = np.empty(n, np.uint32)
    rows = max(1, _BLOCK // z.shape[1])
    for lo in range(0, n, rows):
        w = np.ascontiguousarray(z[lo:lo + rows].view(np.uint32).T)  # [CHUNK // 4, rows]: a step reads two rows
        k = w.shape[1]
        crc = np.zeros(k, np.uint32)
        idx = np.empty(k, np.intp)
        for j in range(0, w.shape[0], 2):
            x = crc ^ w[j] if j else w[j]
            np.bitwise_and(x, 0xFFFF, out=idx)
            crc = u3[idx]
            np.right_shift(x, 16, out=idx)
            crc ^= u2[idx]
            y = w[j + 1]
            np.bitwise_and(y, 0xFFFF, out=idx)
            crc ^= u1[idx]
            np.right_shift(y, 16, out=idx)
            crc ^= u0[idx]
        out[lo:lo + k] = crc
    return out


def _fold(v: np.ndarray, m: np.ndarray, chunk: int) -> np.ndarray:
    """Fold each record's ``m[i]`` consecutive chunk registers (each for ``chunk`` bytes, the first one
    possibly shorter) into one: pairs from the record's end, ``shift(a, len(b)) ^ b``, level by level."""
    k = chunk.bit_length() - 1  # chunk == 2**k bytes per value at level 0
    m = m.astype(np.int64)
    while m.size and m.max() > 1:
        odd = m & 1
        if odd.any():  # give odd records a zero value in front (zero registers fold to nothing)
            ends = np.cumsum(odd)
            pos = np.arange(v.size) + np.repeat(ends, m)
            p = np.zeros(v.size + int(ends[-1]), np.uint32)
            p[pos] = v
            v = p
            m = m + odd
        pairs = v.reshape(-1, 2)
        v = _apply(_shift_table(k), pairs[:, 0]) ^ pairs[:, 1]
        m >>= 1
        k += 1
    return v


def _native():
    """``google_crc32c.value`` when its C extension is installed, else None (the NumPy tables are used)."""
    fn = _native_state.get("fn", False)
    if fn is False:
        try:
            import google_crc32c

            fn = google_crc32c.value if google_crc32c.implementation == "c" else None
        except ImportError:
            fn = None
        _native_state["fn"] = fn
    return fn


def crc32c_many(buf, starts, lengths) -> np.ndarray:
    """CRC-32C of the ``len(starts)`` slices ``buf[starts[i]:starts[i] + lengths[i]]`` (uint32 array).

    ``buf`` is bytes-like.  One call should cover many records (a whole read buffer) to amortise
    NumPy's per-call cost.
    """
    native = _native()
    if native is not None:
        mv = buf if isinstance(buf, bytes) else bytes(buf)  # the C extension takes bytes (slices copy: ~10 GB/s)
        return np.array([native(mv[s:s + n]) for s, n in zip(np.asarray(starts).tolist(),
                                                              np.asarray(lengths).tolist())], np.uint32)
    return crc32c_many_numpy(buf, starts, lengths)


def crc32c_many_numpy(buf, starts, lengths) -> np.ndarray:
    """:func:`crc32c_many` with NumPy tables only."""
    src = np.frombuffer(buf, np.uint8)
    starts = np.asarray(starts, np.int64)
    lengths = np.asarray(lengths, np.int64)
    out = np.zeros(lengths.shape, np.uint32)
    nonempty = lengths > 0
    if not nonempty.any():
        return out
    st, ln = starts[nonempty], lengths[nonempty]
    # lanes of 8..128 bytes: about one lane per record for short records (little padding, no folding)
    chunk = min(CHUNK, max(8, 1 << (int(ln.mean()) - 1).bit_length()))
    m = (ln + (chunk - 1)) // chunk
    total = int(m.sum())
    z = np.zeros(total * chunk, np.uint8)
    dst = (np.cumsum(m) - m) * chunk + (m * chunk - ln)  # right-aligned: zero padding in front
    n0 = int(ln[0])
    if ln.size > 1 and (ln == n0).all() and (np.diff(st) == st[1] - st[0]).all() and st[1] - st[0] >= n0:
        # equal lengths at a fixed stride (a file of same-size records): one strided copy
        step, per = int(st[1] - st[0]), int(m[0]) * chunk
        rows = np.lib.stride_tricks.as_strided(src[int(st[0]):], (ln.size, n0), (step, 1))
        z.reshape(ln.size, per)[:, per - n0:] = rows
    else:
        for d, s, n in zip(dst.tolist(), st.tolist(), ln.tolist()):
            z[d:d + n] = src[s:s + n]
    regs = _fold(_lanes(z.reshape(total, chunk)), m, chunk)
    uniq, inv = np.unique(ln, return_inverse=True)
    out[nonempty] = regs ^ zeros_crc(uniq)[inv]
    return out


def crc32c(data) -> int:
    """CRC-32C of one bytes-like value.  ``crc32c(b"123456789") == 0xE3069283``."""
    native = _native()
    if native is not None:
        return native(data if isinstance(data, bytes) else bytes(data))
    n = len(data)
    if n < _SMALL:
        return crc32c_py(data)
    return int(crc32c_many(data, [0], [n])[0])


_EXTEND_PIECE = 1 << 20


def crc32c_extend(crc: int, data) -> int:
    """CRC-32C of ``previous data + data`` given ``crc`` of the previous data (0 to start); any buffer
    (memoryviews of NumPy arrays included) is read in 1 MiB pieces, so nothing large is copied."""
    mv = memoryview(data).cast("B")
    native = _native_extend()
    if native is None:
        if len(mv) < _SMALL:
            return crc32c_py(mv, crc)
        from functools import reduce

        # crc(A + B) from crc(A), crc(B): the register of A advanced over len(B) zero bytes, xor crc(B)
        def combine(a, b_mv):
            n = len(b_mv)
            shifted = int(_shift(np.array([a ^ 0xFFFFFFFF], np.uint32), np.array([n]))[0]) ^ 0xFFFFFFFF
            return shifted ^ crc32c(b_mv) ^ int(zeros_crc([n])[0])

        return reduce(combine, (mv[s:s + _BLOCK] for s in range(0, len(mv), _BLOCK)), crc)
    for start in range(0, len(mv), _EXTEND_PIECE):
        crc = native(crc, mv[start:start + _EXTEND_PIECE].tobytes())
    return crc


def _native_extend():
    fn = _native_state.get("extend", False)
    if fn is False:
        fn = None
        if _native() is not None:
            import google_crc32c

            fn = google_crc32c.extend
        _native_state["extend"] = fn
    return fn


def mask(crc):
    """TFRecord's masked CRC: rotate right by 15 and add a constant (scalars or uint32 arrays)."""
    if isinstance(crc, np.ndarray):
        crc = crc.astype(np.uint32)
        return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(MASK_DELTA)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """Inverse of :func:`mask`."""
    if isinstance(masked, np.ndarray):
        r = masked.astype(np.uint32) - np.uint32(MASK_DELTA)
        return (r >> np.uint32(17)) | (r << np.uint32(15))
    r = (masked - MASK_DELTA) & 0xFFFFFFFF
    return ((r >> 17) | (r << 15)) & 0xFFFFFFFF


def masked_crc32c(data) -> int:
    return mask(crc32c(data))
