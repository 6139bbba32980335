"""``tf.TensorArray``: a list of tensors usable in loops.

Eagerly it is a Python list.  While tracing it is one buffer tensor ``[size, *element_shape]`` updated
functionally (``write`` returns a new TensorArray over the updated buffer), so it can be a loop variable of a
compiled ``While`` and its gradient is the gradient of the buffer updates.

Without ``element_shape`` the shape comes from the first write, as in TF: an array that is a loop variable
before anything was written has its element shape found by tracing the loop body once (``probe_loop_arrays``).
A ``dynamic_size=True`` array grows on writes past its end; in a loop its buffer's leading dimension is None
(TF's static shape of ``stack()`` there), and the graph runs on the NumPy executor (its shapes depend on values).
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.graph import subgraph
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops import array_blocks, gather_scatter
from tensorlet._src.ops.array_shape import expand_dims, reshape
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
        self._size_t = size if n is None and isinstance(size, Tensor) else None  # a size known only at run time
        self._buffer = flow if flow is not None and self._graph else None
        if self._graph and self._buffer is None and self._element_shape.is_fully_defined():
            self._buffer = self._zeros_buffer(self._element_shape)

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
                if not self._graph:  # TF's eager TensorArray wording
                    raise ValueError(f"Incompatible shape for value ({value.shape}), expected "
                                     f"({self._element_shape})")
                raise ValueError(f"Inconsistent shapes: saw {value.shape} but expected {self._element_shape}")
            self._element_shape = self._element_shape.merge_with(value.shape) if \
                self._element_shape.rank is not None else value.shape
        elif getattr(self, "_written_shape", None) is None:
            self._written_shape = value.shape  # the buffer's element shape in a graph (infer_shape=False)
        return value

    # --- writing ------------------------------------------------------------------------
    def write(self, index, value, name=None):
        value = self._check_elem(value)
        if not self._graph:
            i = int(convert_to_tensor(index).numpy())
            lst = list(self._list)
            if i >= len(lst):
                if not self._dynamic:
                    raise errors.OutOfRangeError(None, "TensorArrayWrite", f"Tried to write to index {i} "
                                                 f"but array is not resizeable and size is: {len(lst)}")
                lst += [None] * (i + 1 - len(lst))
            lst[i] = value
            return self._new(lst=lst)
        buf = self._ensure_buffer(value.shape)
        if self._dynamic:
            buf = _grown(buf, index)
        idx = reshape(cast(index, _dt.int32), [1, 1])
        return self._new(buffer=tensor_scatter_nd_update(buf, idx, expand_dims(value, 0)))

    def _zeros_buffer(self, elem_shape):
        elem = TensorShape(elem_shape).as_list()
        if self._size_t is not None:  # size known only when the graph runs
            from tensorlet._src.ops.array_blocks import concat
            from tensorlet._src.ops.creation import fill

            dims = concat([reshape(cast(self._size_t, _dt.int32), [1]), convert_to_tensor(elem, _dt.int32)], 0)
            return fill(dims, convert_to_tensor(0, self._dtype) if self._dtype is not _dt.string else b"")
        n = self._size or 0
        if getattr(self, "_probe", False):
            n = max(n, 1)  # probing a loop body for the element shape: any capacity will do
        return zeros([n] + elem, dtype=self._dtype)

    def _ensure_buffer(self, elem_shape):
        if self._buffer is not None:
            return self._buffer
        if not TensorShape(elem_shape).is_fully_defined():
            raise errors.InvalidArgumentError(
                None, "TensorArrayStack", "Tried to read from a TensorArray whose element shape is not fully "
                                          f"defined ({TensorShape(elem_shape)}) and nothing was written to it")
        return self._zeros_buffer(elem_shape)

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if not self._graph:
            return self._new(lst=list(array_blocks.unstack(value)) if value.shape[0] else [], size=value.shape[0])
        self._element_shape = value.shape[1:]
        return self._new(buffer=value, size=value.shape[0])

    def scatter(self, indices, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if not self._graph:
            ta = self
            for i, v in zip(convert_to_tensor(indices).numpy().tolist(), array_blocks.unstack(value)):
                ta = ta.write(i, v)
            return ta
        buf = self._ensure_buffer(value.shape[1:])
        if self._dynamic:
            from tensorlet._src.ops.reduce import reduce_max

            buf = _grown(buf, reduce_max(cast(indices, _dt.int32)))
        idx = expand_dims(cast(indices, _dt.int32), -1)
        return self._new(buffer=tensor_scatter_nd_update(buf, idx, value))

    def split(self, value, lengths, name=None):
        parts = array_blocks.split(value, lengths)
        if self._graph and len({tuple(p.shape.as_list()) if p.shape.rank is not None else None
                                for p in parts}) > 1:
            # pieces of different lengths (TF's element shape is then unknown): kept as a list of tensors
            ta = self._new()
            ta._parts = list(parts)
            ta._element_shape = TensorShape(None)
            ta._size = len(parts)
            return ta
        ta = self
        for i, p in enumerate(parts):
            ta = ta.write(i, p)
        return ta

    # --- reading -------------------------------------------------------------------------
    def read(self, index, name=None):
        parts = getattr(self, "_parts", None)
        if parts is not None:
            return parts[_static_int(index)]
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
        parts = getattr(self, "_parts", None)
        if parts is not None:
            return array_blocks.stack(parts)
        if not self._graph:
            if not self._list:
                shape = [0] + (self._element_shape.as_list() if self._element_shape.rank is not None else [])
                return zeros(shape, self._dtype)
            return array_blocks.stack([self.read(i) for i in range(len(self._list))])
        return self._ensure_buffer(self._element_shape)

    def gather(self, indices, name=None):
        if not self._graph:
            return array_blocks.stack([self.read(i) for i in convert_to_tensor(indices).numpy().tolist()])
        return gather_scatter.gather(self._ensure_buffer(self._element_shape), indices)

    def concat(self, name=None):
        parts = getattr(self, "_parts", None)
        if parts is not None:
            return array_blocks.concat(parts, 0)
        if not self._graph:
            return array_blocks.concat([self.read(i) for i in range(len(self._list))], 0)
        buf = self._ensure_buffer(self._element_shape)
        shape = buf.shape.as_list()
        return reshape(buf, [-1] + shape[2:])

    def size(self, name=None):
        if not self._graph:
            return convert_to_tensor(len(self._list))
        buf = self._buffer
        if buf is None:
            return cast(self._size_t, _dt.int32) if self._size_t is not None else convert_to_tensor(
                self._size, dtype=_dt.int32)
        if buf.shape.rank is not None and buf.shape[0] is not None:
            return convert_to_tensor(buf.shape[0], dtype=_dt.int32)
        from tensorlet._src.ops.array_shape import shape

        return shape(buf, out_type=_dt.int32)[0]

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


def _grown(buf, index):
    """``buf`` extended with zero rows so that row ``index`` exists (a dynamic-size array's write)."""
    i = getattr(index, "_const", None) if isinstance(index, Tensor) else index
    if i is None and isinstance(index, Tensor) and hasattr(index, "_v"):
        i = index._v
    n = buf.shape[0] if buf.shape.rank is not None else None
    if i is not None and n is not None:
        extra = int(i) + 1 - n
        if extra <= 0:
            return buf
        from tensorlet._src.ops.array_blocks import concat

        return concat([buf, zeros([extra] + buf.shape.as_list()[1:], dtype=buf.dtype)], 0)
    from tensorlet._src.ops.array_blocks import concat
    from tensorlet._src.ops.array_shape import shape
    from tensorlet._src.ops.creation import fill
    from tensorlet._src.ops.math_binary import maximum

    dims = shape(buf, out_type=_dt.int32)
    extra = maximum(cast(index, _dt.int32) + 1 - dims[0], 0)
    pad = fill(concat([reshape(extra, [1]), dims[1:]], 0), convert_to_tensor(0, buf.dtype))
    if buf.shape.rank is not None:
        pad.set_shape([None] + buf.shape.as_list()[1:])
    return concat([buf, pad], 0)


def probe_loop_arrays(loop_vars, body_fn):
    """Element shapes of the TensorArray loop variables that nothing was written to yet (TF infers them from
    the first write): trace ``body_fn`` once into a throwaway graph and read the shapes its writes gave."""
    flat = nest.flatten(loop_vars)
    pending = [i for i, x in enumerate(flat) if isinstance(x, TensorArray) and x._buffer is None
               and not x._element_shape.is_fully_defined() and getattr(x, "_parts", None) is None]
    if not pending:
        return
    specs, where = [], []
    from tensorlet._src.graph.ir import Spec

    for i, x in enumerate(flat):
        if i in pending:
            continue
        t = x._buffer if isinstance(x, TensorArray) else x
        t = t.value() if hasattr(t, "assign") else convert_to_tensor(t)
        specs.append(Spec(t.shape, t.dtype))
        where.append(i)

    def fn(*phs):
        leaves = list(flat)
        for i, ph in zip(where, phs):
            leaves[i] = leaves[i]._new(buffer=ph) if isinstance(leaves[i], TensorArray) else ph
        for i in pending:
            ta = leaves[i]._new()
            ta._probe = True
            leaves[i] = ta
        out = body_fn(*nest.pack_sequence_as(loop_vars, leaves))
        found.extend(nest.flatten(out))
        return []

    found = []
    try:
        subgraph.trace(fn, specs, "while_probe")
    except Exception as e:  # noqa: BLE001 - the real trace reports the body's errors ...
        for i in pending:  # ... and an array left without a shape names this failure as its cause
            flat[i]._probe_error = e
        return
    if len(found) != len(flat):
        return
    for i in pending:
        ta = found[i]
        if not isinstance(ta, TensorArray):
            continue
        if ta._element_shape.is_fully_defined():
            flat[i]._element_shape = ta._element_shape
        elif getattr(ta, "_written_shape", None) is not None and ta._written_shape.is_fully_defined():
            flat[i]._buffer_shape = ta._written_shape  # infer_shape=False: the buffer's shape, not element_shape


def dynamic_array_flags(structure):
    """For each entry of ``flatten_with_arrays(structure)``: whether it is a dynamic-size TensorArray's buffer
    (a loop variable whose leading dimension may change)."""
    return [isinstance(x, TensorArray) and x._dynamic for x in nest.flatten(structure)]


def flatten_with_arrays(structure):
    """``nest.flatten`` with each TensorArray replaced by its buffer tensor (for loop variables)."""
    out = []
    for x in nest.flatten(structure):
        if isinstance(x, TensorArray):
            if getattr(x, "_parts", None) is not None:
                raise ValueError("A TensorArray filled by split() with pieces of different lengths cannot be a "
                                 "tf.while_loop variable inside tf.function in tensorlet (its elements differ in "
                                 "shape).")
            if x._buffer is None:
                shape = x._element_shape
                if not shape.is_fully_defined():
                    shape = getattr(x, "_buffer_shape", shape)
                if not shape.is_fully_defined():
                    raise ValueError(
                        "A TensorArray used as a tf.while_loop variable inside tf.function needs a known "
                        f"element shape in tensorlet: it is {shape} and the loop body writes no element of "
                        "fully known shape (pass element_shape= when creating it).") from getattr(
                            x, "_probe_error", None)
                x._buffer = x._ensure_buffer(shape)
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
