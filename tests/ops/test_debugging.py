"""tf.debugging and tf.print: assertions pass/fail as TF's do, with TF 2.21's eager message layout
(the expected texts below were recorded from TensorFlow), check_numerics, tf.Assert and tf.print."""

import contextlib
import io
import sys

import numpy as np
import pytest
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

FLOATS = ("float16", "bfloat16", "float32", "float64")
SHAPES = [((2, 3),), ((),), ((0,),)]


def _passes(result, x):
    """An assertion returns None eagerly; the case then checks the tensor passed through."""
    assert result is None
    return x


def _printed(*args, **kw):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert tf.print(*args, output_stream=sys.stdout, **kw) is None
    return tf.constant(buf.getvalue())


def _str0(s):
    a = np.empty((), object)
    a[()] = s.encode()
    return a


CASES = [
    Case(lambda x: tf.debugging.check_numerics(x, "bad"), lambda x: x, SHAPES, FLOATS, ops=("CheckNumerics",)),
    Case(lambda x: tf.debugging.assert_all_finite(x, "bad"), lambda x: x, SHAPES[:1], ("float32",),
         ops=("CheckNumerics",), id="assert_all_finite"),
    Case(lambda x: _passes(tf.debugging.Assert(tf.reduce_all(x < 10.0), [x, tf.constant(3)], summarize=2), x),
         lambda x: x, SHAPES, ("float32", "float64"), ops=("Assert", "Less"), id="Assert"),
    Case(lambda x: _passes(tf.Assert(True, [x]), x), lambda x: x, SHAPES[:1], ("int32",), ops=("Assert",),
         id="tf.Assert"),
    Case(lambda x, y: _passes(tf.debugging.assert_equal(x, x + y * 0), x), lambda x, y: x,
         [((2, 3), (2, 3)), ((4, 1), (3,))], ("float32",), ops=("Equal",), id="assert_equal"),
    Case(lambda x, y: _passes(tf.debugging.assert_none_equal(x, x + 1), x), lambda x, y: x, [((2, 3), ())],
         ("int64",), ops=("NotEqual",), id="assert_none_equal"),
    Case(lambda x: _passes(tf.debugging.assert_less(x, x + 1), x), lambda x: x, SHAPES, ("int32",),
         ops=("Less",), id="assert_less"),
    Case(lambda x: _passes(tf.debugging.assert_less_equal(x, x), x), lambda x: x, SHAPES, ("float32",),
         ops=("LessEqual",), id="assert_less_equal"),
    Case(lambda x: _passes(tf.debugging.assert_greater(x + 1, x), x), lambda x: x, SHAPES, ("int8",),
         ops=("Greater",), id="assert_greater"),
    Case(lambda x: _passes(tf.debugging.assert_greater_equal(x, x), x), lambda x: x, SHAPES, ("uint8",),
         ops=("GreaterEqual",), id="assert_greater_equal"),
    Case(lambda x: _passes(tf.debugging.assert_positive(x), x), lambda x: x, SHAPES, ("float32", "int32"),
         domain=(1, 5), ops=("Less",), id="assert_positive"),
    Case(lambda x: _passes(tf.debugging.assert_negative(x), x), lambda x: x, SHAPES, ("float32",),
         domain=(-5, -1), ops=("Less",), id="assert_negative"),
    Case(lambda x: _passes(tf.debugging.assert_non_negative(x), x), lambda x: x, SHAPES, ("int64",),
         domain=(0, 5), ops=("LessEqual",), id="assert_non_negative"),
    Case(lambda x: _passes(tf.debugging.assert_non_positive(x), x), lambda x: x, SHAPES, ("float64",),
         domain=(-5, 0), ops=("LessEqual",), id="assert_non_positive"),
    # jax=False: assert_near's Assert carries string data (its message), which has no jax form
    Case(lambda x: _passes(tf.debugging.assert_near(x, x * 1.0000001, rtol=1e-6), x), lambda x: x, SHAPES,
         ("float32", "float64"), ops=("Assert",), jax=False, id="assert_near"),
    # tf.print formats tensors as TF does; NumPy's str agrees for one-digit non-negative integers
    Case(lambda x: _printed("x:", x), lambda x: _str0(f"x: {x}\n"), [((3,),), ((2, 3),), ((2, 2, 2),)],
         ("int32", "int64"), domain=(0, 9), ops=("StringFormat", "PrintV2"), jax=False, check_dtype=False,
         graph=False, id="print"),  # reads what it printed (a Python side effect): eager only
    Case(lambda x: _printed(x, {"k": [x, 1]}, sep="|", end="!"), lambda x: _str0(f"{x}|{{'k': [{x}, 1]}}!"),
         [((2,),)], ("int32",), domain=(0, 9), ops=("StringFormat", "PrintV2"), jax=False, check_dtype=False,
         graph=False, id="print_nested"),  # reads what it printed: eager only
]


