"""More of ``tf.data.experimental``: ``at``, ``Reducer`` / ``group_by_reducer``, ``SqlDataset`` (SQLite),
``parse_example_dataset`` / ``make_batched_features_dataset``, ``pad_to_cardinality`` and lookup tables built
from datasets (``DatasetInitializer``, ``table_from_dataset``, ``index_table_from_dataset``)."""

from __future__ import annotations

import collections
import glob
import sqlite3

import numpy as np

from tensorlet._src.data.dataset_ops import DatasetV2
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops import lookup_ops
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

__all__ = ["at", "Reducer", "group_by_reducer", "SqlDataset", "parse_example_dataset",
           "make_batched_features_dataset", "pad_to_cardinality", "DatasetInitializer", "table_from_dataset",
           "index_table_from_dataset"]


@tf_export("data.experimental.at")
def at(dataset, index):
    """The element at ``index`` (OutOfRangeError past the end)."""
    index = int(convert_to_tensor(index).numpy())
    if index < 0:
        raise errors.InvalidArgumentError(None, "GetElementAtIndex", f"Index must be non-negative, got {index}")
    for elem in dataset.skip(index).take(1):
        return elem
    raise errors.OutOfRangeError(None, "GetElementAtIndex", f"Index out of range [0, {index}).")


