"""tf.random: Philox streams against TF's own numbers, distributions, seed rules, Generator.

References: values recorded from real TensorFlow (tests/goldens/random.json, written by
tools/record_tf_goldens/random_ops.py) for the streams that follow TF's layout; an
independent pure-Python Philox (checked against the Random123 known-answer vectors) for
shuffle and categorical; statistical checks (moments, KS distances, chi-square) at fixed
seeds for the rejection samplers.  ``test_lowering`` and ``test_numpy_and_jax_agree`` run
the kernels on jax.numpy and demand the same bits.
"""

import json
import os

import numpy as np
import pytest
from opcheck import Case, Err, JaxEager, compiled_tests, op_tests
from scipy import special

import tensorlet as tf
from tensorlet._src.framework.context import interpreter

G = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "random.json")))
SEED = [1, 2]


def golden(name):
    """A value recorded from TF (exact integers; floats as printed with 9 or 17 digits)."""
    g = G[name]
    a = np.array(g["values"], dtype=object if g["dtype"] in ("uint64", "int64") else np.float64)
    return a.astype(tf.as_dtype(g["dtype"]).as_numpy_dtype).reshape(g["shape"])


def _seed(rng, shapes, dtype):
    return [np.array(SEED, dtype)]


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tf.random.set_seed(None)


# --- an independent Philox4x32-10 (plain Python ints) -----------------------------------

_M = 0xFFFFFFFF


def ref_philox(key, ctr):
    """Philox4x32-10 of a 128-bit counter under a 64-bit key: four 32-bit words."""
    c = [(ctr >> (32 * i)) & _M for i in range(4)]
    k = [key & _M, key >> 32]
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _M, (p0 >> 32) ^ c[3] ^ k[1], p0 & _M]
        k = [(k[0] + 0x9E3779B9) & _M, (k[1] + 0xBB67AE85) & _M]
    return c


KEY12 = int(G["key_s12"]["values"][0])
CTR12 = int(G["counter_s12"]["values"][0]) | int(G["counter_s12"]["values"][1]) << 64


def ref_words(i):
    return ref_philox(KEY12, CTR12 + i)


def ref_shuffle(x):
    if x.ndim == 0 or x.shape[0] < 2:
        return x
    keys = np.array([(w[0] << 32) | w[1] for w in map(ref_words, range(x.shape[0]))], dtype=np.uint64)
    return x[np.argsort(keys, kind="stable")]


def ref_categorical(num_samples, dtype):
    def ref(logits):
        b, c = logits.shape
        p = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
        cdf = np.cumsum(p, axis=1) / p.sum(axis=1, keepdims=True)
        out = np.zeros((b, num_samples), dtype)
        for i in range(b):
            for s in range(num_samples):
                w = ref_words(i * num_samples + s)
                u = (((w[0] << 32) | w[1]) >> 11) * 2.0 ** -53
                out[i, s] = min(np.searchsorted(cdf[i], u, side="right"), c - 1)
        return out
    return ref


def ref_index_shuffle(seed3, max_index, rounds=4):
    """Feistel network over the smallest even bit width holding max_index, with cycle walking."""
    s0, s1, s2 = (int(v) % 2 ** 64 for v in seed3)
    key = ((s0 & _M) | (s1 << 32)) % 2 ** 64
    half = (max(int(max_index).bit_length(), 2) + 1) // 2
    low = (1 << half) - 1

    def enc(v):
        left, right = v >> half, v & low
        for r in range(rounds):
            f = ref_philox(key, (s2 << 64) | (right + (r << 32)))[0]
            left, right = right, left ^ (f & low)
        return (left << half) | right

    def ref(index):
        out = []
        for i in np.asarray(index).reshape(-1).tolist():
            y = enc(i)
            while y > max_index:
                y = enc(y)
            out.append(y)
        return np.array(out, np.asarray(index).dtype).reshape(np.shape(index))
    return ref


def _moments(x, scale=1.0):
    """[mean, variance] / scale of a sample, as a float64 tensor."""
    x = x.numpy().astype(np.float64)
    return tf.constant(np.array([x.mean(), x.var()]) / np.float64(scale))


def _tn_moments(mu, sd, lo, hi):
    """Mean and variance of Normal(mu, sd) truncated to [lo, hi]."""
    a, b = (lo - mu) / sd, (hi - mu) / sd
    z = special.ndtr(b) - special.ndtr(a)
    pa, pb = np.exp(-a * a / 2) / np.sqrt(2 * np.pi), np.exp(-b * b / 2) / np.sqrt(2 * np.pi)
    m = (pa - pb) / z
    return np.array([mu + sd * m, sd * sd * (1 + (a * pa - b * pb) / z - m * m)])


S = dict(shapes=[((2,),)], dtypes=("int64", "int32"), gen=_seed)  # the seed as the only input
S1 = dict(shapes=[((2,),)], dtypes=("int64",), gen=_seed)
KC = ("StatelessRandomGetKeyCounter",)
R = tf.random


def _gen_seq(seed):
    g = R.Generator.from_seed(1)
    return g.uniform([4]), g.normal([3]), g.state.value()


def _setseed_seq(seed):
    R.set_seed(5)
    a, b = R.uniform([4], seed=1), R.uniform([4], seed=1)
    R.set_seed(5)
    out = a, b, R.uniform([4]), R.normal([3]), R.uniform([3], maxval=100, dtype=tf.int32)
    R.set_seed(None)
    return out


