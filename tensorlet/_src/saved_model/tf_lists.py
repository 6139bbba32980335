"""TensorList ops of TF-written functions (``tf.TensorArray`` in TF 2 graphs: Keras' RNN loops, ``tf.map_fn``,
``tf.scan``) on tensorlet's ``TensorArray``.

A list value is a ``TensorArray``: while tracing it is one buffer updated functionally, so it can be a loop
variable of the interpreted ``While`` (an unknown element shape is found by tracing the loop body once, as for
tensorlet's own arrays).  ``TensorListSetItem`` returns the written array, ``TensorListStack`` its buffer.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.saved_model.codec import CorruptSavedModel
from tensorlet._src.saved_model.tf_ops import known_value

_OUTPUTS = {"TensorListReserve": "handle", "TensorListFromTensor": "output_handle", "TensorListGetItem": "item",
            "TensorListSetItem": "output_handle", "TensorListStack": "tensor", "TensorListLength": "length",
            "TensorListPushBack": "output_handle", "TensorListElementShape": "element_shape",
            "TensorListGather": "values", "EmptyTensorList": "handle"}
OPS = frozenset(_OUTPUTS)


def opdef(op):
    return {"attrs": [], "inputs": [], "outputs": [{"name": _OUTPUTS[op]}]}


def _element_shape(x, where):
    """A TF element_shape input (-1 dims unknown; a scalar -1: unknown rank) as a TensorShape argument."""
    v = known_value(x) if hasattr(x, "node") or hasattr(x, "numpy") else np.asarray(x)
    if v is None:
        return None
    if v.ndim == 0:
        return None
    return [None if d < 0 else int(d) for d in v.reshape(-1).tolist()]


def _list(x, where):
    from tensorlet._src.graph.tensor_array import TensorArray

    if not isinstance(x, TensorArray):
        raise CorruptSavedModel(f"{where}: the list input is not a TensorList")
    return x


def _dtype(attrs, where):
    from tensorlet._src.saved_model.tf_ops import dtype_of

    d = attrs.get("element_dtype")
    if d is None:
        raise CorruptSavedModel(f"{where}: no element_dtype")
    return dtype_of(d, where) if isinstance(d, int) else d


def run(op, ins, attrs, where):
    from tensorlet._src.framework.tensor import convert_to_tensor
    from tensorlet._src.graph.tensor_array import TensorArray

    if op == "TensorListReserve":
        if len(ins) != 2:
            raise CorruptSavedModel(f"{where}: needs element_shape and num_elements")
        ta = TensorArray(_dtype(attrs, where), size=ins[1], element_shape=_element_shape(ins[0], where))
        if ta._buffer is not None and ta._size_t is not None:  # a length known at run time: keep static dims
            ta._buffer = None
            presize([ta])
        return [ta]
    if op == "EmptyTensorList":
        return [TensorArray(_dtype(attrs, where), size=0, dynamic_size=True,
                            element_shape=_element_shape(ins[0], where) if ins else None)]
    if op == "TensorListFromTensor":
        t = convert_to_tensor(ins[0])
        n = t.shape[0] if t.shape.rank else None
        ta = TensorArray(t.dtype, size=n if n is not None else _shape0(t), element_shape=t.shape[1:])
        return [ta.unstack(t)]
    lst = _list(ins[0], where) if ins else _list(None, where)
    if op == "TensorListGetItem":
        return [lst.read(ins[1])]
    if op == "TensorListSetItem":
        return [lst.write(ins[1], ins[2])]
    if op == "TensorListPushBack":
        return [lst.write(lst.size(), ins[1])]
    if op == "TensorListStack":
        return [lst.stack()]
    if op == "TensorListGather":
        return [lst.gather(ins[1])]
    if op == "TensorListLength":
        from tensorlet._src.ops.math_binary import cast

        return [cast(lst.size(), "int32")]
    if op == "TensorListElementShape":
        shp = lst.element_shape
        return [convert_to_tensor(np.asarray([-1 if d is None else d for d in shp.as_list()] if shp.rank is not None
                                             else -1, np.int32))]
    raise CorruptSavedModel(f"{where}: unsupported TensorList op {op}")


def presize(loop_vars, body=None):
    """Buffers for the TensorList loop variables reserved with an element shape known but for some dims (Keras'
    RNN loops: ``[-1, units]``, the batch unknown while tracing): an unknown dim takes its size, when the graph
    runs, from the same dim of the elements of a list the loop reads (the unstacked inputs, ``[T, batch, ...]``);
    a wrong guess fails when the loop writes, it gives no wrong numbers.  A list whose length is known only when
    the graph runs gets a buffer whose static shape keeps the element dims (``tf.scan``, ``tf.map_fn``)."""
    from tensorlet._src.graph import subgraph
    from tensorlet._src.graph.tensor_array import TensorArray
    from tensorlet._src.ops.array_shape import expand_dims, reshape
    from tensorlet._src.ops.creation import fill, zeros, zeros_like
    from tensorlet._src.ops.math_binary import cast

    if not subgraph.is_tracing():
        return
    arrays = [x for x in loop_vars if isinstance(x, TensorArray)]
    if body is not None and any(x._buffer is None and x._element_shape.rank is None for x in arrays):
        from tensorlet._src.graph.tensor_array import probe_loop_arrays

        probe_loop_arrays(list(loop_vars), body)  # element shapes of the lists reserved with none, from a write
    donors = [x._buffer for x in arrays if x._buffer is not None and x._buffer.shape.rank]
    for ta in arrays:
        es = ta._element_shape
        if (ta._buffer is not None or es.rank is None or getattr(ta, "_parts", None) or ta.dtype.name == "string"
                or (es.is_fully_defined() and ta._size_t is None)):
            continue
        dims = es.as_list()
        take = [j for j, d in enumerate(dims) if d is None]
        base = zeros([1] + [1 if d is None else d for d in dims], "int32")
        if take:
            donor = next((b for b in donors if b.shape.rank == es.rank + 1 and b.shape[0] != 0
                          and all(b.shape[j + 1] is None for j in take)), None)
            if donor is None:
                continue
            # zeros [size, *dims]: the known dims from a constant, the unknown ones broadcast from the donor's
            sl = tuple([slice(0, 1)] + [slice(None) if j in take else slice(0, 1) for j in range(es.rank)])
            base = base + zeros_like(cast(donor[sl], "int32"))
        if ta._size_t is None:
            lead = zeros([ta._size or 0] + [1] * es.rank, "int32")
        else:  # a length known when the graph runs (the time steps of a (None, None, F) input)
            lead = fill(reshape(cast(ta._size_t, "int32"), [1]), np.int32(0))
            for _ in range(es.rank):
                lead = expand_dims(lead, -1)
        ta._buffer = cast(lead + base, ta.dtype)


def _shape0(t):
    from tensorlet._src.ops.array_shape import shape

    return shape(t)[0]