@tf_export("data.experimental.Reducer")
class Reducer:
    """``init_func(key) -> state``, ``reduce_func(state, element) -> state``, ``finalize_func(state) -> out``."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func, self._reduce_func, self._finalize_func = init_func, reduce_func, finalize_func

    init_func = property(lambda self: self._init_func)
    reduce_func = property(lambda self: self._reduce_func)
    finalize_func = property(lambda self: self._finalize_func)


def _spec_of(value):
    return nest.map_structure(lambda t: TensorSpec.from_tensor(convert_to_tensor(t)), value)


@tf_export("data.experimental.group_by_reducer")
def group_by_reducer(key_func, reducer):
    """Reduce the elements of each key group (``key_func(element) -> int64``) with ``reducer``; one output per
    key, in order of first appearance, after the input is exhausted."""
    def apply(dataset):
        def results():
            states = collections.OrderedDict()
            for elem in dataset:
                args = elem if isinstance(elem, tuple) else (elem,)
                key = int(convert_to_tensor(key_func(*args)).numpy())
                if key not in states:
                    states[key] = reducer.init_func(convert_to_tensor(np.int64(key)))
                states[key] = reducer.reduce_func(states[key], *args)
            return [reducer.finalize_func(s) for s in states.values()]

        # the output structure is that of finalize(init(key)); traced once on key 0 for the spec
        sample = reducer.finalize_func(reducer.init_func(convert_to_tensor(np.int64(0))))
        spec = nest.map_structure(lambda s: TensorSpec([None] * s.shape.rank if s.shape.rank else [], s.dtype),
                                  _spec_of(sample))
        return DatasetV2.from_generator(lambda: iter(results()), output_signature=spec)

    return apply


@tf_export("data.experimental.SqlDataset")
class SqlDataset(DatasetV2):
    """Rows of a SQL query as tuples of scalars (``driver_name='sqlite'``, Python's sqlite3)."""

    def __new__(cls, driver_name, data_source_name, query, output_types):
        if driver_name != "sqlite":
            raise errors.InvalidArgumentError(None, "SqlDataset", f"The database type, {driver_name}, is not "
                                                                  "supported by SqlDataset. The set of supported "
                                                                  "databases is: {'sqlite'}.")
        types = nest.map_structure(_dt.as_dtype, output_types)
        flat = nest.flatten(types)

        def rows():
            con = sqlite3.connect(f"file:{data_source_name}?mode=ro", uri=True)
            try:
                cur = con.execute(query)
                if cur.description is not None and len(cur.description) != len(flat):
                    raise errors.InvalidArgumentError(None, "SqlDataset", f"The number of columns in query "
                                                      f"({len(cur.description)}) must match the number of elements "
                                                      f"in output_types ({len(flat)}).")
                for row in cur:
                    vals = [np.array(str(v).encode() if d is _dt.string else v, dtype=object if d is _dt.string
                                     else d.as_numpy_dtype) for v, d in zip(row, flat)]
                    yield nest.pack_sequence_as(types, vals)
            except sqlite3.Error as e:
                raise errors.UnknownError(None, "SqlDataset", f"SQLite error: {e}") from None
            finally:
                con.close()

        spec = nest.map_structure(lambda d: TensorSpec([], d), types)
        return DatasetV2.from_generator(rows, output_signature=spec)


@tf_export("data.experimental.parse_example_dataset")
def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation parsing batches of serialized ``tf.train.Example`` protos into feature dicts."""
    from tensorlet._src.io.parsing import parse_example

    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")
    return lambda dataset: dataset.map(lambda s: parse_example(s, features), num_parallel_calls=num_parallel_calls,
                                       deterministic=deterministic)


@tf_export("data.experimental.make_batched_features_dataset")
def make_batched_features_dataset(file_pattern, batch_size, features, reader=None, label_key=None,
                                  reader_args=None, num_epochs=None, shuffle=True, shuffle_buffer_size=10000,
                                  shuffle_seed=None, prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False, drop_final_batch=False):
    """TFRecord files of Examples -> batches of parsed feature dicts (and labels when ``label_key`` is set)."""
    from tensorlet._src.data.readers import TFRecordDatasetV2 as TFRecordDataset

    files = sorted(glob.glob(file_pattern)) if isinstance(file_pattern, str) else list(file_pattern)
    if not files:
        raise errors.NotFoundError(None, None, f"No files matched pattern: {file_pattern}")
    reader = reader or TFRecordDataset
    ds = reader(files, *(reader_args or []))
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size, drop_remainder=drop_final_batch)
    ds = parse_example_dataset(features)(ds)
    if label_key is not None:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the `features` keys.")
        ds = ds.map(lambda d: ({k: v for k, v in d.items() if k != label_key}, d[label_key]))
    return ds.prefetch(prefetch_buffer_size or -1)


@tf_export("data.experimental.pad_to_cardinality")
def pad_to_cardinality(cardinality, mask_key="valid"):
    """Pad a dataset of dicts to ``cardinality`` elements with zeros, adding a bool ``mask_key`` (True for real
    elements)."""
    def apply(dataset):
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError(f"`pad_to_cardinality` requires its input dataset to be a dictionary; got {spec}")
        if mask_key in spec:
            raise ValueError(f"The dataset already has a {mask_key!r} key")
        n = int(dataset.cardinality().numpy())
        if n < 0:
            raise ValueError(f"The dataset passed into `pad_to_cardinality` must have a known cardinality, but has "
                             f"cardinality {n}")
        if n > cardinality:
            raise ValueError(f"The dataset passed into `pad_to_cardinality` must have a cardinality less than the "
                             f"target cardinality ({cardinality}), but for this dataset it was {n}")
        real = dataset.map(lambda d: {**d, mask_key: convert_to_tensor(True)})
        zeros = {k: convert_to_tensor(np.zeros([0 if x is None else x for x in s.shape.as_list()],
                                               s.dtype.as_numpy_dtype if s.dtype is not _dt.string else object),
                                      s.dtype) for k, s in spec.items()}
        zeros[mask_key] = convert_to_tensor(False)
        pad = DatasetV2.from_tensors(zeros).repeat(cardinality - n)
        return real.concatenate(pad)

    return apply


# --- lookup tables from datasets -----------------------------------------------------------------------------

def _pairs(dataset):
    keys, values = [], []
    for k, v in dataset:
        keys.append(k.numpy())
        values.append(v.numpy())
    return keys, values


@tf_export("data.experimental.DatasetInitializer")
class DatasetInitializer(lookup_ops.KeyValueTensorInitializer):
    """A lookup-table initializer from a dataset of ``(key, value)`` pairs."""

    def __init__(self, dataset):
        spec = dataset.element_spec
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise TypeError(f"The dataset for initialization is expected to have 2 components (key, value); got "
                            f"{spec}")
        keys, values = _pairs(dataset)
        super().__init__(convert_to_tensor(np.array(keys, dtype=object if spec[0].dtype is _dt.string else None),
                                           spec[0].dtype),
                         convert_to_tensor(np.array(values, dtype=object if spec[1].dtype is _dt.string else None),
                                           spec[1].dtype))
        self.dataset = dataset


@tf_export("data.experimental.table_from_dataset")
def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None, hasher_spec=None,
                       key_dtype=_dt.string, name=None):
    """A lookup table from ``(key, value)`` pairs (with ``num_oov_buckets``: a StaticVocabularyTable)."""
    if dataset is None:
        raise ValueError("`dataset` must be specified.")
    if vocab_size is not None:
        dataset = dataset.take(vocab_size)
    init = DatasetInitializer(dataset)
    if num_oov_buckets:
        return lookup_ops.StaticVocabularyTable(init, num_oov_buckets)
    return lookup_ops.StaticHashTable(init, -1 if default_value is None else default_value)


@tf_export("data.experimental.index_table_from_dataset")
def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=-1, hasher_spec=None,
                             key_dtype=_dt.string, name=None):
    """A table mapping each element of ``dataset`` to its index."""
    if dataset is None:
        raise ValueError("`dataset` must be specified.")
    indexed = dataset.enumerate().map(lambda i, k: (k, i))
    return table_from_dataset(indexed, num_oov_buckets, vocab_size, default_value, hasher_spec, key_dtype, name)

