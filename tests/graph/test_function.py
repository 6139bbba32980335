"""tf.function: tracing rules, signatures, concrete functions, side effects, variables, tiers, gradients."""

import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.graph.function import RetracingError


@pytest.fixture(autouse=True)
def _quiet_retracing():
    tf.config.experimental.set_retracing_policy("ignore")
    yield
    tf.config.experimental.set_retracing_policy("warn")
    tf.config.run_functions_eagerly(False)


def test_traces_once_per_dtype_and_shape():
    trace_log = []

    @tf.function
    def f(x):
        trace_log.append(1)  # a Python side effect: runs only while tracing
        return x * 2

    np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    f(tf.constant([3.0, 4.0]))
    assert f.experimental_get_tracing_count() == 1
    f(tf.constant([1.0, 2.0, 3.0]))  # new shape
    f(tf.constant([1, 2]))  # new dtype
    assert f.experimental_get_tracing_count() == 3
    assert len(trace_log) == 3


def test_python_values_key_by_value_and_canonicalize_keywords():
    @tf.function
    def f(x, n):
        return x + n

    f(tf.constant(1), 1)
    f(tf.constant(1), n=1)  # same call, keyword form
    assert f.experimental_get_tracing_count() == 1
    assert int(f(tf.constant(1), 2)) == 3
    assert f.experimental_get_tracing_count() == 2


def test_numpy_arrays_are_tensors():
    @tf.function
    def f(x):
        return x + 1

    out = f(np.array([1.0, 2.0], np.float32))
    assert isinstance(out, tf.Tensor) and out.dtype == tf.float32
    f(np.array([5.0, 6.0], np.float32))
    assert f.experimental_get_tracing_count() == 1


def test_retrace_warning_says_why_and_strict_mode_raises(caplog):
    # TF's frequent-tracing warning, through the tensorflow logger; tensorlet adds which argument changed
    tf.config.experimental.set_retracing_policy("warn")

    @tf.function
    def f(x, scale):
        return x * scale

    with caplog.at_level("WARNING", logger="tensorflow"):
        f(tf.constant([1.0]), 2.0)
        f(tf.constant([1.0, 2.0]), 2.0)
        for k in range(2, 5):
            f(tf.constant([1.0, 2.0]), float(k + 1))
    msgs = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    assert len(msgs) == 1, msgs
    assert msgs[0].startswith("5 out of the last 5 calls to <function ")
    assert "argument `scale` changed from Python float 4.0 to Python float 5.0" in msgs[0]
    tf.config.experimental.set_retracing_policy("raise")
    with pytest.raises(RetracingError, match="argument `x`"):
        f(tf.constant([1.0, 2.0, 3.0]), 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(tf.constant([1.0, 2.0]), 3.0)  # cached: no retrace, no warning


def test_input_signature_with_none_dims_traces_once():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return tf.reduce_sum(x, axis=1)

    np.testing.assert_allclose(f(tf.ones([2, 3])).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(f(tf.ones([5, 3])).numpy(), [3.0] * 5)
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="TensorSpec"):
        f(tf.ones([2, 4]))
    with pytest.raises(TypeError):
        f(tf.ones([2, 3], tf.int32))
    cf = f.get_concrete_function()
    (spec,), _ = cf.structured_input_signature
    assert spec.shape.as_list() == [None, 3] and spec.dtype == tf.float32


def test_reduce_retracing_relaxes_shapes():
    @tf.function(reduce_retracing=True)
    def f(x):
        return x + 1

    f(tf.ones([2]))
    f(tf.ones([3]))
    f(tf.ones([4]))
    f(tf.ones([7]))
    assert f.experimental_get_tracing_count() == 2  # the second trace has a None dim and serves every length


def test_methods_get_one_cache_per_instance():
    class Scale(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)

        @tf.function
        def __call__(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(3.0)
    assert float(a(tf.constant(1.0))) == 2.0
    assert float(b(tf.constant(1.0))) == 3.0
    assert float(a(tf.constant(2.0))) == 4.0
    assert Scale.__call__.experimental_get_tracing_count() == 0
    assert a.__call__.experimental_get_tracing_count() == 1


def test_concrete_function_api_and_printable_graph():
    @tf.function
    def f(x, y):
        return {"sum": x + y, "prod": x * y}

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.float32))
    args, kwargs = cf.structured_input_signature
    assert len(args) == 2 and kwargs == {}
    assert set(cf.structured_outputs) == {"sum", "prod"}
    text = str(cf.graph)
    assert "AddV2" in text and "Mul" in text and "float32[2]" in text
    out = cf(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    np.testing.assert_allclose(out["prod"].numpy(), [3.0, 8.0])
    with pytest.raises(TypeError):
        cf(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0, 3.0]))