# The rejection samplers: one sampling call per distribution, shared by the moment cases and
# test_numpy_and_jax_agree (same shapes, so jax compiles each once).  Parameters cover every branch.
GAMMA_ALPHA = np.array([0.3, 1.0, 4.5])  # alpha < 1 takes the boosted path
GAMMA_BETA = np.array([1.0, 2.0, 0.5])
POISSON_LAM = np.array([0.7, 6.0, 40.0])  # Knuth below 10, PTRS above
BINOMIAL_N, BINOMIAL_P = np.array([8.0, 60.0, 500.0]), np.array([0.4, 0.8, 0.03])  # inversion, BTRS, inversion
PTN_LO = np.array([-3.0, 0.5, 7.0])  # sd 2 around 1: interval [lo, lo + 1], mirrored for lo > mean


def gamma_samples(alpha):
    return R.stateless_gamma([20000, 3], SEED, alpha, beta=GAMMA_BETA, dtype=alpha.dtype)


def poisson_samples(lam):
    return R.stateless_poisson([20000, 3], SEED, lam)


def binomial_samples(n, p):
    return R.stateless_binomial([20000, 3], SEED, n, p)


def ptn_samples(lo):
    return R.stateless_parameterized_truncated_normal([20000, 3], SEED, lo * 0 + 1, lo * 0 + 2, lo, lo + 1)


def _fixed(*arrays):
    return lambda rng, shapes, dtype: [a.astype(dtype) for a in arrays]


def _column_moments(x):
    x = x.numpy().astype(np.float64)
    return tf.constant(np.stack([x.mean(0), x.var(0)]))


