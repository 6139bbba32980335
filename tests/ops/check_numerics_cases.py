"""tf.debugging.enable_check_numerics programs run by real TF (tools/record_tf_goldens/op_extras.py ->
tests/goldens/check_numerics.json) and by tensorlet (tests/ops/test_check_numerics_mode.py).

A case returns the error's message from "!!! Detected" to "... values" (TF prefixes its function-node name, tensorlet
suffixes the user's line), or the value when nothing is detected.  Graph cases keep the lines that do not name
graph tensors (TF's node names differ) and drop TF's stack trace."""

import re


def _message(tf, fn, graph=False):
    tf.debugging.enable_check_numerics()
    try:
        return fn()
    except tf.errors.InvalidArgumentError as e:
        s = str(e)
        tail = s.index(" : Tensor had")
        text = s[s.index("!!!"):s.index(" values", tail) + len(" values")]
        if graph:
            lines = text.split("\n")
            keep = [ln for ln in lines[:3] + [ln for ln in lines if ln.startswith("  Graph name")]]
            return keep + [s[tail:s.index(" values", tail) + len(" values")]]
        return text
    finally:
        tf.debugging.disable_check_numerics()


def _fn_case(tf):
    @tf.function
    def f(x):
        y = x * 2.0
        return tf.math.log(y)

    return _message(tf, lambda: f(tf.constant([1.0, 0.0])), graph=True)


def _fn_before(tf):
    f = tf.function(lambda x: tf.math.log(x))
    f(tf.constant([1.0]))  # traced before the mode is on: its call is checked as one op (TF numbers its name)
    return re.sub(r'"__inference_(.*)_\d+"', r'"__inference_\1"', _message(tf, lambda: f(tf.constant([0.0]))))


def _disabled(tf):
    tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()
    return tf.math.log(tf.constant([0.0, 1.0]))


def _grad(tf):
    x = tf.constant([0.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    return tape.gradient(y, x)


CASES = {
    "log": lambda tf: _message(tf, lambda: tf.math.log(tf.constant([1.0, 0.0]))),
    "div_all_three": lambda tf: _message(tf, lambda: tf.constant([0.0, 1.0, -1.0]) / tf.constant([0.0, 0.0, 0.0])),
    "sqrt_nan": lambda tf: _message(tf, lambda: tf.math.sqrt(tf.constant([-1.0, 4.0]))),
    "cast_overflow": lambda tf: _message(tf, lambda: tf.cast(tf.constant([1e39], tf.float64), tf.float32)),
    "mul_scalar": lambda tf: _message(tf, lambda: tf.constant([1.0]) * float("inf")),
    "exp_float64": lambda tf: _message(tf, lambda: tf.exp(tf.constant([[1000.0, 1.0]], tf.float64))),
    "neg_and_pos_inf": lambda tf: _message(tf, lambda: tf.math.log(tf.constant([0.0])) * tf.constant([1.0, -1.0])),
    "reshape_not_checked": lambda tf: _message(tf, lambda: tf.reshape(tf.constant([float("nan")]), [1, 1])),
    "concat_not_checked": lambda tf: _message(tf, lambda: tf.concat([tf.constant([float("nan")]), [1.0]], 0)),
    "finite_ok": lambda tf: _message(tf, lambda: tf.nn.softmax(tf.constant([1.0, 2.0]))),
    "int_ops_ok": lambda tf: _message(tf, lambda: tf.constant([1, 2]) * 3),
    "gradient_ok": lambda tf: _message(tf, lambda: _grad(tf)),
    "function": _fn_case,
    "function_traced_before": _fn_before,
    "disabled": _disabled,
}