def _x(*v, dtype=None):
    return tf.constant(list(v), dtype)


ERRORS = [
    Err(lambda: tf.debugging.assert_equal(_x(1, 2), _x(1, 3)), tf.errors.InvalidArgumentError,
        r"^Condition x == y did not hold\.\nIndices of first 1 different values:\n\[\[1\]\]"),
    Err(lambda: tf.debugging.assert_equal(_x(1, 2), _x(1, 2, 3)), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Equal\]"),
    Err(lambda: tf.debugging.assert_equal(_x(1.0), 1), tf.errors.InvalidArgumentError,
        r"cannot compute Equal as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor"),
    Err(lambda: tf.debugging.assert_less(_x(1.0), 2), tf.errors.InvalidArgumentError, "cannot compute Less"),
    Err(lambda: tf.debugging.assert_positive(_x("a")), TypeError, "Cannot convert 0 to EagerTensor of dtype string"),
    Err(lambda: tf.debugging.assert_near(_x(1, 2), _x(1, 2)), ValueError,
        "data type <class 'numpy.int32'> not inexact"),
    Err(lambda: tf.debugging.assert_near(_x(1.0), _x(1)), ValueError, "Tensor conversion requested dtype float32"),
    Err(lambda: tf.debugging.assert_rank(_x(1, 2), 2), ValueError,
        r"^Tensor  must have rank 2\.  Received rank 1, shape \(2,\)$"),
    Err(lambda: tf.debugging.assert_rank(_x(1, 2), 2, message="rk"), ValueError, r"^rk\.  Tensor  must have rank 2"),
    Err(lambda: tf.debugging.assert_rank(_x(1, 2), [1]), ValueError, "Rank must be a scalar."),
    Err(lambda: tf.debugging.assert_rank(_x(1, 2), 1.5), TypeError, "tensor must be of type tf.int32; got tf.float32"),
    Err(lambda: tf.debugging.assert_rank_at_least(_x(1, 2), 2), ValueError,
        r"Tensor  must have rank at least 2\.  Received rank 1, shape \(2,\)"),
    Err(lambda: tf.debugging.assert_rank_in(_x(1, 2), [0, 2]), ValueError,
        r"Tensor  must have rank in \(0, 2\)\.  Received rank 1, shape \(2,\)"),
    Err(lambda: tf.debugging.assert_scalar(_x(1), message="ms"), ValueError,
        r"^ms\.  Expected scalar shape, saw shape: \(1,\)\.$"),
    Err(lambda: tf.debugging.assert_type(_x(1, 2), tf.float32, message="ty"), TypeError,
        "^ty.  tensor must be of type tf.float32; got tf.int32$"),
    Err(lambda: tf.debugging.assert_integer(_x(1.0, 2.0)), TypeError,
        "Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>"),
    Err(lambda: tf.debugging.check_numerics(_x(1.0, np.nan), "msg here"), tf.errors.InvalidArgumentError,
        r"^msg here : Tensor had NaN values \[Op:CheckNumerics\]"),
    Err(lambda: tf.debugging.check_numerics(_x(1.0, np.inf), "m"), tf.errors.InvalidArgumentError,
        "m : Tensor had Inf values"),
    Err(lambda: tf.debugging.check_numerics(_x(np.inf, np.nan, dtype=tf.float16), "m"),
        tf.errors.InvalidArgumentError, "m : Tensor had Inf and NaN values"),
    Err(lambda: tf.debugging.check_numerics(_x(1, 2), "m"), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double"),
    Err(lambda: tf.debugging.assert_all_finite(_x(np.nan), "m2"), tf.errors.InvalidArgumentError,
        "m2 : Tensor had NaN values"),
    Err(lambda: tf.debugging.Assert(False, ["x"]), tf.errors.InvalidArgumentError,
        r"^Expected 'False' to be true\. Summarized data: b'x'"),
    Err(lambda: tf.debugging.Assert(_x(True, True), [1]), ValueError, "truth value of an array"),
    Err(lambda: tf.debugging.Assert(False, [None]), ValueError, r"Attempt to convert a value \(None\)"),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "Q")), (tf.zeros([3, 4]), ("N", 4))]),
        ValueError, r"^Specified by tensor shape=\(2, 3\) dtype=float32 dimension 0\.  Tensor shape=\(3, 4\) "
                    r"dtype=float32 dimension 0 must have size 2\.  Received size 3, shape \(3, 4\)$"),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3]), "NQ"), (tf.zeros([2, 5]), "NQ")], message="sh"),
        ValueError, r"^sh\.  Specified by tensor shape=\(2, 3\) dtype=float32 dimension 1\."),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3, 4]), (..., 5))]), ValueError,
        r"^Specified explicitly\.  Tensor shape=\(2, 3, 4\) dtype=float32 dimension -1 must have size 5\."),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2,))]), ValueError,
        r"Tensor  must have rank in \(0, 1\)\.  Received rank 2, shape \(2, 3\)"),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", 3, "...", 1))]), ValueError,
        "Tensor  must have rank 4"),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "*"))]), ValueError,
        r"specified shape index 1\.  Symbol `...` or `\*` for a variable number"),
    Err(lambda: tf.debugging.assert_shapes([(tf.zeros([]), (2,))]), ValueError,
        r"dimension 0 must have size 2\.  Received size 1, shape \(\)"),
    Err(lambda: tf.debugging.assert_same_float_dtype([tf.constant([1])]), ValueError,
        "Expected floating point type, got <dtype: 'int32'>"),
    Err(lambda: tf.debugging.assert_proper_iterable("ab"), TypeError, 'to be a "proper" iterable'),
    Err(lambda: tf.print("x", output_stream=io.StringIO()), ValueError,
        "Unsupported output stream, logging level, or file"),
    Err(lambda: tf.print("x", badkw=1), ValueError, r"Unrecognized keyword arguments for tf.print: \{'badkw': 1\}"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def _message(fn):
    """The error text without tensorlet's trailing "(at file:line: source)"."""
    with pytest.raises(Exception) as info:
        fn()
    text = str(info.value)
    return text.split(" (at test_debugging.py:")[0]


# Expected texts recorded from TensorFlow 2.21 (eager).
def test_binary_assert_message_layout():
    assert _message(lambda: tf.debugging.assert_equal(_x(1, 2), _x(1, 3), message="hi")) == (
        "hi\nCondition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\nCorresponding x values:\n"
        "[2]\nCorresponding y values:\n[3]\nFirst 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 3]")
    assert _message(lambda: tf.debugging.assert_equal(tf.constant([[1, 2], [3, 4]]), tf.constant([[1, 3], [3, 5]]),
                                                      summarize=1)) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[0 1]]\nCorresponding x values:\n"
        "[2]\nCorresponding y values:\n[3]\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:\n[1]")
    assert _message(lambda: tf.debugging.assert_greater(_x(1, 2), _x(1, 3))) == (
        "Condition x > y did not hold.\nIndices of first 2 different values:\n[[0]\n [1]]\nCorresponding x values:\n"
        "[1 2]\nCorresponding y values:\n[1 3]\nFirst 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 3]")
    # shapes differ: no indices; summarize=0: the condition only
    assert _message(lambda: tf.debugging.assert_equal(tf.constant([[1.5, 2], [3, 4]]), 1.5)) == (
        "Condition x == y did not hold.\nFirst 3 elements of x:\n[1.5 2.  3. ]\nFirst 1 elements of y:\n[1.5]")
    assert _message(lambda: tf.debugging.assert_equal(tf.zeros([2, 2]), tf.ones([2, 2]), summarize=0)) == (
        "Condition x == y did not hold.")
    assert _message(lambda: tf.debugging.assert_equal(tf.zeros([2, 2]), tf.ones([2, 2]), summarize=-1)).endswith(
        "First 4 elements of y:\n[1. 1. 1. 1.]")


