"""Turns what ``fit``/``evaluate``/``predict`` accept into batches: NumPy arrays and tensors (nested in lists/dicts),
``tf.data`` datasets, Python generators and ``keras.utils.PyDataset`` -- one adapter per kind, as Keras 3.

``validation_split`` takes the last fraction of the samples, before shuffling, as Keras does; ``class_weight``
becomes per-sample weights.
"""

from __future__ import annotations

import inspect

import numpy as np

from tensorlet._src.keras.trainers.data_adapters.array_data_adapter import ArrayAdapter
from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import is_array
from tensorlet._src.keras.trainers.data_adapters.generator_data_adapter import GeneratorAdapter
from tensorlet._src.keras.trainers.data_adapters.py_dataset_adapter import PyDataset, PyDatasetAdapter
from tensorlet._src.keras.trainers.data_adapters.tf_dataset_adapter import DatasetAdapter


def _is_dataset(x):
    mod = type(x).__module__ or ""
    return mod.startswith("tensorlet._src.data") or (hasattr(x, "element_spec") and hasattr(x, "__iter__"))


def _is_pydataset(x):
    return isinstance(x, PyDataset) or (hasattr(x, "__getitem__") and hasattr(x, "__len__") and
                                        hasattr(x, "on_epoch_end") and not isinstance(x, (list, tuple, dict,
                                                                                           np.ndarray)))


def _is_generator(x):
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def get_data_adapter(x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
    if _is_dataset(x) and not is_array(x):
        _no_extra(x, y, sample_weight, batch_size, "A tf.data.Dataset")
        return DatasetAdapter(x, class_weight)
    if _is_pydataset(x):
        _no_extra(x, y, sample_weight, batch_size, "A PyDataset")
        return PyDatasetAdapter(x, class_weight, shuffle)
    if _is_generator(x) and not is_array(x):
        _no_extra(x, y, sample_weight, batch_size, "A Python generator")
        return GeneratorAdapter(x, class_weight)
    return ArrayAdapter(x, y, sample_weight, batch_size, shuffle, class_weight)


def _no_extra(x, y, sample_weight, batch_size, what):
    if y is not None:
        raise ValueError(f"When providing `x` as a {what.split(' ', 1)[1]}, `y` should not be passed. Instead, the "
                         "targets should be included as part of the dataset.")
    if sample_weight is not None:
        raise ValueError(f"When providing `x` as a {what.split(' ', 1)[1]}, `sample_weight` should not be passed. "
                         "Instead, the sample weights should be included as part of the dataset.")
    if batch_size is not None:
        raise ValueError(f"The `batch_size` argument must not be specified for the given input type. Received "
                         f"input: {x}, batch_size: {batch_size}")
