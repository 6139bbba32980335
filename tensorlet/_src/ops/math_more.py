"""``tf.math.accumulate_n`` and ``tf.math.sobol_sample`` (Sobol low-discrepancy points, Joe-Kuo direction
numbers through scipy's unscrambled generator, skipping the all-zeros first point as TF does)."""

from __future__ import annotations

import warnings


from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec


@tf_export("math.accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of ``inputs`` (same shape and dtype), as ``tf.math.add_n``.

    >>> tf.math.accumulate_n([tf.constant([1., 2.]), tf.constant([3., 4.])]).numpy()
    array([4., 6.], dtype=float32)
    """
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype and shape")
    xs = [t(x) for x in inputs]
    if any(x.dtype is not xs[0].dtype for x in xs):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if shape is not None and any(not x.shape.is_compatible_with(shape) for x in xs):
        raise ValueError(f"Shape of inputs must be compatible with {shape}")
    if tensor_dtype is not None and D.as_dtype(tensor_dtype) is not xs[0].dtype:
        raise TypeError(f"tensor_dtype is {D.as_dtype(tensor_dtype)}, but input is of type {xs[0].dtype}")
    return math_nary.add_n(xs)


def _sobol_kernel(xp, dim, num_results, skip, dtype="float32"):
    from scipy.stats import qmc

    d, n, s = int(dim), int(num_results), int(skip)
    if d < 1:
        raise errors.invalid_argument("SobolSample", f"dim must be at least one, got {d}")
    if d > 21201:
        raise errors.invalid_argument("SobolSample", f"dim must be at most 21201, got {d}")
    if n < 1:
        raise errors.invalid_argument("SobolSample", f"num_results must be at least one, got {n}")
    if s < 0:
        raise errors.invalid_argument("SobolSample", f"skip must be non-negative, got {s}")
    eng = qmc.Sobol(d, scramble=False)
    with warnings.catch_warnings():  # scipy's note on balance for sizes that are not powers of 2
        warnings.simplefilter("ignore")
        eng.fast_forward(1 + s)
        pts = eng.random(n)
    return pts.astype(dtype)


SOBOL_SAMPLE = defop("SobolSample", _sobol_kernel, grad=NONDIFF, no_lowering=True,
                     no_lowering_reason="the number of points is a runtime value",
                     shape=lambda *a, dtype="float32": Spec(TensorShape([None, None]), D.as_dtype(dtype)))


@tf_export("math.sobol_sample")
def sobol_sample(dim, num_results, skip=0, dtype=D.float32, name=None):
    """``num_results`` points of the ``dim``-dimensional Sobol sequence in [0, 1), after skipping ``skip``.

    >>> tf.math.sobol_sample(2, 3).numpy()
    array([[0.5 , 0.5 ],
           [0.75, 0.25],
           [0.25, 0.75]], dtype=float32)
    """
    dtype = D.as_dtype(dtype)
    if dtype not in (D.float32, D.float64):
        raise errors.invalid_argument("SobolSample", f"Value for attr 'dtype' of {dtype.name} is not in the list "
                                                     "of allowed values: float, double")
    return bind(SOBOL_SAMPLE, t(dim, dtype=D.int32), t(num_results, dtype=D.int32), t(skip, dtype=D.int32),
                dtype=dtype.name)


from tensorlet._src.ops import math_nary  # noqa: E402