def test_side_effects_trace_time_only_but_tf_print_every_call(capsys):
    @tf.function
    def f(x):
        print("tracing")
        tf.print("value", x, output_stream=sys.stdout)
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    f(tf.constant(3))
    out = capsys.readouterr().out
    assert out.count("tracing") == 1
    assert "value 1" in out and "value 2" in out and "value 3" in out


def test_variables_created_on_first_trace_only():
    class Lazy:
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(tf.ones_like(x))
            return self.v * x

    m = Lazy()
    np.testing.assert_allclose(m(tf.constant([2.0, 3.0])).numpy(), [2.0, 3.0])

    @tf.function
    def bad(x):
        v = tf.Variable(1.0)
        return v + x

    # as in TF, a function that creates variables is traced twice on its first call; creating them again is
    # the error (so it is raised on the first call already)
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        bad(tf.constant(1.0))


def test_run_functions_eagerly():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x.numpy() + 1  # .numpy() works only when run eagerly

    tf.config.run_functions_eagerly(True)
    assert f(tf.constant(1)) == 2
    assert f(tf.constant(1)) == 2
    assert len(calls) == 2
    tf.config.run_functions_eagerly(False)
    with pytest.raises(NotImplementedError, match="numpy"):
        f(tf.constant(1))


def test_symbolic_tensor_errors_are_clear():
    @tf.function
    def f(x):
        return tf.constant(1) if bool(x > 0) else tf.constant(2)

    with pytest.raises(TypeError, match="symbolic `tf.Tensor`"):
        f(tf.constant(1))


def _mlp_step_fn(w, b, opt_lr=0.1):
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(opt_lr * gw)
        b.assign_sub(opt_lr * gb)
        return loss

    return step


@pytest.mark.parametrize("jit", [None, True, False])
def test_train_step_matches_eager(jit):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(16, 4)).astype(np.float32))
    y = tf.constant(rng.normal(size=(16, 2)).astype(np.float32))
    w0 = rng.normal(size=(4, 2)).astype(np.float32)
    we, be = tf.Variable(w0), tf.Variable(tf.zeros([2]))
    wg, bg = tf.Variable(w0), tf.Variable(tf.zeros([2]))
    eager, graph = _mlp_step_fn(we, be), tf.function(_mlp_step_fn(wg, bg), jit_compile=jit)
    for _ in range(4):
        le, lg = eager(x, y), graph(x, y)
        np.testing.assert_allclose(lg.numpy(), le.numpy(), rtol=1e-5)
    np.testing.assert_allclose(wg.numpy(), we.numpy(), rtol=1e-5, atol=1e-6)
    cf = graph.get_concrete_function(x, y)
    assert (cf._compiled is not None) == (jit is not False)


def test_first_call_runs_on_numpy_executor_then_compiles():
    @tf.function
    def f(x):
        for _ in range(10):
            x = tf.tanh(x) * 1.5
        return x

    x = tf.ones([50, 50])
    f(x)
    cf = f.get_concrete_function(x)
    assert cf._compiled is None and cf._plan is not None
    f(x)
    assert cf._compiled is not None


def test_jit_compile_true_names_the_blocking_op():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.strings.length(tf.strings.as_string(x))

    with pytest.raises(tf.errors.InvalidArgumentError, match="jit_compile=True but op AsString"):
        f(tf.constant([1, 22]))

    @tf.function
    def g(x):
        return tf.strings.length(tf.strings.as_string(x))

    for _ in range(3):
        np.testing.assert_array_equal(g(tf.constant([1, 22])).numpy(), [1, 2])  # NumPy executor


def test_gradient_through_a_function_call():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)))

    x = tf.constant([[0.1, -0.2]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, w])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y2 = tf.reduce_sum(tf.tanh(tf.matmul(x, w)))
    ex, ew = tape.gradient(y2, [x, w])
    np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-6)


