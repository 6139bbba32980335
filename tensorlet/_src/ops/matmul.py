"""Matrix multiplication: ``tf.matmul`` (2-D and batched with broadcasting) and ``@``."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops import shapes
from tensorlet._src.ops._helpers import same_dtype
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec
from tensorlet._src.ops.tfdef import TFDef, batch_matmul_from_tf, batch_matmul_to_tf, matmul_to_tf

MATMUL_TYPES = (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.int64,
                _dt.complex64, _dt.complex128)


def _operand(xp, x, transpose, adjoint):
    if adjoint:
        x = xp.conj(x)
    if transpose or adjoint:
        x = xp.swapaxes(x, -1, -2)  # a view: no copy on the hot path
    return x


def _matmul_kernel(xp, a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    a = _operand(xp, a, transpose_a, adjoint_a)
    b = _operand(xp, b, transpose_b, adjoint_b)
    if xp is np and _dt.is_bfloat16_np(a.dtype):  # NumPy has no bfloat16 BLAS: accumulate in float32
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    return xp.matmul(a, b)


def _matmul_grad(g, ans, a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    """TF's MatMul gradient (complex inputs use adjoints), summed over broadcast batch dims."""
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    cplx = a.dtype.is_complex
    # flags for "use the adjoint" (conjugate transpose) where TF's real formula transposes
    kw = "adjoint" if cplx else "transpose"

    def mm(x, y, fx=False, fy=False):
        return matmul(x, y, **{f"{kw}_a": fx, f"{kw}_b": fy})

    if not ta and not tb:
        ga, gb = mm(g, b, fy=True), mm(a, g, fx=True)
    elif not ta and tb:
        ga, gb = mm(g, b), mm(g, a, fx=True)
    elif ta and not tb:
        ga, gb = mm(b, g, fy=True), mm(a, g)
    else:
        ga, gb = mm(b, g, fx=True, fy=True), mm(g, a, fx=True, fy=True)
    if cplx and (transpose_a and not adjoint_a):
        ga = math_unary.conj(ga)
    if cplx and (transpose_b and not adjoint_b):
        gb = math_unary.conj(gb)
    return unbroadcast_batch(ga, a), unbroadcast_batch(gb, b)


def _matmul_shape(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    """The traced output shape: [*broadcast batch dims, rows of a, columns of b] (None where unknown)."""
    if a.shape.rank is None or b.shape.rank is None:
        return Spec(TensorShape(None), a.dtype)
    da, db = a.shape.as_list(), b.shape.as_list()
    if len(da) < 2 or len(db) < 2:
        raise errors.invalid_argument("MatMul", f"In[0] and In[1] ndims must be >= 2: {min(len(da), len(db))}")
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    rows, ka = (da[-1], da[-2]) if ta else (da[-2], da[-1])
    kb, cols = (db[-1], db[-2]) if tb else (db[-2], db[-1])
    if ka is not None and kb is not None and ka != kb:
        name = "MatMul" if len(da) == len(db) == 2 else "BatchMatMulV3"
        raise errors.invalid_argument(
            name, f"Matrix size-incompatible: In[0]: {errors.shape_str(da)}, In[1]: {errors.shape_str(db)}")
    batch = shapes.broadcast_shapes(TensorShape(da[:-2]), TensorShape(db[:-2]))
    return Spec(TensorShape(batch.as_list() + [rows, cols]), a.dtype)


MATMUL = defop("MatMul", _matmul_kernel, dtypes=MATMUL_TYPES, grad=_matmul_grad, shape=_matmul_shape,
               tfdef=TFDef(drop=("grad_a", "grad_b"), to_tf=matmul_to_tf))
BATCH_MATMUL = defop("BatchMatMulV3", _matmul_kernel, heavy=True, dtypes=MATMUL_TYPES, grad=_matmul_grad,
                     shape=_matmul_shape,
                     tfdef=TFDef(drop=("grad_x", "grad_y", "Ta", "Tb"), to_tf=batch_matmul_to_tf,
                                 from_tf=batch_matmul_from_tf))


@tf_export("linalg.matmul", "matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product of ``a`` and ``b`` (rank >= 2, batch dims broadcast).

    >>> matmul([[2.]], [[2.]])
    <tf.Tensor: shape=(1, 1), dtype=float32, numpy=array([[4.]], dtype=float32)>
    """
    a, b = same_dtype("MatMul", a, b)
    ra, rb = a.ndim, b.ndim
    if ra is None or rb is None:  # a TF1 placeholder of unknown rank: the kernel checks at run time
        ra = rb = 2 if ra is None and rb is None else (ra or rb)
    elif ra < 2 or rb < 2:
        raise errors.invalid_argument("MatMul", f"In[0] and In[1] ndims must be == 2: {min(ra, rb)}"
                                      f" (shapes {errors.shape_str(a.shape)} and {errors.shape_str(b.shape)})")
    ka = None if a.shape.rank is None else a.shape[-2] if (transpose_a or adjoint_a) else a.shape[-1]
    kb = None if b.shape.rank is None else b.shape[-1] if (transpose_b or adjoint_b) else b.shape[-2]
    if ka is not None and kb is not None and ka != kb:
        name = "MatMul" if ra == rb == 2 else "BatchMatMulV3"
        raise errors.invalid_argument(
            name, f"Matrix size-incompatible: In[0]: {errors.shape_str(a.shape)}, In[1]: {errors.shape_str(b.shape)}"
                  f" (transpose_a={transpose_a}, transpose_b={transpose_b})")
    attrs = {}
    if transpose_a:
        attrs["transpose_a"] = True
    if transpose_b:
        attrs["transpose_b"] = True
    if adjoint_a:
        attrs["adjoint_a"] = True
    if adjoint_b:
        attrs["adjoint_b"] = True
    out = bind(MATMUL if ra == rb == 2 else BATCH_MATMUL, a, b, **attrs)
    if output_type is not None and _dt.as_dtype(output_type) is not out.dtype:
        from tensorlet._src.ops.math_binary import cast

        out = cast(out, output_type)
    return out


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import math_unary  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast_batch  # noqa: E402
