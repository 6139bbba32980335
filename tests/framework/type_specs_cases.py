"""TensorArraySpec, OptionalSpec, TraceType, FunctionType, AtomicFunction and check_pinned run by real TF
(tools/record_tf_goldens/type_specs.py -> tests/goldens/type_specs.json) and by tensorlet
(tests/framework/test_type_specs.py).  Values are reprs, booleans and tensors, so one program checks both."""

import inspect


def _ta(tf):
    return tf.TensorArray(tf.float32, size=2, element_shape=[2]).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])


def _ta_relations(tf):
    s = tf.TensorArraySpec([2], tf.float32)
    return [s.is_compatible_with(tf.TensorArraySpec([None], tf.float32)),
            s.is_compatible_with(tf.TensorArraySpec([3], tf.float32)),
            s.is_compatible_with(tf.TensorArraySpec([2], tf.float32, dynamic_size=True)),
            s.is_compatible_with(tf.TensorArraySpec([2], tf.float32, infer_shape=False)),
            s.is_compatible_with(tf.TensorSpec([2], tf.float32)),
            s.is_compatible_with(3),
            s.is_compatible_with(_ta(tf)),
            s.is_subtype_of(tf.TensorArraySpec([None], tf.float32)),
            s.is_subtype_of(tf.TensorArraySpec([5, 5], tf.float32)),
            s.is_subtype_of(tf.TensorArraySpec([2], tf.int32)),
            repr(s.most_specific_common_supertype([tf.TensorArraySpec([3], tf.float32)])),
            repr(s.most_specific_common_supertype([tf.TensorArraySpec([3, 1], tf.float32, infer_shape=False)])),
            repr(s.most_specific_common_supertype([tf.TensorArraySpec([2], tf.int32)])),
            repr(s.most_specific_common_supertype([tf.TensorSpec([2], tf.float32)]))]


def _ta_eq(tf):
    a, b = tf.TensorArraySpec([2], tf.float32), tf.TensorArraySpec([2], tf.float32)
    return [a == b, hash(a) == hash(b), a == tf.TensorArraySpec([2], tf.float32, True),
            a == tf.TensorArraySpec([3], tf.float32), len({a, b, tf.TensorArraySpec(None, tf.int32)})]


def _ta_function_arg(tf):
    @tf.function
    def g(ta):
        return ta.stack() * 2.0

    return [g(_ta(tf)), len(tf.nest.flatten([_ta(tf)], expand_composites=True))]


def _opt(tf):
    return tf.experimental.Optional.from_value(tf.constant(3))


def _opt_specs(tf):
    s = tf.OptionalSpec(tf.TensorSpec([], tf.int32))
    nested = tf.OptionalSpec({"a": tf.TensorSpec([2], tf.float32), "b": (tf.TensorSpec([], tf.string),)})
    return [repr(s), repr(nested), repr(_opt(tf).element_spec), repr(tf.type_spec_from_value(_opt(tf))),
            repr(tf.experimental.Optional.from_value({"x": 1.0, "y": [1, 2]}).element_spec),
            s == tf.type_spec_from_value(_opt(tf)), hash(s) == hash(tf.OptionalSpec(tf.TensorSpec([], tf.int32))),
            s == nested, s.value_type.__name__ in ("Optional", "_OptionalImpl")]


def _opt_relations(tf):
    s = tf.OptionalSpec(tf.TensorSpec([], tf.int32))
    return [s.is_compatible_with(tf.OptionalSpec(tf.TensorSpec([], tf.int64))),
            s.is_compatible_with(tf.OptionalSpec(tf.TensorSpec(None, tf.int32))),
            s.is_compatible_with(_opt(tf)),
            s.is_subtype_of(tf.OptionalSpec(tf.TensorSpec(None, tf.int32))),
            s.is_subtype_of(tf.OptionalSpec(tf.TensorSpec([2], tf.int32))),
            repr(s.most_specific_common_supertype([tf.OptionalSpec(tf.TensorSpec([3], tf.int32))])),
            repr(s.most_specific_common_supertype([tf.OptionalSpec(tf.TensorSpec([], tf.float32))])),
            repr(s.most_specific_common_supertype([tf.OptionalSpec((tf.TensorSpec([], tf.int32),))]))]


def _opt_signature(tf):
    spec = tf.TensorSpec([], tf.int32)

    @tf.function(input_signature=[tf.OptionalSpec(spec)])
    def h(o):
        return tf.cond(o.has_value(), lambda: o.get_value() * 10, lambda: -1)

    return [h(_opt(tf)), h(tf.experimental.Optional.empty(spec)), h.experimental_get_tracing_count()]


def _opt_traced(tf):
    @tf.function
    def g(o):
        return tf.cond(o.has_value(), lambda: o.get_value() + 1, lambda: 0)

    @tf.function
    def make(x):
        return tf.experimental.Optional.from_value({"a": x, "b": x * 2.0})

    o = make(tf.constant([1.0, 2.0]))
    return [g(_opt(tf)), g(tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32))), o.has_value(),
            o.get_value()["b"], repr(o.element_spec)]


