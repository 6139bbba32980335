"""The ``keras.ops`` case table shared by tests/keras/test_ops_goldens.py and the recorder
tools/record_tf_goldens/keras_ops.py (which runs it with real Keras 3 on TensorFlow into tests/goldens/keras_ops.json).

A case is ``(op path, args, kwargs)``: the path names a function under ``keras.ops`` (``"add"``, ``"nn.gelu"``,
``"image.resize"``); args are literal Python values or ``A(dtype, shape, kind)`` array specs, made deterministic by
``build``.  The recorder stores each result's dtype, shape and values; ``GRAD`` cases also record
``d sum(out * w) / d inputs`` for the float array inputs (``w`` deterministic), and ``TRACED`` cases are re-run
inside ``tf.function`` by the test.  ``run(tf, ops, case)`` works for TensorFlow + Keras and tensorlet alike.
"""

import numpy as np

F32, F16, F64, I8, I32, I64, U8, B = "float32", "float16", "float64", "int8", "int32", "int64", "uint8", "bool"


def A(dtype, shape=(2, 3), kind="det"):
    """An array spec: ``kind`` is det (signed values), pos (>= 0.5), unit (in (-0.9, 0.9)), int (small ints),
    nat (non-negative small ints), spd (symmetric positive definite matrices), or bool."""
    return {"A": [dtype, list(shape), kind]}


def N(values, dtype):
    """A literal array spec."""
    return {"N": [values, dtype]}


def _det(n, k=1.3, s=2.0):
    return np.sin(np.arange(n) * k + 0.4) * s


def build(v):
    if isinstance(v, dict) and "N" in v:
        return np.asarray(v["N"][0], dtype=v["N"][1])
    if isinstance(v, dict) and "A" in v:
        dtype, shape, kind = v["A"]
        n = int(np.prod(shape))
        if kind == "det":
            a = _det(n)
        elif kind == "pos":
            a = np.abs(_det(n)) + 0.5
        elif kind == "unit":
            a = _det(n, s=0.9)
        elif kind == "frac":
            a = np.abs(_det(n)) * 0.499
        elif kind == "int":
            a = (np.arange(n) * 7 + 3) % 11 - 5
        elif kind == "nat":
            a = (np.arange(n) * 7 + 3) % 5
        elif kind == "bool":
            a = ((np.arange(n) * 7 + 3) % 3) > 0
        elif kind == "spd":
            m = _det(n, k=0.7).reshape(shape)
            a = np.matmul(m, np.swapaxes(m, -1, -2)) + 3.0 * np.eye(shape[-1])
        else:
            raise ValueError(kind)
        return np.asarray(a).reshape(shape).astype(dtype)
    if isinstance(v, list):
        return [build(x) for x in v]
    if isinstance(v, tuple):
        return tuple(build(x) for x in v)
    return v


def C(path, *args, **kwargs):
    return (path, list(args), kwargs)


CASES = {}


def add(name, path, *args, **kwargs):
    assert name not in CASES, name
    CASES[name] = C(path, *args, **kwargs)


# ---- elementwise ----------------------------------------------------------------------------------------------
FLOAT_UNARY = ["sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh", "arcsinh", "exp", "expm1", "exp2", "floor",
               "ceil", "sqrt", "cbrt", "sinc", "deg2rad", "rad2deg", "i0", "reciprocal", "trunc", "round", "sign",
               "absolute", "abs", "fabs", "negative", "square", "signbit", "angle", "real", "imag", "isnan", "isinf",
               "isfinite", "isposinf", "isneginf", "isreal", "conj", "conjugate", "logical_not", "log_sigmoid",
               "sigmoid", "erf", "erfc", "rsqrt"]
for f in FLOAT_UNARY:
    kind = "pos" if f in ("sqrt", "rsqrt") else "det"
    add(f"{f}_f32", f, A(F32, (2, 3), kind))
    # Keras-on-TF rejects integer inputs for these
    if f not in ("sigmoid", "erf", "erfc", "rsqrt", "reciprocal", "log_sigmoid"):
        add(f"{f}_i32", f, A(I32, (4,), "nat" if kind == "pos" else "int"))
for f in ["log", "log1p", "log2", "log10", "arccosh"]:
    add(f"{f}_f32", f, A(F32, (2, 3), "pos"))
    add(f"{f}_i64", f, A(I64, (5,), "nat"))
for f in ["arcsin", "arccos", "arctanh", "erfinv"]:
    add(f"{f}_f32", f, A(F32, (2, 3), "unit"))
add("exp_f16", "exp", A(F16, (3,)))
add("sin_i8", "sin", A(I8, (3,), "int"))
add("sin_bool", "sin", A(B, (3,), "bool"))
add("round_dec", "round", A(F32, (4,)), decimals=2)
add("round_int_neg", "round", A(I32, (4,), "int"), decimals=-1)
add("bitwise_invert_i32", "bitwise_invert", A(I32, (4,), "int"))

BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "fmax", "fmin", "equal",
          "not_equal", "greater", "greater_equal", "less", "less_equal", "arctan2", "logaddexp", "logaddexp2",
          "hypot", "heaviside", "logical_and", "logical_or", "logical_xor", "floor_divide", "mod", "fmod",
          "divide_no_nan", "nextafter"]
for f in BINARY:
    add(f"{f}_f32_f32", f, A(F32, (2, 3)), A(F32, (3,), "pos"))
    add(f"{f}_i32_i32", f, A(I32, (2, 3), "int"), A(I32, (3,), "nat" if f not in ("floor_divide", "mod", "fmod")
                                                     else "int"))
    add(f"{f}_i8_pyint", f, A(I8, (3,), "int"), 2)
    add(f"{f}_i32_f16", f, A(I32, (3,), "int"), A(F16, (3,), "pos"))
    add(f"{f}_u8_i8", f, A(U8, (3,), "nat"), A(I8, (3,), "int"))
    add(f"{f}_f32_pyfloat", f, A(F32, (3,)), 1.5)
