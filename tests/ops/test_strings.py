"""tf.strings against Python/NumPy references and behaviour recorded from TensorFlow 2.21.

String ops run on NumPy only: XLA has no string type, so every case here is ``jax=False``.
"""

import re

import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

WORDS = ["hello", "", "Héllo Wörld", "  pad\t\n", "ABC def", "ß", "x\x0by\r"]
SHAPES = [((3,),), ((),), ((2, 0),), ((2, 3),)]


def _obj(values, shape=None):
    """An object array of bytes (a 0-d one for a single value)."""
    a = np.empty(len(values) if isinstance(values, list) else (), object)
    if isinstance(values, list):
        for i, v in enumerate(values):
            a[i] = v.encode() if isinstance(v, str) else v
    else:
        a[()] = values.encode() if isinstance(values, str) else values
    return a.reshape(shape) if shape is not None else a


def _words(rng, shapes, dtype):
    out = []
    for s in shapes:
        n = int(np.prod(s))
        out.append(_obj([WORDS[i] for i in rng.integers(0, len(WORDS), n)]).reshape(s))
    return out


def _nonempty_words(rng, shapes, dtype):
    return [np.where(a == b"", b"abc", a) for a in _words(rng, shapes, dtype)]


def _vec(fn, out_dtype=object):
    """Apply a Python function to each element (the reference side)."""
    def ref(a):
        out = np.empty(a.shape, out_dtype)
        for idx in np.ndindex(a.shape):
            out[idx] = fn(a[idx])
        return out
    return ref


def _fixed(*arrays):
    return lambda rng, shapes, dtype: [np.asarray(a) for a in arrays]


def S(fn, ref, shapes=SHAPES, ops=(), **kw):
    # A 0-d string result's numpy() is a bytes object, which opcheck's np.asarray turns into an 'S' array:
    # string-valued cases compare values only (test_zero_d_results_are_arrays checks the dtypes).
    kw.setdefault("check_dtype", ops[0] in ("StringLength", "StaticRegexFullMatch", "StringToNumber"))
    return Case(fn, ref, shapes, ("object",), ops=ops, gen=kw.pop("gen", _words), jax=False, **kw)


def _np_case(method):
    # NumPy's char functions on 'S' arrays are ASCII-only (TF without an encoding); on 'U' arrays Unicode.
    def ref(a):
        return getattr(np.char, method)(a.astype(bytes)).astype(object)
    return ref


def _np_case_utf8(method):
    def ref(a):
        u = np.char.decode(a.astype(bytes), "utf-8") if a.size else a.astype(str)
        return np.char.encode(getattr(np.char, method)(u), "utf-8").astype(object) if a.size else a
    return ref


def _join_last(x):
    out = np.empty(x.shape[:-1] + (1,), object)
    for idx in np.ndindex(x.shape[:-1]):
        out[idx + (0,)] = b",".join(x[idx].tolist())
    return out


DIGITS = _obj([str(i) for i in range(8)], (2, 2, 2))