CASES = [
    # TF's own numbers (float32 within an ulp or two: sin/cos/log differ by ulps between libms)
    Case(lambda s: R.stateless_uniform([7], s), lambda s: golden("uniform_f32_s12"),
         ops=KC + ("StatelessRandomUniformV2",), **S, id="stateless_uniform_tf_bits"),
    Case(lambda s: R.stateless_uniform([7], s), lambda s: golden("uniform_f32_s79_i32"),
         [((2,),)], ("int32", "int64"), gen=lambda rng, s, d: [np.array([7, 9], d)],
         ops=KC + ("StatelessRandomUniformV2",), id="uniform_seed79"),
    Case(lambda s: R.stateless_normal([7], s), lambda s: golden("normal_f32_sbig"),
         [((2,),)], ("int64",), gen=lambda rng, s, d: [np.array([2 ** 40 + 7, -3], d)], rtol=1e-5, atol=1e-6,
         ops=KC + ("StatelessRandomNormalV2",), id="normal_seed_big"),
    Case(lambda s: R.stateless_uniform([5], s, dtype=tf.float64), lambda s: golden("uniform_f64"),
         ops=("StatelessRandomUniformV2",), **S1, id="uniform_f64"),
    Case(lambda s: R.stateless_uniform([6], s, dtype=tf.float16), lambda s: golden("uniform_f16"),
         ops=("StatelessRandomUniformV2",), **S1, id="uniform_f16"),
    Case(lambda s: R.stateless_uniform([6], s, dtype=tf.bfloat16), lambda s: golden("uniform_bf16"),
         ops=("StatelessRandomUniformV2",), **S1, id="uniform_bf16"),
    Case(lambda s: R.stateless_normal([6], s, dtype=tf.bfloat16), lambda s: golden("normal_bf16"),
         ops=("StatelessRandomNormalV2",), **S1, id="normal_bf16"),
    Case(lambda s: R.stateless_uniform([2, 3], s, minval=-2.0, maxval=5.0), lambda s: golden("uniform_range_f32"),
         ops=("StatelessRandomUniformV2", "Mul", "AddV2"), **S1, id="uniform_range_f32"),
    Case(lambda s: R.stateless_uniform([7], s, minval=-3, maxval=10, dtype=tf.int32), lambda s: golden("uniform_i32"),
         ops=("StatelessRandomUniformIntV2",), **S, id="uniform_i32"),
    Case(lambda s: R.stateless_uniform([5], s, minval=-5, maxval=2 ** 40, dtype=tf.int64),
         lambda s: golden("uniform_i64"), ops=("StatelessRandomUniformIntV2",), **S1, id="uniform_i64"),
    Case(lambda s: R.stateless_uniform([5], s, minval=None, maxval=None, dtype=tf.int32), lambda s: golden("full_i32"),
         ops=("StatelessRandomUniformFullIntV2",), **S1, id="full_i32"),
    Case(lambda s: R.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.int64), lambda s: golden("full_i64"),
         ops=("StatelessRandomUniformFullIntV2",), **S1, id="full_i64"),
    Case(lambda s: R.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.uint32), lambda s: golden("full_u32"),
         ops=("StatelessRandomUniformFullIntV2",), **S1, id="full_u32"),
    Case(lambda s: R.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.uint64), lambda s: golden("full_u64"),
         ops=("StatelessRandomUniformFullIntV2",), **S1, id="full_u64"),
    Case(lambda s: R.split(s, 3), lambda s: golden("split3"), ops=("StatelessRandomUniformFullIntV2",),
         shapes=[((2,),)], dtypes=("int32",), gen=_seed, id="split3"),
    Case(lambda s: R.experimental.stateless_split(s), lambda s: golden("split_i64"),
         ops=("StatelessRandomUniformFullIntV2",), **S1, id="split_i64"),
    Case(lambda s: R.fold_in(s, 7), lambda s: golden("fold_in7"), ops=("StatelessRandomUniformFullIntV2",),
         shapes=[((2,),)], dtypes=("int32",), gen=_seed, id="fold_in7"),
    Case(lambda s: R.stateless_normal([7], s), lambda s: golden("normal_f32_s12"), ops=("StatelessRandomNormalV2",),
         **S, rtol=1e-5, atol=1e-6, id="normal_f32_s12"),
    Case(lambda s: R.stateless_normal([5], s, dtype=tf.float64), lambda s: golden("normal_f64"),
         ops=("StatelessRandomNormalV2",), **S1, id="normal_f64"),
    Case(lambda s: R.stateless_normal([6], s, dtype=tf.float16), lambda s: golden("normal_f16"),
         ops=("StatelessRandomNormalV2",), **S1, id="normal_f16"),
    Case(lambda s: R.stateless_normal([2, 2], s, mean=3.0, stddev=0.5), lambda s: golden("normal_scaled"),
         ops=("StatelessRandomNormalV2", "Mul", "AddV2"), **S1, id="normal_scaled"),
    Case(lambda s: R.stateless_truncated_normal([2, 5], s), lambda s: golden("truncated_f32"),
         ops=("StatelessTruncatedNormalV2",), **S, rtol=1e-5, atol=1e-6, id="truncated_f32"),
    Case(lambda s: R.stateless_truncated_normal([6], s, dtype=tf.float64), lambda s: golden("truncated_f64"),
         ops=("StatelessTruncatedNormalV2",), **S1, id="truncated_f64"),
    Case(_gen_seq, lambda s: (golden("gen_uniform4"), golden("gen_normal3"), golden("gen_state_after")),
         ops=("RngStateAdvance", "StatelessRandomUniformV2", "StatelessRandomNormalV2"), **S1,
         graph=False, id="generator_tf_bits"),  # creates a Generator (a variable) per call
    Case(_setseed_seq, lambda s: tuple(golden(n) for n in ("setseed5_opseed1_a", "setseed5_opseed1_b",
                                                          "setseed5_noop_a", "setseed5_noop_b", "setseed5_noop_c")),
         ops=("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessRandomUniformIntV2"), **S1,
         graph=False,  # the goldens are TF's eager streams; traced stateful ops draw per-call streams (as TF)
         id="set_seed_tf_bits"),
    # shapes (empty, scalar) and dtypes
    Case(lambda s: R.stateless_uniform([0, 3], s), lambda s: np.zeros((0, 3), np.float32),
         ops=("StatelessRandomUniformV2",), **S1, id="uniform_empty"),
    Case(lambda s: R.stateless_normal([], s, dtype=tf.bfloat16) * 0, lambda s: np.zeros((), tf.bfloat16.as_numpy_dtype),
         ops=("StatelessRandomNormalV2",), **S1, id="normal_scalar_bf16"),
    # independent reference model: shuffle and categorical
    Case(lambda x: R.experimental.stateless_shuffle(x, SEED), ref_shuffle,
         [((10,),), ((6, 3),), ((1, 2),), ((0,),), ((),)], ("float32", "int32"), ops=KC + ("StatelessShuffle",),
         id="stateless_shuffle"),
    Case(lambda x: R.stateless_categorical(x, 7, SEED), ref_categorical(7, np.int64), [((3, 5),), ((1, 1),), ((0, 4),)],
         ("float32", "float64"), ops=("StatelessMultinomial",), domain=(-4, 4), id="stateless_categorical"),
    Case(lambda x: R.stateless_categorical(x, 3, SEED, dtype=tf.int32), ref_categorical(3, np.int32), [((2, 4),)],
         ("float16",), ops=("StatelessMultinomial",), id="categorical_int32"),
    Case(lambda i: R.experimental.index_shuffle(i, [5, 9], 20), ref_index_shuffle([498247692, 5, 9], 20),
         [((21,),)], ("int32", "uint64"), gen=lambda rng, s, d: [np.arange(21, dtype=d)], ops=("RandomIndexShuffle",),
         id="index_shuffle"),
    Case(lambda i: tf.random_index_shuffle(i, [-1, 2 ** 40, 7], 2 ** 40 + 3, rounds=6),
         lambda i: ref_index_shuffle([-1, 2 ** 40, 7], 2 ** 40 + 3, 6)(i), [((5,),), ((),)], ("int64",),
         ops=("RandomIndexShuffle",), domain=(0, 2 ** 40), id="random_index_shuffle_big"),
    # rejection samplers: moments at a fixed seed (tolerances ~4 standard errors)
    Case(lambda a: _column_moments(gamma_samples(a)),
         lambda a: np.stack([a / GAMMA_BETA, a / GAMMA_BETA ** 2]), [((3,),)], ("float32", "float64"),
         gen=_fixed(GAMMA_ALPHA), ops=("StatelessRandomGammaV3", "RealDiv", "Maximum"), rtol=0.12,
         graph=False, id="gamma_moments"),  # moments computed with NumPy
    Case(lambda lam: _column_moments(poisson_samples(lam)), lambda lam: np.stack([lam, lam]).astype(np.float64),
         [((3,),)], ("float32",), gen=_fixed(POISSON_LAM), ops=("StatelessRandomPoisson",), rtol=0.06,
         graph=False, id="poisson_moments"),
    Case(lambda n, p: _column_moments(binomial_samples(n, p)),
         lambda n, p: np.stack([n * p, n * p * (1 - p)]).astype(np.float64), [((3,), (3,))], ("float32",),
         gen=_fixed(BINOMIAL_N, BINOMIAL_P), ops=("StatelessRandomBinomial",), rtol=0.06,
         graph=False, id="binomial_moments"),
    Case(lambda lo: _column_moments(ptn_samples(lo)), lambda lo: _tn_moments(1.0, 2.0, lo, lo + 1),
         [((3,),)], ("float32", "float64"), gen=_fixed(PTN_LO), ops=("StatelessParameterizedTruncatedNormal",),
         rtol=0.02, atol=2e-3, graph=False, id="ptn_moments"),

]


