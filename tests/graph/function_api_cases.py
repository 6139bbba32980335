"""tf.function's API (printed signatures, output dtypes/shapes, tracing counts, variable creation rules) run by
real TF (tools/record_tf_goldens/function_api.py -> tests/goldens/function_api.json) and by tensorlet
(tests/graph/test_function_api.py)."""


def _f(tf):
    @tf.function
    def f(x, y=2):
        return {"a": x * 2.0, "b": tf.cast(x, tf.int32)}

    f(tf.constant([1.0, 2.0]))
    return f, f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32, name="inp"))


def _g(tf):
    @tf.function
    def g(a, b):
        return a + b, [a]

    g(tf.constant(1), tf.constant(2))
    return g


def _creates_variable(tf):
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v + x

    return f(1.0)


def _creates_variable_once(tf):
    box = []

    @tf.function
    def f(x):
        if not box:
            box.append(tf.Variable(1.0))
        return box[0] + x

    return [f(1.0), f(2.0)]


def _numbers(tf):
    @tf.function
    def f(x):
        return x

    for v in (1, 1.0, True, 2, 2.0, 0, False, 0.5):
        f(v)
    return f.experimental_get_tracing_count()


def _input_signature_lists(tf):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2

    return f([1.0, 2.0])


CASES = {
    "concrete_signatures": lambda tf: _f(tf)[0].pretty_printed_concrete_signatures(),
    "signature_verbose": lambda tf: _f(tf)[1].pretty_printed_signature(),
    "signature_short": lambda tf: _f(tf)[1].pretty_printed_signature(verbose=False),
    "output_dtypes": lambda tf: repr(_f(tf)[1].output_dtypes),
    "output_shapes": lambda tf: repr(_f(tf)[1].output_shapes),
    "tuple_outputs": lambda tf: _g(tf).pretty_printed_concrete_signatures(),
    "tuple_output_shapes": lambda tf: repr(_g(tf).get_concrete_function(tf.constant(1), tf.constant(2))
                                           .output_shapes),
    "variable_every_call": _creates_variable,
    "variable_once": _creates_variable_once,
    "tracing_numbers": _numbers,
    "input_signature_list": _input_signature_lists,
}