CASES = [
    S(tf.strings.length, _vec(len, np.int32), ops=("StringLength",)),
    S(lambda x: tf.strings.length(x, unit="UTF8_CHAR"), _vec(lambda s: len(s.decode()), np.int32),
      ops=("StringLength",), id="length_utf8"),
    S(tf.strings.lower, _np_case("lower"), ops=("StringLower",)),
    S(lambda x: tf.strings.lower(x, encoding="utf-8"), _np_case_utf8("lower"), ops=("StringLower",), id="lower_utf8"),
    S(tf.strings.upper, _np_case("upper"), ops=("StringUpper",)),
    S(lambda x: tf.strings.upper(x, encoding="utf-8"), _np_case_utf8("upper"), ops=("StringUpper",), id="upper_utf8"),
    S(tf.strings.strip, lambda a: np.char.strip(a.astype(bytes)).astype(object) if a.size else a,
      ops=("StringStrip",)),
    S(lambda x, y: tf.strings.join([x, "-", y], separator="+"),
      lambda x, y: np.char.add(np.char.add(x.astype(bytes), b"+-+"), y.astype(bytes)).astype(object),
      [((3,), (3,)), ((), ()), ((2, 3), (2, 3))], ops=("StringJoin",), id="join"),
    S(lambda x: tf.strings.join([x]), lambda x: x, [((2, 2),)], ops=("StringJoin",), id="join_one"),
    S(lambda: tf.strings.join([]), lambda: _obj(""), [()], ops=("StringJoin",), id="join_none"),
    # reduce_join: the first listed axis varies fastest (recorded from TF)
    S(lambda x: tf.strings.reduce_join(x, axis=[1, 0], separator="."), lambda x: _obj(["0.2.4.6", "1.3.5.7"]),
      [((2, 2, 2),)], gen=_fixed(DIGITS), ops=("ReduceJoin",), id="reduce_join_10"),
    S(lambda x: tf.strings.reduce_join(x, axis=[0, 2], separator="."), lambda x: _obj(["0.4.1.5", "2.6.3.7"]),
      [((2, 2, 2),)], gen=_fixed(DIGITS), ops=("ReduceJoin",), id="reduce_join_02"),
    S(lambda x: tf.strings.reduce_join(x, separator="."), lambda x: _obj("0.1.2.3.4.5.6.7"),
      [((2, 2, 2),)], gen=_fixed(DIGITS), ops=("ReduceJoin",), id="reduce_join_all"),
    S(lambda x: tf.strings.reduce_join(x, axis=tf.constant(1), separator="."),
      lambda x: _obj(["0.2", "1.3", "4.6", "5.7"], (2, 2)), [((2, 2, 2),)], gen=_fixed(DIGITS), ops=("ReduceJoin",),
      id="reduce_join_tensor_axis"),
    S(lambda x: tf.strings.reduce_join(x, axis=-1, keepdims=True, separator=","),
      _join_last, [((2, 3),), ((4, 1),), ((2, 0),)], ops=("ReduceJoin",), id="reduce_join_keepdims"),
    S(lambda x: tf.strings.reduce_join(x, axis=[]), lambda x: x, [((3,),)], ops=("ReduceJoin",), id="reduce_join_none"),
    S(lambda x: tf.strings.substr(x, 1, 3), _vec(lambda s: s[1:4]), gen=_nonempty_words, ops=("Substr",)),
    S(lambda x: tf.strings.substr(x, 0, -1), _vec(lambda s: s), ops=("Substr",), id="substr_rest"),
    S(lambda x: tf.strings.substr(x, tf.constant([0, 2, 1], tf.int64), tf.constant([2, 1, 10], tf.int64)),
      lambda x: _obj([s[p:p + n] for s, (p, n) in zip(x.tolist(), [(0, 2), (2, 1), (1, 10)])]), [((3,),)],
      gen=_fixed(_obj(["hello", "abc", "xy"])), ops=("Substr",), id="substr_vector"),
    S(lambda x: tf.strings.substr(x, -3, 2), lambda x: _obj(["ll", "ab"]), [((2,),)],
      gen=_fixed(_obj(["hello", "abc"])), ops=("Substr",), id="substr_negative_pos"),
    S(lambda x: tf.strings.substr(x, 1, 2, unit="UTF8_CHAR"),
      _vec(lambda s: s.decode()[1:3].encode()), [((4,),)], gen=_fixed(_obj(["héllo", "wörld", "ab", "ü"])),
      ops=("Substr",), id="substr_utf8"),
    S(lambda x: tf.strings.regex_full_match(x, r"[a-z]+\s*"), _vec(lambda s: re.fullmatch(rb"[a-z]+\s*", s)
                                                                  is not None, np.bool_),
      ops=("StaticRegexFullMatch",)),
    S(lambda x: tf.strings.regex_replace(x, "l+", "L"), _vec(lambda s: re.sub(b"l+", b"L", s)),
      ops=("StaticRegexReplace",)),
    S(lambda x: tf.strings.regex_replace(x, r"(\w)(\w)", r"\2\1", replace_global=False),
      _vec(lambda s: re.sub(rb"(\w)(\w)", rb"\2\1", s, count=1)), ops=("StaticRegexReplace",), id="regex_swap"),
    S(tf.strings.to_number, lambda a: a.astype(bytes).astype(np.float32), [((5,),), ((),), ((0,),)],
      gen=lambda rng, shapes, d: [_obj([f"{v:.4g}" for v in rng.normal(0, 100, int(np.prod(s)))]).reshape(s)
                                  for s in shapes], ops=("StringToNumber",)),
    S(lambda x: tf.strings.to_number(x, tf.int64), lambda a: a.astype(bytes).astype(np.int64), [((6,),)],
      gen=_fixed(_obj(["1", "-20", " 300 ", "+4", "9223372036854775807", "010"])), ops=("StringToNumber",),
      id="to_number_int64"),
    S(lambda x: tf.strings.to_number(x, tf.float64), lambda a: np.array([np.inf, -np.inf, np.nan, 16.0, 8.0, 0.5]),
      [((6,),)], gen=_fixed(_obj(["INF", "-Infinity", "NaN", "0x10", "0x1p3", ".5"])), ops=("StringToNumber",),
      id="to_number_special"),
    Case(tf.strings.as_string, lambda a: _vec(lambda v: f"{v:f}".encode())(a), [((2, 3),), ((),)],
         ("float32", "float64"), ops=("AsString",), domain=(-1e4, 1e4), jax=False, check_dtype=False),
    Case(lambda x: tf.strings.as_string(x, precision=2, scientific=True, width=12),
         _vec(lambda v: f"{v:12.2e}".encode()), [((4,),)], ("float32",), ops=("AsString",), jax=False,
         id="as_string_scientific"),
    Case(lambda x: tf.strings.as_string(x, width=5, fill="0"), _vec(lambda v: f"{v:05d}".encode()),
         [((4,),)], ("int32", "uint8", "int64"), ops=("AsString",), domain=(-99, 99), jax=False, id="as_string_int"),
    Case(tf.strings.as_string, _vec(lambda v: b"true" if v else b"false"), [((4,),)], ("bool",),
         ops=("AsString",), jax=False, id="as_string_bool"),
    Case(lambda x: tf.strings.as_string(x, shortest=True),
         lambda x: _obj(["1.5", "0.333333", "1.23457e+08", "nan", "-inf"]), [((5,),)], ops=("AsString",),
         gen=_fixed(np.array([1.5, 1 / 3, 123456789.0, np.nan, -np.inf], np.float32)), jax=False,
         id="as_string_shortest"),
    Case(lambda x: tf.strings.as_string(x, width=12, fill="0"),
         lambda x: _obj(["-0000.000000", "         nan", "        -inf"]), [((3,),)], ops=("AsString",),
         gen=_fixed(np.array([-0.0, np.nan, -np.inf], np.float32)), jax=False, id="as_string_zero_fill_nonfinite"),
    Case(tf.strings.as_string, lambda x: _obj(["(1.000000,2.000000)", "(-1.500000,-0.500000)"]), [((2,),)],
         ("complex64",), gen=_fixed(np.array([1 + 2j, -1.5 - 0.5j], np.complex64)), ops=("AsString",), jax=False,
         id="as_string_complex"),
    S(lambda x: tf.strings.as_string(x, width=4), _vec(lambda s: b"%4s" % s), ops=("AsString",),
      id="as_string_string"),
    # tf.strings.format prints tensors as tf.print does (outputs recorded from TF)
    S(lambda x: tf.strings.format("x={} y={}", (x, "s")), lambda x: _obj('x=[1 2] y="s"'), [((2,),)],
      gen=_fixed(np.array([1, 2], np.int32)), ops=("StringFormat",), id="format"),
    S(lambda x: tf.strings.format("{}", x, summarize=2), lambda x: _obj("[0 1 ... 8 9]"), [((10,),)],
      gen=_fixed(np.arange(10, dtype=np.int32)), ops=("StringFormat",), id="format_summarize"),
    S(lambda x: tf.strings.format("{}", x), lambda x: _obj(
        "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
        " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]"),
      [((10, 10),)], gen=_fixed(np.arange(100, dtype=np.int64).reshape(10, 10)), ops=("StringFormat",),
      id="format_2d"),
    S(lambda x: tf.strings.format("{}", x), lambda x: _obj(
        "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]"),
      [((2, 3, 4),)], gen=_fixed(np.arange(24, dtype=np.int32).reshape(2, 3, 4)), ops=("StringFormat",),
      id="format_3d"),
    S(lambda x: tf.strings.format("{}", x, summarize=-1),
      lambda x: _obj("[1.5 2 0.333333343 1e-08 1e+10 123456792 -0 nan inf -inf]"), [((10,),)],
      gen=_fixed(np.array([1.5, 2.0, 1 / 3, 1e-8, 1e10, 123456789.0, -0.0, np.nan, np.inf, -np.inf], np.float32)),
      ops=("StringFormat",), id="format_float32"),
    S(lambda x: tf.strings.format("{}", x), lambda x: _obj("[0.33333333333333331 1.23456789]"), [((2,),)],
      gen=_fixed(np.array([1 / 3, 1.23456789])), ops=("StringFormat",), id="format_float64"),
    S(lambda x: tf.strings.format("{} {}", [x, tf.constant([True, False])]),
      lambda x: _obj(b'["\xc3\xa9" "a\\"b\\n\\t\\\'\\\\" "\\001"] [1 0]'), [((3,),)],
      gen=_fixed(_obj(["é", "a\"b\n\t'\\", "\x01"])), ops=("StringFormat",), id="format_strings_escaped"),
    S(lambda x: tf.strings.format("{}|{}|{}", [x, tf.zeros([0, 3]), tf.zeros([2, 2, 0])], summarize=0),
      lambda x: _obj("[\n ...]|[]|[\n\n ...]"), [((2, 0),)], gen=_fixed(np.zeros((2, 0), np.float32)),
      ops=("StringFormat",), id="format_empty"),
    S(lambda x: tf.strings.format("{} {}", [x, tf.constant(5)], summarize=2), lambda x: _obj("[? ?...] 5"),
      [((10,),)], gen=_fixed(np.arange(10).astype(np.complex64)), ops=("StringFormat",), id="format_complex"),
]