ERRORS = [
    Err(lambda: R.uniform([2], dtype=tf.int32), ValueError, "Must specify maxval for integer dtype tf.int32"),
    Err(lambda: R.uniform([2], dtype=tf.int8, maxval=3), ValueError, r"Argument `dtype` got invalid value"),
    Err(lambda: R.uniform([2], minval=3, maxval=3, dtype=tf.int32), tf.errors.InvalidArgumentError,
        "Need minval < maxval, got 3 >= 3"),
    Err(lambda: R.uniform([2], minval=[0, 1], maxval=5, dtype=tf.int32), tf.errors.InvalidArgumentError,
        r"minval must be 0-D, got shape \[2\]"),
    Err(lambda: R.uniform([-1]), tf.errors.InvalidArgumentError, "Dimension -1 must be >= 0"),
    Err(lambda: R.uniform([[2]]), tf.errors.InvalidArgumentError, r"shape must be a vector of \{int32,int64\}"),
    Err(lambda: R.uniform(3), tf.errors.InvalidArgumentError, r"got shape \[\]"),
    Err(lambda: R.uniform([2.0]), tf.errors.InvalidArgumentError, "Value for attr 'T' of float"),
    Err(lambda: R.uniform([2], maxval=tf.constant(5)), ValueError, "Tensor conversion requested dtype float32"),
    Err(lambda: R.normal([2], dtype=tf.int32), TypeError, "Cannot convert 0.0 to EagerTensor of dtype int32"),
    Err(lambda: R.normal([2], mean=tf.constant(1.0, tf.float64)), ValueError, "requested dtype float32"),
    Err(lambda: R.normal([2], stddev=tf.constant([1.0, 2.0, 3.0])), tf.errors.InvalidArgumentError,
        "Incompatible shapes"),
    Err(lambda: R.stateless_uniform([2], seed=[1, 2, 3]), tf.errors.InvalidArgumentError,
        r"seed must have shape \[2\], not \[3\]"),
    Err(lambda: R.stateless_uniform([2], seed=1), tf.errors.InvalidArgumentError, r"not \[\]"),
    Err(lambda: R.stateless_normal([2], seed=[1.0, 2.0]), tf.errors.InvalidArgumentError, "attr 'T' of float"),
    Err(lambda: R.stateless_uniform([2], SEED, maxval=None, dtype=tf.int32), ValueError,
        "must be both None or not None"),
    Err(lambda: R.stateless_uniform([2], SEED, maxval=3, dtype=tf.uint32), ValueError,
        "Please don't use unsigned integers"),
    Err(lambda: R.stateless_uniform([2], SEED, alg="foo"), ValueError, "Argument `alg` got unsupported value foo"),
    Err(lambda: R.stateless_uniform([2], SEED, alg="threefry"), tf.errors.UnimplementedError, "Philox"),
    Err(lambda: R.categorical([0.0, 1.0], 2), tf.errors.InvalidArgumentError,
        r"logits should be a matrix, got shape \[2\]"),
    Err(lambda: R.stateless_categorical([[[0.0, 1.0]]], 2, SEED), tf.errors.InvalidArgumentError,
        "logits should be a matrix"),
    Err(lambda: R.categorical([[0.0, 1.0]], -1), tf.errors.InvalidArgumentError,
        "num_samples should be non-negative, got -1"),
    Err(lambda: R.categorical(np.zeros((2, 0), np.float32), 3), tf.errors.InvalidArgumentError,
        "num_classes should be positive, got 0"),
    Err(lambda: R.categorical([[0.0, 1.0]], 2, dtype=tf.float32), ValueError,
        r"Accepted dtypes are \(tf.int32, tf.int64\)"),
    Err(lambda: R.categorical([[0, 1]], 2), tf.errors.NotFoundError, "Multinomial with logits of type int32"),
    Err(lambda: R.gamma([2], 1.0, dtype=tf.int32), TypeError, "Cannot convert 1.0"),
    Err(lambda: R.gamma([2], [1.0, 2.0], beta=[1.0, 2.0, 3.0]), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2\] vs. \[3\]"),
    Err(lambda: R.stateless_gamma([3], SEED, [2.0, 3.0]), tf.errors.InvalidArgumentError,
        "Shape passed in must end with broadcasted shape"),
    Err(lambda: R.stateless_gamma([2], SEED, tf.constant([2.0, 3.0], tf.float64)), ValueError,
        "requested dtype float32 for Tensor with dtype float64"),
    Err(lambda: R.stateless_gamma([2], SEED, 1, dtype=tf.bfloat16), tf.errors.InvalidArgumentError,
        "attr 'dtype' of bfloat16"),
    Err(lambda: R.poisson([3], 1.0, dtype=tf.bool), tf.errors.InvalidArgumentError,
        "Value for attr 'dtype' of bool is not in the list of allowed values: half, float, double, int32, int64"),
    Err(lambda: R.stateless_poisson([3], SEED, tf.constant(1, tf.int8)), tf.errors.InvalidArgumentError,
        "attr 'Rtype' of int8"),
    Err(lambda: R.stateless_poisson([3], SEED, [2.0, 3.0]), tf.errors.InvalidArgumentError,
        "must end with broadcasted shape"),
    Err(lambda: R.stateless_binomial([3], SEED, counts=[1.0, 2.0], probs=0.5), tf.errors.InvalidArgumentError,
        "must end with broadcasted shape"),
    Err(lambda: R.stateless_binomial([3], SEED, 5.0, 0.5, output_dtype=tf.int8), tf.errors.InvalidArgumentError,
        "attr 'dtype' of int8"),
    Err(lambda: R.stateless_parameterized_truncated_normal([3], SEED, minvals=2.0, maxvals=1.0),
        tf.errors.InvalidArgumentError, r"Invalid parameters \[Op:StatelessParameterizedTruncatedNormal\]"),
    Err(lambda: R.stateless_parameterized_truncated_normal([3], SEED, stddevs=0.0), tf.errors.InvalidArgumentError,
        "Invalid parameters"),
    Err(lambda: R.stateless_parameterized_truncated_normal([3], SEED, means=tf.constant(0.0, tf.float64),
                                                           stddevs=tf.constant(1.0)),
        tf.errors.InvalidArgumentError, r"input #3\(zero-based\) was expected to be a double tensor"),
    Err(lambda: R.fold_in(SEED, [3, 4]), tf.errors.InvalidArgumentError, "Shapes of all inputs must match"),
    Err(lambda: R.split([1.0, 2.0]), ValueError, "int32 or int64"),
    Err(lambda: R.experimental.index_shuffle([[1, 2]], [1, 2], 5), tf.errors.InvalidArgumentError,
        "Index must be a scalar or vector"),
    Err(lambda: tf.random_index_shuffle([1, 2], [1, 2, 3, 4], 5), tf.errors.InvalidArgumentError,
        r"Seed must be a vector of size \[3\] or a matrix of size \[2, 3\] but got \[4\]"),
    Err(lambda: R.experimental.index_shuffle(1.0, [1, 2], 5), tf.errors.InvalidArgumentError, "attr 'dtype' of float"),
    Err(lambda: R.experimental.index_shuffle(tf.constant(1, tf.int64), [1, 2], tf.constant(5)),
        tf.errors.InvalidArgumentError, "expected to be a int64 tensor but is a int32 tensor"),
    Err(lambda: R.Generator(), AssertionError, "from_seed"),
    Err(lambda: R.Generator.from_seed(1, alg="foo"), ValueError, "unsupported value foo"),
    Err(lambda: R.Generator.from_state([1, 2], alg="philox"), ValueError, r"Shapes \(2,\) and \[3\] are incompatible"),
    Err(lambda: R.Generator.from_seed(1).uniform([2], dtype=tf.int32), ValueError,
        "minval and maxval must be both `None` or both non-`None`"),
    Err(lambda: R.Generator.from_seed(1).uniform([2], maxval=3, dtype=tf.int8), tf.errors.InvalidArgumentError,
        "attr 'dtype' of int8"),
    Err(lambda: R.Generator.from_seed(1).uniform_full_int([2], dtype=tf.float32), tf.errors.InvalidArgumentError,
        "int32, int64, uint32, uint64"),
    Err(lambda: R.Generator.from_seed(1).normal([2], dtype=tf.int32), TypeError, "Cannot convert 0.0"),
    Err(lambda: R.Generator.from_key_counter([3], [4, 5], "philox"), ValueError, "incompatible"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# --- the generator itself ---------------------------------------------------------------------

def test_philox_known_answers():
    """Random123's known-answer vectors, through the kernel and through the test's reference."""
    from tensorlet._src.ops.random_ops import philox

    kat = [(0, 0, [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
           (2 ** 64 - 1, 2 ** 128 - 1, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
           (0x299F31D0A4093822, 0x0370734413198A2E85A308D3243F6A88, [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1])]
    for key, ctr, want in kat:
        assert ref_philox(key, ctr) == want
        got = philox(np, np.array([key], np.uint64), np.array([ctr & (2 ** 64 - 1), ctr >> 64], np.uint64),
                     np.zeros(1, np.uint64))
        assert [int(w[0]) for w in got] == want


def test_counter_carry_and_block_order():
    """Block i is counter + i with a 128-bit carry; words come out four per block."""
    from tensorlet._src.ops.random_ops import _words

    key, lo = 0x1234, 2 ** 64 - 2
    w = _words(np, np.array([key], np.uint64), np.array([lo, 5], np.uint64), 12)
    want = sum((ref_philox(key, (5 << 64) + lo + i) for i in range(3)), [])
    assert [int(v) for v in w] == want


# --- seed rules (TF 2) ---------------------------------------------------------------------------

def _u(**kw):
    return float(R.uniform([], **kw))


def test_no_seed_is_nondeterministic():
    R.set_seed(None)
    assert len({_u() for _ in range(4)}) == 4


def test_global_seed_sequence():
    R.set_seed(1)
    a, b = _u(), _u()
    R.set_seed(1)
    assert (a, b) == (_u(), _u()) and a != b
    R.set_seed(2)
    assert _u() != a


def test_op_seed_only_gives_new_values_and_restarts():
    R.set_seed(None)
    a, b = _u(seed=3), _u(seed=3)
    assert a != b
    R.set_seed(None)
    assert (_u(seed=3), _u(seed=3)) == (a, b)
    R.set_seed(87654321)  # the default global seed: same stream
    assert _u(seed=3) == a


def test_both_seeds_and_stream_separation():
    R.set_seed(5)
    a = _u(seed=1)
    _u()  # a call without op seed draws from the global sequence, not from this stream
    float(R.normal([], seed=1))  # another op kind: its own stream
    float(R.uniform([], seed=1, dtype=tf.float64))  # another dtype: its own stream
    b = _u(seed=1)
    R.set_seed(5)
    assert (_u(seed=1), _u(seed=1)) == (a, b)
    R.set_seed(5)
    x = [_u(), _u(seed=3), _u()]
    R.set_seed(5)
    assert [_u(), _u()] == [x[0], x[2]]  # seeded calls do not consume the global sequence


def test_golden_op_seeds():
    R.set_seed(None)
    np.testing.assert_allclose(R.uniform([3], seed=7).numpy(), golden("opseed_only_7"), rtol=1e-7)
    R.set_seed(0)
    np.testing.assert_allclose(R.uniform([2], seed=0).numpy(), golden("setseed0_opseed0"), rtol=1e-7)
    R.set_seed(None)


def test_stateful_functions_follow_seed_rules():
    fns = [lambda s: R.categorical([[0.0, 1.0, 2.0]], 20, seed=s), lambda s: R.shuffle(np.arange(20), seed=s),
           lambda s: R.gamma([20], 2.0, seed=s), lambda s: R.poisson([20], 3.0, seed=s),
           lambda s: R.truncated_normal([20], seed=s)]
    for f in fns:
        R.set_seed(9)
        a, b = f(4).numpy(), f(4).numpy()
        R.set_seed(9)
        assert np.array_equal(f(4).numpy(), a) and not np.array_equal(a, b)
    R.set_seed(None)


# --- Generator -----------------------------------------------------------------------------------

def test_generator_state_and_reproducibility():
    g = R.Generator.from_seed(1)
    assert isinstance(g.state, tf.Variable) and g.state.dtype == tf.int64 and not g.state.trainable
    assert g.algorithm == 1 and int(g.key) == 0
    np.testing.assert_array_equal(g.state.numpy(), [1, 0, 0])
    a = g.uniform([3]).numpy()
    np.testing.assert_array_equal(g.state.numpy(), [1 + 3 * 256, 0, 0])
    g.reset_from_seed(1)
    np.testing.assert_array_equal(g.uniform([3]).numpy(), a)
    g.reset([1, 0, 0])
    np.testing.assert_array_equal(g.uniform([3]).numpy(), a)
    h = R.Generator(copy_from=g)
    np.testing.assert_array_equal(h.normal([4]).numpy(), g.normal([4]).numpy())
    old = g.skip(7)
    np.testing.assert_array_equal(g.state.numpy() - old.numpy(), [7 * 256, 0, 0])


def test_generator_constructors():
    np.testing.assert_array_equal(R.create_rng_state(2 ** 64 + 3, "philox").numpy(), [3, 1, 0])
    np.testing.assert_array_equal(R.create_rng_state([7], "philox").numpy(), [0, 0, 7])
    np.testing.assert_array_equal(R.create_rng_state(-1, "philox").numpy(), [-1, -1, -1])
    np.testing.assert_array_equal(R.Generator.from_key_counter(3, [4, 5], "philox").state.numpy(), [4, 5, 3])
    np.testing.assert_array_equal(R.Generator.from_state([5, 6, 7], "philox").state.numpy(), [5, 6, 7])
    assert R.Generator.from_seed(1, alg="auto_select").algorithm == 3
    a, b = R.Generator.from_non_deterministic_state(), R.Generator.from_non_deterministic_state()
    assert not np.array_equal(a.state.numpy(), b.state.numpy())
    g = R.Generator.from_seed(12345)
    np.testing.assert_array_equal(g.uniform_full_int([2], dtype=tf.int64).numpy(), golden("gen_full_int64"))


def test_generator_split_make_seeds_and_ints():
    g = R.Generator.from_seed(1)
    kids = g.split(2)
    assert [int(k.state.numpy()[2]) for k in kids] == G["gen_split_keys"]
    np.testing.assert_array_equal(g.state.numpy(), golden("gen_split_parent_state"))
    np.testing.assert_allclose(kids[0].normal([3]).numpy(), golden("gen_after_split_normal"), rtol=1e-5, atol=1e-6)
    assert not np.array_equal(kids[0].normal([5]).numpy(), kids[1].normal([5]).numpy())
    np.testing.assert_array_equal(R.Generator.from_seed(1).make_seeds(2).numpy(), golden("gen_make_seeds2"))
    assert R.Generator.from_seed(1).split(0) == []
    g = R.Generator.from_seed(1)
    np.testing.assert_array_equal(g.uniform([4], maxval=10, dtype=tf.int32).numpy(), golden("gen_int32"))
    np.testing.assert_array_equal(g.uniform([2], minval=-5, maxval=2 ** 40, dtype=tf.int64).numpy(),
                                  golden("gen_int64"))
    np.testing.assert_array_equal(R.Generator.from_seed(1).uniform([3], dtype=tf.float64).numpy(), golden("gen_f64"))
    np.testing.assert_allclose(R.Generator.from_seed(1).truncated_normal([8]).numpy(), golden("gen_truncated8"),
                               rtol=1e-5)
    b = R.Generator.from_seed(3).binomial([4000], counts=[10.0], probs=[0.25])
    assert b.dtype == tf.int32 and abs(b.numpy().mean() - 2.5) < 0.1
    assert R.Generator.from_seed(3).uniform([2], minval=None, maxval=None, dtype=tf.uint32).dtype == tf.uint32


def test_global_generator():
    g = R.get_global_generator()
    assert R.get_global_generator() is g and R.experimental.get_global_generator() is g
    mine = R.Generator.from_seed(4)
    R.set_global_generator(mine)
    try:
        assert R.get_global_generator() is mine
    finally:
        R.set_global_generator(g)


# --- distributions: dtypes, shapes, ranges, fit ----------------------------------------------------

def test_dtypes_and_shapes():
    assert R.uniform([2, 3]).shape == (2, 3) and R.uniform([]).shape == ()
    assert R.uniform(tf.constant([2, 3])).shape == (2, 3)
    assert R.uniform(tf.TensorShape([4])).shape == (4,)
    for d in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        assert R.uniform([2], dtype=d).dtype == d and R.normal([2], dtype=d).dtype == d
        assert R.truncated_normal([2], dtype=d).dtype == d
    assert R.uniform([2], maxval=5, dtype=tf.int64).dtype == tf.int64
    assert R.categorical([[0.0, 1.0]], 3).dtype == tf.int64
    assert R.categorical([[0.0, 1.0]], 3, dtype=tf.int32).shape == (1, 3)
    assert R.gamma([2], [1.0, 2.0, 3.0]).shape == (2, 3)
    assert R.gamma([2], [1.0, 2.0, 3.0], beta=[[1.0], [2.0]]).shape == (2, 2, 3)
    assert R.gamma([], 2.0, dtype=tf.float64).dtype == tf.float64
    assert R.poisson([2], [1.0, 2.0, 3.0]).shape == (2, 3)
    assert R.poisson([2], [1.0, 2.0], dtype=tf.int64).dtype == tf.int64
    assert R.poisson([], tf.constant(2.0, tf.float64)).dtype == tf.float32
    assert R.stateless_poisson([2], SEED, [1.0, 3.0]).dtype == tf.int32
    assert R.stateless_binomial([2, 3], SEED, [[5.0], [10.0]], [0.1, 0.5, 0.9]).dtype == tf.int32
    assert R.stateless_binomial([2], SEED, [5, 10], [0.1, 0.5], output_dtype=tf.float32).dtype == tf.float32
    assert R.shuffle(3).shape == () and R.shuffle(np.zeros((0, 2), np.float32)).shape == (0, 2)
    assert R.stateless_categorical(np.zeros((0, 3), np.float32), 3, SEED).shape == (0, 3)
    assert R.stateless_categorical(np.zeros((2, 3), np.float32), 0, SEED).shape == (2, 0)


def test_shuffle_strings_and_permutation():
    x = R.shuffle([b"a", b"b", b"c", b"d"], seed=1)
    assert x.dtype == tf.string and sorted(x.numpy().tolist()) == [b"a", b"b", b"c", b"d"]
    y = R.experimental.stateless_shuffle(np.arange(200).reshape(100, 2), SEED).numpy()
    assert sorted(y[:, 0].tolist()) == list(range(0, 200, 2)) and np.all(y[:, 1] == y[:, 0] + 1)
    assert not np.array_equal(y[:, 0], np.arange(0, 200, 2))


def test_index_shuffle_is_a_permutation():
    for m in (0, 1, 2, 5, 64, 1000):
        out = R.experimental.index_shuffle(np.arange(m + 1), [3, 4], m).numpy()
        assert sorted(out.tolist()) == list(range(m + 1))
    out = R.experimental.index_shuffle(np.arange(50), [3, 4], 49).numpy()
    assert not np.array_equal(out, np.arange(50))
    per_seed = R.experimental.index_shuffle(np.arange(4), [[5, 9], [5, 9], [1, 1], [1, 1]], 3).numpy()
    assert per_seed[0] == int(R.experimental.index_shuffle(0, [5, 9], 3))
    assert per_seed[2] == int(R.experimental.index_shuffle(2, [1, 1], 3))


def test_ranges():
    u = R.stateless_uniform([50000], SEED, minval=-3, maxval=4, dtype=tf.int32).numpy()
    assert u.min() == -3 and u.max() == 3
    f = R.stateless_uniform([50000], SEED, minval=2.0, maxval=2.5).numpy()
    assert f.min() >= 2.0 and f.max() < 2.5
    t = R.stateless_truncated_normal([50000], SEED, mean=1.0, stddev=3.0).numpy()
    assert t.min() > -5.0 and t.max() < 7.0 and t.min() < -4.9 and t.max() > 6.9
    big = R.stateless_uniform([3], SEED, minval=-2 ** 63, maxval=2 ** 63 - 1, dtype=tf.int64)
    assert big.dtype == tf.int64
    g = R.stateless_gamma([1000], SEED, 1e-3).numpy()
    assert np.all(g > 0) and np.all(np.isfinite(g))


def test_ptn_bounds_broadcast():
    p = R.stateless_parameterized_truncated_normal([10000, 2], SEED, means=[0.0, 10.0], stddevs=1.0,
                                                   minvals=[5.0, -np.inf], maxvals=[6.0, 9.0]).numpy()
    assert p.shape == (10000, 2)
    assert p[:, 0].min() >= 5.0 and p[:, 0].max() <= 6.0 and p[:, 1].max() <= 9.0


def _ks(x, cdf):
    x = np.sort(np.asarray(x, np.float64))
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def _ndtr(x):
    return special.ndtr(x)


@pytest.mark.parametrize("name", ["uniform", "normal", "normal64", "truncated", "gamma0.3", "gamma4.5", "ptn",
                                  "generator_normal"])
def test_ks_distance(name):
    n = 20000
    z2 = _ndtr(2.0) - _ndtr(-2.0)
    x, cdf = {
        "uniform": (R.stateless_uniform([n], SEED), lambda v: np.clip(v, 0, 1)),
        "normal": (R.stateless_normal([n], [3, 4]), _ndtr),
        "normal64": (R.stateless_normal([n], [3, 4], dtype=tf.float64), _ndtr),
        "truncated": (R.stateless_truncated_normal([n], [5, 6]), lambda v: (_ndtr(v) - _ndtr(-2.0)) / z2),
        "gamma0.3": (R.stateless_gamma([n], SEED, 0.3), lambda v: special.gammainc(0.3, v)),
        "gamma4.5": (R.stateless_gamma([n], SEED, 4.5, beta=2.0), lambda v: special.gammainc(4.5, 2.0 * v)),
        "ptn": (R.stateless_parameterized_truncated_normal([n], SEED, 1.0, 2.0, 2.0, 4.0),
                lambda v: (_ndtr((v - 1) / 2) - _ndtr(0.5)) / (_ndtr(1.5) - _ndtr(0.5))),
        "generator_normal": (R.Generator.from_seed(7).normal([n]), _ndtr),
    }[name]
    assert _ks(x.numpy(), cdf) < 1.63 / np.sqrt(n)  # the 1% critical value


def _chi2(counts, probs):
    """Chi-square of counts against probabilities, merging cells with expectation < 5."""
    n = counts.sum()
    e = probs * n
    keep = e >= 5
    c = np.append(counts[keep], counts[~keep].sum())
    e = np.append(e[keep], e[~keep].sum() + n * (1 - probs.sum()))
    if e[-1] < 5:
        c, e = np.append(c[:-2], c[-2:].sum()), np.append(e[:-2], e[-2:].sum())
    return np.sum((c - e) ** 2 / e), len(c) - 1


@pytest.mark.parametrize("case", ["poisson0.7", "poisson9.5", "poisson25", "binomial8_0.4", "binomial60_0.8",
                                  "categorical", "uniform_int"])
def test_chi_square(case):
    n = 20000
    if case.startswith("poisson"):
        lam = float(case[7:])
        x = R.stateless_poisson([n], SEED, lam).numpy()
        k = np.arange(int(lam * 3 + 15))
        probs = special.pdtr(k, lam) - np.where(k > 0, special.pdtr(np.maximum(k - 1, 0), lam), 0.0)
    elif case.startswith("binomial"):
        cnt, p = (float(v) for v in case[8:].split("_"))
        x = R.stateless_binomial([n], SEED, cnt, p).numpy()
        k = np.arange(int(cnt) + 1)
        probs = special.bdtr(k, int(cnt), p) - np.where(k > 0, special.bdtr(np.maximum(k - 1, 0), int(cnt), p), 0.0)
    elif case == "categorical":
        probs = np.array([0.05, 0.0, 0.25, 0.1, 0.6])
        logits = np.where(probs > 0, np.log(np.maximum(probs, 1e-300)), -np.inf)[None]
        x = R.stateless_categorical(logits, n, SEED).numpy().ravel()
        assert not np.any(x == 1)  # a zero-probability class is never drawn
        k = np.arange(5)
    else:
        x = R.stateless_uniform([n], SEED, minval=-4, maxval=13, dtype=tf.int64).numpy() + 4
        k = np.arange(17)
        probs = np.full(17, 1 / 17)
    counts = np.bincount(x.astype(np.int64), minlength=len(k))[: len(k)]
    assert counts.sum() == n
    stat, dof = _chi2(counts.astype(np.float64), probs)
    assert stat < special.chdtri(dof, 0.001), (stat, dof)


# --- NumPy and jax give the same bits -----------------------------------------------------------------

SAMPLERS = {
    "truncated": lambda: R.stateless_truncated_normal([1001], SEED),
    "truncated64": lambda: R.stateless_truncated_normal([501], SEED, dtype=tf.float64),
    "categorical": lambda: R.stateless_categorical([[0.0, 1.0, 2.0], [-np.inf, 0.0, 0.0]], 50, SEED),
    "gamma": lambda: gamma_samples(tf.constant(GAMMA_ALPHA.astype(np.float32))),
    "poisson": lambda: poisson_samples(tf.constant(POISSON_LAM.astype(np.float32))),
    "binomial": lambda: binomial_samples(tf.constant(BINOMIAL_N.astype(np.float32)),
                                         tf.constant(BINOMIAL_P.astype(np.float32))),
    "ptn": lambda: ptn_samples(tf.constant(PTN_LO.astype(np.float32))),
    "shuffle": lambda: R.experimental.stateless_shuffle(np.arange(50), SEED),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_numpy_and_jax_agree(name):
    a = SAMPLERS[name]().numpy()
    with interpreter(JaxEager()):
        b = SAMPLERS[name]().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind in "iu":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
test_compiled = compiled_tests(CASES)
