"""tf.nn.ctc_beam_search_decoder programs run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/ctc_beam.json) and by tensorlet (tests/io/test_ctc_beam.py)."""

import numpy as np

_RNG = np.random.default_rng(1515)
LOGITS = _RNG.normal(size=(6, 3, 5)).astype(np.float32).round(3)
PEAKY = (_RNG.normal(size=(8, 2, 4)) * 3).astype(np.float32).round(3)
LOG_SOFTMAX = np.log(np.array([[[0.3, 0.7]], [[0.4, 0.6]]], np.float32))  # Graves' example: beam beats best path


def _dec(tf, x, seq, **kw):
    decoded, logp = tf.nn.ctc_beam_search_decoder(tf.constant(x), tf.constant(seq, tf.int32), **kw)
    return {"decoded": list(decoded), "log_probabilities": logp}


def _v1(tf, x, seq, **kw):
    decoded, logp = tf.compat.v1.nn.ctc_beam_search_decoder(tf.constant(x), tf.constant(seq, tf.int32), **kw)
    return {"decoded": list(decoded), "log_probabilities": logp}


CASES = {
    "graves_example": lambda tf: _dec(tf, LOG_SOFTMAX, [2], beam_width=2),
    "random_width1": lambda tf: _dec(tf, LOGITS, [6, 4, 5], beam_width=1),
    "random_width3": lambda tf: _dec(tf, LOGITS, [6, 4, 5], beam_width=3),
    "random_width3_top3": lambda tf: _dec(tf, LOGITS, [6, 4, 5], beam_width=3, top_paths=3),
    "random_width8_top4": lambda tf: _dec(tf, LOGITS, [6, 6, 2], beam_width=8, top_paths=4),
    "random_default_width_top2": lambda tf: _dec(tf, LOGITS, [6, 1, 3], top_paths=2),
    "peaky_width5_top2": lambda tf: _dec(tf, PEAKY, [8, 7], beam_width=5, top_paths=2),
    "float64": lambda tf: _dec(tf, LOGITS.astype(np.float64), [6, 4, 5], beam_width=4, top_paths=2),
    "zero_length": lambda tf: _dec(tf, LOGITS, [0, 3, 1], beam_width=3),
    "in_function": lambda tf: tf.function(lambda x, s: tf.nn.ctc_beam_search_decoder(x, s, beam_width=3)[1])(
        tf.constant(LOGITS), tf.constant([6, 4, 5])),
    "too_many_paths": lambda tf: _dec(tf, LOGITS, [6, 4, 5], beam_width=2, top_paths=3),
    "too_few_leaves": lambda tf: _dec(tf, LOGITS, [0, 4, 5], beam_width=3, top_paths=2),
    "seq_too_long": lambda tf: _dec(tf, LOGITS, [7, 4, 5], beam_width=2),
    "seq_wrong_batch": lambda tf: _dec(tf, LOGITS, [6, 4], beam_width=2),
    "not_rank3": lambda tf: _dec(tf, LOGITS[0], [6, 4, 5], beam_width=2),
    "v1_merge_repeated": lambda tf: _v1(tf, PEAKY, [8, 7], beam_width=5, top_paths=2),
    "v1_no_merge": lambda tf: _v1(tf, PEAKY, [8, 7], beam_width=5, top_paths=2, merge_repeated=False),
    "int_inputs": lambda tf: _dec(tf, LOGITS.astype(np.int32), [6, 4, 5], beam_width=2),
}