def test_second_derivative_through_function():
    @tf.function
    def cube(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = cube(x)
        dy = t1.gradient(y, x)
    assert float(dy) == pytest.approx(12.0)
    assert float(t2.gradient(dy, x)) == pytest.approx(12.0)


def test_nested_function_calls_inline():
    @tf.function
    def inner(x):
        return x * 3

    @tf.function
    def outer(x):
        return inner(x) + inner(x + 1)

    assert float(outer(tf.constant(1.0))) == 9.0
    ops = [n.op.name for n in outer.get_concrete_function(tf.constant(1.0)).graph.nodes]
    assert "Mul" in ops


def test_stateful_random_differs_per_call_and_follows_seed():
    @tf.function
    def f():
        return tf.random.uniform([4])

    tf.random.set_seed(7)
    a1, a2 = f().numpy(), f().numpy()
    assert not np.allclose(a1, a2)

    @tf.function
    def g():
        return tf.random.uniform([4])

    tf.random.set_seed(7)
    b1 = g().numpy()
    assert b1.shape == (4,) and np.all((b1 >= 0) & (b1 < 1))


def test_graph_passes_fold_cse_dce():
    @tf.function
    def f(x):
        unused = tf.exp(x) * 100.0  # noqa: F841  (dead code)
        a = tf.sin(x)
        b = tf.sin(x)  # same op twice: merged
        s = tf.shape(x)[0]  # static shape: folded to a constant
        return a + b + tf.cast(s, tf.float32)

    g = f.get_concrete_function(tf.constant([1.0, 2.0])).graph
    names = [n.op.name for n in g.nodes]
    assert names.count("Sin") == 1
    assert "Exp" not in names and "Shape" not in names
    np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), 2 * np.sin([1.0, 2.0]) + 2, rtol=1e-6)


def test_memory_flat_over_calls_and_recreations():
    x = tf.constant([1.0, 2.0])

    @tf.function
    def f(v):
        return v * 2.0 + 1.0

    for _ in range(200):
        f(x)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(3000):
        f(x)
    grown_calls = tracemalloc.get_traced_memory()[0] - base
    for _ in range(300):
        tf.function(lambda v: v + 1.0)(x)
    grown_fns = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert grown_calls < 64 * 1024, grown_calls
    assert grown_fns < 2 * 1024 * 1024, grown_fns


def test_random_crop_style_slice_traces_and_compiles():
    x = tf.constant(np.arange(60, dtype=np.float32).reshape(5, 12))

    @tf.function
    def crop(x, off):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.slice(x, tf.concat([off, [2]], 0), [2, 3])
            loss = tf.reduce_sum(y * y)
        return y, t.gradient(loss, x)

    for _ in range(3):
        y, g = crop(x, tf.constant([1]))
        np.testing.assert_array_equal(y.numpy(), x.numpy()[1:3, 2:5])
        expect = np.zeros((5, 12), np.float32)
        expect[1:3, 2:5] = 2 * x.numpy()[1:3, 2:5]
        np.testing.assert_array_equal(g.numpy(), expect)
    assert crop.get_concrete_function(x, tf.constant([1]))._compiled is not None
    with pytest.raises(ValueError, match="explicit `size`"):
        tf.function(lambda v, o: tf.slice(v, o, [-1, 2]))(x, tf.constant([0, 0]))


def test_graph_def_and_summary_trace_export(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.compat.proto import config_pb2

    @tf.function
    def f(x):
        return tf.nn.relu(tf.matmul(x, x)) + 1.0

    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True)
    f(tf.ones([2, 2]))
    with writer.as_default():
        tf.summary.trace_export("f_trace", step=0)
    writer.flush()
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    acc.Reload()
    meta = config_pb2.RunMetadata.FromString(acc.Tensors("f_trace")[0].tensor_proto.string_val[0])
    nodes = {n.op: list(n.input) for n in meta.function_graphs[0].pre_optimization_graph.node}
    assert nodes["MatMul"] == ["arg0", "arg0"] and "Relu" in nodes and "AddV2" in nodes
    gd = f.get_concrete_function(tf.ones([2, 2])).graph.as_graph_def()
    assert [n.op for n in gd.node][:2] == ["Placeholder", "MatMul"]