def test_sign_assert_message_layout():
    assert _message(lambda: tf.debugging.assert_positive(_x(1, -2), message="pos")) == (
        "pos.  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['1', '-2']")
    assert _message(lambda: tf.debugging.assert_negative(_x(1, -2))) == (
        "\nCondition x < 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['1', '-2']")
    assert _message(lambda: tf.debugging.assert_non_positive(_x(1, -2))) == (  # TF joins these two lines
        "\nCondition x <= 0 did not hold element-wise:x (shape=(2,) dtype=int32) = \n['1', '-2']")
    assert _message(lambda: tf.debugging.assert_positive(tf.constant([[1.5, -2], [3, 4]]), summarize=2)) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(2, 2) dtype=float32) = \n['1.5', '-2.0', '...']")
    assert _message(lambda: tf.debugging.assert_positive(tf.constant(-1.0), message="sc")) == (
        "sc.  \nCondition x > 0 did not hold element-wise:\nx (shape=() dtype=float32) = \n-1.0")


def test_assert_and_assert_near_message_layout():
    assert _message(lambda: tf.debugging.Assert(tf.constant(False), [tf.constant([1, 2, 3]), "text", 5],
                                                summarize=2)) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: 1, 2, ...\nb'text'\n5")
    assert _message(lambda: tf.debugging.Assert(False, [tf.constant([[1, 2], [3, 4]]), tf.constant([1.5, 2.25]),
                                                        tf.constant(["a", "b"]), 2.5, True])) == (
        "Expected 'False' to be true. Summarized data: 1, 2, 3, ...\n1.5, 2.25\nb'a', b'b'\n2.5\nTrue")
    assert _message(lambda: tf.debugging.Assert(tf.constant(False), ["a"], summarize=0)) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: ")
    assert _message(lambda: tf.debugging.assert_near(_x(1.0, 2.0), _x(1.0, 2.1), message="nm", summarize=1)) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'nm.  '\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32), "
        "atol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\nb'x (shape=(2,) dtype=float32) = '\n1.0, ...\n"
        "b'y (shape=(2,) dtype=float32) = '\n1.0, ...")


