"""tf.function semantics run by real TF (tools/record_tf_goldens/function_semantics.py ->
tests/goldens/function_semantics.json) and by tensorlet (tests/graph/test_function_semantics.py): variables as
arguments (traced per VariableSpec, the passed variable is the one written), TensorArrays without element_shape."""


def _var_fn(tf):
    @tf.function
    def f(v, x):
        v.assign_add(x + tf.zeros_like(v))
        return v * 2

    return f


def _vars_traced_per_spec(tf):
    f = _var_fn(tf)
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    c, d = tf.Variable([1.0, 2.0, 3.0]), tf.Variable([1, 2])
    e = tf.Variable([1.0, 2.0], trainable=False)
    outs = [f(a, tf.constant(1.0)), f(b, tf.constant(1.0)), a.read_value(), b.read_value()]
    counts = [f.experimental_get_tracing_count()]
    outs += [f(c, tf.constant(1.0)), f(d, tf.constant(1)), f(e, tf.constant(1.0))]
    counts.append(f.experimental_get_tracing_count())
    return outs + counts


def _vars_signatures(tf):
    f = _var_fn(tf)
    f(tf.Variable([1.0, 2.0]), tf.constant(1.0))
    f(tf.Variable([1, 2]), tf.constant(1))
    f(tf.Variable([1.0, 2.0], shape=tf.TensorShape(None)), tf.constant(1.0))
    return f.pretty_printed_concrete_signatures()


def _vars_gradient(tf):
    @tf.function
    def g(v):
        return tf.reduce_sum(v * v)

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    grads = []
    for v in (a, b, a):
        with tf.GradientTape() as t:
            y = g(v)
        grads.append(t.gradient(y, v))
    return grads + [g.experimental_get_tracing_count()]


def _vars_alias(tf):
    @tf.function
    def m(v, w):
        v.assign(w * 0 + 5.0)
        return w.read_value()

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    return [m(a, a), m(a, b), b.read_value(), m(b, b), m.experimental_get_tracing_count()]


def _vars_concrete_call(tf):
    f = _var_fn(tf)
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    cf = f.get_concrete_function(a, tf.constant(1.0))
    return [cf(b, tf.constant(1.0)), a.read_value(), b.read_value(), repr(cf.structured_input_signature),
            f.experimental_get_tracing_count()]


def _vars_in_list(tf):
    @tf.function
    def k(vs):
        vs[1].assign_add(vs[0])
        return vs[0] + vs[1]

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    return [k([a, b]), k([b, a]), a.read_value(), b.read_value(), k.experimental_get_tracing_count()]


def _vars_nested_function(tf):
    @tf.function
    def inner(v):
        v.assign_add(tf.ones_like(v))
        return v.read_value()

    @tf.function
    def outer(v, w):
        return inner(v) + inner(w)

    a, b, c = tf.Variable([1.0]), tf.Variable([10.0]), tf.Variable([100.0])
    return [outer(a, b), outer(c, a), a.read_value(), b.read_value(), c.read_value(),
            inner.experimental_get_tracing_count(), outer.experimental_get_tracing_count()]


def _x(tf):
    return tf.reshape(tf.range(12.0), [6, 2])


def _ta_fixed_size_loop(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x[i])
        return ta.stack(), ta.read(1), ta.gather([2, 0]), ta.concat(), ta.size()

    return list(f(_x(tf)))


def _ta_dynamic_loop(tf):
    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack(), ta.size(), ta.concat(), ta.read(n - 1)

    x = _x(tf)
    cf = f.get_concrete_function(x, tf.constant(4))
    shapes = [str(t.shape) for t in tf.nest.flatten(cf.structured_outputs)]
    return list(f(x, tf.constant(4))) + list(f(x, tf.constant(2))) + list(f(x, tf.constant(5))) + shapes


def _ta_static_bound_loop(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(x)[0]):
            ta = ta.write(i, x[i] + 1.0)
        return ta.stack()

    return [f(_x(tf)), str(f.get_concrete_function(_x(tf)).structured_outputs.shape)]


def _ta_while_loop(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(i, x[i] - 1.0)

        _, ta = tf.while_loop(lambda i, ta: i < 5, body, [0, ta])
        return ta.stack(), ta.read(2), ta.size()

    return list(f(_x(tf)))


def _ta_element_shape_first_write(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=2)
        before = str(ta.element_shape)
        ta = ta.write(0, x[0])
        after = str(ta.element_shape)
        ta = ta.write(1, x[1])
        return tf.constant(before), tf.constant(after), ta.stack(), ta.gather([1, 0]), ta.concat()

    return list(f(_x(tf)))


def _ta_unstack_scatter_split(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
        ta2 = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], x[:3])
        ta3 = tf.TensorArray(tf.float32, size=2).split(tf.reshape(x, [-1]), [4, 8])
        return ta.read(3), ta.size(), ta2.stack(), ta3.concat(), ta3.read(1), tf.constant(str(ta3.element_shape))

    return list(f(_x(tf)))


def _ta_scatter_grows_eager(tf):
    # (TF's graph TensorList cannot stack this: unwritten elements of an empty list have no shape there;
    # tensorlet's graph gives the eager result, checked in test_function_semantics.py)
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).scatter([4, 1], _x(tf)[:2])
    return [ta.stack(), ta.size()]


