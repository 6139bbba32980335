"""Candidate sampling: ``tf.random.*_candidate_sampler``, ``tf.nn.compute_accidental_hits`` and the sampled losses
``tf.nn.nce_loss`` / ``tf.nn.sampled_softmax_loss``.

A sampler op takes a block of uniform draws (from the usual stateful generator, so ``tf.random.set_seed`` and
``seed=`` behave as for every random op) and turns them into candidates with TF's distributions and TF's expected
counts (``p * num_sampled``, or ``1 - (1 - p)^tries`` for unique sampling).  The losses are TF's composites.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec

SampledValues = namedtuple("CandidateSampler", ["sampled_candidates", "true_expected_count",
                                                "sampled_expected_count"])


def _probs(dist, range_max, unigrams, distortion, num_reserved_ids):
    if dist == "uniform":
        return np.full(range_max, 1.0 / range_max)
    if dist == "log_uniform":
        k = np.arange(range_max, dtype=np.float64)
        return (np.log(k + 2) - np.log(k + 1)) / np.log(range_max + 1)
    if dist == "unigram":
        w = np.concatenate([np.zeros(num_reserved_ids), np.asarray(unigrams, np.float64) ** distortion])
        return w / w.sum()
    return np.ones(range_max)  # "all": every class, expected count 1


def _draw(dist, u, probs, range_max):
    if dist == "log_uniform":  # TF's inverse transform: floor(exp(u * log(range_max + 1))) - 1
        return (np.floor(np.exp(u * np.log(range_max + 1))).astype(np.int64) - 1) % range_max
    if dist == "uniform":
        return np.minimum((u * range_max).astype(np.int64), range_max - 1)
    cdf = np.cumsum(probs)
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), range_max - 1).astype(np.int64)


def _expected(p, num_sampled, tries, unique):
    if not unique or tries == num_sampled:
        return (p * num_sampled).astype(np.float32)
    return (-np.expm1(tries * np.log1p(-p))).astype(np.float32)


def _sampler_kernel(xp, u, true_classes, dist="uniform", num_sampled=1, unique=False, range_max=1,
                    unigrams=(), distortion=1.0, num_reserved_ids=0):
    probs = _probs(dist, range_max, unigrams, distortion, num_reserved_ids)
    tc = np.asarray(true_classes, np.int64)
    if dist == "all":
        s = np.arange(num_sampled, dtype=np.int64)
        return s, np.ones(tc.shape, np.float32), np.ones(num_sampled, np.float32)
    draws = _draw(dist, np.asarray(u, np.float64), probs, range_max)
    if unique:
        seen, out, tries = set(), [], 0
        rng = None
        while len(out) < num_sampled:
            if tries < len(draws):
                c = int(draws[tries])
            else:  # the pre-drawn block ran out (a tiny range): continue from a generator seeded by it
                rng = rng or np.random.default_rng(np.asarray(u).view(np.uint64)[:4].tolist())
                c = int(_draw(dist, rng.random(1), probs, range_max)[0])
            tries += 1
            if c not in seen:
                seen.add(c)
                out.append(c)
        s = np.asarray(out, np.int64)
    else:
        s, tries = draws[:num_sampled].astype(np.int64), num_sampled
    return s, _expected(probs[np.clip(tc, 0, range_max - 1)], num_sampled, tries, unique), _expected(
        probs[s], num_sampled, tries, unique)


def _sampler_shape(u, tc, num_sampled=1, **attrs):
    return (Spec(TensorShape([num_sampled]), D.int64), Spec(tc.shape, D.float32),
            Spec(TensorShape([num_sampled]), D.float32))


CANDIDATE_SAMPLER = defop("CandidateSampler", _sampler_kernel, n_out=3, shape=_sampler_shape, grad=NONDIFF,
                          no_lowering=True, no_lowering_reason="rejection sampling of unique candidates")


def _sample(dist, true_classes, num_true, num_sampled, unique, range_max, seed, **extra):
    tc = t(true_classes, dtype=D.int64)
    if tc.shape.rank != 2 or (tc.shape[1] is not None and tc.shape[1] != num_true):
        raise errors.invalid_argument("CandidateSampler", f"true_classes must be a matrix with num_true={num_true} "
                                                          f"columns, got shape {tc.shape}")
    num_sampled, range_max = int(num_sampled), int(range_max)
    if unique and num_sampled > range_max:
        raise errors.invalid_argument("CandidateSampler", "Sampler's range is too small.")
    n = num_sampled * 16 + 64 if unique else max(num_sampled, 1)
    u = random_gen.uniform([n], dtype=D.float64, seed=seed)
    return SampledValues(*bind(CANDIDATE_SAMPLER, u, tc, dist=dist, num_sampled=num_sampled, unique=bool(unique),
                               range_max=range_max, **extra))


@tf_export("random.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """``num_sampled`` classes drawn uniformly from ``[0, range_max)`` (distinct if ``unique``) and the expected
    counts of the true and sampled classes.

    >>> tf.random.uniform_candidate_sampler([[1]], 1, 3, True, 5, seed=1).sampled_candidates.shape
    TensorShape([3])
    """
    return _sample("uniform", true_classes, num_true, num_sampled, unique, range_max, seed)


@tf_export("random.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """As ``uniform_candidate_sampler`` with Zipf's law ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``.

    >>> tf.random.log_uniform_candidate_sampler([[1]], 1, 3, True, 5, seed=1).sampled_candidates.dtype
    tf.int64
    """
    return _sample("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed)


@tf_export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """As ``uniform_candidate_sampler`` with ``P(k)`` proportional to ``unigrams[k] ** distortion`` (counts from
    ``unigrams`` or the last comma-separated field of each line of ``vocab_file``).

    >>> tf.random.fixed_unigram_candidate_sampler([[0]], 1, 2, True, 3, unigrams=[1, 2, 3]).sampled_candidates.shape
    TensorShape([2])
    """
    if vocab_file:
        with open(vocab_file) as f:
            unigrams = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    unigrams = [float(v) for v in unigrams]
    if num_shards != 1:
        unigrams = unigrams[shard::num_shards]
    if len(unigrams) + num_reserved_ids != range_max:
        raise errors.invalid_argument("FixedUnigramCandidateSampler", f"range_max ({range_max}) must equal the "
                                      f"number of unigrams plus num_reserved_ids ({len(unigrams) + num_reserved_ids})")
    return _sample("unigram", true_classes, num_true, num_sampled, unique, range_max, seed,
                   unigrams=tuple(unigrams), distortion=float(distortion), num_reserved_ids=int(num_reserved_ids))


@tf_export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                                      name=None):
    """Samples from the unigram distribution of the true classes seen so far, learned by the sampler op: TF's
    op samples before it learns, and each eager call is a fresh op, so the draw is uniform over
    ``[0, range_max)`` (as TF eagerly).  tensorlet does not carry the learned counts across calls of a
    ``tf.function`` either.

    >>> tf.random.learned_unigram_candidate_sampler([[1]], 1, 3, False, 5, seed=1).true_expected_count.numpy()
    array([[0.6]], dtype=float32)
    """
    return _sample("uniform", true_classes, num_true, num_sampled, unique, range_max, seed)


@tf_export("random.all_candidate_sampler", "nn.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class ``0 .. num_sampled - 1`` as the candidates, with expected counts 1 (for testing losses).

    >>> tf.random.all_candidate_sampler([[1]], 1, 3, True).sampled_candidates.numpy()
    array([0, 1, 2])
    """
    return _sample("all", true_classes, num_true, num_sampled, unique, num_sampled, seed)