def _opt_iterator(tf):
    it = iter(tf.data.Dataset.range(1))
    a, b = it.get_next_as_optional(), it.get_next_as_optional()
    return [repr(a._type_spec), a.has_value(), b.has_value(), repr(b.element_spec)]


def _opt_dataset(tf):
    ds = tf.data.Dataset.range(3).map(lambda x: tf.experimental.Optional.from_value(x * 2))
    one = tf.data.Dataset.from_tensors(tf.experimental.Optional.from_value(tf.constant([1, 2])))
    return [tf.constant(repr(ds.element_spec)), *[e.get_value() for e in ds], *[e.has_value() for e in ds],
            tf.constant(repr(one.element_spec)), *[e.get_value() for e in one]]


def _opt_empty_get(tf):
    return tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32)).get_value()


def _trace_type(tf):
    TT = tf.types.experimental.TraceType

    class Half(TT):
        def __eq__(self, other):
            return True

    out = [isinstance(tf.TensorSpec([2], tf.float32), TT), isinstance(tf.RaggedTensorSpec([None, None]), TT),
           isinstance(tf.TensorArraySpec(), TT), issubclass(tf.TypeSpec, TT)]
    for cls in (TT, Half):
        try:
            cls()
            out.append("no error")
        except TypeError as e:
            out.append(str(e))
    return out


def _fn():
    def f(x, y=2, *, z=3):
        return x * 2.0
    return f


def _function_type(tf):
    f = tf.function(_fn())
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    ft = cf.function_type
    p = ft.parameters["x"]
    return [repr(f.function_type), repr(ft), str(ft), isinstance(ft, inspect.Signature),
            isinstance(ft, tf.types.experimental.FunctionType), [repr(q) for q in ft.parameters.values()],
            repr(p.type_constraint), p.optional, p.kind.name, repr(ft.output), len(ft.captures),
            ft == f.get_concrete_function(tf.TensorSpec([None], tf.float32)).function_type,
            ft == f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32)).function_type,
            hash(ft) == hash(f.get_concrete_function(tf.TensorSpec([None], tf.float32)).function_type)]


def _function_type_structures(tf):
    v = tf.Variable(1.0)

    @tf.function
    def g(a, b, c=None):
        return {"s": a["k"] + v, "t": [b[0], b[1]]}

    cf = g.get_concrete_function({"k": tf.constant(1.0)}, (tf.constant([1]), 2.5))
    return [str(cf.function_type), repr(cf.function_type.output), len(cf.function_type.captures)]


def _function_type_varargs(tf):
    @tf.function
    def g(a, *args):
        return a

    class M(tf.Module):
        @tf.function
        def h(self, a, b=3):
            return a

    sig = tf.function(lambda x, y=1: x, input_signature=[tf.TensorSpec([None], tf.float32)])
    cf = g.get_concrete_function(tf.constant(1.0), tf.constant(2))
    return [str(g.get_concrete_function(tf.constant(1.0)).function_type), str(cf.function_type), repr(cf.function_type),
            cf.pretty_printed_signature(verbose=False), g.get_concrete_function(tf.constant(1.0))
            .pretty_printed_signature(), str(M().h.get_concrete_function(tf.constant(1.0)).function_type),
            repr(sig.function_type), repr(g.function_type)]


def _atomic(tf):
    AF = tf.types.experimental.AtomicFunction
    cf = tf.function(_fn()).get_concrete_function(tf.TensorSpec([None], tf.float32))
    af = cf._inference_function
    out = [isinstance(cf, AF), isinstance(af, AF), str(af.function_type), af(tf.constant([1.0, 2.0]), 2, z=3),
           af.call_with_captures((tf.constant([3.0]), 2), {"z": 3}, [])]
    for call in (lambda: af(tf.constant([1.0])), lambda: AF()):
        try:
            call()
            out.append("no error")
        except TypeError as e:
            out.append(str(e))
    return out


def _check_pinned_traced(tf):
    return tf.function(lambda x: tf.check_pinned(x))(tf.constant([1.0]))


CASES = {
    "ta_spec_repr": lambda tf: [repr(tf.TensorArraySpec([2], tf.float32)), repr(tf.TensorArraySpec()),
                                repr(tf.TensorArraySpec(None, tf.int32, True, False)),
                                repr(tf.type_spec_from_value(_ta(tf))),
                                repr(tf.type_spec_from_value(tf.TensorArray(tf.int32, size=0, dynamic_size=True)))],
    "ta_spec_relations": _ta_relations,
    "ta_spec_eq_hash": _ta_eq,
    "ta_function_arg": _ta_function_arg,
    "optional_specs": _opt_specs,
    "optional_relations": _opt_relations,
    "optional_input_signature": _opt_signature,
    "optional_traced": _opt_traced,
    "optional_iterator": _opt_iterator,
    "optional_empty_get_value": _opt_empty_get,
    "optional_dataset": _opt_dataset,
    "trace_type": _trace_type,
    "function_type": _function_type,
    "function_type_structures": _function_type_structures,
    "function_type_varargs": _function_type_varargs,
    "atomic_function": _atomic,
    "check_pinned": lambda tf: tf.check_pinned(tf.constant([1.0])),
    "check_pinned_traced": _check_pinned_traced,
}
