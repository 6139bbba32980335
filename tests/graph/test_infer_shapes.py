"""Static shapes while tracing (graph/infer.py): the ``shape=`` rules of MatMul, convolutions and pooling, and the
NumPy stand-in evaluation used before jax is imported, each checked against jax's abstract evaluation of the op's
lowering (the reference tracing used until now)."""

import numpy as np
import pytest

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph import infer
from tensorlet._src.graph.ir import Graph, Spec
from tensorlet._src.ops import registry


def _ins(*specs):
    g = Graph()
    out = []
    for s in specs:
        if isinstance(s, np.ndarray):
            out.append(g.constant(s))
        else:
            shape, dtype = s
            out.append(g.placeholder(Spec(TensorShape(shape), dtype)))
    return out


def _as_list(specs):
    return [(s.shape.as_list() if s.shape.rank is not None else None, s.dtype.name) for s in specs]


def _jax(op, ins, attrs, monkeypatch):
    """jax.eval_shape of the lowering, with the two stand-in sizes for unknown dims (infer's reference path)."""
    monkeypatch.setattr(infer, "_numpy_first", lambda: False)
    return _as_list(infer._abstract(op, ins, attrs))


F32 = D.float32
CONV = dict(strides=(1, 2, 2, 1), padding="SAME", explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1))
RULE_CASES = [
    ("MatMul", [([None, 4], F32), ([4, 3], F32)], {}),
    ("MatMul", [([5, None], F32), ([None, 3], F32)], {"transpose_a": False}),
    ("MatMul", [([4, 5], F32), ([3, 4], F32)], {"transpose_a": True, "transpose_b": True}),
    ("BatchMatMulV3", [([None, 1, 2, 4], F32), ([3, 4, 6], F32)], {}),
    ("Conv2D", [([None, 9, 7, 3], F32), ([3, 3, 3, 5], F32)], CONV),
    ("Conv2D", [([2, None, 8, 4], F32), ([2, 3, 2, 6], F32)], dict(CONV, padding="VALID", dilations=(1, 2, 1, 1))),
    ("Conv2D", [([1, 8, 8, 2], F32), ([3, 3, 2, 4], F32)],
     dict(CONV, padding="EXPLICIT", explicit_paddings=(0, 0, 1, 2, 0, 1, 0, 0))),
    ("Conv3D", [([None, 5, 6, 7, 2], F32), ([2, 2, 3, 2, 3], F32)],
     dict(strides=(1, 1, 2, 2, 1), padding="SAME", data_format="NDHWC", dilations=(1, 1, 1, 1, 1))),
    ("DepthwiseConv2dNative", [([None, 7, 7, 3], F32), ([3, 3, 3, 2], F32)], CONV),
    ("MaxPool", [([None, 6, 5, 2], F32)], dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID",
                                               explicit_paddings=(), data_format="NHWC")),
    ("MaxPool", [([3, 7, None, 2], F32)], dict(ksize=(1, 3, 3, 1), strides=(1, 2, 1, 1), padding="SAME",
                                               explicit_paddings=(), data_format="NHWC")),
    ("AvgPool", [([None, 2, 9, 9], F32)], dict(ksize=(1, 1, 3, 3), strides=(1, 1, 2, 2), padding="SAME",
                                               data_format="NCHW")),
    ("MaxPool3D", [([None, 4, 5, 6, 1], F32)], dict(ksize=(1, 2, 2, 2, 1), strides=(1, 2, 2, 2, 1), padding="VALID",
                                                    data_format="NDHWC")),
]


@pytest.mark.parametrize("name,specs,attrs", RULE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(RULE_CASES)])
def test_shape_rules_agree_with_jax_abstract_evaluation(name, specs, attrs, monkeypatch):
    op = registry.REGISTRY[name]
    ins = _ins(*specs)
    got = _as_list([Spec(*op.shape_fn(*ins, **attrs))])
    want = _jax(op, ins, attrs, monkeypatch)
    assert got == want


def test_matmul_rule_rejects_incompatible_contraction_dims():
    op = registry.REGISTRY["MatMul"]
    with pytest.raises(Exception, match="Matrix size-incompatible"):
        op.shape_fn(*_ins(([2, 3], F32), ([4, 5], F32)))


I64 = D.int64
NUMPY_CASES = [
    ("Reshape", [([None, 3, 4], F32)], {"shape": (-1, 12)}),
    ("Squeeze", [([None, 1, 4], F32)], {"axis": (1,)}),
    ("Shape", [([None, 3, 3, 2], F32)], {"out_type": np.dtype(np.int32)}),
    ("StridedSlice", [([4], D.int32)], {"key": (0,)}),
    ("Pack", [([], D.int32), ([], D.int32)], {"axis": 0}),
    ("ConcatV2", [([None, 2], F32), ([None, 3], F32)], {"axis": 1}),
    ("Transpose", [([None, 2, 5], F32)], {"perm": (2, 0, 1)}),
    ("Cast", [([None, 2], F32)], {"dtype": np.dtype(np.int64)}),
    # output shapes that depend on input values: the stand-in runs disagree, so jax (or unknown dims) decides
    ("Where", [([None, 3], F32)], {}),
    ("Unique", [([None], F32)], {"out_idx": np.dtype(np.int32)}),
    ("DenseBincount", [([6], I64), ([6], D.float64)], {"minlength": 8, "maxlength": None, "per_row": False,
                                                     "binary_output": False}),
]


@pytest.mark.parametrize("name,specs,attrs", NUMPY_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMPY_CASES)])
def test_numpy_stand_in_shapes_agree_with_jax_or_defer(name, specs, attrs, monkeypatch):
    op = registry.REGISTRY[name]
    ins = _ins(*specs)
    want = _jax(op, ins, attrs, monkeypatch)
    got = infer._numpy_specs(op, ins, attrs, any(d is None for s in specs for d in s[0]))
    if name in ("Where", "Unique", "DenseBincount"):
        assert got is None
    else:
        assert got is not None and _as_list(got) == want
