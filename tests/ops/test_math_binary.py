"""Binary arithmetic, comparisons, logical/bitwise ops and casts against NumPy, plus TF's dtype rules."""

import ml_dtypes
import numpy as np
import pytest
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

BIN = [((2, 3), (2, 3)), ((4, 1), (3,)), ((), (5,)), ((0, 2), (2,))]
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int32", "int64", "uint8")


def _floordiv_ref(x, y):
    return np.floor_divide(x, y)


def _nonzero(rng, shapes, dtype):
    from opcheck import make

    x = make(rng, shapes[0], dtype, (-9, 9))
    y = make(rng, shapes[1], dtype, (1, 5))
    if np.dtype(y.dtype).kind != "u":
        y = y * np.where(rng.random(shapes[1]) < 0.5, 1, -1).astype(y.dtype)
    return [x, y]


def _truediv_ref(x, y):
    ft = {1: np.float32, 2: np.float32, 4: np.float64, 8: np.float64}[x.dtype.itemsize]
    return (x.astype(ft) / y.astype(ft)).astype(ft)


CASES = [
    Case(tf.add, np.add, BIN, FLOATS + INTS + ("complex64",), ops=("AddV2",)),
    Case(lambda x, y: x + y, np.add, BIN, ("float32", "int32"), ops=("AddV2",), id="op+"),
    Case(tf.subtract, np.subtract, BIN, FLOATS + INTS, ops=("Sub",)),
    Case(lambda x, y: x - y, np.subtract, BIN[:2], ("float64",), ops=("Sub",), id="op-"),
    Case(tf.multiply, np.multiply, BIN, FLOATS + INTS + ("complex128",), ops=("Mul",)),
    Case(lambda x, y: x * y, np.multiply, BIN[:2], ("int64",), ops=("Mul",), id="op*"),
    Case(tf.math.multiply_no_nan, lambda x, y: np.where(y == 0, 0, np.where(y == 0, 1, x) * y).astype(x.dtype),
         [((3,), (3,))], ("float32",), ops=("MulNoNan",),
         gen=lambda rng, s, d: [np.array([np.inf, 1, 2], d), np.array([0, 2, 0], d)],
         grad=False),  # inf inputs and y == 0 exactly: finite differences are meaningless here
    Case(tf.math.multiply_no_nan, np.multiply, BIN[:2], ("float32", "float64"), ops=("MulNoNan",),
         id="multiply_no_nan_smooth"),
    Case(tf.math.truediv, _truediv_ref, BIN[:3], ("int8", "int16", "int32", "int64", "uint8"),
         ops=("RealDiv", "Cast"), gen=_nonzero, id="truediv_int"),
    Case(lambda x, y: x / y, np.divide, BIN[:3], ("float32", "float64"), ops=("RealDiv",),
         gen=_nonzero, id="op/"),
    Case(tf.realdiv, np.divide, BIN[:2], ("float16", "float32"), ops=("RealDiv",), gen=_nonzero),
    Case(tf.math.divide_no_nan, lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)).astype(x.dtype),
         [((4,), (4,))], ("float32", "float64"), ops=("DivNoNan",),
         gen=lambda rng, s, d: [np.array([1, 0, -2, 3], d), np.array([0, 0, 4, 2], d)],
         grad=False),  # y == 0 exactly is a discontinuity: checked by the smooth case below
    Case(tf.math.divide_no_nan, np.divide, BIN[:2], ("float32", "float64"), ops=("DivNoNan",), domain=(0.5, 2.0),
         id="divide_no_nan_smooth"),
    Case(tf.math.floordiv, _floordiv_ref, BIN[:3], INTS + FLOATS[2:], ops=("FloorDiv",), gen=_nonzero),
    Case(lambda x, y: x // y, _floordiv_ref, BIN[:1], ("int32",), ops=("FloorDiv",), gen=_nonzero, id="op//"),
    Case(tf.math.floormod, np.mod, BIN[:3], INTS + FLOATS[2:], ops=("FloorMod",), gen=_nonzero),
    Case(lambda x, y: x % y, np.mod, BIN[:1], ("float32",), ops=("FloorMod",), gen=_nonzero, id="op%"),
    Case(tf.pow, np.power, BIN[:3], ("float32", "float64"), domain=(0.5, 2.0), ops=("Pow",)),
    Case(tf.pow, np.power, BIN[:2], ("int32", "int64"), domain=(0, 4), ops=("Pow",), id="pow_int"),
    Case(lambda x, y: x ** y, np.power, BIN[:1], ("float32",), domain=(0.5, 2.0), ops=("Pow",), id="op**"),
    Case(tf.maximum, np.maximum, BIN, FLOATS + INTS, ops=("Maximum",)),
    Case(tf.minimum, np.minimum, BIN, FLOATS + INTS, ops=("Minimum",)),
    Case(tf.math.squared_difference, lambda x, y: np.square(x - y), BIN, ("float32", "int32"),
         ops=("SquaredDifference",)),
    Case(tf.math.squared_difference, lambda x, y: (x - y) * np.conj(x - y), BIN[:1], ("complex64",),
         ops=("SquaredDifference",), id="squared_difference_complex"),
    # comparisons
    Case(tf.less, np.less, BIN, ("float32", "int32", "uint8"), ops=("Less",)),
    Case(lambda x, y: x < y, np.less, BIN[:1], ("float32",), ops=("Less",), id="op<"),
    Case(tf.less_equal, np.less_equal, BIN, ("float32", "int64"), ops=("LessEqual",)),
    Case(tf.greater, np.greater, BIN, ("float64", "int8"), ops=("Greater",)),
    Case(tf.greater_equal, np.greater_equal, BIN, ("bfloat16", "int16"), ops=("GreaterEqual",)),
    Case(tf.equal, np.equal, BIN, ("float32", "int32", "bool"), domain=(-1, 1), ops=("Equal",)),
    Case(lambda x, y: x == y, np.equal, BIN[:1], ("int32",), domain=(-1, 1), ops=("Equal",), id="op=="),
    Case(tf.not_equal, np.not_equal, BIN, ("float32", "bool"), domain=(-1, 1), ops=("NotEqual",)),
    Case(lambda x, y: x != y, np.not_equal, BIN[:1], ("int32",), domain=(-1, 1), ops=("NotEqual",), id="op!="),
    # logical
    Case(tf.logical_and, np.logical_and, BIN, ("bool",), ops=("LogicalAnd",)),
    Case(lambda x, y: x & y, np.logical_and, BIN[:1], ("bool",), ops=("LogicalAnd",), id="op&bool"),
    Case(tf.logical_or, np.logical_or, BIN, ("bool",), ops=("LogicalOr",)),
    Case(lambda x, y: x | y, np.logical_or, BIN[:1], ("bool",), ops=("LogicalOr",), id="op|bool"),
    Case(tf.math.logical_xor, np.logical_xor, BIN, ("bool",), ops=("LogicalAnd", "LogicalOr", "LogicalNot")),
    Case(lambda x, y: x ^ y, np.logical_xor, BIN[:1], ("bool",), ops=("LogicalAnd",), id="op^bool"),
    Case(tf.logical_not, np.logical_not, [((2, 3),), ((),)], ("bool",), ops=("LogicalNot",)),
    Case(lambda x: ~x, np.logical_not, [((3,),)], ("bool",), ops=("LogicalNot",), id="op~bool"),
    # bitwise
    Case(tf.bitwise.bitwise_and, np.bitwise_and, BIN, INTS, domain=(0, 100), ops=("BitwiseAnd",)),
    Case(lambda x, y: x & y, np.bitwise_and, BIN[:1], ("int32",), domain=(0, 100), ops=("BitwiseAnd",), id="op&"),
    Case(tf.bitwise.bitwise_or, np.bitwise_or, BIN, INTS, domain=(0, 100), ops=("BitwiseOr",)),
    Case(lambda x, y: x | y, np.bitwise_or, BIN[:1], ("int64",), domain=(0, 100), ops=("BitwiseOr",), id="op|"),
    Case(tf.bitwise.bitwise_xor, np.bitwise_xor, BIN, INTS, domain=(0, 100), ops=("BitwiseXor",)),
    Case(tf.bitwise.left_shift, np.left_shift, BIN[:2], ("int32", "uint8"), domain=(0, 5), ops=("LeftShift",)),
    Case(tf.bitwise.right_shift, np.right_shift, BIN[:2], ("int32", "int64"), domain=(0, 5), ops=("RightShift",)),
    Case(tf.bitwise.invert, np.invert, [((2, 3),)], INTS, ops=("Invert",)),
    Case(lambda x: ~x, np.invert, [((3,),)], ("int32",), ops=("Invert",), id="op~"),
    # negation and abs through operators
    Case(lambda x: -x, np.negative, [((2, 3),), ((),)], ("float32", "int32"), ops=("Neg",), id="op-unary"),
    Case(abs, np.abs, [((2, 3),)], ("float32", "int64"), ops=("Abs",), id="op-abs"),
    Case(tf.abs, np.abs, [((4,),)], ("complex64", "complex128"), ops=("ComplexAbs",), id="abs_complex"),
    # casts
    Case(lambda x: tf.cast(x, tf.int32), lambda x: x.astype(np.int32), [((2, 3),)], ("float32", "float64"),
         domain=(-100, 100), ops=("Cast",), id="cast_f2i", grad=False),  # integer output: nothing to differentiate
    Case(lambda x: tf.cast(x, tf.float16), lambda x: x.astype(np.float16), [((5,),)], ("int32", "bool"),
         ops=("Cast",), id="cast_to_f16"),
    Case(lambda x: tf.cast(x, tf.bfloat16), lambda x: x.astype(ml_dtypes.bfloat16), [((5,),)], ("float32",),
         ops=("Cast",), id="cast_to_bf16", grad=False),  # bfloat16 output is too coarse for finite differences
    Case(lambda x: tf.cast(tf.cast(x, tf.complex128), x.dtype), lambda x: x, [((2, 3),)], ("float32", "float64"),
         ops=("Cast",), id="cast_through_complex"),  # exact round trip, so its gradient is checkable
    Case(lambda x: tf.cast(x, tf.float32), lambda x: x.real.astype(np.float32), [((3,),)], ("complex64",),
         ops=("Cast",), id="cast_complex_real"),
    Case(lambda x: tf.saturate_cast(x, tf.uint8), lambda x: np.clip(x, 0, 255).astype(np.uint8), [((6,),)],
         ("float32", "int32"), domain=(-500, 500), ops=("SaturateCast",)),
    # TF: float32 cannot hold 2**31 - 1, so the upper clamp is the largest float32 below it (2147483520)
    Case(lambda x: tf.saturate_cast(x, tf.int32), lambda x: np.array([2147483520, -2147483648, 1, -7], np.int32),
         [((4,),)], ("float32",), ops=("SaturateCast",), id="saturate_cast_f32_to_i32",
         gen=lambda rng, s, d: [np.array([3e9, -3e9, 1.5, -7.9], np.float32)]),
    Case(lambda x: tf.bitcast(x, tf.int32), lambda x: x.view(np.int32), [((2, 3),)], ("float32",),
         ops=("Bitcast",), id="bitcast_same_size"),
    Case(lambda x: tf.bitcast(x, tf.uint8), lambda x: x.reshape(x.shape + (1,)).view(np.uint8), [((3,),)],
         ("int32",), ops=("Bitcast",), id="bitcast_narrow"),
    Case(lambda x, y: x + y, lambda x, y: np.char.add(x.astype(bytes), y.astype(bytes)).astype(object),
         [((2,), (2,))], ("object",), ops=("Add",), check_dtype=False, jax=False, id="string_concat"),
]


