"""tf.autograph's public functions: to_graph, to_code, set_verbosity, trace, experimental.*."""

import tensorlet as tf


def _f(x):
    if x > 0:
        x = x * 2
    else:
        x = -x
    return x


def test_to_graph_converts_control_flow_for_tracing():
    g = tf.autograph.to_graph(_f)
    assert g is not _f and g(3) == 6
    traced = tf.function(g, autograph=False)
    assert traced(tf.constant(-2.0)).numpy() == 2.0 and traced(tf.constant(2.0)).numpy() == 4.0


def test_to_code_shows_converted_source():
    code = tf.autograph.to_code(_f)
    assert code.startswith("def _f(x):") and "ag__" in code
    compile(code, "<to_code>", "exec")
    assert "ag__" in tf.autograph.to_code(tf.function(_f))


def test_verbosity_trace_and_experimental(capsys):
    tf.autograph.set_verbosity(0)
    tf.autograph.set_verbosity(3, alsologtostdout=True)
    tf.autograph.trace("x", 1)
    assert capsys.readouterr().out == "x 1\n"
    F = tf.autograph.experimental.Feature
    assert F.ALL in F.all() and F.LISTS not in F.all_but(F.LISTS)
    tf.autograph.experimental.set_loop_options(parallel_iterations=4)

    @tf.autograph.experimental.do_not_convert
    def h(x):
        return x

    assert tf.autograph.to_graph(h) is h
