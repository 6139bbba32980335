"""``tf.IndexedSlices``: a sparse gradient (rows ``indices`` of a dense tensor) as gather produces for embeddings.

``tf.convert_to_tensor(slices)`` densifies (duplicate indices add up), as in TF.
"""

from __future__ import annotations

from tensorlet._src.ops.registry import tf_export


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
        from tensorlet._src.framework.tensor_shape import TensorShape

        if self.dense_shape is None:
            return TensorShape(None)
        return TensorShape([int(d) for d in self.dense_shape.numpy()] if hasattr(self.dense_shape, "numpy")
                           else self.dense_shape)

    @property
    def device(self):
        return self.values.device

    def _dense(self):
        from tensorlet._src.autodiff import lazy as T

        if self.dense_shape is None:
            raise ValueError("Cannot convert IndexedSlices with unknown dense_shape to a dense tensor.")
        shape = T.cast(self.dense_shape, "int64") if hasattr(self.dense_shape, "dtype") else self.dense_shape
        idx = T.expand_dims(T.cast(self.indices, "int64"), -1)
        return T.scatter_nd(idx, self.values, shape)

    def __tf_tensor__(self, dtype=None, name=None):
        t = self._dense()
        if dtype is not None and t.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype} for IndexedSlices with dtype {t.dtype}")
        return t

    def __neg__(self):
        from tensorlet._src.autodiff import lazy as T

        return IndexedSlices(T.negative(self.values), self.indices, self.dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


def add_indexed(a, b):
    """a + b where either is IndexedSlices: two slices concatenate; a dense operand densifies the sum."""
    from tensorlet._src.autodiff import lazy as T

    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        return IndexedSlices(T.concat([a.values, b.values], 0), T.concat([a.indices, b.indices], 0),
                             a.dense_shape)
    a = a._dense() if isinstance(a, IndexedSlices) else a
    b = b._dense() if isinstance(b, IndexedSlices) else b
    return T.add(a, b)