add("power_f32", "power", A(F32, (3,), "pos"), A(F32, (3,)))
add("power_i32_pyint", "power", A(I32, (3,), "nat"), 2)
add("power_i8_f16", "power", A(I8, (3,), "nat"), A(F16, (3,)))
add("add_bool_pyint", "add", A(B, (3,), "bool"), 1)
add("add_i64_u8", "add", A(I64, (3,), "int"), A(U8, (3,), "nat"))
add("add_f16_pyfloat", "add", A(F16, (3,)), 2.5)
add("add_i32_f64", "add", A(I32, (3,), "int"), A(F64, (3,)))
add("divide_i64", "divide", A(I64, (3,), "int"), A(I64, (3,), "pos"))
for f in ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "left_shift",
          "right_shift"]:
    add(f"{f}_i32", f, A(I32, (4,), "nat"), A(I32, (4,), "nat"))
    add(f"{f}_u8_i8", f, A(U8, (4,), "nat"), A(I8, (4,), "nat"))
add("gcd", "gcd", A(I32, (5,), "int"), A(I32, (5,), "nat"))
add("lcm", "lcm", A(I32, (5,), "int"), A(I32, (5,), "nat"))
add("ldexp", "ldexp", A(F32, (4,)), A(I32, (4,), "int"))
add("clip_f32", "clip", A(F32, (2, 3)), -0.5, 0.7)
add("clip_i32", "clip", A(I32, (5,), "int"), -2, 3)
add("clip_bool", "clip", A(B, (4,), "bool"), 0, 1)
add("nan_to_num", "nan_to_num", [0.5, float("nan"), float("inf"), float("-inf")], nan=1.0)
add("nan_to_num_default", "nan_to_num", A(F32, (3,)))

# ---- reductions -----------------------------------------------------------------------------------------------
for f in ["sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "var", "std", "ptp", "argmax",
          "argmin", "count_nonzero", "cumsum", "cumprod", "median", "nansum", "nanmean", "nanmax", "nanmin",
          "nanprod", "nanstd", "nanvar", "nanargmax", "nanargmin", "nancumsum", "nancumprod", "nanmedian",
          "average", "sort", "argsort"]:
    add(f"{f}_all", f, A(F32, (2, 3)))
    add(f"{f}_axis1", f, A(F32, (2, 3, 2)), axis=1)
    if f != "nanmedian":  # Keras-on-TF fails on int8 here
        add(f"{f}_i8", f, A(I8, (2, 3), "int"), axis=0)
    if f not in ("cumsum", "cumprod", "nancumsum", "nancumprod", "sort", "argsort", "count_nonzero", "average"):
        add(f"{f}_keep", f, A(F32, (2, 3)), axis=-1, keepdims=True)
for f in ["sum", "mean", "max", "all", "prod"]:
    add(f"{f}_bool", f, A(B, (2, 3), "bool"))
    add(f"{f}_u8", f, A(U8, (2, 3), "nat"))
add("sum_tuple_axes", "sum", A(F32, (2, 3, 2)), axis=(0, 2))
add("mean_f16", "mean", A(F16, (2, 3)), axis=1)
add("max_initial", "max", A(F32, (2, 3)), axis=0, initial=1.0)
add("nanmean_nan", "nanmean", [[1.0, float("nan"), 3.0], [float("nan"), float("nan"), 2.0]], axis=1)
add("nanmax_nan", "nanmax", [[1.0, float("nan"), 3.0], [float("nan"), 5.0, 2.0]], axis=0)
add("nansum_nan", "nansum", [[1.0, float("nan"), 3.0]])
for m in ["linear", "lower", "higher", "midpoint", "nearest"]:
    add(f"quantile_{m}", "quantile", A(F32, (2, 5)), [0.25, 0.5, 0.9], axis=1, method=m)
add("quantile_scalar", "quantile", A(F32, (7,)), 0.3)
add("percentile_keep", "percentile", A(F32, (3, 4)), 40.0, axis=0, keepdims=True)
add("nanquantile", "nanquantile", [[1.0, float("nan"), 3.0, 4.0]], 0.5, axis=1)
add("nanpercentile", "nanpercentile", [[1.0, float("nan"), 3.0, 4.0]], 50.0)
add("average_weights", "average", A(F32, (2, 3)), axis=1, weights=A(F32, (3,), "pos"))
add("average_weights_same", "average", A(F32, (2, 3)), axis=1, weights=A(F32, (2, 3), "pos"))
add("argpartition", "argpartition", A(I32, (6,), "nat"), 2)
add("searchsorted", "searchsorted", [1.0, 2.0, 4.0, 8.0], A(F32, (5,)))
add("searchsorted_right", "searchsorted", [1, 2, 2, 8], [2, 3, 9, 0], side="right")
add("digitize", "digitize", A(F32, (6,)), [-1.0, 0.0, 1.0])
add("bincount", "bincount", A(I32, (7,), "nat"))
add("bincount_w", "bincount", A(I32, (7,), "nat"), weights=A(F32, (7,)), minlength=7)
add("histogram", "histogram", A(F32, (12,)), bins=4)
add("trapezoid", "trapezoid", A(F32, (2, 5)))
add("trapezoid_x", "trapezoid", A(F32, (5,)), x=[0.0, 0.5, 1.5, 2.0, 4.0])
add("diff", "diff", A(F32, (2, 5)))
add("diff_n2_axis0", "diff", A(I32, (4, 3), "int"), n=2, axis=0)
add("corrcoef", "corrcoef", A(F32, (3, 5)))
add("cdist", "cdist", A(F32, (3, 2)), A(F32, (4, 2), "pos"))
add("isclose", "isclose", N([1.0, 2.0, float("nan"), 4.0], F32), N([1.0, 2.1, float("nan"), 4.00001], F32))
add("isclose_nan", "isclose", N([1.0, float("nan")], F32), N([1.0, float("nan")], F32), equal_nan=True)
add("isclose_int", "isclose", N([1, 2], I32), N([1, 3], I32))
add("allclose", "allclose", A(F32, (3,)), A(F32, (3,)))
add("logsumexp", "logsumexp", A(F32, (2, 3)), axis=1)
add("logsumexp_all", "logsumexp", A(F32, (2, 3)))

