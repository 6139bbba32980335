"""tf.signal against real TF (tests/goldens/signal.json, recorded by tools/record_tf_goldens/signal.py over
signal_cases.py: values, dtypes, shapes, gradients) and the FFT ops against NumPy for the op table."""

import numpy as np
import pytest
import value_cases
from opcheck import Case, compiled_tests, op_tests
from signal_cases import CASES as GOLDEN_CASES

import tensorlet as tf

GOLDEN = value_cases.load("signal.json")


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, GOLDEN_CASES[name]), GOLDEN[name], name)


def test_table_is_recorded():
    assert set(GOLDEN_CASES) == set(GOLDEN), "re-run tools/record_tf_goldens/signal.py"


def _cplx(rng, shapes, dtype):
    return [(rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(dtype) for s in shapes]


CASES = [
    Case(tf.signal.fft, lambda x: np.fft.fft(x).astype(x.dtype), [((3, 8),)], ("complex64", "complex128"),
         ops=("FFTND",), gen=_cplx, grad=False),
    Case(tf.signal.ifft2d, lambda x: np.fft.ifft2(x).astype(x.dtype), [((2, 4, 4),)], ("complex128",),
         ops=("IFFTND",), gen=_cplx, grad=False),
    Case(tf.signal.rfft, lambda x: np.fft.rfft(x).astype(np.complex64 if x.dtype == np.float32 else np.complex128),
         [((3, 8),), ((7,),)], ("float32", "float64"), ops=("RFFTND",),
         grad=False),  # complex output: finite differences here need a real output; TF-recorded gradients in
                       # tests/ops/signal_cases.py cover it
    Case(lambda x: tf.signal.irfft(x, [6]), lambda x: np.fft.irfft(x, 6).astype(
        np.float32 if x.dtype == np.complex64 else np.float64), [((2, 4),)], ("complex64",), ops=("IRFFTND",),
         gen=_cplx, grad=False),
]

test_values, test_lowering, test_errors = op_tests(CASES, [])
test_compiled = compiled_tests(CASES)
