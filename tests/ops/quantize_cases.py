"""tf.quantization.quantize / dequantize / quantized_concat and casts to/from quantized and float8 dtypes, run by
real TF (tools/record_tf_goldens/quantize.py -> tests/goldens/quantize.json) and by tensorlet
(tests/ops/test_quantize_ops.py)."""

import numpy as np

X = [-7.0, -1.3, -0.2, 0.0, 0.26, 0.9, 2.5, 5.99, 6.5, 0.5, -0.5, 1.25]
R = np.random.default_rng(15).uniform(-3.0, 5.0, 24).astype(np.float32).round(4).tolist()


def _q(tf, T, mode="MIN_COMBINED", lo=-1.0, hi=2.0, **kw):  # noqa: N803
    return lambda tf: tf.quantization.quantize(X, lo, hi, getattr(tf, T), mode=mode, **kw)


def _roundtrip(tf, T, mode, lo=-1.5, hi=3.0, **kw):  # noqa: N803
    q = tf.quantization.quantize(R, lo, hi, getattr(tf, T), mode=mode, **kw)
    return [q, tf.quantization.dequantize(q.output, q.output_min, q.output_max, mode=mode,
                                          narrow_range=kw.get("narrow_range", False))]


def _axis(tf, mode, axis):
    x = tf.reshape(R, [2, 3, 4])
    n = x.shape[axis]
    lo, hi = tf.linspace(-2.0, -0.5, n), tf.linspace(1.0, 4.0, n)
    q = tf.quantization.quantize(x, lo, hi, tf.qint8, mode=mode, axis=axis)
    return [q, tf.quantization.dequantize(q.output, q.output_min, q.output_max, mode=mode, axis=axis)]


def _concat(tf, T, ranges):  # noqa: N803
    parts = [tf.quantization.quantize(tf.reshape(R[i * 6:(i + 1) * 6], [2, 3]), lo, hi, getattr(tf, T),
                                      mode="MIN_FIRST") for i, (lo, hi) in enumerate(ranges)]
    return tf.quantization.quantized_concat(1, [p.output for p in parts], [p.output_min for p in parts],
                                            [p.output_max for p in parts])


def _grad(tf):
    x = tf.constant(X)
    lo = tf.constant(-1.0)
    with tf.GradientTape() as tape:
        tape.watch([x, lo])
        q = tf.quantization.quantize(x, lo, 2.0, tf.quint8)
        y = tf.quantization.dequantize(q.output, q.output_min, q.output_max)
    return tape.gradient(y, [x, lo])


def _cast(tf, src, dst, values=X):
    s = getattr(tf, src, None) or getattr(tf.dtypes.experimental, src)
    d = getattr(tf, dst, None) or getattr(tf.dtypes.experimental, dst)
    return tf.cast(tf.cast(tf.constant(values), s), d)


def _cast_case(src, dst, values):
    return lambda tf: _cast(tf, src, dst, values)