# ---- arrays ---------------------------------------------------------------------------------------------------
add("zeros", "zeros", (2, 3))
add("ones_i32", "ones", (2,), dtype="int32")
add("full", "full", (2, 2), 3)
add("full_like", "full_like", A(I32, (3,), "int"), 2.7)
add("zeros_like", "zeros_like", A(F16, (3,)))
add("ones_like_dtype", "ones_like", A(F32, (3,)), dtype="int8")
add("empty", "empty", (2,))
add("empty_like", "empty_like", A(I32, (2,), "int"))
add("array", "array", [[1, 2], [3, 4]])
add("array_f", "array", [1.5, 2], dtype="float16")
add("arange_int", "arange", 5)
add("arange_float", "arange", 1, 4, 0.5)
add("arange_dtype", "arange", 0, 10, 3, dtype="int8")
add("linspace", "linspace", 0, 1, 5)
add("linspace_noend", "linspace", 2.0, 3.0, num=4, endpoint=False)
add("linspace_int", "linspace", 0, 10, 4, dtype="int32")
add("logspace", "logspace", 0.0, 2.0, 3)
add("geomspace", "geomspace", 1.0, 100.0, 3)
add("eye", "eye", 3)
add("eye_k", "eye", 3, 4, k=1)
add("eye_kneg", "eye", 4, 3, k=-2, dtype="int32")
add("identity", "identity", 2)
add("tri", "tri", 3, 4, k=1)
add("tril", "tril", A(F32, (3, 4)), k=-1)
add("triu", "triu", A(F32, (2, 3, 3)))
add("meshgrid", "meshgrid", [1, 2, 3], [4, 5])
add("meshgrid_ij", "meshgrid", [1.0, 2.0], [4.0, 5.0, 6.0], indexing="ij")
add("vander", "vander", N([1, 2, 3], I32))
add("vander_inc", "vander", A(F32, (3,)), N=4, increasing=True)
add("diag_1d", "diag", [1, 2, 3], k=1)
add("diag_2d", "diag", A(F32, (3, 4)), k=-1)
add("diagflat", "diagflat", [[1, 2], [3, 4]])
add("diagonal", "diagonal", A(F32, (3, 4)), offset=1)
add("diagonal_axes", "diagonal", A(F32, (2, 3, 3)), axis1=1, axis2=2)
add("trace", "trace", A(F32, (3, 3)))
add("trace_i8", "trace", A(I8, (3, 3), "int"), offset=1)
add("reshape", "reshape", A(F32, (2, 3)), (3, -1))
add("ravel", "ravel", A(F32, (2, 3)))
add("transpose", "transpose", A(F32, (2, 3, 4)))
add("transpose_axes", "transpose", A(F32, (2, 3, 4)), (1, 0, 2))
add("expand_dims", "expand_dims", A(F32, (2, 3)), 1)
add("expand_dims_tuple", "expand_dims", A(F32, (2, 3)), (0, -1))
add("squeeze", "squeeze", A(F32, (1, 3, 1)))
add("squeeze_axis", "squeeze", A(F32, (1, 3, 1)), axis=-1)
add("moveaxis", "moveaxis", A(F32, (2, 3, 4)), 0, -1)
add("moveaxis_multi", "moveaxis", A(F32, (2, 3, 4)), [0, 1], [2, 0])
add("swapaxes", "swapaxes", A(F32, (2, 3, 4)), 0, 2)
add("broadcast_to", "broadcast_to", A(F32, (3,)), (2, 3))
add("tile", "tile", A(F32, (2, 3)), (2, 1))
add("tile_int", "tile", A(F32, (3,)), 2)
add("tile_more", "tile", A(F32, (3,)), (2, 1, 2))
add("repeat", "repeat", A(F32, (2, 3)), 2)
add("repeat_axis", "repeat", A(F32, (2, 3)), 2, axis=1)
add("flip", "flip", A(F32, (2, 3)))
add("flip_axis", "flip", A(F32, (2, 3)), axis=1)
add("fliplr", "fliplr", A(F32, (2, 3)))
add("flipud", "flipud", A(F32, (2, 3)))
for k in range(4):
    add(f"rot90_{k}", "rot90", A(F32, (2, 3)), k=k)
