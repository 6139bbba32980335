"""``tf.TensorArray``: a list of tensors usable in loops.

Eagerly it is a Python list.  While tracing it is one buffer tensor ``[size, *element_shape]`` updated
functionally (``write`` returns a new TensorArray over the updated buffer), so it can be a loop variable of a
compiled ``While`` and its gradient is the gradient of the buffer updates.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph import subgraph
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops import array_ops, gather_scatter
from tensorlet._src.ops.array_ops import expand_dims, reshape
from tensorlet._src.ops.creation import zeros
from tensorlet._src.ops.gather_scatter import tensor_scatter_nd_update
from tensorlet._src.ops.math_binary import cast


def _static_int(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        c = getattr(x, "_const", None)
        if c is None and hasattr(x, "_v"):
            c = x._v
        return None if c is None else int(c)
    return int(x)


@tf_export("TensorArray")
class TensorArray:
    """``ta = tf.TensorArray(tf.float32, size=3); ta = ta.write(0, x); ta.stack()``."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = _dt.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._element_shape = TensorShape(element_shape) if element_shape is not None else TensorShape(None)
        self._infer_shape = infer_shape
        self._graph = subgraph.is_tracing()
        if size is None and not self._dynamic:
            raise ValueError("Size must be provided if dynamic_size is False")
        n = _static_int(size) if size is not None else 0
        self._size = n
        self._list = None if self._graph else [None] * (n or 0)
        self._buffer = flow if flow is not None and self._graph else None
        if self._graph and self._buffer is None and n is not None and self._element_shape.is_fully_defined():
            self._buffer = zeros([n] + self._element_shape.as_list(), dtype=self._dtype)

    # --- properties -----------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic

    @property
    def flow(self):
        return self._buffer

    @property
    def handle(self):
        return self._buffer

    def _new(self, buffer=None, lst=None, size=None):
        ta = object.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._buffer = buffer if buffer is not None else self._buffer
        ta._list = lst if lst is not None else self._list
        if size is not None:
            ta._size = size
        return ta

    def _check_elem(self, value):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype is not self._dtype:
            raise errors.InvalidArgumentError(
                None, "TensorArrayWrite", f"TensorArray dtype is {self._dtype.name} but Op is trying to write "
                                          f"dtype {value.dtype.name}")
        if self._infer_shape:
            if self._element_shape.rank is not None and not self._element_shape.is_compatible_with(value.shape):
                raise ValueError(f"Inconsistent shapes: saw {value.shape} but expected {self._element_shape}")
            self._element_shape = self._element_shape.merge_with(value.shape) if \
                self._element_shape.rank is not None else value.shape
        return value

    # --- writing ------------------------------------------------------------------------
    def write(self, index, value, name=None):
        value = self._check_elem(value)
        if not self._graph:
            i = int(convert_to_tensor(index).numpy())
            lst = list(self._list)
            if i >= len(lst):
                if not self._dynamic:
                    raise errors.InvalidArgumentError(None, "TensorArrayWrite", f"Tried to write to index {i} "
                                                      f"but array is not resizeable and size is: {len(lst)}")
                lst += [None] * (i + 1 - len(lst))
            lst[i] = value
            return self._new(lst=lst)
        buf = self._ensure_buffer(value.shape)
        idx = reshape(cast(index, _dt.int32), [1, 1])
        return self._new(buffer=tensor_scatter_nd_update(buf, idx, expand_dims(value, 0)))

    def _ensure_buffer(self, elem_shape):
        if self._buffer is not None:
            return self._buffer
        n = self._size if self._size else getattr(self, "_capacity", None)
        if not n:
            raise ValueError(
                "A TensorArray with dynamic_size=True written inside a tf.function needs a known size in "
                "tensorlet: give it size=, or loop over a tf.range with a known bound.")
        return zeros([n] + TensorShape(elem_shape).as_list(), dtype=self._dtype)

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if not self._graph:
            return self._new(lst=list(array_ops.unstack(value)) if value.shape[0] else [], size=value.shape[0])
        self._element_shape = value.shape[1:]
        return self._new(buffer=value, size=value.shape[0])

    def scatter(self, indices, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if not self._graph:
            ta = self
            for i, v in zip(convert_to_tensor(indices).numpy().tolist(), array_ops.unstack(value)):
                ta = ta.write(i, v)
            return ta
        buf = self._ensure_buffer(value.shape[1:])
        idx = expand_dims(cast(indices, _dt.int32), -1)
        return self._new(buffer=tensor_scatter_nd_update(buf, idx, value))

    def split(self, value, lengths, name=None):
        parts = array_ops.split(value, lengths)
        ta = self
        for i, p in enumerate(parts):
            ta = ta.write(i, p)
        return ta

    # --- reading -------------------------------------------------------------------------
    def read(self, index, name=None):
        if not self._graph:
            i = int(convert_to_tensor(index).numpy())
            if i >= len(self._list) or self._list[i] is None:
                if i < len(self._list) and self._element_shape.is_fully_defined():
                    return zeros(self._element_shape.as_list(), self._dtype)
                raise errors.InvalidArgumentError(None, "TensorArrayRead", f"Could not read from TensorArray index "
                                                  f"{i}.  Furthermore, the element shape is not fully defined")
            return self._list[i]
        return gather_scatter.gather(self._ensure_buffer(self._element_shape), index)

    def stack(self, name=None):
        if not self._graph:
            if not self._list:
                shape = [0] + (self._element_shape.as_list() if self._element_shape.rank is not None else [])
                return zeros(shape, self._dtype)
            return array_ops.stack([self.read(i) for i in range(len(self._list))])
        return self._ensure_buffer(self._element_shape)

    def gather(self, indices, name=None):
        if not self._graph:
            return array_ops.stack([self.read(i) for i in convert_to_tensor(indices).numpy().tolist()])
        return gather_scatter.gather(self._ensure_buffer(self._element_shape), indices)

    def concat(self, name=None):
        if not self._graph:
            return array_ops.concat([self.read(i) for i in range(len(self._list))], 0)
        buf = self._ensure_buffer(self._element_shape)
        shape = buf.shape.as_list()
        return reshape(buf, [-1] + shape[2:])

    def size(self, name=None):
        if not self._graph:
            return convert_to_tensor(len(self._list))
        buf = self._buffer
        return convert_to_tensor(self._size if buf is None else buf.shape[0], dtype=_dt.int32)

    def close(self, name=None):
        return None

    def identity(self):
        return self._new()

    def mark_used(self):
        return None

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is TF1 internals; use tf.GradientTape")

    def __repr__(self):
        return f"<tf.TensorArray dtype={self._dtype.name} size={self._size}>"


def flatten_with_arrays(structure):
    """``nest.flatten`` with each TensorArray replaced by its buffer tensor (for loop variables)."""
    out = []
    for x in nest.flatten(structure):
        if isinstance(x, TensorArray):
            if x._buffer is None:
                if not x._element_shape.is_fully_defined():
                    raise ValueError(
                        "A TensorArray used as a tf.while_loop variable inside tf.function needs a known "
                        "element_shape (pass element_shape= when creating it) in tensorlet.")
                x._buffer = x._ensure_buffer(x._element_shape)
            out.append(x._buffer)
        else:
            out.append(x)
    return out


def rebuild_loop_vars(template, flat_values):
    """``template``'s structure with tensors (and TensorArray buffers) replaced by ``flat_values``."""
    leaves = nest.flatten(template)
    it = iter(flat_values)
    new = []
    for x in leaves:
        v = next(it)
        if isinstance(x, TensorArray):
            new.append(x._new(buffer=v))
        else:
            new.append(v)
    return nest.pack_sequence_as(template, new) if nest.is_nested(template) else new[0]


def rebuild_with_arrays(traced, flat_values):
    out, slots = traced.structure
    leaves = nest.flatten(out)
    filled = []
    for x, s in zip(leaves, slots):
        v = None if s is None else flat_values[s.i]
        filled.append(x._new(buffer=v) if isinstance(x, TensorArray) else v)
    if not nest.is_nested(out):
        return filled[0] if filled else out
    return nest.pack_sequence_as(out, filled)
