"""RowPartition, DynamicRaggedShape and StructuredTensor run by real TF (tools/record_tf_goldens/ragged_shape.py
-> tests/goldens/ragged_shape.json) and by tensorlet (tests/ops/ragged/test_ragged_shape.py)."""


def _rp(tf):
    return tf.experimental.RowPartition


def _rt(tf):
    return tf.ragged.constant([[1, 2], [], [3, 4, 5]])


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the result
        return type(e).__name__
    return "no error"


# --- RowPartition -----------------------------------------------------------------------------------

def _rp_encodings(tf):
    p = _rp(tf).from_row_splits([0, 2, 2, 5])
    return [p.row_splits(), p.row_lengths(), p.value_rowids(), p.nrows(), p.nvals(), p.row_starts(),
            p.row_limits(), p.offsets_in_rows(), p.static_nrows, p.is_uniform(), repr(p.uniform_row_length()),
            repr(p.dtype), repr(p)]


def _rp_factories(tf):
    RP = _rp(tf)
    ps = [RP.from_row_lengths([2, 0, 3]), RP.from_value_rowids([0, 0, 2, 2, 2], nrows=3),
          RP.from_value_rowids([0, 1, 1]), RP.from_row_starts([0, 2, 2], nvals=5), RP.from_row_limits([2, 2, 5]),
          RP.from_row_splits(tf.constant([0, 1, 3], tf.int32)), RP.from_row_lengths([1, 2], dtype=tf.int32)]
    return [repr(p) for p in ps] + [repr(p.dtype) for p in ps] + [ps[1].static_nrows, ps[2].nrows()]


def _rp_uniform(tf):
    u = _rp(tf).from_uniform_row_length(2, nvals=6)
    v = _rp(tf).from_uniform_row_length(3, nrows=2)
    return [repr(u), u.is_uniform(), u.static_nrows, u.row_splits(), u.uniform_row_length(), u.nvals(),
            u.static_uniform_row_length, repr(v), v.row_lengths(), v.value_rowids()]


def _rp_dtype(tf):
    p = _rp(tf).from_row_splits([0, 2, 2, 5])
    q = p.with_dtype(tf.int32)
    return [repr(q), repr(q.dtype), q.row_lengths(), p.with_dtype(tf.int64) is p]


def _rp_ragged(tf):
    rt = _rt(tf)
    p = _rp(tf).from_row_lengths([1, 0, 2])
    return [repr(rt._row_partition), rt._row_partition.row_lengths(),
            tf.RaggedTensor._from_row_partition(tf.constant([7, 8, 9]), p)]


CASES = {
    "rp_encodings": _rp_encodings,
    "rp_factories": _rp_factories,
    "rp_uniform": _rp_uniform,
    "rp_with_dtype": _rp_dtype,
    "rp_of_ragged": _rp_ragged,
    "rp_spec": lambda tf: [repr(_rp(tf).from_row_splits([0, 2, 2, 5])._type_spec),
                           repr(_rp(tf).from_uniform_row_length(2, nvals=6)._type_spec)],
    "rp_flatten": lambda tf: tf.nest.flatten(_rp(tf).from_row_splits([0, 2, 2, 5]), expand_composites=True),
    "rp_bad_zero": lambda tf: _error(lambda: _rp(tf).from_row_splits([1, 2])),
    "rp_bad_monotonic": lambda tf: _error(lambda: _rp(tf).from_row_splits([0, 3, 2])),
    "rp_bad_lengths": lambda tf: _error(lambda: _rp(tf).from_row_lengths([-1])),
    "rp_bad_rank": lambda tf: _error(lambda: _rp(tf).from_row_splits([[0]])),
    "rp_bad_dtype": lambda tf: _error(lambda: _rp(tf).from_row_splits([0.0, 1.0])),
    "rp_private_init": lambda tf: _error(lambda: _rp(tf)()),
}


# --- DynamicRaggedShape ---------------------------------------------------------------------------------

def _D(tf):
    return tf.experimental.DynamicRaggedShape


def _drs_of_ragged(tf):
    s = tf.shape(_rt(tf))
    return [type(s).__name__, repr(s), s.rank, s.num_row_partitions, s.inner_shape, repr(s.dtype),
            repr(s.row_partitions), s.static_lengths(), s.static_lengths(ragged_lengths=False), s[0],
            s.is_uniform(0), s.is_uniform(1), repr(tf.shape(_rt(tf), out_type=tf.int64)),
            repr(tf.shape(_rt(tf), out_type=tf.int64).dtype), s.inner_rank]


def _drs_factories(tf):
    D = _D(tf)
    t = D.from_tensor(tf.zeros([2, 3, 4]))
    r = D.from_tensor(_rt(tf))
    ls = [D.from_lengths([2, (2, 1), 3]), D.from_lengths([3, (1, 0, 2)]), D.from_lengths([2, 3]),
          D.from_lengths([2, (2, 1), (2, 1, 1)]), D.from_lengths([2, 2, (1, 2, 0, 3)])]
    return [repr(t), t.static_lengths(), t.num_row_partitions, t.rank, t[1], repr(t.dtype), repr(r),
            repr(r.dtype)] + [repr(x) for x in ls] + [ls[0].inner_shape, ls[4].num_row_partitions,
                                                       ls[4].static_lengths(), repr(ls[4].row_partitions[0])]


