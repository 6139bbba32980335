"""``tf.data.experimental.to_variant`` / ``from_variant``: a dataset as a scalar ``tf.variant`` tensor and back.

The variant holds the dataset object itself (in this process, as TF's variant holds its C++ dataset); it never
crosses a process or a file.

>>> v = tf.data.experimental.to_variant(tf.data.Dataset.range(3))
>>> v.dtype, v.shape
(tf.variant, TensorShape([]))
>>> [int(x) for x in tf.data.experimental.from_variant(v, tf.TensorSpec([], tf.int64))]
[0, 1, 2]
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import DatasetV2
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.ops.registry import tf_export

__all__ = ["to_variant", "from_variant", "DatasetVariant"]


class DatasetVariant(EagerTensor):
    """A scalar ``tf.variant`` tensor holding a dataset."""

    __slots__ = ()

    @property
    def dtype(self):
        return _dt.variant

    def numpy(self):
        return self._v

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=variant, value=<{self._v[()]!r}>>"

    def __str__(self):
        return f"tf.Tensor(<{self._v[()]!r}>, shape=(), dtype=variant)"

    def __bool__(self):
        raise TypeError("A tf.variant tensor has no truth value")

    def __reduce__(self):
        raise TypeError("A dataset variant lives in its process and cannot be pickled")


def _wrap(dataset):
    v = np.empty((), object)
    v[()] = dataset
    t = object.__new__(DatasetVariant)
    t._v = v
    return t


@tf_export("data.experimental.to_variant")
def to_variant(dataset):
    """``dataset`` as a scalar ``tf.variant`` tensor."""
    if not isinstance(dataset, DatasetV2):
        raise AttributeError(f"'{type(dataset).__name__}' object has no attribute '_variant_tensor'")
    return _wrap(dataset)


class _VariantDataset(DatasetV2):
    """The dataset a variant holds, read with the ``structure`` the caller declares (checked per component)."""

    def __init__(self, dataset, structure):
        self._dataset = dataset
        self._set_spec(structure)

    def _inputs(self):
        return [self._dataset]

    def _card(self):
        return self._dataset._card()

    def _gen(self, ictx):
        want, got = self._flat_spec(), self._dataset._flat_spec()
        if len(want) != len(got):
            raise errors.InvalidArgumentError(None, "MakeIterator", f"Number of components does not match: "
                                                                    f"expected {len(want)} types but got "
                                                                    f"{len(got)}.")
        for i, (w, g) in enumerate(zip(want, got)):
            if getattr(w, "dtype", None) != getattr(g, "dtype", None):
                raise errors.InvalidArgumentError(None, "MakeIterator", f"Data type mismatch at component {i}: "
                                                  f"expected {_np_name(w)} but got {_np_name(g)}.")
            if not w.is_compatible_with(g):
                raise errors.InvalidArgumentError(None, "MakeIterator", f"Incompatible shapes at component {i}: "
                                                  f"expected {w} but got {g}.")
        return self._dataset._gen(ictx)


_VariantDataset.__name__ = _VariantDataset.__qualname__ = "_VariantDataset"


def _np_name(spec):
    d = getattr(spec, "dtype", None)
    return {"float32": "float", "float64": "double"}.get(getattr(d, "name", ""), getattr(d, "name", str(d)))


@tf_export("data.experimental.from_variant")
def from_variant(variant, structure):
    """The dataset a ``to_variant`` tensor holds, with element spec ``structure``."""
    if not isinstance(variant, DatasetVariant):
        raise errors.InvalidArgumentError(None, "DatasetFromVariant", f"Expected a scalar tf.variant tensor "
                                          f"holding a dataset (from `tf.data.experimental.to_variant`), got "
                                          f"{variant!r}")
    for s in S.dflatten(structure):
        if not isinstance(s, S.TypeSpec):
            raise TypeError(f"`structure` must be a nested structure of `tf.TypeSpec`s, got {structure!r}")
    return _VariantDataset(variant._v[()], structure)