F8 = ("float8_e4m3fn", "float8_e5m2")
CASES = {
    "min_combined_quint8": _q(None, "quint8"),
    "min_combined_qint8": _q(None, "qint8"),
    "min_combined_qint16": _q(None, "qint16"),
    "min_combined_quint16": _q(None, "quint16"),
    "min_combined_qint32": _q(None, "qint32"),
    "min_combined_positive_range": _q(None, "quint8", lo=0.5, hi=3.0),
    "min_first_quint8": _q(None, "quint8", "MIN_FIRST"),
    "min_first_qint8": _q(None, "qint8", "MIN_FIRST"),
    "min_first_qint32": _q(None, "qint32", "MIN_FIRST", lo=-6.0, hi=6.0),
    "min_first_quint16": _q(None, "quint16", "MIN_FIRST", lo=-0.3, hi=0.7),
    "scaled_qint8": _q(None, "qint8", "SCALED"),
    "scaled_qint8_narrow": _q(None, "qint8", "SCALED", narrow_range=True),
    "scaled_qint8_half_even": lambda tf: tf.quantization.quantize([0.5, 1.5, 2.5, -0.5, -1.5], -127.0, 127.0,
                                                                  tf.qint8, mode="SCALED", round_mode="HALF_TO_EVEN"),
    "scaled_qint8_half_away": lambda tf: tf.quantization.quantize([0.5, 1.5, 2.5, -0.5, -1.5], -127.0, 127.0,
                                                                  tf.qint8, mode="SCALED"),
    "scaled_quint8": _q(None, "quint8", "SCALED", lo=0.0, hi=6.0),
    "scaled_qint32": _q(None, "qint32", "SCALED", lo=-8.0, hi=8.0),
    "tiny_range": _q(None, "quint8", lo=0.0, hi=0.0),
    "ensure_minimum_range": _q(None, "qint8", "SCALED", lo=0.0, hi=0.001, ensure_minimum_range=0.1),
    "roundtrip_min_combined_quint8": lambda tf: _roundtrip(tf, "quint8", "MIN_COMBINED"),
    "roundtrip_min_combined_qint8": lambda tf: _roundtrip(tf, "qint8", "MIN_COMBINED"),
    "roundtrip_min_first_quint8": lambda tf: _roundtrip(tf, "quint8", "MIN_FIRST"),
    "roundtrip_min_first_qint16": lambda tf: _roundtrip(tf, "qint16", "MIN_FIRST"),
    "roundtrip_scaled_qint8": lambda tf: _roundtrip(tf, "qint8", "SCALED"),
    "roundtrip_scaled_qint8_narrow": lambda tf: _roundtrip(tf, "qint8", "SCALED", narrow_range=True),
    "roundtrip_scaled_qint32": lambda tf: _roundtrip(tf, "qint32", "SCALED"),
    "axis_scaled_1": lambda tf: _axis(tf, "SCALED", 1),
    "axis_scaled_last": lambda tf: _axis(tf, "SCALED", -1),
    "axis_min_combined_0": lambda tf: _axis(tf, "MIN_COMBINED", 0),
    "axis_min_first_refused": lambda tf: _axis(tf, "MIN_FIRST", 2),
    "dequantize_bfloat16": lambda tf: tf.quantization.dequantize(
        tf.quantization.quantize(X, -1.0, 2.0, tf.quint8).output, -1.0, 2.0, dtype=tf.bfloat16),
    "dequantize_bfloat16_scaled_refused": lambda tf: tf.quantization.dequantize(
        tf.quantization.quantize(X, -1.0, 2.0, tf.qint8).output, -1.0, 2.0, mode="SCALED", dtype=tf.bfloat16),
    "dequantize_wrong_range_size": lambda tf: tf.quantization.dequantize(
        tf.cast(tf.zeros([2, 3]), tf.qint8), [0.0, 0.0], [1.0, 1.0], axis=1),
    "v1_quantize_v2": lambda tf: tf.compat.v1.quantize_v2(X, -1.0, 2.0, tf.qint8, "SCALED"),
    "bad_range": _q(None, "quint8", lo=2.0, hi=1.0),
    "bad_mode": _q(None, "quint8", "MAX_FIRST"),
    "bad_round_mode": _q(None, "qint8", "MIN_COMBINED", round_mode="HALF_TO_EVEN"),
    "bad_T": lambda tf: tf.quantization.quantize(X, -1.0, 2.0, tf.int8),
    "concat_same_range_quint8": lambda tf: _concat(tf, "quint8", [(-1.0, 3.0), (-1.0, 3.0)]),
    "concat_requantize_quint8": lambda tf: _concat(tf, "quint8", [(-1.0, 3.0), (0.0, 5.0), (-3.0, 1.0)]),
    "concat_requantize_qint32": lambda tf: _concat(tf, "qint32", [(-2.0, 3.0), (-1.0, 5.0)]),
    "concat_qint8_refused": lambda tf: _concat(tf, "qint8", [(-1.0, 3.0), (0.0, 5.0)]),
    "gradient_lookup_error": _grad,
    "in_function": lambda tf: tf.function(lambda x: tf.quantization.dequantize(
        *tf.quantization.quantize(x, -2.0, 6.0, tf.quint8)))(tf.constant(X)),
    # casts: float -> quantized truncates like the storage integer (wrapping), quantized -> anything numeric
    "cast_float_qint8": lambda tf: tf.cast(tf.constant([300.7, -5.2, 1e10, 127.9, -128.9]), tf.qint8),
    "cast_float_quint8": lambda tf: tf.cast(tf.constant([300.7, -5.2, 255.5, 0.9]), tf.quint8),
    "cast_float_qint32": lambda tf: tf.cast(tf.constant([300.7, -5.2, 1e10]), tf.qint32),
    "cast_int_qint16": lambda tf: tf.cast(tf.constant([1, -2, 70000]), tf.qint16),
    "cast_bool_quint16": lambda tf: tf.cast(tf.constant([True, False]), tf.quint16),
    "cast_qint8_float": lambda tf: _cast(tf, "qint8", "float32", [1.0, -3.0, 100.0]),
    "cast_qint8_quint8": lambda tf: _cast(tf, "qint8", "quint8", [1.0, -3.0, 100.0]),
    "cast_quint8_qint32": lambda tf: _cast(tf, "quint8", "qint32", [1.0, 200.0]),
    "cast_qint8_bool": lambda tf: _cast(tf, "qint8", "bool", [0.0, -3.0]),
    "cast_qint32_int64": lambda tf: _cast(tf, "qint32", "int64", [5.0, -7.0]),
    "cast_qint8_complex64": lambda tf: _cast(tf, "qint8", "complex64", [5.0, -7.0]),
    "cast_complex_qint8": lambda tf: tf.cast(tf.constant([1.5 + 2j, -3.0 + 0j]), tf.qint8),
    "quantized_constant": lambda tf: tf.constant([1, 2, 3], tf.qint8),
    "quantized_add_refused": lambda tf: tf.cast(tf.constant([1.0]), tf.qint8) + tf.cast(tf.constant([1.0]),
                                                                                           tf.qint8),
    **{f"cast_float32_{d}": _cast_case("float32", d, [300.7, -5.2, 1e10, 0.1, -448.0, 1e-3, 57000.0])
       for d in F8},
    **{f"cast_{d}_float32": _cast_case(d, "float32", R[:8]) for d in F8},
    **{f"cast_{d}_{o}": _cast_case(d, o, R[:6]) for d in F8
       for o in ("float16", "bfloat16", "float64", "int32", "int8", "uint8", "bool", "complex64", "qint8")},
    "cast_e4m3_e5m2": lambda tf: _cast(tf, "float8_e4m3fn", "float8_e5m2", R[:8]),
    "cast_int32_e4m3": lambda tf: tf.cast(tf.constant([1, 17, -300, 1000]), tf.dtypes.experimental.float8_e4m3fn),
    "cast_float16_e5m2": lambda tf: tf.cast(tf.constant(R[:6], tf.float16), tf.dtypes.experimental.float8_e5m2),
    "cast_bfloat16_e4m3": lambda tf: tf.cast(tf.constant(R[:6], tf.bfloat16), tf.dtypes.experimental.float8_e4m3fn),
    "cast_e4m3fnuz_refused": lambda tf: tf.cast(tf.constant(R[:3]), tf.dtypes.experimental.float8_e4m3fnuz),
    "cast_e5m2fnuz_refused": lambda tf: tf.cast(tf.constant([1, 2]), tf.dtypes.experimental.float8_e5m2fnuz),
    "cast_int4_from_int": lambda tf: tf.cast(tf.constant([3, -1, 9]), tf.dtypes.experimental.int4),
    "cast_uint4_from_int": lambda tf: tf.cast(tf.constant([3, -1, 17]), tf.dtypes.experimental.uint4),
    "cast_int4_to_int64": lambda tf: tf.cast(tf.cast(tf.constant([3, -1]), tf.dtypes.experimental.int4), tf.int64),
    "cast_int4_from_float_refused": lambda tf: tf.cast(tf.constant([3.0]), tf.dtypes.experimental.int4),
    "cast_int4_to_float_refused": lambda tf: tf.cast(tf.cast(tf.constant([3]), tf.dtypes.experimental.int4),
                                                     tf.float32),
    "cast_int2_refused": lambda tf: tf.cast(tf.constant([1]), tf.dtypes.experimental.int2),
    "float8_add": lambda tf: _cast(tf, "float32", "float8_e4m3fn", [1.0, 2.0]) + _cast(tf, "float32",
                                                                                       "float8_e4m3fn", [0.5, 3.0]),
    "float8_grad": lambda tf: _f8_grad(tf),
}


def _f8_grad(tf):
    x = tf.constant(R[:4])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.cast(tf.cast(x, tf.dtypes.experimental.float8_e4m3fn), tf.float32) * x)
    return tape.gradient(y, x)