add("roll", "roll", A(F32, (2, 3)), 1)
add("roll_axis", "roll", A(F32, (2, 3)), -1, axis=1)
add("pad", "pad", A(F32, (2, 3)), ((1, 0), (2, 1)))
add("pad_reflect", "pad", A(F32, (3, 4)), ((1, 1), (2, 2)), mode="reflect")
add("pad_symmetric", "pad", A(F32, (3, 4)), ((1, 2), (0, 1)), mode="symmetric")
add("pad_value", "pad", A(I32, (3,), "int"), ((2, 1),), constant_values=7)
add("concatenate", "concatenate", [A(F32, (2, 3)), A(F32, (1, 3))])
add("concatenate_promote", "concatenate", [A(I8, (2,), "int"), A(F16, (3,))])
add("concatenate_axis1", "concatenate", [A(F32, (2, 1)), A(F32, (2, 2))], axis=1)
add("append", "append", A(F32, (2, 2)), A(F32, (1, 2)))
add("append_axis", "append", A(F32, (2, 2)), A(F32, (1, 2)), axis=0)
add("stack", "stack", [A(F32, (3,)), A(I32, (3,), "int")])
add("stack_axis", "stack", [A(F32, (3,)), A(F32, (3,))], axis=1)
add("hstack", "hstack", [A(F32, (2, 1)), A(F32, (2, 2))])
add("vstack", "vstack", [A(F32, (3,)), A(F32, (3,))])
add("dstack", "dstack", [A(F32, (2, 2)), A(F32, (2, 2))])
add("split", "split", A(F32, (6, 2)), 3)
add("split_idx", "split", A(F32, (6, 2)), [1, 4])
add("array_split", "array_split", A(F32, (7,)), 3)
add("hsplit", "hsplit", A(F32, (2, 4)), 2)
add("vsplit", "vsplit", A(F32, (4, 2)), 2)
add("dsplit", "dsplit", A(F32, (2, 2, 4)), [1])
add("unstack", "unstack", A(F32, (2, 3)))
add("unstack_axis", "unstack", A(F32, (2, 3)), axis=1)
add("take", "take", A(F32, (2, 3)), [0, 5, -1])
add("take_axis", "take", A(F32, (2, 3)), [[0, 2], [1, -1]], axis=1)
add("take_along_axis", "take_along_axis", A(F32, (2, 3)), [[0, 2], [1, 1]], axis=1)
add("take_along_axis_bcast", "take_along_axis", A(F32, (2, 3)), [[2], [0]], axis=1)
add("where3", "where", A(B, (2, 3), "bool"), A(F32, (2, 3)), A(I32, (3,), "int"))
add("where3_scalar", "where", A(B, (3,), "bool"), 1, 2.5)
add("where1", "where", A(B, (2, 3), "bool"))
add("nonzero", "nonzero", A(I32, (2, 3), "nat"))
add("select", "select", [A(B, (4,), "bool"), [True, False, True, True]], [A(F32, (4,)), A(F32, (4,), "pos")],
    default=-1.0)
add("isin", "isin", A(I32, (2, 3), "int"), [0, 1, 2])
add("isin_invert", "isin", A(I32, (4,), "int"), [1, -2], invert=True)
add("unravel_index", "unravel_index", [1, 5, 7], (2, 4))
add("unique", "unique", [3, 1, 2, 3, 1, 0])
add("unique_all", "unique", [3, 1, 2, 3, 1, 0], return_index=True, return_inverse=True, return_counts=True)
add("unique_unsorted", "unique", [3, 1, 2, 3, 1, 0], sorted=False)
add("matmul", "matmul", A(F32, (2, 3)), A(F32, (3, 4)))
add("matmul_int", "matmul", A(I32, (2, 3), "int"), A(I32, (3, 2), "int"))
add("matmul_int8", "matmul", A(I8, (2, 3), "int"), A(I8, (3, 2), "int"))
add("matmul_vec", "matmul", A(F32, (3,)), A(F32, (2, 3, 4)))
add("matmul_mixed", "matmul", A(I32, (2, 3), "int"), A(F16, (3, 2)))
add("dot", "dot", A(F32, (2, 3)), A(F32, (3,)))
add("dot_nd", "dot", A(F32, (2, 3)), A(F32, (2, 3, 4)))
add("dot_scalar", "dot", A(F32, (3,)), 2.0)
add("vdot", "vdot", A(F32, (2, 3)), A(F32, (6,)))
add("inner", "inner", A(F32, (2, 3)), A(F32, (4, 3)))
add("outer", "outer", A(F32, (3,)), A(I32, (2,), "int"))
add("tensordot", "tensordot", A(F32, (2, 3, 4)), A(F32, (3, 4, 2)))
add("tensordot_axes", "tensordot", A(F32, (2, 3)), A(F32, (3, 2)), axes=([1], [0]))
add("tensordot_int", "tensordot", A(I8, (2, 3), "int"), A(I8, (3, 2), "int"), axes=1)
add("einsum", "einsum", "ij,jk->ik", A(F32, (2, 3)), A(F32, (3, 2)))
add("einsum_batch", "einsum", "bij,bj->bi", A(F32, (2, 2, 3)), A(F32, (2, 3)))
add("einsum_int8", "einsum", "ij->j", A(I8, (2, 3), "int"))
add("kron", "kron", A(F32, (2, 2)), A(F32, (2, 3)))
add("cross", "cross", A(F32, (2, 3)), A(F32, (2, 3), "pos"))
add("cross_2d", "cross", A(F32, (2, 2)), A(F32, (2, 2), "pos"))
for mode in ["valid", "same", "full"]:
    add(f"correlate_{mode}", "correlate", A(F32, (5,)), A(F32, (3,), "pos"), mode=mode)
add("get_item", "get_item", A(F32, (3, 4)), 1)
add("ndim", "ndim", A(F32, (2, 3)))
add("size", "size", A(F32, (2, 3)))
add("shape", "shape", A(F32, (2, 3)))
add("copy", "copy", A(F32, (3,)))
add("view", "view", A(F32, (2, 2)), "int32")
add("view_bytes", "view", A(I32, (2, 2), "int"), "uint8")
add("bartlett", "bartlett", 5)
add("blackman", "blackman", 5)
add("hamming", "hamming", 5)
add("hanning", "hanning", 5)
add("kaiser", "kaiser", 5, 2.0)

