"""tf.random kernels: counter-based random numbers (Philox4x32-10) as pure, stateless primitives.

Every primitive here is a pure function of its inputs -- a Philox key (uint64[1]) and
counter (uint64[2]) plus the distribution's parameters -- so NumPy and jax.numpy give
the same bits, and compiled graphs only have to thread the key/counter through.  Which
key/counter a call uses is decided elsewhere: ``random_stateless.py`` derives them from
a user seed (``tf.random.stateless_*``); ``random_gen.py`` holds the stateful API
(``tf.random.set_seed``, ``tf.random.uniform``, ``tf.random.Generator``), which only
keeps counters in Python or in a ``tf.Variable``.

Bit layout follows TF's Philox streams: a key is two 32-bit words (low word first), a
counter four; block ``i`` of a call is ``counter + i`` (a 128-bit add); float32 uniforms
take the low 23 bits of a word, float64 ones 52 bits of two words; normals are Box-Muller
on pairs of uniforms.  Every sample owns 256 blocks of counter space (what stateful
callers skip per sample), which the rejection samplers below use for their retries: try
``r`` of sample ``e`` uses block ``256 * e + r``, whatever the backend or loop structure.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import NONDIFF, defop

D = _dt
U64 = np.uint64
BLOCKS_PER_SAMPLE = 256  # counter space reserved per sample (and skipped by stateful callers)
MAX_TRIES = 256  # retries of the rejection samplers: try r of sample e uses block 256 * e + r

_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # Philox4x32 multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # Philox4x32 key schedule (Weyl) constants
_MASK = 0xFFFFFFFF
_SEED_KEY = 0x02461E29_3EC8F720  # fixed key that scrambles a user seed into a key/counter (as TF)


# --- the generator ------------------------------------------------------------------

def philox(xp, key, counter, blocks):
    """Philox4x32-10 of ``counter + blocks`` under ``key``.

    ``key``: uint64[1]; ``counter``: uint64[2] (low 64 bits first); ``blocks``: array of
    uint64 block offsets (any shape).  Returns four arrays shaped like ``blocks`` holding
    the 32-bit output words as uint64.
    """
    c = counter.astype(U64)
    blocks = blocks.astype(U64)
    lo = c[0] + blocks
    hi = c[1] + (lo < blocks).astype(U64)  # carry of the 128-bit add
    return philox_block(lo, hi, key.astype(U64)[0])


def philox_block(lo, hi, key):
    """Philox4x32-10 of the 128-bit counters ``hi:lo`` under 64-bit keys (uint64 arrays that broadcast)."""
    if isinstance(lo, np.ndarray):
        if lo.size <= _SMALL:
            return _philox_small(lo, hi, key)
    elif not isinstance(lo, np.generic):
        return _philox_traced(lo, hi, key)
    return philox_u64(lo, hi, key)


def philox_u64(lo, hi, key):
    """The rounds on uint64 words (NumPy's form)."""
    x0, x1, x2, x3 = lo & _MASK, lo >> U64(32), hi & _MASK, hi >> U64(32)
    k0, k1 = key & _MASK, key >> U64(32)
    for _ in range(10):
        p0 = x0 * _M0
        p1 = x2 * _M1
        x0, x1, x2, x3 = (p1 >> U64(32)) ^ x1 ^ k0, p1 & _MASK, (p0 >> U64(32)) ^ x3 ^ k1, p0 & _MASK
        k0 = (k0 + _W0) & _MASK
        k1 = (k1 + _W1) & _MASK
    return x0, x1, x2, x3


def _philox_traced(lo, hi, key):
    """The jax form: 32-bit words, one 64-bit product per multiply (XLA:CPU runs the all-uint64 form of the rounds
    2-6x slower, and a 16-bit-limb uint32 form slower still; benchmarks/bench_random.py)."""
    import jax.numpy as jnp

    u32 = jnp.uint32

    def split(v):
        return (v & _MASK).astype(u32), (v >> U64(32)).astype(u32)

    (x0, x1), (x2, x3), (k0, k1) = split(lo), split(hi), split(jnp.asarray(key, U64))
    for _ in range(10):
        p0 = x0.astype(U64) * U64(_M0)
        p1 = x2.astype(U64) * U64(_M1)
        x0, x1, x2, x3 = ((p1 >> U64(32)).astype(u32) ^ x1 ^ k0, p1.astype(u32),
                          (p0 >> U64(32)).astype(u32) ^ x3 ^ k1, p0.astype(u32))
        k0 = k0 + u32(_W0)
        k1 = k1 + u32(_W1)
    return x0.astype(U64), x1.astype(U64), x2.astype(U64), x3.astype(U64)


_SMALL = 8  # NumPy calls with this few blocks run on Python ints (~20x faster than 120 tiny ufunc calls)


def _philox_small(lo, hi, key):
    if np.ndim(key) == 0 and np.shape(lo) == np.shape(hi):
        shape = np.shape(lo)
        los, his = np.ravel(lo).tolist(), np.ravel(hi).tolist()
        keys = [int(key)] * len(los)
    else:
        shape = np.broadcast_shapes(np.shape(lo), np.shape(hi), np.shape(key))
        los, his, keys = (np.broadcast_to(v, shape).reshape(-1).tolist() for v in (lo, hi, key))
    n = len(los)
    words = []
    for a, b, k in zip(los, his, keys):
        x0, x1, x2, x3 = a & _MASK, a >> 32, b & _MASK, b >> 32
        k0, k1 = k & _MASK, k >> 32
        for _ in range(10):
            p0, p1 = x0 * _M0, x2 * _M1
            x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & _MASK, (p0 >> 32) ^ x3 ^ k1, p0 & _MASK
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
        words.append((x0, x1, x2, x3))
    out = np.array(words, dtype=U64).reshape(n, 4).T.reshape((4,) + shape)
    return out[0], out[1], out[2], out[3]


def _size(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _blocks(xp, key, counter, nblocks):
    """Words of blocks 0..nblocks-1 as an (nblocks, 4) uint64 array."""
    return xp.stack(philox(xp, key, counter, xp.arange(nblocks, dtype=U64)), axis=-1)


def _words(xp, key, counter, n):
    """The first ``n`` 32-bit words of the stream (four per block)."""
    return _blocks(xp, key, counter, -(-n // 4)).reshape(-1)[:n]


def _unit32(w, d):
    """Uniform [0, 1) from 32-bit words: the low mantissa bits of each word (exact)."""
    if d == np.float16:
        return ((w & 0x3FF).astype(np.float32) * np.float32(2.0 ** -10)).astype(d)
    if _dt.is_bfloat16_np(d):
        return ((w & 0x7F).astype(np.float32) * np.float32(2.0 ** -7)).astype(d)
    return (w & 0x7FFFFF).astype(np.float32) * np.float32(2.0 ** -23)


def _unit64(hi, lo):
    """Uniform [0, 1) float64 from two 32-bit words (52 mantissa bits, exact)."""
    return (((hi << U64(32)) | lo) & (2 ** 52 - 1)).astype(np.float64) * 2.0 ** -52


def _open01(w):
    """Uniform (0, 1) float64 from one 32-bit word (never 0 or 1: safe under log)."""
    return (w.astype(np.float64) + 0.5) * 2.0 ** -32


def _box_muller(xp, u1, u2, ft):
    u1 = xp.maximum(u1, ft(1e-7))
    r = xp.sqrt(ft(-2.0) * xp.log(u1))
    th = ft(2.0 * math.pi) * u2
    return xp.stack([r * xp.sin(th), r * xp.cos(th)], axis=-1)


def _block_normals(xp, w, d):
    """Standard normals from blocks of words ``w`` (..., 4): four per block, two for float64."""
    if d == np.float64:
        u = _unit64(w[..., 0::2], w[..., 1::2])  # (..., 2)
        return _box_muller(xp, u[..., 0], u[..., 1], np.float64)
    u = _unit32(w, np.float32)
    z = _box_muller(xp, u[..., 0::2], u[..., 1::2], np.float32)  # (..., pair, sin/cos)
    return z.reshape(w.shape)


# --- backends for loops and special functions (the one place NumPy and jax differ) ----

class _NumpyBackend:
    @staticmethod
    def loop(cond, body, state):
        while cond(state):
            state = body(state)
        return state

    @staticmethod
    def lgamma(x):
        from scipy.special import gammaln

        return gammaln(x)

    @staticmethod
    def ndtr(x):
        from scipy.special import ndtr

        return ndtr(x)

    @staticmethod
    def ndtri(x):
        from scipy.special import ndtri

        return ndtri(x)


class _JaxBackend:
    @staticmethod
    def loop(cond, body, state):
        from jax import lax

        return lax.while_loop(cond, body, state)

    @staticmethod
    def lgamma(x):
        from jax import lax

        return lax.lgamma(x)

    @staticmethod
    def ndtr(x):
        from jax.scipy.special import ndtr

        return ndtr(x)

    @staticmethod
    def ndtri(x):
        from jax.scipy.special import ndtri

        return ndtri(x)


def _jit(kernel, static=("shape", "dtype")):
    """A lowering that runs ``kernel`` as one ``jax.jit`` computation (attrs static).

    Inside a compiled graph the inner jit is simply inlined; run op by op (the test
    interpreter, eager jax arrays) it avoids a hundred tiny dispatches per Philox call.
    """
    jitted = []

    def lowering(xp, *arrays, **attrs):
        if not jitted:
            import jax

            jitted.append(jax.jit(lambda *a, **k: kernel(xp, *a, **k), static_argnames=static))
        return jitted[0](*arrays, **attrs)

    return lowering


def _both(kernel, static=("shape", "dtype")):
    """(impl, jax_impl) for a kernel written as ``kernel(backend, xp, *arrays, **attrs)``."""
    return (lambda xp, *a, **k: kernel(_NumpyBackend, xp, *a, **k),
            _jit(lambda xp, *a, **k: kernel(_JaxBackend, xp, *a, **k), static))


def _retry(be, xp, n, body, state, max_tries=MAX_TRIES):
    """Run ``body(tries, state) -> state`` until every sample is done (``state[0]``) or ``max_tries``."""
    def cond(st):
        return (st[0] < max_tries) & xp.any(~st[1][0])

    def step(st):
        return st[0] + 1, body(st[0], st[1])

    return be.loop(cond, step, (xp.asarray(0, dtype=U64), state))[1]


def _try_uniforms(xp, key, counter, n, tries):
    """Four (0, 1) uniforms per sample for retry ``tries``: block 256 * sample + tries."""
    blocks = xp.arange(n, dtype=U64) * U64(BLOCKS_PER_SAMPLE) + tries.astype(U64)
    return [_open01(w) for w in philox(xp, key, counter, blocks)]


def _params(xp, x, shape):
    return xp.broadcast_to(x.astype(np.float64), shape).reshape(-1)


# --- seeds and generator state -------------------------------------------------------

def _key_counter_kernel(xp, seed):
    s = seed.astype(np.int64).astype(U64)
    key = xp.asarray([_SEED_KEY], dtype=U64)
    x0, x1, x2, x3 = philox(xp, key, s, xp.zeros((1,), dtype=U64))
    return x0 | (x1 << U64(32)), xp.concatenate([xp.zeros((1,), dtype=U64), x2 | (x3 << U64(32))])


def _check_seed(seed):
    shape = np.shape(getattr(seed, "_v", np.zeros(2)))
    if shape != (2,):
        raise errors.invalid_argument("StatelessRandomGetKeyCounter",
                                      f"seed must have shape [2], not {errors.shape_str(shape)}")


GET_KEY_COUNTER = defop("StatelessRandomGetKeyCounter", _key_counter_kernel, jax_impl=_jit(_key_counter_kernel, ()),
                        dtypes=(D.int32, D.int64),
                        n_out=2, check=_check_seed, grad=NONDIFF, quiet=True)


def _advance_kernel(xp, state, delta):
    s = state.astype(U64)
    lo = s[0] + xp.asarray(delta % 2 ** 64, dtype=U64)
    hi = s[1] + (lo < s[0]).astype(U64)
    return s[2:3], s[0:2], xp.stack([lo, hi, s[2]]).astype(np.int64)


# A Generator's state int64[3] = [counter low, counter high, key] -> key, counter, state skipped by delta blocks.
RNG_STATE_ADVANCE = defop("RngStateAdvance", _advance_kernel, dtypes=(D.int64,), n_out=3, grad=NONDIFF, quiet=True)


# --- uniform, integers, normal, truncated normal --------------------------------------

def _uniform_kernel(xp, key, counter, shape, dtype):
    n, d = _size(shape), np.dtype(dtype)
    if d == np.float64:
        w = _words(xp, key, counter, 2 * n)
        return _unit64(w[0::2], w[1::2]).reshape(shape)
    return _unit32(_words(xp, key, counter, n), d).reshape(shape)


def _bits64(xp, key, counter, n):
    w = _words(xp, key, counter, 2 * n)
    return (w[1::2] << U64(32)) | w[0::2]


def _uniform_int_kernel(xp, key, counter, minval, maxval, shape):
    d, n = minval.dtype, _size(shape)
    lo = minval.astype(np.int64).astype(U64)
    span = maxval.astype(np.int64).astype(U64) - lo
    bits = _words(xp, key, counter, n) if d.itemsize == 4 else _bits64(xp, key, counter, n)
    return (lo + bits % span).astype(np.int64).astype(d).reshape(shape)


def _check_minmax(key, counter, minval, maxval, shape):
    op = "StatelessRandomUniformIntV2"
    for what, x in (("minval", minval), ("maxval", maxval)):
        v = getattr(x, "_v", None)
        if v is not None and np.ndim(v):
            raise errors.invalid_argument(op, f"{what} must be 0-D, got shape {errors.shape_str(np.shape(v))}")
    lo, hi = getattr(minval, "_v", None), getattr(maxval, "_v", None)
    if lo is not None and hi is not None and _size(shape) and not lo < hi:
        raise errors.invalid_argument(op, f"Need minval < maxval, got {lo} >= {hi}")


def _full_int_kernel(xp, key, counter, shape, dtype):
    n, d = _size(shape), np.dtype(dtype)
    if d.itemsize == 4:
        w = _words(xp, key, counter, n)
        if d == np.uint32:
            return w.astype(np.uint32).reshape(shape)
        w = w.astype(np.int64)
        return xp.where(w >= 2 ** 31, w - 2 ** 32, w).astype(np.int32).reshape(shape)
    return _bits64(xp, key, counter, n).astype(d).reshape(shape)


def _normal_kernel(xp, key, counter, shape, dtype):
    n, d = _size(shape), np.dtype(dtype)
    per = 2 if d == np.float64 else 4
    z = _block_normals(xp, _blocks(xp, key, counter, -(-n // per)), d)
    return z.reshape(-1)[:n].astype(d).reshape(shape)


def _trunc_layout(d):
    """(outputs per group, tries, block stride between groups) of the truncated normal (TF's layout)."""
    return (2, 8, 128) if d == np.float64 else (4, 4, 256)


def _trunc_candidates(xp, key, counter, groups, tries, d):
    per, _, stride = _trunc_layout(d)
    blocks = (groups.astype(U64) * U64(stride))[:, None] + xp.arange(tries, dtype=U64)[None, :]
    return _block_normals(xp, xp.stack(philox(xp, key, counter, blocks), axis=-1), d).reshape(-1, tries * per)


def _trunc_pick(xp, z, per):
    """The first ``per`` candidates of each row inside (-2, 2) (clipped if a row ran out: p < 1e-14)."""
    ok = xp.abs(z) < 2
    pos = xp.cumsum(ok.astype(np.int32), axis=1) - 1
    pick = (ok[:, :, None] & (pos[:, :, None] == xp.arange(per)[None, None, :])).astype(np.int8)
    return xp.clip(xp.take_along_axis(z, xp.argmax(pick, axis=1), axis=1), -2, 2)


def _truncated_normal_kernel(xp, key, counter, shape, dtype):
    """Normals within two standard deviations.

    Outputs come in groups (four, or two for float64); group g draws candidate normals from
    blocks ``stride * g + r``, r < ``tries`` (stride 256, or 128 for float64: TF's layout), and
    keeps the first ones inside (-2, 2).
    """
    n, d = _size(shape), np.dtype(dtype)
    per, tries, _ = _trunc_layout(d)
    groups = -(-n // per)
    z = _trunc_candidates(xp, key, counter, xp.arange(groups, dtype=U64), tries, d)
    return _trunc_pick(xp, z, per).reshape(-1)[:n].astype(d).reshape(shape)


def _truncated_normal_numpy(xp, key, counter, shape, dtype):
    """The same values, drawing the extra tries only for groups whose first block had a reject."""
    n, d = _size(shape), np.dtype(dtype)
    per, tries, _ = _trunc_layout(d)
    groups = -(-n // per)
    out = _trunc_candidates(np, key, counter, np.arange(groups, dtype=U64), 1, d)
    redo = np.nonzero(~np.all(np.abs(out) < 2, axis=1))[0]
    if redo.size:
        out[redo] = _trunc_pick(np, _trunc_candidates(np, key, counter, redo, tries, d), per)
    return out.reshape(-1)[:n].astype(d).reshape(shape)


_KC = (D.uint64,)
UNIFORM = defop("StatelessRandomUniformV2", _uniform_kernel, jax_impl=_jit(_uniform_kernel), dtypes=_KC,
                grad=NONDIFF, quiet=True)
UNIFORM_INT = defop("StatelessRandomUniformIntV2", _uniform_int_kernel, jax_impl=_jit(_uniform_int_kernel, ("shape",)),
                    dtypes=_KC, check=_check_minmax, grad=NONDIFF, quiet=True)
UNIFORM_FULL_INT = defop("StatelessRandomUniformFullIntV2", _full_int_kernel, jax_impl=_jit(_full_int_kernel),
                         dtypes=_KC, grad=NONDIFF, quiet=True)
NORMAL = defop("StatelessRandomNormalV2", _normal_kernel, jax_impl=_jit(_normal_kernel), dtypes=_KC, grad=NONDIFF,
               quiet=True)
TRUNCATED_NORMAL = defop("StatelessTruncatedNormalV2", _truncated_normal_numpy,
                         jax_impl=_jit(_truncated_normal_kernel), dtypes=_KC, grad=NONDIFF, quiet=True)


# --- categorical and shuffle ------------------------------------------------------------

def _multinomial_kernel(xp, logits, key, counter, num_samples, dtype):
    """Inverse-CDF sampling: one 53-bit uniform per sample, binary search in the row's CDF."""
    b, c = logits.shape
    s = num_samples
    x = logits.astype(np.float64)
    m = xp.max(x, axis=1, keepdims=True) if b and c else xp.zeros((b, 1))
    p = xp.exp(x - xp.where(xp.isfinite(m), m, 0.0))
    cdf = xp.cumsum(p, axis=1)
    total = cdf[:, -1:] if c else xp.zeros((b, 1))
    valid = xp.isfinite(total) & (total > 0)
    rows = xp.arange(b, dtype=np.float64)[:, None]
    flat = (xp.where(valid, cdf / xp.where(valid, total, 1.0), 0.0) + rows).reshape(-1)  # increasing
    x0, x1, _, _ = philox(xp, key, counter, xp.arange(b * s, dtype=U64))
    u = (((x0 << U64(32)) | x1) >> U64(11)).astype(np.float64) * 2.0 ** -53
    idx = xp.searchsorted(flat, (u.reshape(b, s) + rows).reshape(-1), side="right").reshape(b, s)
    idx = idx - (xp.arange(b) * c)[:, None]
    return xp.where(valid, xp.minimum(idx, c - 1), c).astype(dtype)


def _check_multinomial(logits, key, counter, num_samples, dtype):
    op = "StatelessMultinomial"
    shape = np.shape(getattr(logits, "_v", np.zeros((1, 1))))
    if len(shape) != 2:
        raise errors.invalid_argument(op, f"logits should be a matrix, got shape {errors.shape_str(shape)}")
    if shape[1] == 0:
        raise errors.invalid_argument(op, "num_classes should be positive, got 0")
    if num_samples < 0:
        raise errors.invalid_argument(op, f"num_samples should be non-negative, got {num_samples}")


def _shuffle_kernel(xp, value, key, counter):
    if value.ndim == 0 or value.shape[0] < 2:
        return value
    x0, x1, _, _ = philox(xp, key, counter, xp.arange(value.shape[0], dtype=U64))
    return xp.take(value, xp.argsort((x0 << U64(32)) | x1, stable=True), axis=0)


# Inputs (logits, key, counter): TF's StatelessMultinomial takes a seed; here the seed is already a key/counter.
MULTINOMIAL = defop("StatelessMultinomial", _multinomial_kernel,
                    jax_impl=_jit(_multinomial_kernel, ("num_samples", "dtype")), dtypes=D.FLOATS,
                    check=_check_multinomial, grad=NONDIFF, quiet=True)
SHUFFLE = defop("StatelessShuffle", _shuffle_kernel, jax_impl=_jit(_shuffle_kernel, ()), grad=NONDIFF)


# --- gamma, Poisson, binomial: rejection samplers with bounded retries ------------------

def _gamma_kernel(be, xp, alpha, key, counter, shape):
    """Marsaglia-Tsang; alpha < 1 boosted to alpha + 1 and scaled by U**(1/alpha)."""
    d = alpha.dtype
    a = _params(xp, alpha, shape)
    n = a.shape[0]
    boost = a < 1
    dd = xp.where(boost, a + 1, a) - 1.0 / 3.0
    c = 1.0 / xp.sqrt(9.0 * dd)
    valid = a >= 0  # False for nan

    def body(tries, st):
        done, x = st
        u1, u2, ua, ub = _try_uniforms(xp, key, counter, n, tries)
        z = xp.sqrt(-2.0 * xp.log(u1)) * xp.cos(2.0 * math.pi * u2)
        v = (1.0 + c * z) ** 3
        pos = v > 0
        v = xp.where(pos, v, 1.0)
        ok = pos & (xp.log(ua) < 0.5 * z * z + dd - dd * v + dd * xp.log(v))
        y = xp.where(boost, dd * v * ub ** (1.0 / a), dd * v)
        return done | ok, xp.where(ok & ~done, y, x)

    _, x = _retry(be, xp, n, body, (~valid, xp.full((n,), np.nan)))
    x = xp.where(valid, x, np.nan).astype(d)
    return xp.maximum(x, np.finfo(d).tiny).reshape(shape)


def _first_hits(xp, hit, counts_before):
    """For rows of per-try flags ``hit`` (tries, n): whether any hit and the count at the first one."""
    any_hit = xp.any(hit, axis=0)
    return any_hit, counts_before + xp.argmax(hit.astype(np.int8), axis=0)


def _poisson_kernel(be, xp, lam, key, counter, shape, dtype):
    """Knuth's product method for lam < 10, Hormann's PTRS transformed rejection above."""
    lam = _params(xp, lam, shape)
    n = lam.shape[0]
    small = lam < 10
    big = xp.where(small, 10.0, lam)
    slam, loglam = xp.sqrt(big), xp.log(big)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = xp.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)

    def body(tries, st):
        done, res, logprod, k = st
        us = xp.stack(_try_uniforms(xp, key, counter, n, tries))  # (4, n)
        # Knuth: multiply uniforms until the product drops below exp(-lam); four factors per try
        lp = logprod + xp.cumsum(xp.log(us), axis=0)
        act = ~done & small
        hit, count = _first_hits(xp, lp < -lam, k)
        res = xp.where(act & hit, count, res)
        k, logprod = xp.where(act, k + 4, k), xp.where(act, lp[3], logprod)
        done = done | (act & hit)
        # PTRS: two attempts per try, from uniform pairs (us[0], us[1]) and (us[2], us[3])
        u, v = us[0::2] - 0.5, us[1::2]
        us_ = 0.5 - xp.abs(u)
        kk = xp.floor((2 * a / us_ + b) * u + big + 0.43)
        fast = (us_ >= 0.07) & (v <= vr)
        reject = (kk < 0) | ((us_ < 0.013) & (v > us_))
        lhs = xp.log(v) + log_inv_alpha - xp.log(a / (us_ * us_) + b)
        acc = fast | (~reject & (lhs <= -big + kk * loglam - be.lgamma(xp.maximum(kk, 0.0) + 1)))
        act = ~done & ~small & (acc[0] | acc[1])
        res = xp.where(act, xp.where(acc[0], kk[0], kk[1]), res)
        return done | act, res, logprod, k

    zeros = xp.zeros((n,))
    _, res, _, _ = _retry(be, xp, n, body, (~(lam > 0), zeros, zeros, zeros))
    return res.astype(dtype).reshape(shape)


def _binomial_kernel(be, xp, counts, probs, key, counter, shape, dtype):
    """Inversion (geometric waiting times) for n*min(p, 1-p) < 10, Hormann's BTRS above."""
    nn = _params(xp, counts, shape)
    p = xp.clip(_params(xp, probs, shape), 0.0, 1.0)
    n = nn.shape[0]
    flip = p > 0.5
    q = xp.where(flip, 1 - p, p)
    small = nn * q < 10
    log1mq = xp.log1p(-q)
    qs, ns = xp.where(small, 0.5, q), xp.where(small, 100.0, nn)  # safe BTRS parameters for small cases
    m = xp.floor((ns + 1) * qs)
    spq = xp.sqrt(ns * qs * (1 - qs))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * qs
    c = ns * qs + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    log_r = xp.log(qs / (1 - qs))
    h = be.lgamma(m + 1) + be.lgamma(ns - m + 1)

    def body(tries, st):
        done, res, total, k = st
        us = xp.stack(_try_uniforms(xp, key, counter, n, tries))  # (4, n)
        # inversion: add geometric waiting times until they pass n; four per try
        tot = total + xp.cumsum(xp.floor(xp.log(us) / log1mq) + 1, axis=0)
        act = ~done & small
        hit, count = _first_hits(xp, tot > nn, k)
        res = xp.where(act & hit, count, res)
        k, total = xp.where(act, k + 4, k), xp.where(act, tot[3], total)
        done = done | (act & hit)
        # BTRS: two attempts per try, from uniform pairs (us[0], us[1]) and (us[2], us[3])
        u, v = us[0::2] - 0.5, us[1::2]
        us_ = 0.5 - xp.abs(u)
        kk = xp.floor((2 * a / us_ + b) * u + c)
        fast = (us_ >= 0.07) & (v <= vr)
        kc = xp.clip(kk, 0, ns)
        lhs = xp.log(v * alpha / (a / (us_ * us_) + b))
        rhs = h - be.lgamma(kc + 1) - be.lgamma(ns - kc + 1) + (kc - m) * log_r
        acc = fast | ((kk >= 0) & (kk <= ns) & (lhs <= rhs))
        act = ~done & ~small & (acc[0] | acc[1])
        res = xp.where(act, xp.where(acc[0], kk[0], kk[1]), res)
        return done | act, res, total, k

    zeros = xp.zeros((n,))
    _, res, _, _ = _retry(be, xp, n, body, (~(nn >= 0), zeros, zeros, zeros))
    res = xp.where(flip, nn - res, res)
    return res.astype(dtype).reshape(shape)


def _ptn_kernel(be, xp, means, stddevs, minvals, maxvals, key, counter, shape):
    """Truncated normal on [minval, maxval] by inverting the normal CDF (in float64)."""
    d = means.dtype
    mu, sd = _params(xp, means, shape), _params(xp, stddevs, shape)
    lo = (_params(xp, minvals, shape) - mu) / sd
    hi = (_params(xp, maxvals, shape) - mu) / sd
    flip = lo > 0  # sample the mirrored interval so both CDF values stay far from 1
    a, b = xp.where(flip, -hi, lo), xp.where(flip, -lo, hi)
    pa, pb = be.ndtr(a), be.ndtr(b)
    x0, x1, _, _ = philox(xp, key, counter, xp.arange(mu.shape[0], dtype=U64) * U64(BLOCKS_PER_SAMPLE))
    u = ((((x0 << U64(32)) | x1) >> U64(11)).astype(np.float64) + 0.5) * 2.0 ** -53
    x = xp.clip(be.ndtri(pa + u * (pb - pa)), a, b)
    return (mu + sd * xp.where(flip, -x, x)).astype(d).reshape(shape)


def _check_ptn(means, stddevs, minvals, maxvals, key, counter, shape):
    lo, hi = getattr(minvals, "_v", None), getattr(maxvals, "_v", None)
    if lo is not None and hi is not None and np.any(np.broadcast_to(lo, shape) > np.broadcast_to(hi, shape)):
        raise errors.invalid_argument("StatelessParameterizedTruncatedNormal", "Invalid parameters")


_g, _gj = _both(_gamma_kernel, ("shape",))
GAMMA = defop("StatelessRandomGammaV3", _g, jax_impl=_gj, dtypes=(D.float16, D.float32, D.float64), grad=NONDIFF,
              quiet=True)
_p, _pj = _both(_poisson_kernel)
POISSON = defop("StatelessRandomPoisson", _p, jax_impl=_pj,
                dtypes=(D.float16, D.float32, D.float64, D.int32, D.int64), grad=NONDIFF, quiet=True)
_b, _bj = _both(_binomial_kernel)
BINOMIAL = defop("StatelessRandomBinomial", _b, jax_impl=_bj,
                 dtypes=(D.float16, D.float32, D.float64, D.int32, D.int64), grad=NONDIFF, quiet=True)
_t, _tj = _both(_ptn_kernel, ("shape",))
PARAMETERIZED_TRUNCATED_NORMAL = defop("StatelessParameterizedTruncatedNormal", _t, jax_impl=_tj,
                                       dtypes=(D.float16, D.float32, D.float64), check=_check_ptn, grad=NONDIFF,
                                       quiet=True)

# --- index shuffle: a keyed bijection of [0, max_index] ---------------------------------------

_INDEX_SEED_PAD = 498247692  # what TF prepends to a [2] seed to make the [3] seed of RandomIndexShuffle


def _bit_length(xp, m):
    """Bits needed for each uint64 in ``m`` (0 for 0), by binary search on shifts."""
    p = xp.zeros(m.shape, dtype=U64)
    for k in (32, 16, 8, 4, 2, 1):
        step = (m >> (p + U64(k))) > 0
        p = xp.where(step, p + U64(k), p)
    return xp.where(m > 0, p + 1, 0).astype(U64)


def _index_shuffle_kernel(be, xp, index, seed, max_index, rounds):
    """A Feistel network on the smallest even bit width holding max_index, with cycle walking.

    Round r of element x maps its right half R to a Philox word of (counter [R + r << 32, seed2],
    key seed0 | seed1 << 32); values past max_index are encrypted again until they fall inside.
    """
    d = index.dtype
    s = seed.astype(np.int64).astype(U64)
    x = index.astype(np.int64).astype(U64) if d.kind == "i" else index.astype(U64)
    m = max_index.astype(np.int64).astype(U64) if d.kind == "i" else max_index.astype(U64)
    shape = np.broadcast_shapes(x.shape, m.shape, s.shape[:-1])
    x, m = xp.broadcast_to(x, shape), xp.broadcast_to(m, shape)
    key = xp.broadcast_to((s[..., 0] & _MASK) | (s[..., 1] << U64(32)), shape)
    c2 = xp.broadcast_to(s[..., 2], shape)
    bits = xp.maximum(_bit_length(xp, m), U64(2))
    half = (bits + (bits & U64(1))) >> U64(1)
    low = (U64(1) << half) - U64(1)

    def encrypt(v):
        left, right = v >> half, v & low
        for r in range(rounds):
            f = philox_block(right + (U64(r) << U64(32)), c2, key)[0]
            left, right = right, left ^ (f & low)
        return (left << half) | right

    valid = x <= m

    def body(tries, st):
        done, y = st
        y = xp.where(done, y, encrypt(y))
        return done | (y <= m), y

    _, y = _retry(be, xp, None, body, (~valid, x), max_tries=4096)
    return xp.where(valid, y, x).astype(d)


def _check_index_shuffle(index, seed, max_index, rounds):
    op = "RandomIndexShuffle"
    ishape = np.shape(getattr(index, "_v", 0))
    sshape = np.shape(getattr(seed, "_v", np.zeros(3)))
    if len(ishape) > 1:
        raise errors.invalid_argument(op, "Index must be a scalar or vector.")
    n = ishape[0] if ishape else 1
    if sshape not in ((3,), (n, 3)):
        raise errors.invalid_argument(op, f"Seed must be a vector of size [3] or a matrix of size [{n}, 3] but got "
                                          f"{errors.shape_str(sshape)}.")


_i, _ij = _both(_index_shuffle_kernel, ("rounds",))
INDEX_SHUFFLE = defop("RandomIndexShuffle", _i, jax_impl=_ij, dtypes=(D.int32, D.uint32, D.int64, D.uint64),
                      check=_check_index_shuffle, grad=NONDIFF, quiet=True)
