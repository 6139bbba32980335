"""tf.quantization against results recorded from real TF (tests/goldens/quantization.json; cases
quantization_cases.py)."""

import numpy as np
import pytest
import value_cases
from quantization_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("quantization.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)




# --- reference cases for the op table (NumPy re-statement of TF's nudged fake quantization) --------------------
from opcheck import Case, compiled_tests, op_tests  # noqa: E402

Qz = tf.quantization


def _nudged(lo, hi, bits, narrow):
    qmin, qmax = (1.0 if narrow else 0.0), 2.0 ** bits - 1
    scale = np.float32((hi - lo) / (qmax - qmin))
    zp = qmin - lo / scale
    zp = qmin if zp < qmin else qmax if zp > qmax else np.floor(zp + 0.5)
    return np.float32((qmin - zp) * scale), np.float32((qmax - zp) * scale), scale


def _fq_ref(x, lo, hi, bits=8, narrow=False):
    nmin, nmax, scale = _nudged(lo, hi, bits, narrow)
    c = np.clip(x, nmin, nmax)
    return (np.floor((c - nmin) / scale + 0.5) * scale + nmin).astype(np.float32)


def _per_channel_ref(x, lo, hi):
    return np.stack([_fq_ref(x[..., i], lo[i], hi[i], 3) for i in range(x.shape[-1])], -1)


def _mask_ref(g, x, lo, hi):
    nmin, nmax, _ = _nudged(lo, hi, 8, False)
    return np.where((x >= nmin) & (x <= nmax), g, 0).astype(np.float32)


def _qdq_ref(x, lo, hi, bits):
    qmin, qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    scale = min(qmin / lo, qmax / hi)
    inv = 1 / scale
    lo_e, hi_e = (lo, qmax * inv) if qmin / lo < qmax / hi else (qmin * inv, hi)
    return (np.round(np.clip(x, lo_e, hi_e) * scale) * inv).astype(x.dtype)


_LO, _HI = np.array([-1.0, 0.0], np.float32), np.array([1.0, 6.0], np.float32)
NOGRAD = dict(grad=False)  # fake quantization is piecewise constant: TF's gradient is the straight-through one
OP_CASES = [
    Case(lambda x: Qz.fake_quant_with_min_max_args(x, -1.0, 2.0, num_bits=4), lambda x: _fq_ref(x, -1.0, 2.0, 4),
         [((3, 4),), ((0,),)], ("float32",), ops=("FakeQuantWithMinMaxArgs",), **NOGRAD),
    Case(lambda g, x: Qz.fake_quant_with_min_max_args_gradient(g, x, -1.0, 2.0),
         lambda g, x: _mask_ref(g, x, -1.0, 2.0), [((3, 4), (3, 4))], ("float32",),
         ops=("FakeQuantWithMinMaxArgsGradient",), **NOGRAD),
    Case(lambda x: Qz.fake_quant_with_min_max_vars(x, -0.7, 2.2, num_bits=5), lambda x: _fq_ref(x, -0.7, 2.2, 5),
         [((2, 5),)], ("float32",), ops=("FakeQuantWithMinMaxVars",), **NOGRAD),
    Case(lambda g, x: Qz.fake_quant_with_min_max_vars_gradient(g, x, -1.0, 2.0)[0],
         lambda g, x: _mask_ref(g, x, -1.0, 2.0), [((6,), (6,))], ("float32",),
         ops=("FakeQuantWithMinMaxVarsGradient",), **NOGRAD),
    Case(lambda x: Qz.fake_quant_with_min_max_vars_per_channel(x, _LO, _HI, num_bits=3),
         lambda x: _per_channel_ref(x, _LO, _HI), [((4, 2),)], ("float32",),
         ops=("FakeQuantWithMinMaxVarsPerChannel",), **NOGRAD),
    Case(lambda g, x: Qz.fake_quant_with_min_max_vars_per_channel_gradient(g, x, _LO, _HI)[0],
         lambda g, x: np.where((x >= _LO) & (x <= _HI), g, 0).astype(np.float32), [((4, 2), (4, 2))],
         ("float32",), ops=("FakeQuantWithMinMaxVarsPerChannelGradient",), **NOGRAD),
    Case(lambda x: Qz.quantize_and_dequantize(x, -1.0, 2.0, range_given=True, num_bits=4),
         lambda x: _qdq_ref(x, -1.0, 2.0, 4), [((3, 3),)], ("float32", "float64"), ops=("QuantizeAndDequantizeV2",),
         **NOGRAD),
    Case(lambda x: Qz.quantize_and_dequantize_v2(x, -1.0, 2.0, range_given=True, num_bits=4),
         lambda x: _qdq_ref(x, -1.0, 2.0, 4), [((3, 3),)], ("float32",), ops=("QuantizeAndDequantizeV4",),
         **NOGRAD),
]

CASES = OP_CASES
test_values, test_lowering, _ = op_tests(OP_CASES)
test_compiled = compiled_tests(OP_CASES)