# ---- core ---------------------------------------------------------------------------------------------------------
add("cast", "cast", A(F32, (3,)), "int32")
add("cast_bool", "cast", A(I32, (3,), "int"), "bool")
add("saturate_cast", "saturate_cast", N([-300.0, 10.0, 300.0], F32), "uint8")
add("convert_to_tensor", "convert_to_tensor", [1, 2])
add("convert_to_tensor_f", "convert_to_tensor", 2.5)
add("convert_to_tensor_dtype", "convert_to_tensor", [1, 2], dtype="float16")
add("stop_gradient", "stop_gradient", A(F32, (3,)))
add("slice", "slice", A(F32, (3, 4)), (1, 1), (2, 2))
add("slice_update", "slice_update", A(F32, (3, 4)), (1, 2), A(F32, (2, 2), "pos"))
add("scatter", "scatter", [[0], [2]], [1.0, 2.0], (4,))
add("scatter_2d", "scatter", [[0, 1], [1, 0], [0, 1]], [1.0, 2.0, 3.0], (2, 2))
add("scatter_update", "scatter_update", A(F32, (3, 3)), [[0, 0], [2, 1]], [5.0, 6.0])
add("scatter_update_rows", "scatter_update", A(F32, (3, 2)), [[1]], [[7.0, 8.0]])
add("is_tensor", "is_tensor", [1.0])
add("dtype", "dtype", A(I8, (2,), "int"))
add("ones_like_via_map", "map", "square", A(F32, (3, 2)))
add("scan", "scan", "cumsum_fn", 0.0, A(F32, (4,)))
add("scan_reverse", "scan", "cumsum_fn", 1.0, A(F32, (4,)), reverse=True)
add("associative_scan", "associative_scan", "add_fn", A(F32, (5,)))
add("associative_scan_rev", "associative_scan", "add_fn", A(F32, (2, 5)), reverse=True, axis=1)
add("fori_loop", "fori_loop", 0, 4, "fori_body", A(F32, (2,)))
add("while_loop", "while_loop", "wl_cond", "wl_body", (0, A(F32, (2,))))
add("cond_true", "cond", True, "const1", "const2")
add("switch", "switch", 1, ["sq_fn", "neg_fn"], A(F32, (3,)))
add("vectorized_map", "vectorized_map", "sumsq_fn", A(F32, (3, 2)))
add("unravel_like", "unravel_index", [3], (2, 2))

# ---- math ---------------------------------------------------------------------------------------------------------
add("segment_sum", "segment_sum", A(F32, (5, 2)), N([0, 0, 1, 2, 2], I32))
add("segment_sum_n", "segment_sum", A(F32, (5,)), N([0, 0, 3, 1, 1], I32), num_segments=4)
add("segment_max", "segment_max", A(F32, (5,)), N([0, 0, 1, 2, 2], I32))
add("segment_min", "segment_min", A(F32, (5,)), N([0, 0, 1, 2, 2], I32), num_segments=4)
add("segment_prod", "segment_prod", A(F32, (5,)), N([0, 0, 1, 2, 2], I32))
add("top_k", "top_k", A(F32, (2, 5)), 3)
add("in_top_k", "in_top_k", [1, 3], A(F32, (2, 5)), 2)
add("erf_m", "erf", A(F32, (4,)))
add("extract_sequences", "extract_sequences", A(F32, (2, 8)), 3, 2)
add("fft", "fft", (A(F32, (2, 4)), A(F32, (2, 4), "pos")))
add("fft2", "fft2", (A(F32, (2, 4)), A(F32, (2, 4), "pos")))
add("ifft2", "ifft2", (A(F32, (2, 4)), A(F32, (2, 4), "pos")))
add("rfft", "rfft", A(F32, (2, 6)))
add("rfft_len", "rfft", A(F32, (6,)), fft_length=8)
add("irfft", "irfft", (A(F32, (2, 4)), A(F32, (2, 4), "pos")))
add("stft", "stft", A(F32, (16,)), 8, 4, 8)
add("stft_nocenter", "stft", A(F32, (2, 16)), 6, 3, 8, window="hamming", center=False)
add("istft", "istft", (A(F32, (5, 5)), A(F32, (5, 5), "pos")), 8, 4, 8)
add("view_as_real", "view_as_real", [1 + 2j, 3 - 1j])
add("view_as_complex", "view_as_complex", A(F32, (3, 2)))

# ---- linalg -------------------------------------------------------------------------------------------------------
add("cholesky", "cholesky", A(F32, (3, 3), "spd"))
add("cholesky_upper", "cholesky", A(F32, (3, 3), "spd"), upper=True)
add("cholesky_inverse", "cholesky_inverse", [[2.0, 0.0], [1.0, 3.0]])
add("det", "det", A(F32, (2, 3, 3), "spd"))
add("inv", "inv", A(F32, (3, 3), "spd"))
add("logdet", "logdet", A(F32, (3, 3), "spd"))
add("slogdet", "slogdet", N([[2.0, 1.0, 0.5], [1.0, -1.0, 0.0], [0.0, 0.3, 1.0]], F32))
add("solve", "solve", A(F32, (3, 3), "spd"), A(F32, (3, 2)))
add("solve_triangular", "solve_triangular", [[2.0, 0.0], [1.0, 3.0]], A(F32, (2, 2)), lower=True)
add("solve_triangular_up", "solve_triangular", [[2.0, 1.0], [0.0, 3.0]], A(F32, (2, 2)))
add("norm_vec", "norm", A(F32, (4,)))
add("norm_fro", "norm", A(F32, (3, 3)))
add("norm_ord1", "norm", A(F32, (2, 4)), ord=1, axis=1)
add("norm_inf", "norm", A(F32, (2, 4)), ord=float("inf"), axis=-1, keepdims=True)
add("norm_mat1", "norm", A(F32, (3, 3)), ord=1)
add("norm_nuc", "norm", A(F32, (3, 3)), ord="nuc")
add("norm_int", "norm", A(I32, (4,), "int"))
add("pinv", "pinv", A(F32, (3, 2)))
add("matrix_rank", "matrix_rank", [[1.0, 2.0], [2.0, 4.0]])
add("lstsq", "lstsq", A(F32, (4, 2)), A(F32, (4,)))
add("eigh", "eigh_values", A(F32, (3, 3), "spd"))
add("eigh_vectors_abs", "eigh_vectors_abs", A(F32, (3, 3), "spd"))
add("svd_vals", "svd", A(F32, (3, 2)), compute_uv=False)
add("qr_r", "qr_r", A(F32, (3, 2)))
add("lu_factor", "lu_factor", [[1.0, 2.0], [3.0, 4.0]])