# --- accidental hits -------------------------------------------------------------------------

def _hits_kernel(xp, true_classes, sampled, num_true=1):
    where = {}
    for j, c in enumerate(np.asarray(sampled).tolist()):
        where.setdefault(c, []).append(j)
    idx, ids = [], []
    for i, row in enumerate(np.asarray(true_classes).tolist()):
        for c in row:
            for j in where.get(c, ()):
                idx.append(i)
                ids.append(j)
    n = len(idx)
    return (np.asarray(idx, np.int32), np.asarray(ids, np.int64),
            np.full(n, -np.finfo(np.float32).max, np.float32))


COMPUTE_ACCIDENTAL_HITS = defop(
    "ComputeAccidentalHits", _hits_kernel, n_out=3, grad=NONDIFF, no_lowering=True,
    no_lowering_reason="its output size depends on the values",
    shape=lambda tc, s, num_true=1: (Spec(TensorShape([None]), D.int32), Spec(TensorShape([None]), D.int64),
                                     Spec(TensorShape([None]), D.float32)))


@tf_export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """``(indices, ids, weights)``: each (row ``indices[k]``, candidate ``ids[k]``) where a sampled candidate is one
    of the row's true classes, with weight ``-FLT_MAX`` (added to its logit, it removes the candidate).

    >>> [v.numpy().tolist() for v in tf.nn.compute_accidental_hits([[1], [2]], [2, 1, 3], 1)][:2]
    [[0, 1], [1, 0]]
    """
    tc = t(true_classes, dtype=D.int64)
    s = t(sampled_candidates, dtype=D.int64)
    return tuple(bind(COMPUTE_ACCIDENTAL_HITS, tc, s, num_true=int(num_true)))