def test_assertion_errors_name_the_users_line():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.debugging.assert_equal(1, 2)  # the failing line
    assert "test_debugging.py" in str(info.value) and "the failing line" in str(info.value)


def test_tolerances_and_passing_asserts():
    assert tf.debugging.assert_near(_x(1.0), 1.5, atol=0.6) is None
    assert tf.debugging.assert_near(_x(1 + 1j), _x(1 + 1.1j), atol=0.2) is None
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_near(_x(1.0), 2.0, atol=0.5, rtol=0.0)
    assert tf.debugging.assert_near(_x(1.0, 2.0, dtype=tf.float16), _x(1.0, 2.001, dtype=tf.float16)) is None
    assert tf.debugging.assert_equal([1, 2], [1, 2]) is None
    assert tf.debugging.assert_equal(tf.zeros([0]), tf.zeros([0])) is None
    assert tf.debugging.assert_positive(tf.constant([], tf.float32)) is None
    assert tf.debugging.assert_rank(_x(1, 2), tf.constant(1)) is None
    assert tf.debugging.assert_rank_in(_x(1, 2), (1, 2)) is None
    assert tf.debugging.assert_type(_x(1.0), "float32") is None
    assert tf.debugging.assert_integer([1]) is None
    assert tf.debugging.assert_scalar(3) is None
    assert tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "Q")), (tf.zeros([2, 4]), ("N", 4))]) is None
    assert tf.debugging.assert_shapes([(tf.zeros([2, 3, 4]), ("B", None, 4))]) is None
    assert tf.debugging.assert_shapes([(tf.zeros([]), ("N",)), (tf.zeros([1]), ())]) is None
    assert tf.debugging.assert_shapes([(tf.zeros([5, 2, 3]), (..., "N", 3)), (tf.zeros([2]), ("N",))]) is None
    assert tf.debugging.assert_same_float_dtype([tf.constant([1.0])]) is tf.float32
    assert tf.debugging.is_numeric_tensor(tf.constant([1]))
    assert not tf.debugging.is_numeric_tensor(tf.constant(["a"]))
    assert not tf.debugging.is_numeric_tensor([1])
    assert tf.assert_equal is tf.debugging.assert_equal and tf.Assert is tf.debugging.Assert
    assert tf.assert_less is tf.debugging.assert_less and tf.assert_rank is tf.debugging.assert_rank