# ---- nn -----------------------------------------------------------------------------------------------------------
for f in ["relu", "relu6", "sigmoid", "sparse_sigmoid", "softplus", "softsign", "silu", "swish", "log_sigmoid",
          "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "tanh_shrink", "selu", "sparse_plus", "squareplus",
          "elu", "celu", "gelu", "leaky_relu", "hard_shrink", "soft_shrink", "glu", "softmax", "log_softmax",
          "sparsemax"]:
    add(f"nn_{f}", f"nn.{f}", A(F32, (2, 4)))
add("nn_relu_i32", "nn.relu", A(I32, (4,), "int"))
add("nn_gelu_exact", "nn.gelu", A(F32, (4,)), approximate=False)
add("nn_leaky_relu_slope", "nn.leaky_relu", A(F32, (4,)), negative_slope=0.1)
add("nn_elu_alpha", "nn.elu", A(F32, (4,)), alpha=0.5)
add("nn_softmax_axis0", "nn.softmax", A(F32, (3, 2)), axis=0)
add("nn_threshold", "nn.threshold", A(F32, (5,)), 0.3, -1.0)
add("nn_squareplus_b", "nn.squareplus", A(F32, (3,)), b=2)
add("nn_one_hot", "nn.one_hot", [0, 2, -1, 1], 3)
add("nn_one_hot_axis0", "nn.one_hot", [0, 2], 3, axis=0, dtype="int32")
add("nn_multi_hot", "nn.multi_hot", N([[0, 2], [1, 1]], I32), 4)
add("nn_moments", "nn.moments", A(F32, (2, 3, 4)), [0, 1])
add("nn_moments_keep", "nn.moments", A(F16, (2, 3)), [1], keepdims=True)
add("nn_batch_normalization", "nn.batch_normalization", A(F32, (2, 3)), A(F32, (3,)), A(F32, (3,), "pos"), axis=-1,
    offset=A(F32, (3,)), scale=A(F32, (3,), "pos"))
add("nn_layer_normalization", "nn.layer_normalization", A(F32, (2, 4)), gamma=A(F32, (4,), "pos"),
    beta=A(F32, (4,)))
add("nn_rms_normalization", "nn.rms_normalization", A(F32, (2, 4)), scale=A(F32, (4,), "pos"))
add("nn_normalize", "nn.normalize", A(F32, (2, 4)))
add("nn_normalize_l1", "nn.normalize", A(F32, (2, 4)), axis=0, order=1)
add("nn_binary_crossentropy", "nn.binary_crossentropy", A(F32, (2, 3), "nat"), A(F32, (2, 3), "unit"),
    from_logits=True)
