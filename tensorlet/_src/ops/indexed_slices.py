"""``tf.IndexedSlices``: a sparse gradient (rows ``indices`` of a dense tensor) as gather produces for embeddings.

``tf.convert_to_tensor(slices)`` densifies (duplicate indices add up), as in TF.
"""

from __future__ import annotations

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor_shape import TensorShape


@tf_export("IndexedSlices")
class IndexedSlices:
    """Rows ``values[i]`` at ``indices[i]`` of a tensor of shape ``dense_shape``."""

    def __init__(self, values, indices, dense_shape=None):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def shape(self):
        if self.dense_shape is None:
            return TensorShape(None)
        return TensorShape([int(d) for d in self.dense_shape.numpy()] if hasattr(self.dense_shape, "numpy")
                           else self.dense_shape)

    @property
    def device(self):
        return self.values.device

    def _dense(self):
        if self.dense_shape is None:
            raise ValueError("Cannot convert IndexedSlices with unknown dense_shape to a dense tensor.")
        shape = math_binary.cast(self.dense_shape, "int64") if hasattr(self.dense_shape, "dtype") else self.dense_shape
        idx = array_shape.expand_dims(math_binary.cast(self.indices, "int64"), -1)
        return gather_scatter.scatter_nd(idx, self.values, shape)

    def __tf_tensor__(self, dtype=None, name=None):
        t = self._dense()
        if dtype is not None and t.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype} for IndexedSlices with dtype {t.dtype}")
        return t

    def __neg__(self):
        return IndexedSlices(math_unary.negative(self.values), self.indices, self.dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


def add_indexed(a, b):
    """a + b where either is IndexedSlices: two slices concatenate; a dense operand densifies the sum."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        return IndexedSlices(array_blocks.concat([a.values, b.values], 0),
                             array_blocks.concat([a.indices, b.indices], 0),
                             a.dense_shape)
    a = a._dense() if isinstance(a, IndexedSlices) else a
    b = b._dense() if isinstance(b, IndexedSlices) else b
    return math_binary.add(a, b)

# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import array_blocks, array_shape, gather_scatter, math_binary, math_unary  # noqa: E402
