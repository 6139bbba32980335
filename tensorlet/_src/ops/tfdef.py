"""``tfdef=``: how one registry op is written as a TensorFlow ``NodeDef`` and read back from one.

Most ops need no declaration: when an op's inputs are TF's inputs in order and its attrs are TF attrs of the
same name, the SavedModel exporter and importer map it through TF's recorded OpDef (type attrs such as ``T``
are inferred from the input dtypes).  An op whose TF form differs declares ``tfdef=TFDef(...)`` in its own
``defop`` block:

- ``op``: TF's op name when it is not the registry name (``ReshapeDyn`` is written as TF's ``Reshape``);
- ``consts``: ``(attr, index, dtype)`` for each static attr TF takes as a tensor input (``Reshape``'s ``shape``
  is TF's input 1, an int32 tensor); on import that input must be a constant (else the importer tries the
  next op declaring the same TF name, e.g. the dynamic variant);
- ``rename``: ``{attr: TF attr}`` (``keepdims`` -> ``keep_dims``);
- ``drop``: TF attrs with no effect here (``use_cudnn_on_gpu``), ignored on import;
- ``to_tf(attrs, node)`` / ``from_tf(attrs)``: value conversions (tensorlet attr names on both sides).
"""

from __future__ import annotations

__all__ = ["TFDef", "REDUCTION", "axis_tuple", "scalar_axis", "int_tuple", "strided_slice_to_tf",
           "strided_slice_from_tf", "matmul_to_tf", "batch_matmul_to_tf", "batch_matmul_from_tf", "range_to_tf",
           "range_from_tf"]


class TFDef:
    __slots__ = ("op", "consts", "rename", "drop", "to_tf", "from_tf")

    def __init__(self, op=None, consts=(), rename=None, drop=(), to_tf=None, from_tf=None):
        self.op = op
        self.consts = tuple(consts)
        self.rename = dict(rename or {})
        self.drop = frozenset(drop)
        self.to_tf = to_tf
        self.from_tf = from_tf

    def __repr__(self):
        return f"TFDef(op={self.op!r}, consts={self.consts!r}, rename={self.rename!r})"


def axis_tuple(v):
    """A TF axis tensor value (scalar or vector) as tensorlet's axis attr: an int tuple."""
    import numpy as np

    return tuple(int(a) for a in np.asarray(v).reshape(-1))


def _full_axis(attrs, node):
    if attrs.get("axis") is None:
        rank = node.inputs[0].shape.rank
        if rank is None:
            raise ValueError(f"{node.op.name} over all axes of a tensor of unknown rank")
        attrs["axis"] = tuple(range(rank))
    return attrs


def _reduction_from_tf(attrs):
    attrs["axis"] = axis_tuple(attrs["axis"])
    attrs["keepdims"] = bool(attrs.get("keepdims", False))
    return attrs


# Sum, Mean, Max, Min, Prod, All, Any: TF takes the axes as input 1 and calls keepdims ``keep_dims``
REDUCTION = TFDef(consts=[("axis", 1, "int32")], rename={"keepdims": "keep_dims"}, to_tf=_full_axis,
                  from_tf=_reduction_from_tf)


def scalar_axis(attrs):
    """``axis`` read from a TF scalar axis input (ConcatV2, ExpandDims, ArgMax, GatherV2, Cumsum...)."""
    import numpy as np

    attrs["axis"] = int(np.asarray(attrs["axis"]).reshape(()))
    return attrs


def int_tuple(*names):
    """from_tf: the named attrs (read from TF int tensors) as int tuples (nested for 2-D paddings)."""
    import numpy as np

    def conv(attrs):
        for n in names:
            a = np.asarray(attrs[n])
            attrs[n] = tuple(tuple(int(x) for x in row) for row in a) if a.ndim == 2 else tuple(
                int(x) for x in a.reshape(-1))
        return attrs

    return conv


def strided_slice_to_tf(attrs, node):
    """tensorlet's ``key`` (ints, slices, Ellipsis, None) as TF's begin/end/strides and the five masks."""
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for i, k in enumerate(attrs.pop("key")):
        bit = 1 << i
        if k is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
            begin.append(0 if k.start is None else int(k.start))
            end.append(0 if k.stop is None else int(k.stop))
            strides.append(step)
        elif isinstance(k, int) or hasattr(k, "__index__"):
            masks["shrink_axis_mask"] |= bit
            begin.append(int(k)), end.append(int(k) + 1), strides.append(1)
        else:
            raise ValueError(f"StridedSlice key element {k!r} has no TF form")
    attrs.update(masks, begin=begin, end=end, strides=strides)
    return attrs


def strided_slice_from_tf(attrs):
    import numpy as np

    begin, end, strides = (np.asarray(attrs.pop(n)).reshape(-1).tolist() for n in ("begin", "end", "strides"))
    m = {n: int(attrs.pop(n, 0)) for n in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                           "shrink_axis_mask")}
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if m["ellipsis_mask"] & bit:
            key.append(Ellipsis)
        elif m["new_axis_mask"] & bit:
            key.append(None)
        elif m["shrink_axis_mask"] & bit:
            key.append(int(b))
        else:
            key.append(slice(None if m["begin_mask"] & bit else int(b), None if m["end_mask"] & bit else int(e),
                             None if s == 1 else int(s)))
    attrs["key"] = tuple(key)
    return attrs


def matmul_to_tf(attrs, node):
    """MatMul: TF has transpose_a/b only; an adjoint of a real matrix is its transpose."""
    for side in ("a", "b"):
        if attrs.pop(f"adjoint_{side}", False):
            if node.inputs[0].dtype.is_complex:
                raise ValueError("MatMul with adjoint_a/adjoint_b of complex matrices")
            attrs[f"transpose_{side}"] = not attrs.get(f"transpose_{side}", False)
    return attrs


def batch_matmul_to_tf(attrs, node):
    """BatchMatMulV3: TF's adj_x / adj_y (tensorlet's transpose_* of real matrices are the same)."""
    for side, tf_name in (("a", "adj_x"), ("b", "adj_y")):
        t, a = attrs.pop(f"transpose_{side}", False), attrs.pop(f"adjoint_{side}", False)
        if t and node.inputs[0].dtype.is_complex:
            raise ValueError("BatchMatMulV3 transpose of complex matrices")
        attrs[tf_name] = bool(t or a)
    attrs["Tout"] = node.outputs[0].dtype
    return attrs


def batch_matmul_from_tf(attrs):
    attrs["adjoint_a"] = bool(attrs.pop("adj_x", False))
    attrs["adjoint_b"] = bool(attrs.pop("adj_y", False))
    attrs.pop("Tout", None)
    return attrs


def range_to_tf(attrs, node):
    import numpy as np

    dt = np.dtype(attrs.pop("dtype"))
    for n in ("start", "limit", "delta"):
        attrs[n] = np.asarray(attrs[n], dtype=dt)
    return attrs


def range_from_tf(attrs):
    import numpy as np

    attrs["dtype"] = np.asarray(attrs["start"]).dtype
    for n in ("start", "limit", "delta"):
        attrs[n] = np.asarray(attrs[n]).item()
    return attrs