# --- sampled losses --------------------------------------------------------------------------

def _lookup(params, ids):
    if isinstance(params, (list, tuple)):
        params = params[0] if len(params) == 1 else array_blocks.concat(list(params), 0)  # "div" sharding
    return gather_scatter.gather(params, ids)


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                            subtract_log_q, remove_accidental_hits, seed=None):
    labels = t(labels)
    if labels.dtype is not D.int64:
        labels = math_binary.cast(labels, D.int64)
    inputs = t(inputs)
    labels_flat = array_shape.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (array_identity.stop_gradient(t(v)) for v in sampled_values)
    sampled = math_binary.cast(sampled, D.int64)
    all_ids = array_blocks.concat([labels_flat, sampled], 0)
    n_true = array_shape.shape(labels_flat)[0]
    all_w = _lookup(weights, all_ids)
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    sampled_logits = matmul.matmul(inputs, sampled_w, transpose_b=True)
    all_b = _lookup(biases, all_ids)
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    dim = true_w.shape[1]
    dots = array_shape.expand_dims(inputs, 1) * array_shape.reshape(true_w, [-1, num_true, dim])
    true_logits = reduce.reduce_sum(dots, axis=2) + array_shape.reshape(true_b, [-1, num_true])
    sampled_logits = sampled_logits + sampled_b
    if remove_accidental_hits:
        acc_idx, acc_ids, acc_w = compute_accidental_hits(labels, sampled, num_true)
        idx = array_blocks.stack([math_binary.cast(acc_idx, D.int64), acc_ids], axis=1)
        shape = array_blocks.stack([math_binary.cast(array_shape.shape(labels)[0], D.int64),
                                    t(np.int64(num_sampled))])
        sampled_logits = sampled_logits + gather_scatter.scatter_nd(
            idx, math_binary.cast(acc_w, sampled_logits.dtype), shape)
    if subtract_log_q:
        true_logits = true_logits - math_unary.log(math_binary.cast(true_expected, true_logits.dtype))
        sampled_logits = sampled_logits - math_unary.log(math_binary.cast(sampled_expected, true_logits.dtype))
    out_logits = array_blocks.concat([true_logits, sampled_logits], 1)
    out_labels = array_blocks.concat([creation.ones_like(true_logits) / float(num_true),
                                      creation.zeros_like(sampled_logits)], 1)
    return out_logits, out_labels


@tf_export("nn.nce_loss")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """Noise-contrastive estimation loss per example: logistic losses of the true classes against
    ``num_sampled`` candidates (log-uniform unless ``sampled_values`` is given).

    >>> w, b = tf.ones([4, 2]), tf.zeros([4])
    >>> tf.nn.nce_loss(w, b, [[1]], [[1., 0.]], 2, 4, sampled_values=([0, 2], [[0.5]], [0.5, 0.5])).shape
    TensorShape([1])
    """
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits)
    losses = nn_losses.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return reduce.reduce_sum(losses, axis=1)


@tf_export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """Softmax cross-entropy over the true class and ``num_sampled`` sampled classes (a cheap stand-in for the
    full softmax when ``num_classes`` is large).

    >>> w, b = tf.ones([4, 2]), tf.zeros([4])
    >>> tf.nn.sampled_softmax_loss(w, b, [[1]], [[1., 0.]], 2, 4, sampled_values=([0, 2], [[0.5]], [0.5, 0.5])).shape
    TensorShape([1])
    """
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits, seed=seed)
    labels = array_identity.stop_gradient(labels)
    return nn_losses.softmax_cross_entropy_with_logits(labels=labels, logits=logits)


from tensorlet._src.ops import (  # noqa: E402
    array_blocks,
    array_identity,
    array_shape,
    creation,
    gather_scatter,
    math_binary,
    math_unary,
    matmul,
    nn_losses,
    random_gen,
    reduce,
)
