"""tf.quantization.quantize / dequantize / quantized_concat and quantized / float8 casts against results recorded
from real TF (tests/goldens/quantize.json; cases quantize_cases.py)."""

import numpy as np
import pytest
import value_cases
from quantize_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("quantize.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_quantized_values_print_as_storage_integers():
    q = tf.cast(tf.constant([1.0, -3.0]), tf.qint8)
    assert str(q) == "tf.Tensor([ 1 -3], shape=(2,), dtype=qint8)"
    assert q.numpy().dtype == np.int8


def test_quantize_errors_name_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input_max_range must be larger.*QuantizeV2"):
        tf.quantization.quantize([1.0], 2.0, 1.0, tf.quint8)


# --- reference checks for the op table (NumPy re-statement of TF's MIN_COMBINED / SCALED formulas) ---------------
from opcheck import Case, compiled_tests, op_tests  # noqa: E402

Qz = tf.quantization


def _min_combined_u8(x):
    return np.trunc((np.clip(x, -1.0, 2.0) + 1.0) * np.float32(255 / 3.0) + 0.5).astype(np.float32)


def _scaled_roundtrip(x):
    s = np.float32(127 / 2.0)
    return (np.rint(np.clip(x, np.float32(-128) / s, 2.0) * s) / s).astype(np.float32)  # SCALED widens min


OP_CASES = [
    Case(lambda x: tf.cast(Qz.quantize(x, -1.0, 2.0, tf.quint8).output, tf.float32), _min_combined_u8,
         [((3, 4),), ((0,),)], ("float32",), ops=("QuantizeV2",), grad=False, jax=False),
    Case(lambda x: Qz.dequantize(*Qz.quantize(x, -2.0, 2.0, tf.qint8, mode="SCALED",
                                              round_mode="HALF_TO_EVEN"), mode="SCALED"),
         _scaled_roundtrip, [((2, 5),)], ("float32",), ops=("QuantizeV2", "Dequantize"), grad=False, jax=False),
    Case(lambda a, b: tf.cast(Qz.quantized_concat(0, [tf.cast(a, tf.quint8), tf.cast(b, tf.quint8)], [0.0, 0.0],
                                                  [1.0, 1.0]).output, tf.float32),
         lambda a, b: np.trunc(np.concatenate([a, b], 0)).astype(np.float32) % 256,
         [((2, 3), (1, 3))], ("float32",), ops=("QuantizedConcat",), grad=False, jax=False),
]
CASES = OP_CASES  # no XLA form (quantized dtypes); grads: TF registers none (LookupError, golden case)
test_values, test_lowering, _ = op_tests(OP_CASES)
test_compiled = compiled_tests(OP_CASES)