ERRORS = [
    Err(lambda: tf.constant(1) + tf.constant(1.0), tf.errors.InvalidArgumentError,
        r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor"),
    Err(lambda: tf.constant(1) + 1.5, tf.errors.InvalidArgumentError, "expected to be a int32 tensor"),
    Err(lambda: tf.add(tf.zeros([2, 3]), tf.zeros([4, 5])), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2,3\] vs. \[4,5\] \[Op:AddV2\]"),
    Err(lambda: tf.constant(True) + tf.constant(False), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of bool is not in the list of allowed values"),
    Err(lambda: tf.constant(1) // 0, tf.errors.InvalidArgumentError, r"Integer division by zero \[Op:FloorDiv\]"),
    Err(lambda: tf.constant(1) % 0, tf.errors.InvalidArgumentError, r"Integer division by zero \[Op:FloorMod\]"),
    Err(lambda: tf.constant(3) ** -1, tf.errors.InvalidArgumentError, "Integers to negative integer powers"),
    Err(lambda: tf.constant(2.0) ** tf.constant(2), tf.errors.InvalidArgumentError,
        "expected to be a float tensor but is a int32 tensor"),
    Err(lambda: tf.constant(1.0) & 1.0, tf.errors.InvalidArgumentError, "Value for attr 'T' of float"),
    Err(lambda: -tf.constant(True), tf.errors.InvalidArgumentError, "attr 'T' of bool"),
    Err(lambda: tf.logical_and(tf.constant(1), tf.constant(True)), tf.errors.InvalidArgumentError,
        "expected to be a bool tensor"),
    Err(lambda: tf.cast(tf.constant("a"), tf.float32), tf.errors.UnimplementedError,
        "Cast string to float32 is not supported"),
    Err(lambda: tf.constant([1.0, 2.0]) == "a", TypeError, "Cannot convert 'a' to EagerTensor of dtype float32"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_error_names_user_line():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.constant([1, 2]) + tf.constant([1, 2, 3])  # the user's line
    assert "test_math_binary.py" in str(info.value) and "the user's line" in str(info.value)


def test_python_scalars_adopt_tensor_dtype():
    assert (tf.constant([1.0], tf.float16) + 1).dtype == tf.float16
    assert (2 * tf.constant([1], tf.int64)).dtype == tf.int64
    assert (tf.constant(1, tf.uint8) + 300).numpy() == 45  # TF wraps the converted scalar
    assert (np.ones(2) + tf.constant([1.0, 2.0])).dtype == tf.float32  # ndarray defers to the tensor


def test_truediv_dtypes():
    assert (tf.constant(1) / tf.constant(2)).dtype == tf.float64
    assert (tf.constant(1, tf.int8) / tf.constant(2, tf.int8)).dtype == tf.float32
    assert (tf.constant(np.float16(1)) / tf.constant(np.float16(3))).dtype == tf.float16


def test_floor_semantics():
    assert int(tf.constant(-7) // 2) == -4
    assert int(tf.constant(-7) % 2) == 1
    assert float(tf.constant(-7.0) % 2.0) == 1.0


def test_float_division_by_zero_is_silent_inf():
    # As in TF: inf/nan results, and no NumPy RuntimeWarning reaching the user's program.
    import subprocess
    import sys

    code = ("import tensorlet as tf\n"
            "r = tf.constant([1.0, -1.0, 0.0]) / 0.0\n"
            "print(r.numpy().tolist())\n"
            "print((tf.constant([1e30]) * 1e30).numpy().tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[inf, -inf, nan]", "[inf]"]
    assert out.stderr == "", out.stderr


def test_eq_with_none_and_incompatible_shapes():
    assert (tf.constant([1.0]) == None) is False  # noqa: E711 - TF's behaviour under test
    assert (tf.constant([1, 2]) == tf.constant([1, 2, 3])) is False
    assert (tf.constant([1, 2]) != tf.constant([1, 2, 3])) is True
test_compiled = compiled_tests(CASES)