def _ta_no_infer_shape_loop(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
        for i in tf.range(3):
            ta = ta.write(i, x[i])
        return ta.stack()

    return f(_x(tf))


def _ta_write_past_end(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(3, x[0])
        return ta.stack(), ta.size()

    return list(f(_x(tf)))


def _ta_unwritten_read(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, x[0])
        return ta.stack(), ta.read(2)

    return list(f(_x(tf)))


def _ta_mismatch_graph(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=2)
        ta = ta.write(0, x[0])
        return ta.write(1, x[0:2]).stack()

    return f(_x(tf))


def _ta_mismatch_eager(tf):
    ta = tf.TensorArray(tf.float32, size=2).write(0, tf.constant([1.0, 2.0]))
    return ta.write(1, tf.constant([[1.0, 2.0]])).stack()


def _ta_write_past_end_eager(tf):
    ta = tf.TensorArray(tf.float32, size=2).write(0, tf.constant([1.0, 2.0]))
    return ta.write(2, tf.constant([1.0, 2.0])).stack()


def _ta_write_past_end_graph(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.write(0, x[0]).write(2, x[1]).stack()

    return f(_x(tf))


def _ta_wrong_dtype(tf):
    return tf.TensorArray(tf.float32, size=2).write(0, tf.constant(1)).stack()


def _ta_fixed_loop_gradient(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * x[i])
        return tf.reduce_sum(ta.stack())

    x = _x(tf)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return [y, t.gradient(y, x)]


def _dynamic_index(tf):
    @tf.function
    def f(x, i, j):
        return x[i], x[i, j], x[-1], x[:, j], x[i, 1:], x[..., j]

    return list(f(_x(tf), tf.constant(-2), tf.constant(1)))


def _ir(tf):
    @tf.function(jit_compile=True)
    def f(x, y):
        return tf.reduce_sum(x * y) + 1.0

    return f.experimental_get_compiler_ir(tf.ones([2, 3]), tf.ones([2, 3]))


def _layout(text):
    """The entry computation's parameter and result shapes, as XLA prints them (module names differ)."""
    head = text.splitlines()[0]
    start = head.index("entry_computation_layout={") + len("entry_computation_layout={")
    return head[start:head.index("}", head.index("->"))]


def _compiler_ir_stages(tf):
    ir = _ir(tf)
    out = [_layout(ir()), _layout(ir(stage="hlo")), _layout(ir(stage="optimized_hlo"))]
    for stage in ("hlo", "hlo_serialized", "optimized_hlo", "optimized_hlo_serialized", "optimized_hlo_dot"):
        r = ir(stage=stage)
        out.append(type(r).__name__)
        out.append(len(r) > 100)
    out.append(ir(stage="optimized_hlo_dot").startswith("digraph"))
    return out


def _compiler_ir_specs(tf):
    @tf.function(jit_compile=True)
    def f(x):
        return tf.matmul(x, x, transpose_b=True)

    return _layout(f.experimental_get_compiler_ir(tf.TensorSpec([3, 4], tf.float32))())


def _compiler_ir_mixed_specs(tf):
    @tf.function(jit_compile=True)
    def f(x, y):
        return x + y

    return f.experimental_get_compiler_ir(tf.TensorSpec([3], tf.float32), tf.ones([3]))


CASES = {
    "compiler_ir_stages": _compiler_ir_stages,
    "compiler_ir_specs": _compiler_ir_specs,
    "compiler_ir_mixed_specs": _compiler_ir_mixed_specs,
    "compiler_ir_bad_stage": lambda tf: _ir(tf)(stage="bogus"),
    "compiler_ir_needs_jit": lambda tf: tf.function(lambda x: x + 1).experimental_get_compiler_ir(tf.ones([2])),
    "ta_fixed_size_loop": _ta_fixed_size_loop,
    "ta_dynamic_loop": _ta_dynamic_loop,
    "ta_static_bound_loop": _ta_static_bound_loop,
    "ta_while_loop": _ta_while_loop,
    "ta_element_shape_first_write": _ta_element_shape_first_write,
    "ta_unstack_scatter_split": _ta_unstack_scatter_split,
    "ta_scatter_grows_eager": _ta_scatter_grows_eager,
    "ta_no_infer_shape_loop": _ta_no_infer_shape_loop,
    "ta_write_past_end": _ta_write_past_end,
    "ta_unwritten_read": _ta_unwritten_read,
    "ta_mismatch_graph": _ta_mismatch_graph,
    "ta_mismatch_eager": _ta_mismatch_eager,
    "ta_write_past_end_eager": _ta_write_past_end_eager,
    "ta_write_past_end_graph": _ta_write_past_end_graph,
    "ta_wrong_dtype": _ta_wrong_dtype,
    "dynamic_index": _dynamic_index,
    "ta_fixed_loop_gradient": _ta_fixed_loop_gradient,
    "vars_traced_per_spec": _vars_traced_per_spec,
    "vars_signatures": _vars_signatures,
    "vars_gradient": _vars_gradient,
    "vars_alias": _vars_alias,
    "vars_concrete_call": _vars_concrete_call,
    "vars_in_list": _vars_in_list,
    "vars_nested_function": _vars_nested_function,
}
