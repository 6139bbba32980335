"""``tf.Variable``'s scatter and slice methods: ``v.scatter_nd_update``, ``v.scatter_update(IndexedSlices)``,
``v.sparse_read``, ``v.gather_nd``, and ``v[1:3].assign(...)``.

They are composites of ops (``tensor_scatter_nd_*`` then ``assign``), so inside ``tf.function`` they become graph
updates like ``assign``.  Installed on the framework's Variable class from the ops layer (as ``operators.py``
installs the Python operators), so the framework does not import ops.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor, _new, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.gather_scatter import (gather, gather_nd, tensor_scatter_nd_add, tensor_scatter_nd_max,
                                               tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                               tensor_scatter_nd_update)
from tensorlet._src.ops.indexing import getitem
from tensorlet._src.ops.math_binary import divide, multiply


def _nd(fn):
    def method(self, indices, updates, name=None):
        return self.assign(fn(self.value(), indices, convert_to_tensor(updates, dtype=self.dtype)))
    return method


def _rows(combine):
    """``scatter_*(IndexedSlices)``: rows ``sparse_delta.indices`` combined with ``sparse_delta.values``."""
    def method(self, sparse_delta, use_locking=False, name=None):
        idx = expand_dims(convert_to_tensor(sparse_delta.indices), -1)
        vals = convert_to_tensor(sparse_delta.values, dtype=self.dtype)
        return self.assign(combine(self.value(), idx, vals))
    return method


def _mul(t, idx, vals):
    return tensor_scatter_nd_update(t, idx, multiply(gather_nd(t, idx), vals))


def _div(t, idx, vals):
    return tensor_scatter_nd_update(t, idx, divide(gather_nd(t, idx), vals))


def sparse_read(self, indices, name=None):
    """The rows ``indices`` of the variable (``tf.gather(v, indices)``; its gradient is IndexedSlices)."""
    return gather(self, indices)


def var_gather_nd(self, indices, name=None):
    return gather_nd(self.value(), indices)


class SliceOfVariable(EagerTensor):
    """``v[key]``: the sliced value, which also knows its variable, so ``v[1:3].assign(x)`` writes into ``v``."""

    __slots__ = ("_var", "_key")

    def _write(self, value, how):
        var = self._var
        current = np.array(var.numpy())
        v = np.asarray(convert_to_tensor(value, dtype=var.dtype).numpy())
        if how == "assign":
            current[self._key] = v
        elif how == "assign_add":
            current[self._key] = current[self._key] + v
        else:
            current[self._key] = current[self._key] - v
        return var.assign(current)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._write(value, "assign") if read_value else (self._write(value, "assign") and None)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(delta, "assign_add")

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(delta, "assign_sub")


def var_getitem(self, key):
    out = getitem(self.value(), key)
    if out.__class__ is not EagerTensor or ctx.tapes:
        # traced: a plain graph value; under a tape: the recorded result itself (a copy would cut the gradient)
        return out
    r = _new(SliceOfVariable)
    r._v = out._v
    r._var = self
    r._key = key
    return r


def install() -> None:
    Variable.scatter_nd_update = _nd(tensor_scatter_nd_update)
    Variable.scatter_nd_add = _nd(tensor_scatter_nd_add)
    Variable.scatter_nd_sub = _nd(tensor_scatter_nd_sub)
    Variable.scatter_nd_max = _nd(tensor_scatter_nd_max)
    Variable.scatter_nd_min = _nd(tensor_scatter_nd_min)
    Variable.scatter_update = _rows(tensor_scatter_nd_update)
    Variable.scatter_add = _rows(tensor_scatter_nd_add)
    Variable.scatter_sub = _rows(tensor_scatter_nd_sub)
    Variable.scatter_max = _rows(tensor_scatter_nd_max)
    Variable.scatter_min = _rows(tensor_scatter_nd_min)
    Variable.scatter_mul = _rows(_mul)
    Variable.scatter_div = _rows(_div)
    Variable.batch_scatter_update = _rows(tensor_scatter_nd_update)
    Variable.sparse_read = sparse_read
    Variable.gather_nd = var_gather_nd
    Variable.__getitem__ = var_getitem