add("nn_binary_crossentropy_p", "nn.binary_crossentropy", [[0.0, 1.0], [1.0, 0.0]], [[0.2, 0.7], [0.9, 0.4]])
add("nn_categorical_crossentropy", "nn.categorical_crossentropy", [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
    A(F32, (2, 3)), from_logits=True)
add("nn_categorical_crossentropy_p", "nn.categorical_crossentropy", [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
    [[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
add("nn_sparse_categorical_crossentropy", "nn.sparse_categorical_crossentropy", [1, 0], A(F32, (2, 3)),
    from_logits=True)
add("nn_sparse_categorical_crossentropy_p", "nn.sparse_categorical_crossentropy", [2, 0],
    [[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
add("nn_conv1d", "nn.conv", A(F32, (1, 6, 2)), A(F32, (3, 2, 2)))
add("nn_conv2d_same", "nn.conv", A(F32, (1, 5, 5, 2)), A(F32, (3, 3, 2, 3)), strides=2, padding="same")
add("nn_conv2d_dil", "nn.conv", A(F32, (1, 6, 6, 1)), A(F32, (2, 2, 1, 2)), dilation_rate=2)
add("nn_depthwise_conv", "nn.depthwise_conv", A(F32, (1, 5, 5, 2)), A(F32, (3, 3, 2, 2)), padding="same")
add("nn_separable_conv", "nn.separable_conv", A(F32, (1, 5, 5, 2)), A(F32, (3, 3, 2, 1)), A(F32, (1, 1, 2, 3)))
add("nn_conv_transpose", "nn.conv_transpose", A(F32, (1, 3, 3, 2)), A(F32, (3, 3, 4, 2)), strides=2,
    padding="same")
add("nn_conv_transpose_1d", "nn.conv_transpose", A(F32, (1, 4, 2)), A(F32, (3, 3, 2)), strides=2)
add("nn_max_pool", "nn.max_pool", A(F32, (1, 4, 4, 2)), 2)
add("nn_max_pool_same", "nn.max_pool", A(F32, (1, 5, 5, 1)), 3, strides=2, padding="same")
add("nn_average_pool", "nn.average_pool", A(F32, (1, 4, 4, 2)), 2)
add("nn_average_pool_1d", "nn.average_pool", A(F32, (1, 6, 2)), 3, strides=1, padding="same")
add("nn_depth_to_space", "nn.depth_to_space", A(F32, (1, 2, 2, 4)), 2)
add("nn_space_to_depth", "nn.space_to_depth", A(F32, (1, 4, 4, 1)), 2)
add("nn_unfold", "nn.unfold", A(F32, (1, 2, 4, 4)), 2, stride=2)
add("nn_fold", "nn.fold", A(F32, (1, 8, 4)), (4, 4), 2, stride=2)
add("nn_psnr", "nn.psnr", A(F32, (4, 4), "unit"), A(F32, (4, 4), "pos"), 1.0)
add("nn_dot_product_attention", "nn.dot_product_attention", A(F32, (1, 3, 2, 4)), A(F32, (1, 5, 2, 4), "unit"),
    A(F32, (1, 5, 2, 4), "pos"))
add("nn_dot_product_attention_causal", "nn.dot_product_attention", A(F32, (1, 4, 1, 2)), A(F32, (1, 4, 1, 2)),
    A(F32, (1, 4, 1, 2)), is_causal=True, scale=0.3)
add("nn_ctc_loss", "nn.ctc_loss", [[1, 2, 0], [2, 0, 0]], A(F32, (2, 5, 3)), [2, 1], [5, 4])
add("nn_ctc_decode", "nn.ctc_decode", A(F32, (2, 5, 3)), [5, 4])
add("nn_polar", "nn.polar", A(F32, (3,), "pos"), A(F32, (3,)))

# ---- image --------------------------------------------------------------------------------------------------------
add("image_resize", "image.resize", A(F32, (1, 4, 6, 2)), (3, 4))
add("image_resize_nearest", "image.resize", A(F32, (1, 4, 6, 1)), (8, 3), interpolation="nearest")
add("image_resize_bicubic", "image.resize", A(F32, (4, 6, 1)), (6, 9), interpolation="bicubic")
add("image_resize_crop", "image.resize", A(F32, (1, 4, 8, 1)), (4, 4), crop_to_aspect_ratio=True)
add("image_resize_pad", "image.resize", A(F32, (1, 4, 8, 1)), (4, 4), pad_to_aspect_ratio=True)
add("image_resize_aa", "image.resize", A(F32, (1, 8, 8, 1)), (3, 3), antialias=True)
add("image_rgb_to_grayscale", "image.rgb_to_grayscale", A(F32, (2, 2, 3), "pos"))
add("image_rgb_to_hsv", "image.rgb_to_hsv", A(F32, (2, 2, 3), "pos"))
add("image_hsv_to_rgb", "image.hsv_to_rgb", A(F32, (2, 2, 3), "frac"))
add("image_affine_transform", "image.affine_transform", A(F32, (1, 5, 5, 1)), N([[1.0, 0.1, 0.5, 0.0, 0.9, -0.5,
                                                                                   0.0, 0.0]], F32))
add("image_affine_nearest", "image.affine_transform", A(F32, (5, 5, 1)),
    N([0.9, 0.0, 0.3, 0.1, 1.0, 0.0, 0.0, 0.0], F32), interpolation="nearest", fill_mode="reflect")
add("image_extract_patches", "image.extract_patches", A(F32, (1, 4, 4, 2)), 2)
add("image_extract_patches_s", "image.extract_patches", A(F32, (1, 5, 5, 1)), (3, 3), strides=(2, 2),
    padding="same")
add("image_map_coordinates", "image.map_coordinates", A(F32, (4, 5)), [[0.5, 1.2, 3.0], [0.0, 2.5, 4.4]], 1)
add("image_map_coordinates_n", "image.map_coordinates", A(F32, (4, 5)), [[0.5, 1.7, 3.0], [0.2, 2.5, 6.4]], 0,
    fill_mode="nearest")
add("image_pad_images", "image.pad_images", A(F32, (1, 3, 3, 1)), 1, 2, target_height=5, target_width=6)
add("image_crop_images", "image.crop_images", A(F32, (1, 5, 6, 1)), 1, 2, target_height=3, target_width=3)
add("image_gaussian_blur", "image.gaussian_blur", A(F32, (1, 5, 5, 1)))
add("image_sobel_edges", "image.sobel_edges", A(F32, (1, 4, 4, 1)))
add("image_ssim", "image.ssim", A(F32, (1, 16, 16, 1), "unit"), A(F32, (1, 16, 16, 1), "pos"), filter_size=5)
add("image_perspective_transform", "image.perspective_transform", A(F32, (1, 5, 5, 1)),
    [[[0, 0], [4, 0], [0, 4], [4, 4]]], [[[0.5, 0], [4, 0.2], [0, 3.5], [4, 4]]])

# helpers named by string in cases (functions can't live in JSON)
FUNCS = {
    "square": lambda ops: ops.square,
    "cumsum_fn": lambda ops: (lambda c, x: (c + x, c * x)),
    "add_fn": lambda ops: (lambda a, b: a + b),
    "fori_body": lambda ops: (lambda i, v: v * 2.0 + ops.cast(i, "float32")),
    "wl_cond": lambda ops: (lambda i, v: i < 3),
    "wl_body": lambda ops: (lambda i, v: (i + 1, v * 1.5)),
    "const1": lambda ops: (lambda: ops.ones((2,))),
    "const2": lambda ops: (lambda: ops.zeros((2,))),
    "sq_fn": lambda ops: (lambda x: x * x),
    "neg_fn": lambda ops: (lambda x: -x),
    "sumsq_fn": lambda ops: (lambda x: ops.sum(x * x)),
}

# cases differentiated with GradientTape (float array inputs) and re-run inside tf.function
GRAD = ["sin_f32", "exp_f32", "log_f32", "sqrt_f32", "tanh_f32", "cbrt_f32", "sinc_f32", "add_f32_f32",
        "multiply_f32_f32", "divide_f32_f32", "power_f32", "maximum_f32_f32", "arctan2_f32_f32", "logaddexp_f32_f32",
        "hypot_f32_f32", "clip_f32", "sum_axis1", "mean_keep", "max_axis1", "var_all", "std_axis1", "prod_all",
        "cumsum_axis1", "cumprod_all", "median_axis1", "quantile_linear", "average_weights", "logsumexp",
        "matmul", "dot_nd", "tensordot", "einsum_batch", "kron", "cross", "outer", "trace", "diagonal",
        "take_axis", "take_along_axis", "where3", "concatenate", "stack_axis", "pad_reflect", "tile", "repeat_axis",
        "roll_axis", "flip_axis", "rot90_1", "moveaxis", "triu", "sort_axis1", "slice_update", "scatter_update",
        "scan", "associative_scan", "fori_loop", "nn_softmax", "nn_log_softmax", "nn_gelu", "nn_selu", "nn_glu",
        "nn_sparsemax", "nn_layer_normalization", "nn_rms_normalization", "nn_normalize", "nn_moments",
        "nn_binary_crossentropy", "nn_categorical_crossentropy", "nn_sparse_categorical_crossentropy",
        "nn_conv2d_same", "nn_depthwise_conv", "nn_separable_conv", "nn_conv_transpose", "nn_max_pool",
        "nn_average_pool", "nn_dot_product_attention", "nn_unfold", "image_resize",
        "image_affine_transform", "image_map_coordinates", "image_rgb_to_grayscale", "det", "inv", "solve",
        "cholesky", "norm_fro", "norm_ord1", "logdet", "correlate_full", "trapezoid", "diff", "vander_inc",
        "nn_ctc_loss", "segment_sum_n", "top_k", "rfft", "stft", "extract_sequences"]


def resolve(ops, path):
    if path == "vectorize_call":
        return lambda x: ops.vectorize(lambda v: v * 2.0)(x)
    if path == "qr_r":
        return lambda x: ops.qr(x)[1]
    if path == "eigh_values":  # eigenvector signs are implementation-defined
        return lambda x: ops.eigh(x)[0]
    if path == "eigh_vectors_abs":
        return lambda x: ops.abs(ops.eigh(x)[1])
    obj = ops
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _funcs(ops, v):
    if isinstance(v, str) and v in FUNCS:
        return FUNCS[v](ops)
    if isinstance(v, list) and v and all(isinstance(x, str) and x in FUNCS for x in v):
        return [FUNCS[x](ops) for x in v]
    return v


def prepare(case):
    """The case's (path, args, kwargs) with array specs built (NumPy arrays)."""
    path, args, kwargs = case
    return path, [build(a) for a in args], {k: build(v) for k, v in kwargs.items()}


def run(tf, ops, case, wrap=None):
    """Calls the op (through ``wrap(fn)`` when given, e.g. ``tf.function``); returns its result."""
    path, args, kwargs = prepare(case)
    fn = resolve(ops, path)
    args = [_funcs(ops, a) for a in args]
    if wrap is not None:
        call = wrap(lambda *a: fn(*a, **kwargs))
        return call(*args)
    return fn(*args, **kwargs)


def float_inputs(args):
    """Positions of the float array arguments (the ones gradients are taken for)."""
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


def weight_for(shape, i=0):
    n = int(np.prod(shape)) if len(shape) else 1
    return _det(n, k=0.77 + 0.1 * i, s=1.0).reshape(shape)


def grads(tf, ops, case):
    """d sum_j sum(out_j * w_j) / d (float array args), with each float input a watched constant."""
    path, args, kwargs = prepare(case)
    fn = resolve(ops, path)
    idx = float_inputs(args)
    consts = [tf.constant(a) if i in idx else _funcs(ops, a) for i, a in enumerate(args)]
    with tf.GradientTape() as tape:
        for i in idx:
            tape.watch(consts[i])
        out = fn(*consts, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        total = 0.0
        for j, o in enumerate(outs):
            o = tf.convert_to_tensor(o)
            if o.dtype.is_floating:
                w = tf.constant(weight_for(tuple(o.shape), j), dtype=o.dtype)
                total = total + tf.reduce_sum(tf.cast(o * w, "float64"))
    g = tape.gradient(total, [consts[i] for i in idx])
    return [None if v is None else np.asarray(tf.convert_to_tensor(v)) for v in g]


def encode(value):
    """A JSON-ready form of an op result: nested lists/tuples of {dtype, shape, values}."""
    if isinstance(value, (list, tuple)):
        return {"seq": [encode(v) for v in value]}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"py": value}
    if hasattr(value, "as_list") or type(value).__name__ == "TensorShape":
        return {"py": list(value)}
    a = np.asarray(value)
    if a.dtype.kind == "c":
        return {"dtype": str(a.dtype), "shape": list(a.shape), "re": np.real(a).tolist(), "im": np.imag(a).tolist()}
    dt = getattr(value, "dtype", a.dtype)
    name = getattr(dt, "name", str(dt))
    return {"dtype": name, "shape": list(a.shape), "values": a.astype(np.float64).tolist() if a.dtype.kind in "fiub"
            else a.tolist()}