def _s(*v):
    return tf.constant(list(v))


ERRORS = [
    Err(lambda: tf.strings.length(tf.constant([1])), tf.errors.InvalidArgumentError,
        r"cannot compute StringLength as input #0\(zero-based\) was expected to be a string tensor but is a int32 "
        r"tensor \[Op:StringLength\]"),
    Err(lambda: tf.strings.length("abc", unit="BAD"), tf.errors.InvalidArgumentError,
        "Value for attr 'unit' of \"BAD\" is not in the list of allowed values"),
    Err(lambda: tf.strings.upper("x", encoding="latin1"), tf.errors.InvalidArgumentError,
        r"only utf-8 or '' \(no encoding\) is supported, received latin1 \[Op:StringUpper\]"),
    Err(lambda: tf.strings.lower(tf.constant([1])), tf.errors.InvalidArgumentError, "StringLower as input #0"),
    Err(lambda: tf.strings.strip(tf.constant([1.0])), tf.errors.InvalidArgumentError, "StringStrip as input #0"),
    Err(lambda: tf.strings.join([_s("a", "d"), _s("b", "c", "e")]), tf.errors.InvalidArgumentError,
        r"Input shapes do not match: \[2\] vs. \[3\] \[Op:StringJoin\]"),
    Err(lambda: tf.strings.join(["a", tf.constant([1])]), ValueError,
        "Tensor conversion requested dtype string for Tensor with dtype int32"),
    Err(lambda: tf.strings.join(["a"], separator=tf.constant("-")), TypeError,
        "Expected string for argument 'separator'"),
    Err(lambda: tf.strings.reduce_join(tf.constant([["a"]]), axis=2), tf.errors.OutOfRangeError,
        r"Invalid reduction dimension 2 for input with 2 dimension\(s\) \[Op:ReduceJoin\]"),
    Err(lambda: tf.strings.reduce_join(tf.constant([["a"]]), axis=[0, -2]), tf.errors.InvalidArgumentError,
        "Duplicate reduction dimension 0"),
    Err(lambda: tf.strings.reduce_join(tf.constant([1])), tf.errors.InvalidArgumentError, "ReduceJoin as input #0"),
    Err(lambda: tf.strings.substr(_s("hello", "hi"), 3, 2), tf.errors.InvalidArgumentError,
        r"pos 3 out of range for string b'hi' at index 1 \[Op:Substr\]"),
    Err(lambda: tf.strings.substr(_s("hello"), -6, 1), tf.errors.InvalidArgumentError,
        "pos -6 out of range for string b'hello' at index 0"),
    Err(lambda: tf.strings.substr(_s("héllo"), 6, 2, unit="UTF8_CHAR"), tf.errors.InvalidArgumentError,
        "pos 6 out of range for string at index 0"),
    Err(lambda: tf.strings.substr(_s("hello"), [1, 2], [1]), tf.errors.InvalidArgumentError,
        r"pos and len should have the same shape, got: \[2\] vs. \[1\]"),
    Err(lambda: tf.strings.substr(_s("a", "b", "c"), [1, 2], [1, 1]), tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[3\] vs. \[2\]"),
    Err(lambda: tf.strings.substr(_s("hello"), tf.constant(1, tf.int64), 2), tf.errors.InvalidArgumentError,
        r"input #2\(zero-based\) was expected to be a int64 tensor but is a int32 tensor"),
    Err(lambda: tf.strings.substr(_s("hello"), 1.0, 1), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of float32 is not in the list of allowed values: int32, int64"),
    Err(lambda: tf.strings.regex_full_match(_s("abc"), "(ab"), tf.errors.InvalidArgumentError,
        r"Invalid pattern: \(ab, error: .*\[Op:StaticRegexFullMatch\]"),
    Err(lambda: tf.strings.to_number(_s("1.5"), tf.int32), tf.errors.InvalidArgumentError,
        r"StringToNumberOp could not correctly convert string: 1.5 \[Op:StringToNumber\]"),
    Err(lambda: tf.strings.to_number(_s("abc")), tf.errors.InvalidArgumentError, "could not correctly convert string"),
    Err(lambda: tf.strings.to_number(_s("99999999999"), tf.int32), tf.errors.InvalidArgumentError, "99999999999"),
    Err(lambda: tf.strings.to_number(_s("-0"), tf.uint32), tf.errors.InvalidArgumentError, "convert string: -0"),
    Err(lambda: tf.strings.to_number(_s("1_0")), tf.errors.InvalidArgumentError, "convert string: 1_0"),
    Err(lambda: tf.strings.to_number(_s("\u0661")), tf.errors.InvalidArgumentError, "could not correctly convert"),
    Err(lambda: tf.strings.to_number(_s(" ")), tf.errors.InvalidArgumentError, "could not correctly convert"),
    Err(lambda: tf.strings.to_number(_s("1"), tf.uint8), tf.errors.InvalidArgumentError,
        "Value for attr 'out_type' of uint8 is not in the list of allowed values: float, double, int32, int64"),
    Err(lambda: tf.strings.as_string([1.0], fill="x"), tf.errors.InvalidArgumentError,
        r'Fill argument not supported: "x" \[Op:AsString\]'),
    Err(lambda: tf.strings.as_string([1.0], fill="ab"), tf.errors.InvalidArgumentError,
        "Fill string must be one or fewer characters"),
    Err(lambda: tf.strings.as_string([1.0], scientific=True, shortest=True), tf.errors.InvalidArgumentError,
        "Cannot select both scientific and shortest notation"),
    Err(lambda: tf.strings.as_string([1], precision=2), tf.errors.InvalidArgumentError,
        "precision not supported for datatype int32"),
    Err(lambda: tf.strings.as_string([True], scientific=True), tf.errors.InvalidArgumentError,
        "scientific and shortest format not supported for datatype bool"),
    Err(lambda: tf.strings.format("{} {}", [tf.constant(1)]), ValueError,
        "The template expects 2 tensors, but the inputs only has 1"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_zero_d_results_are_arrays():
    r = tf.strings.join(["a", "b"])
    assert r.shape == () and r.numpy() == b"ab"
    assert isinstance(r._v, np.ndarray) and r._v.shape == () and r._v.dtype == object
    assert tf.strings.upper("x")._v.shape == ()
    assert tf.strings.as_string(3.0).numpy() == b"3.000000"
    assert tf.strings.to_number("3").numpy() == np.float32(3.0)
    assert tf.as_string is tf.strings.as_string


def test_regex_is_utf8_aware_and_rewrite_like_re2():
    assert tf.strings.regex_full_match("é", ".").numpy()  # one character, not one byte
    assert not tf.strings.regex_full_match("é", r"\w").numpy()  # RE2's \w is ASCII
    assert tf.strings.regex_replace("héllo", "h.l", "X").numpy() == b"Xlo"
    assert tf.strings.regex_replace("abc", "(b)", r"[\1\0]").numpy() == b"a[bb]c"
    assert tf.strings.regex_replace("abc", "b", "$1").numpy() == b"a$1c"  # '$' is literal
    assert tf.strings.regex_replace("abc", "b", r"\3").numpy() == b"abc"  # missing group: no rewrite
    assert tf.strings.regex_replace("ab", "x*", "-").numpy() == b"-a-b-"  # empty matches


def test_substr_negative_len_utf8_is_empty():
    assert tf.strings.substr("héllo", 1, -1, unit="UTF8_CHAR").numpy() == b""
    assert tf.strings.substr("hello", 1, -1).numpy() == b"ello"
test_compiled = compiled_tests(CASES)
