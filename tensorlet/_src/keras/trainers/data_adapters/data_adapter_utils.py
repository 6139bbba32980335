"""Helpers shared by the data adapters: ``(x, y, sample_weight)`` packing, array conversion (float arrays cast to
``floatx``), ``class_weight`` as per-sample weights, ``validation_split``, and making batch tensors."""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, _wrap, constant
from tensorlet._src.framework.variables import Variable
from tensorlet._src.keras import backend as _backend
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest


@tf_export("keras.utils.unpack_x_y_sample_weight")
def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch: a tuple of 1-3 items, or just ``x``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")


@tf_export("keras.utils.pack_x_y_sample_weight")
def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of ``unpack_x_y_sample_weight``."""
    if y is None:
        if not isinstance(x, (tuple, list)):
            return x
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def is_array(x):
    return isinstance(x, (np.ndarray, Tensor, Variable)) or (hasattr(x, "__array__") and not isinstance(x, type))


def to_array(x):
    if x is None:
        return None
    a = np.asarray(x)
    if a.dtype == np.float64 or (a.dtype.kind == "f" and a.dtype.name != _backend.floatx()):
        a = a.astype(_backend.floatx())
    return a


def arrays_structure(x):
    """Maps a nested structure of array-likes to NumPy arrays (lists of numbers become one array)."""
    if x is None:
        return None
    if isinstance(x, dict):
        return {k: arrays_structure(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        if x and all(is_array(v) or isinstance(v, (list, tuple, dict)) for v in x) and \
                not all(isinstance(v, (int, float)) for v in x):
            return tuple(arrays_structure(v) for v in x)  # Keras's lists_to_tuples: batches hold tuples
        return to_array(x)
    if is_array(x) or isinstance(x, (int, float)):
        return to_array(x)
    raise ValueError("Expected a NumPy array, tf.Tensor, tf.RaggedTensor, tf.SparseTensor, jax.np.ndarray, "
                     "jax.experimental.sparse.JAXSparse, torch.Tensor, Pandas Dataframe, or Pandas Series. "
                     f"Received invalid input: {x} (of type {type(x)})")


def class_weight_to_sample_weights(y, class_weight):
    y = np.asarray(y)
    sw = np.ones((y.shape[0],), dtype=_backend.floatx())
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    y = np.round(y).astype("int32")
    for i in range(y.shape[0]):
        sw[i] = class_weight.get(int(y[i]), 1.0)
    return sw


def train_validation_split(arrays, validation_split):
    """Splits array inputs: the first ``1 - validation_split`` of the samples train, the rest validate."""
    flat = [a for a in nest.flatten(arrays) if a is not None]
    for a in flat:
        if not is_array(a):
            raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays."
                             f"Found incompatible type in the input: {[type(t) for t in flat]}")
    if not flat:
        return arrays, arrays
    n = int(np.shape(flat[0])[0])
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a "
                         f"validation and training set as specified by `validation_split={validation_split}`. "
                         "Either provide more data, or a different value for the `validation_split` argument.")

    def part(start, end):
        return nest.map_structure(lambda a: None if a is None else np.asarray(a)[start:end], arrays)

    return part(0, split_at), part(split_at, n)


def to_batch_structure(x, y, sw):
    """The structure ``_to_batch`` gives a batch, with the leaves left as they are."""
    if y is None and sw is None:  # Keras packs a lone ``x`` as itself (a train_step sees the tensor), a tuple as (x,)
        return (x,) if isinstance(x, (tuple, list)) else x
    if sw is None:
        return (x, y)
    return (x, y, sw)


def batch_maker(a):
    """array slice -> batch tensor: numeric slices are wrapped as they are (a fancy-indexed slice is already a
    copy; a plain slice is copied, so batches never alias the user's arrays); others go through ``constant``."""
    try:
        plain = a.dtype.kind not in "USO" and _dt.from_numpy(a.dtype) is not None
    except TypeError:
        plain = False
    if not plain:
        return constant

    def make(part):
        if part.base is not None:
            part = part.copy()
        return _wrap(part)

    return make


def standardize_batch(data, class_weight=None):
    """A batch from a dataset/generator: a tuple ``(x,)``/``(x, y)``/``(x, y, sw)`` with class weights applied."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        data = (data,)
    if class_weight is not None:
        x, y, sw = unpack_x_y_sample_weight(data)
        if y is not None and sw is None:
            data = (x, y, constant(class_weight_to_sample_weights(np.asarray(y), class_weight)))
    return data


# --- adapters -------------------------------------------------------------------------------------------------------


def convert_structure(data):
    def conv(a):
        if a is None or isinstance(a, (Tensor, Variable)):
            return a
        return constant(to_array(a))

    if isinstance(data, tuple):
        return tuple(nest.map_structure(conv, d) for d in data)
    return nest.map_structure(conv, data)
