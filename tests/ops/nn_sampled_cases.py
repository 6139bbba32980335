"""Candidate sampling programs run by real TF (tools/record_tf_goldens/op_extras.py -> tests/goldens/nn_sampled.json)
and by tensorlet (tests/ops/test_nn_sampled.py).  Random draws differ between the two, so the cases check what
does not depend on them: shapes, dtypes, expected counts, and the losses given fixed ``sampled_values``."""


def _sampler_facts(tf, fn, unique):
    s, te, se = fn(tf.constant([[1, 4], [0, 2]], tf.int64), 2, 5, unique, 10, seed=3)
    ok_range = bool(tf.reduce_all((s >= 0) & (s < 10)))
    distinct = len(set(s.numpy().tolist())) == 5
    return [s.dtype.name, s.shape.as_list(), te.dtype.name, te.shape.as_list(), se.shape.as_list(), ok_range,
            distinct or not unique]


def _expected_counts_non_unique(tf, fn):
    _, te, se = fn(tf.constant([[1, 4], [0, 2]], tf.int64), 2, 5, False, 10, seed=3)
    return te


def _w(tf):
    return tf.reshape(tf.range(12.0), [6, 2]) / 10.0


SV = ([0, 3, 5], [[0.4], [0.2]], [0.5, 0.3, 0.1])


def _loss_grad(tf, fn, **kw):
    w = tf.Variable(tf.reshape(tf.range(12.0), [6, 2]) / 10.0)
    b = tf.Variable([0.1, -0.2, 0.3, 0.0, 0.5, -0.1])
    x = tf.constant([[1.0, -1.0], [0.5, 2.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(fn(w, b, tf.constant([[1], [3]]), x, 3, 6, sampled_values=SV, **kw))
    gw, gb = tape.gradient(loss, [w, b])
    return [loss, tf.convert_to_tensor(gw), tf.convert_to_tensor(gb)]


CASES = {
    "uniform_facts": lambda tf: _sampler_facts(tf, tf.random.uniform_candidate_sampler, True),
    "uniform_facts_non_unique": lambda tf: _sampler_facts(tf, tf.random.uniform_candidate_sampler, False),
    "log_uniform_facts": lambda tf: _sampler_facts(tf, tf.random.log_uniform_candidate_sampler, True),
    "uniform_expected_non_unique": lambda tf: _expected_counts_non_unique(tf, tf.random.uniform_candidate_sampler),
    "log_uniform_expected_non_unique": lambda tf: _expected_counts_non_unique(
        tf, tf.random.log_uniform_candidate_sampler),
    "unigram_expected_non_unique": lambda tf: tf.random.fixed_unigram_candidate_sampler(
        tf.constant([[0], [3]], tf.int64), 1, 4, False, 4, unigrams=[1.0, 2.0, 3.0, 4.0], distortion=0.5,
        seed=2).true_expected_count,
    "unigram_range": lambda tf: bool(tf.reduce_all(tf.random.fixed_unigram_candidate_sampler(
        tf.constant([[0]], tf.int64), 1, 3, True, 5, unigrams=[0.0, 0.0, 1.0, 1.0, 1.0],
        seed=2).sampled_candidates >= 2)),
    "learned_unigram_expected": lambda tf: tf.random.learned_unigram_candidate_sampler(
        tf.constant([[1], [1]], tf.int64), 1, 3, False, 5, seed=1).true_expected_count,
    "learned_unigram_unique_expected": lambda tf: tf.random.learned_unigram_candidate_sampler(
        tf.constant([[1, 2]], tf.int64), 2, 2, True, 5, seed=1).sampled_expected_count.shape.as_list(),
    "learned_unigram_facts": lambda tf: _sampler_facts(tf, tf.random.learned_unigram_candidate_sampler, True),
    "all_candidates": lambda tf: tf.random.all_candidate_sampler(tf.constant([[1, 2]], tf.int64), 2, 4, True),
    "unique_range_too_small": lambda tf: tf.random.uniform_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 5, True, 3),
    "accidental_hits": lambda tf: tf.nn.compute_accidental_hits(tf.constant([[1, 2], [3, 1]], tf.int64),
                                                                tf.constant([1, 5, 3, 2], tf.int64), 2),
    "nce_loss": lambda tf: tf.nn.nce_loss(_w(tf), tf.zeros([6]), tf.constant([[1], [3]]),
                                          tf.constant([[1.0, -1.0], [0.5, 2.0]]), 3, 6, sampled_values=SV),
    "nce_loss_remove_hits": lambda tf: tf.nn.nce_loss(_w(tf), tf.zeros([6]), tf.constant([[0], [3]]),
                                                      tf.constant([[1.0, -1.0], [0.5, 2.0]]), 3, 6,
                                                      sampled_values=SV, remove_accidental_hits=True),
    "nce_loss_grad": lambda tf: _loss_grad(tf, tf.nn.nce_loss),
    "sampled_softmax": lambda tf: tf.nn.sampled_softmax_loss(_w(tf), tf.zeros([6]), tf.constant([[1], [3]]),
                                                             tf.constant([[1.0, -1.0], [0.5, 2.0]]), 3, 6,
                                                             sampled_values=SV),
    "sampled_softmax_hits": lambda tf: tf.nn.sampled_softmax_loss(_w(tf), tf.zeros([6]), tf.constant([[0], [3]]),
                                                                  tf.constant([[1.0, -1.0], [0.5, 2.0]]), 3, 6,
                                                                  sampled_values=SV),
    "sampled_softmax_grad": lambda tf: _loss_grad(tf, tf.nn.sampled_softmax_loss),
    "sampled_softmax_sharded": lambda tf: tf.nn.sampled_softmax_loss(
        [_w(tf)[:3], _w(tf)[3:]], tf.zeros([6]), tf.constant([[1], [3]]), tf.constant([[1.0, -1.0], [0.5, 2.0]]),
        3, 6, sampled_values=SV),
    "nce_loss_sampled_shape": lambda tf: tf.nn.nce_loss(_w(tf), tf.zeros([6]), tf.constant([[1], [3]]),
                                                        tf.constant([[1.0, -1.0], [0.5, 2.0]]), 3, 6).shape.as_list(),
}