def test_log_device_placement_flag():
    assert tf.debugging.get_log_device_placement() is False
    tf.debugging.set_log_device_placement(True)
    try:
        assert tf.debugging.get_log_device_placement() is True
    finally:
        tf.debugging.set_log_device_placement(False)


def _out(*args, **kw):
    return _printed(*args, **kw).numpy().decode()


def test_print_formats_like_tf():
    # outputs recorded from TensorFlow 2.21
    assert _out(tf.range(10)) == "[0 1 2 ... 7 8 9]\n"
    assert _out(tf.range(10), summarize=2) == "[0 1 ... 8 9]\n"
    assert _out(tf.constant([1.5, 2.0, 1 / 3, 1e-8, 1e10])) == "[1.5 2 0.333333343 1e-08 1e+10]\n"
    assert _out(tf.constant([True, False])) == "[1 0]\n"
    assert _out(tf.constant(["a", "b c"]), tf.constant("x")) == '["a" "b c"] "x"\n'
    assert _out(tf.constant("solo")) == "solo\n"  # a lone scalar string prints raw
    assert _out("hello", 1, 2.5, True, None, [1, 2], (3, "s"), {"b": 1, "a": tf.constant([1, 2])}) == (
        "hello 1 2.5 True None [1, 2] (3, 's') {'a': [1 2], 'b': 1}\n")
    assert _out({"b": [tf.constant([1.5])], "a": ("x", tf.constant("s"))}) == "{'a': ('x', \"s\"), 'b': [[1.5]]}\n"
    assert _out("{}", tf.constant(1)) == "{} 1\n"
    assert _out("a", "b", sep=",", end="!\n") == "a,b!\n"
    assert _out(tf.zeros([0]), tf.zeros([2, 0])) == "[] [\n ...]\n"
    assert _out(tf.constant([1 + 2j, 3j])) == "[? ?]\n"
    assert _out() == "\n"


def test_print_to_stderr_and_file(tmp_path, capsys):
    tf.print("to stderr", tf.constant([1, 2]))
    assert capsys.readouterr().err == "to stderr [1 2]\n"
    path = tmp_path / "out.txt"
    tf.print("line1", output_stream=f"file://{path}")
    tf.print("line2", output_stream=f"file://{path}")
    assert path.read_text() == "line1\nline2\n"


def test_assert_op_in_graphs_uses_the_kernel_layout():
    # what TF's Assert kernel prints when the op runs inside a graph: "[item] [item] ...", strings raw
    from tensorlet._src.ops.debugging import ASSERT
    from tensorlet._src.ops.registry import bind

    expected = r"assertion failed: \[x = \] \[1 2 3\.\.\.\] \[Op:Assert\]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=expected):
        bind(ASSERT, tf.constant(False), tf.constant("x = "), tf.constant([1, 2, 3, 4]), summarize=3, label=None)
    assert bind(ASSERT, tf.constant(True), tf.constant([1]), summarize=3, label=None) == ()
test_compiled = compiled_tests(CASES)