def _drs_nested(tf):
    return [repr(tf.shape(tf.ragged.constant([[[1, 2], [3]], [[4]]]))),
            repr(tf.shape(tf.ragged.constant([[[1, 2]], [[4, 5], [6, 7]]], ragged_rank=1))),
            tf.shape(tf.ragged.constant([[[1, 2]], [[4, 5], [6, 7]]], ragged_rank=1))[2]]


def _drs_build(tf):
    s = tf.shape(_rt(tf))
    return [tf.ones(_D(tf).from_lengths([2, (2, 1), 3])), tf.zeros(s, tf.int32), tf.broadcast_to(7, s),
            tf.broadcast_to(tf.constant([[1], [2], [3]]), _D(tf).from_lengths([3, (2, 0, 3)])),
            tf.broadcast_to(tf.constant([[1.0, 2.0, 3.0]]), _D(tf).from_lengths([2, (1, 2), 3])),
            tf.ones(tf.shape(tf.ragged.constant([[[1, 2]], [[4, 5], [6, 7]]], ragged_rank=1)), tf.int64),
            tf.broadcast_to(_rt(tf), tf.shape(_rt(tf), out_type=tf.int64))]


def _drs_broadcast_grad(tf):
    x = tf.constant([[1.0], [2.0], [3.0]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.broadcast_to(x, _D(tf).from_lengths([3, (2, 0, 3)]))
        loss = tf.reduce_sum(y.flat_values * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
    return [loss, t.gradient(loss, x)]


def _drs_traced(tf):
    @tf.function
    def f(rt):
        return tf.ones(tf.shape(rt)) * 2.0

    return f(tf.ragged.constant([[1.0, 2.0], [], [3.0]]))


CASES.update({
    "drs_of_ragged": _drs_of_ragged,
    "drs_factories": _drs_factories,
    "drs_nested": _drs_nested,
    "drs_build": _drs_build,
    "drs_broadcast_grad": _drs_broadcast_grad,
    "drs_traced": _drs_traced,
    "drs_broadcast_shapes": lambda tf: [
        repr(tf.broadcast_dynamic_shape(tf.shape(_rt(tf)), _D(tf).from_lengths([3, 1]))),
        repr(tf.broadcast_dynamic_shape(_D(tf).from_lengths([3, 1]), tf.shape(_rt(tf))))],
    "drs_spec": lambda tf: [repr(tf.shape(_rt(tf))._type_spec), repr(_D(tf).from_lengths([2, 3])._type_spec)],
    "drs_with_dtype": lambda tf: [repr(tf.shape(_rt(tf)).with_dtype(tf.int64)),
                                  repr(tf.shape(_rt(tf)).with_dtype(tf.int64).dtype),
                                  tf.shape(_rt(tf)).with_dtype(tf.int64).row_partitions[0].row_splits()],
    "drs_not_uniform": lambda tf: _error(lambda: tf.shape(_rt(tf))[1]),
    "drs_index_out_of_range": lambda tf: _error(lambda: tf.shape(_rt(tf))[2]),
    "drs_lengths_inconsistent": lambda tf: _error(lambda: _D(tf).from_lengths([2, (1, 1, 1)])),
    "drs_lengths_not_list": lambda tf: _error(lambda: _D(tf).from_lengths((2, 3))),
    "drs_broadcast_splits_dtype": lambda tf: _error(lambda: tf.broadcast_to(_rt(tf), tf.shape(_rt(tf)))),
    "drs_broadcast_bad": lambda tf: _error(
        lambda: tf.broadcast_to(tf.constant([[1, 2], [3, 4], [5, 6]]), tf.shape(_rt(tf)))),
})


# --- StructuredTensor -------------------------------------------------------------------------------

def _ST(tf):
    return tf.experimental.StructuredTensor


def _st_scalar(tf):
    st = _ST(tf).from_pyval({"a": 1, "b": [1.0, 2.0], "c": {"d": "x"}, "e": [[1, 2], [3]]})
    return [repr(st), repr(st.shape), st.rank, st.field_names(), st.field_value("a"), st.field_value("e"),
            repr(st.field_value("c")), st["a"], st[("c", "d")], repr(st.to_pyval()), repr(st.nrows()),
            st.row_partitions]


def _st_list(tf):
    s2 = _ST(tf).from_pyval([{"a": 1, "b": [1, 2]}, {"a": 2, "b": [3]}])
    return [repr(s2), repr(s2.shape), s2.rank, s2.nrows(), s2.row_partitions, s2.field_value("b"),
            s2.field_value("a"), repr(_sorted(s2.to_pyval())), repr(s2[1]), repr(_sorted(s2[1].to_pyval())),
            repr(s2[0:1]), repr(_sorted(s2[0:1].to_pyval())), repr(_sorted(s2[-1].to_pyval()))]


def _st_ragged(tf):
    s3 = _ST(tf).from_pyval([[{"x": 1}, {"x": 2}], [{"x": 3}]])
    return [repr(s3), repr(s3.shape), repr(s3.row_partitions), repr(s3.to_pyval()), s3.field_value("x"),
            repr(s3[0].to_pyval()), repr(s3.merge_dims(0, 1)), repr(s3.merge_dims(0, 1).to_pyval())]


def _st_fields(tf):
    f = _ST(tf).from_fields({"x": tf.constant([1, 2]), "y": tf.constant([[1.0, 2.0], [3.0, 4.0]])}, shape=[2])
    u = f.with_updates({"z": tf.constant([5, 6])})
    d = f.with_updates({"x": None})
    g = _ST(tf).from_fields({"a": [1, 2, 3]}, [3])
    return [repr(f), repr(f.to_pyval()), repr(u), u.field_names(), d.field_names(), repr(g.to_pyval()),
            repr(_ST(tf).from_fields({}, shape=[3])), repr(_ST(tf).from_fields({}, shape=[3]).to_pyval()),
            repr(f.partition_outer_dimension(_rp(tf).from_row_lengths([1, 1])))]


def _sorted(p):
    """A pyval with its dicts' keys sorted (TF orders the fields of a list of dicts by a set's iteration)."""
    if isinstance(p, dict):
        return {k: _sorted(p[k]) for k in sorted(p)}
    return [_sorted(v) for v in p] if isinstance(p, list) else p


def _st_nested_list(tf):
    st = _ST(tf).from_pyval({"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}], "n": 2})
    return [repr(st), repr(_sorted(st.to_pyval())), st.field_value(("items", "tags")),
            st.field_value(("items", "id"))]


def _st_from_rank_and_shape(tf):
    fields = {"x": tf.ragged.constant([[1, 2], [3]]), "y": tf.ragged.constant([[1.0, 2.0], [3.0]])}
    a = _ST(tf).from_fields_and_rank(fields, rank=2)
    b = _ST(tf).from_shape(_D(tf).from_lengths([3, (2, 0, 1)]))
    c = a.with_shape_dtype(tf.int32)
    d = _ST(tf).from_fields_and_rank({"x": tf.constant([[1, 2], [3, 4]])}, rank=2)
    return [repr(a), repr(a.shape), repr(a.row_partitions), a.nrows(), repr(b), repr(b.shape), repr(b.to_pyval()),
            repr(c.row_partitions[0].dtype), c.nrows(), repr(d), repr(d.shape), repr(d.row_partitions),
            _error(lambda: _ST(tf).from_fields_and_rank({}, rank=1))]


def _st_function(tf):
    @tf.function
    def g(s):
        return s.field_value("a") * 2, s.field_value("b").flat_values + 1

    s2 = _ST(tf).from_pyval([{"a": 1, "b": [1, 2]}, {"a": 2, "b": [3]}])
    return [*g(s2), len(tf.nest.flatten(s2, expand_composites=True))]


CASES.update({
    "st_scalar": _st_scalar,
    "st_list": _st_list,
    "st_ragged": _st_ragged,
    "st_fields": _st_fields,
    "st_nested_list": _st_nested_list,
    "st_function": _st_function,
    "st_from_rank_and_shape": _st_from_rank_and_shape,
    "st_spec": lambda tf: repr(_ST(tf).from_pyval({"a": 1, "c": {"d": "x"}})._type_spec),
    "st_empty_list": lambda tf: _ST(tf).from_pyval([]),
    "st_empty_dicts": lambda tf: [repr(_ST(tf).from_pyval([{}, {}])), repr(_ST(tf).from_pyval([{}, {}]).to_pyval()),
                                  repr(_ST(tf).from_pyval([[{}], []]).to_pyval())],
    "st_shape_mismatch": lambda tf: _error(lambda: _ST(tf).from_fields({"x": tf.constant([1, 2])}, shape=[3])),
    "st_missing_field": lambda tf: _error(lambda: _ST(tf).from_pyval({"a": 1}).field_value("zz")),
    "st_inconsistent_depth": lambda tf: _error(lambda: _ST(tf).from_pyval([{"a": 1}, [{"a": 2}]])),
    "st_private_init": lambda tf: _error(lambda: _ST(tf)({}, None)),
    "st_fields_disagree": lambda tf: [_error(lambda: _ST(tf).from_fields_and_rank(
        {"x": tf.ragged.constant([[1, 2], [3]]), "y": tf.ragged.constant([[1.0], []])}, rank=2)), _error(
        lambda: _ST(tf).from_fields({"x": tf.ragged.constant([[1, 2], [3]]), "y": tf.constant([[1, 2], [2, 3]])},
                                    shape=[2, None])), _error(
        lambda: _ST(tf).from_fields({"x": tf.constant([1, 2]), "y": tf.constant([1, 2, 3])}, shape=[None]))],
})
