"""``tf.data.Dataset``: the base class and its methods (each builds one transformation node).

A dataset is a lazy node graph.  Internally a node yields *flat tuples of NumPy arrays* (one per
leaf of ``element_spec``; a leaf may also be a nested ``Dataset`` for ``window``); iterators wrap
them into ``EagerTensor``s and pack the structure only at the boundary, so a pipeline costs no
per-element tensor overhead between nodes.  Nodes over random-access sources (``from_tensor_slices``
followed by ``shuffle``/``take``/``skip``/``shard``/``repeat``) also expose an *index plan*: the
element order as index arrays, which ``batch`` turns into one NumPy gather per batch (same elements,
same order as the element path).

>>> ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
>>> [b.numpy().tolist() for b in ds]
[[0, 2], [4, 6], [8]]
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.structure import TensorSpec, TypeSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import export_value, tf_export

__all__ = ["DatasetV2", "Dataset", "DatasetSpec", "AUTOTUNE", "INFINITE", "UNKNOWN"]

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2
for _n in ("data.AUTOTUNE", "data.experimental.AUTOTUNE"):
    export_value(_n, __name__, "AUTOTUNE")
for _n in ("data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY"):
    export_value(_n, __name__, "INFINITE")
for _n in ("data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY"):
    export_value(_n, __name__, "UNKNOWN")


def static_int(x, name="value"):
    """A Python int from an int / NumPy / scalar tensor argument."""
    if isinstance(x, Tensor):
        x = x.numpy()
    if isinstance(x, (np.ndarray, np.generic)):
        if np.ndim(x) != 0:
            raise ValueError(f"`{name}` must be a scalar, got shape {np.shape(x)}")
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"`{name}` must be an integer, got {x!r}")
    return x


def static_bool(x):
    if isinstance(x, Tensor):
        x = x.numpy()
    return bool(x)


@tf_export("data.Dataset")
class DatasetV2:
    """A sequence of elements (nested structures of tensors) read lazily.

    Build one with a source (``from_tensor_slices``, ``range``, ``from_generator``, ``TextLineDataset``...),
    chain transformations, then iterate: ``for x in ds`` or ``iter(ds)``.
    """

    _spec = None  # nested element spec (TypeSpec leaves)
    _flat = ()  # flattened element spec
    _options_ = None

    # --- internal protocol (subclasses) ------------------------------------------------
    def _set_spec(self, spec):
        self._spec = spec
        self._flat = tuple(S.dflatten(spec))

    def _inputs(self):
        return []

    def _gen(self, ictx):
        """Yield flat tuples of arrays (one per ``element_spec`` leaf)."""
        raise NotImplementedError

    def _card(self) -> int:
        return UNKNOWN

    def _index_plan(self):
        """None, or an ``IndexPlan`` (random-access arrays + index order); see ``transformations.IndexPlan``."""
        return None

    def _seed_generators(self):
        """The seed generators of this node (shuffle/random), for iterator checkpoints."""
        return []

    def _all_seed_generators(self):
        out, seen, stack = [], set(), [self]
        while stack:
            d = stack.pop()
            if id(d) in seen:
                continue
            seen.add(id(d))
            out.extend(d._seed_generators())
            stack.extend(reversed(d._inputs()))
        return out

    # --- properties --------------------------------------------------------------------
    @property
    def element_spec(self):
        """The nested ``tf.TensorSpec``s of one element: ``tf.data.Dataset.range(3).element_spec``."""
        if self._spec is None:
            self._resolve_spec()
        return self._spec

    def _resolve_spec(self):
        raise ValueError(f"{type(self).__name__} has no element_spec")

    def _flat_spec(self):
        if self._spec is None:
            self._resolve_spec()
        return self._flat

    def __repr__(self):
        return f"<{type(self).__name__} element_spec={self.element_spec!r}>"

    def __iter__(self):
        from tensorlet._src.data.iterators import OwnedIterator

        return OwnedIterator(self)

    def __bool__(self):
        return True

    def __len__(self):
        n = self._card()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def cardinality(self):
        """Number of elements as a scalar int64 tensor; ``tf.data.INFINITE_CARDINALITY`` (-1) or
        ``tf.data.UNKNOWN_CARDINALITY`` (-2) when infinite/unknown."""
        return _wrap(np.asarray(self._card(), np.int64))

    def options(self):
        """The ``tf.data.Options`` in effect (merged from every ``with_options`` upstream)."""
        from tensorlet._src.data.options import Options

        merged = None
        for d in self._upstream_chain():
            if d._options_ is not None:
                merged = d._options_ if merged is None else merged.merge(d._options_)
        return merged if merged is not None else Options()

    def _upstream_chain(self):
        out, seen, stack = [], set(), [self]
        while stack:
            d = stack.pop()
            if id(d) in seen:
                continue
            seen.add(id(d))
            out.append(d)
            stack.extend(d._inputs())
        return list(reversed(out))

    def as_numpy_iterator(self):
        """An iterator of NumPy values: ``list(ds.as_numpy_iterator())``."""
        from tensorlet._src.data.iterators import NumpyIterator

        for s in self._flat_spec():
            if not isinstance(s, TensorSpec):
                raise TypeError(f"`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce "
                                f"values of type {type(s)}")
        return NumpyIterator(self)

    # --- sources -----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """Slices of ``tensors`` along their first dimension: ``from_tensor_slices(([1, 2], [3., 4.]))``."""
        from tensorlet._src.data.sources import TensorSliceDataset

        return TensorSliceDataset(tensors, name=name)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, ``tensors``."""
        from tensorlet._src.data.sources import TensorDataset

        return TensorDataset(tensors, name=name)

    @staticmethod
    def range(*args, **kwargs):
        """``range(stop)``, ``range(start, stop[, step])`` as int64 (or ``output_type``) scalars."""
        from tensorlet._src.data.sources import RangeDataset

        return RangeDataset(*args, **kwargs)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements yielded by a Python generator (``output_signature`` gives their specs)."""
        from tensorlet._src.data.sources import from_generator

        return from_generator(generator, output_types, output_shapes, args, output_signature, name)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Zip datasets (a tuple/dict structure of datasets) into a dataset of structures."""
        from tensorlet._src.data.transformations import ZipDataset

        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        return ZipDataset(datasets, name=name)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """File names matching a glob pattern (or list of patterns); shuffled unless ``shuffle=False``."""
        from tensorlet._src.data.sources import list_files

        return list_files(file_pattern, shuffle, seed, name)

    @staticmethod
    def counter(start=0, step=1, dtype=_dt.int64, name=None):
        """``start, start + step, ...`` forever."""
        from tensorlet._src.data.sources import counter

        return counter(start, step, dtype, name)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """Pseudorandom int64 scalars (TF's Philox stream: same seed, same values as TF)."""
        from tensorlet._src.data.shuffle import RandomDataset

        return RandomDataset(seed, rerandomize_each_iteration, name)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Interleave ``datasets`` choosing each element's source at random with ``weights``."""
        from tensorlet._src.data.shuffle import sample_from_datasets

        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element i comes from ``datasets[choice_i]`` (``choice_dataset`` yields int64 scalars)."""
        from tensorlet._src.data.transformations import DirectedInterleaveDataset

        return DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
        """Load a dataset written by ``Dataset.save`` here or in TensorFlow (TF's snapshot format)."""
        from tensorlet._src.data.save_load import load

        return load(path, element_spec, compression, reader_func, wait)

    # --- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """Apply ``map_func`` to each element (tuple elements are passed as positional arguments)."""
        from tensorlet._src.data.transformations import MapDataset

        return MapDataset(self, map_func, num_parallel_calls, deterministic, name=name)

    def filter(self, predicate, name=None):
        """Keep elements for which ``predicate`` returns a scalar ``True`` bool tensor."""
        from tensorlet._src.data.transformations import FilterDataset

        return FilterDataset(self, predicate, name=name)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements (the last batch may be smaller unless ``drop_remainder``)."""
        from tensorlet._src.data.batching import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, num_parallel_calls, name=name)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batch elements of different shapes, padding each component to ``padded_shapes`` (or the batch max)."""
        from tensorlet._src.data.batching import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder, name=name)

    def unbatch(self, name=None):
        """Split each element along its first dimension."""
        from tensorlet._src.data.batching import UnbatchDataset

        return UnbatchDataset(self, name=name)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=_dt.int64, name=None):
        """Batch elements of different shapes: components whose shape is not fully defined become
        ``RaggedTensor``s (TF's ``dense_to_ragged_batch``)."""
        from tensorlet._src.data.batching import BatchDataset, DenseToRaggedDataset

        return BatchDataset(DenseToRaggedDataset(self, row_splits_dtype), batch_size, drop_remainder, name=name)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-batch already batched elements into batches of ``batch_size``."""
        from tensorlet._src.data.batching import RebatchDataset

        return RebatchDataset(self, batch_size, drop_remainder, name=name)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffle with a buffer of ``buffer_size`` elements (TF's algorithm and seeds: same order as TF)."""
        from tensorlet._src.data.shuffle import ShuffleDataset

        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration, name=name)

    def repeat(self, count=None, name=None):
        """Repeat ``count`` times (forever when ``None`` or -1)."""
        from tensorlet._src.data.transformations import RepeatDataset

        return RepeatDataset(self, count, name=name)

    def take(self, count, name=None):
        """The first ``count`` elements (all when -1)."""
        from tensorlet._src.data.transformations import TakeDataset

        return TakeDataset(self, count, name=name)

    def skip(self, count, name=None):
        """Drop the first ``count`` elements (all when -1)."""
        from tensorlet._src.data.transformations import SkipDataset

        return SkipDataset(self, count, name=name)

    def take_while(self, predicate, name=None):
        """Elements until ``predicate`` first returns False."""
        from tensorlet._src.data.transformations import TakeWhileDataset

        return TakeWhileDataset(self, predicate, name=name)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element starting at ``index``."""
        from tensorlet._src.data.transformations import ShardDataset

        return ShardDataset(self, num_shards, index, name=name)

    def prefetch(self, buffer_size, name=None):
        """Produce up to ``buffer_size`` elements ahead in a background thread."""
        from tensorlet._src.data.parallel import PrefetchDataset

        return PrefetchDataset(self, buffer_size, name=name)

    def cache(self, filename="", name=None):
        """Cache elements in memory (``filename=""``) or in files, after the first complete pass."""
        from tensorlet._src.data.save_load import CacheDataset

        return CacheDataset(self, filename, name=name)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """Map each element to a dataset and interleave ``block_length`` elements from ``cycle_length`` of them."""
        from tensorlet._src.data.transformations import InterleaveDataset

        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls, deterministic,
                                 name=name)

    def flat_map(self, map_func, name=None):
        """Map each element to a dataset and concatenate them."""
        from tensorlet._src.data.transformations import FlatMapDataset

        return FlatMapDataset(self, map_func, name=name)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements as nested datasets (use ``flat_map`` + ``batch`` to get tensors)."""
        from tensorlet._src.data.batching import WindowDataset

        return WindowDataset(self, size, shift, stride, drop_remainder, name=name)

    def enumerate(self, start=0, name=None):
        """Pairs ``(i, element)`` with int64 ``i`` counting from ``start``."""
        from tensorlet._src.data.transformations import ZipDataset

        return ZipDataset((DatasetV2.range(start, np.iinfo(np.int64).max), self), name=name)

    def scan(self, initial_state, scan_func, name=None):
        """Stateful map: ``scan_func(state, element) -> (new_state, output)``."""
        from tensorlet._src.data.transformations import ScanDataset

        return ScanDataset(self, initial_state, scan_func, name=name)

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the dataset: ``reduce_func(state, element) -> state``; returns the final state."""
        from tensorlet._src.data.transformations import reduce_dataset

        return reduce_dataset(self, initial_state, reduce_func)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by ``dataset``'s (compatible structures)."""
        from tensorlet._src.data.transformations import ConcatenateDataset

        return ConcatenateDataset(self, dataset, name=name)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        out = transformation_func(self)
        if not isinstance(out, DatasetV2):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(out)}.")
        return out

    def unique(self, name=None):
        """Drop repeated elements (scalar int32/int64/string elements)."""
        from tensorlet._src.data.transformations import UniqueDataset

        return UniqueDataset(self, name=name)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Group elements by an int64 key into windows, each reduced by ``reduce_func(key, window_dataset)``."""
        from tensorlet._src.data.batching import GroupByWindowDataset

        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func, name=name)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Batch elements of similar length together (padded per bucket)."""
        from tensorlet._src.data.batching import bucket_by_sequence_length

        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                         padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                         drop_remainder)

    def ignore_errors(self, log_warning=False, name=None):
        """Drop elements whose computation raised an error."""
        from tensorlet._src.data.transformations import IgnoreErrorsDataset

        return IgnoreErrorsDataset(self, log_warning, name=name)

    def with_options(self, options, name=None):
        """Attach ``tf.data.Options`` (merged with upstream ones)."""
        from tensorlet._src.data.transformations import OptionsDataset

        return OptionsDataset(self, options, name=name)

    def get_single_element(self, name=None):
        """The one element of a one-element dataset (``InvalidArgumentError`` otherwise)."""
        from tensorlet._src.data.iterators import get_single_element

        return get_single_element(self)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Write the dataset to directory ``path`` in TF's snapshot format (TF's ``Dataset.load`` reads it too)."""
        from tensorlet._src.data.save_load import save

        save(self, path, compression, shard_func)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """Persist the elements under ``path`` on the first complete pass; later passes read them back."""
        from tensorlet._src.data.resample import SnapshotDataset

        return SnapshotDataset(self, path, compression, reader_func, shard_func, name)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """Resample to the class distribution ``target_dist``: elements become ``(class_func(x), x)``."""
        from tensorlet._src.data.resample import _resample

        return _resample(self, class_func, target_dist, initial_dist, seed)

    def sparse_batch(self, batch_size, row_shape, name=None):
        """Batches of dense elements as ``SparseTensor``s of dense shape ``[batch_size, *row_shape]``."""
        from tensorlet._src.data.resample import SparseBatchDataset

        return SparseBatchDataset(self, batch_size, row_shape, name)

    @property
    def _type_spec(self):
        return DatasetSpec(self.element_spec)


Dataset = DatasetV2


@tf_export("data.DatasetSpec")
class DatasetSpec(TypeSpec):
    """The type of a ``tf.data.Dataset`` value: its element spec (and dataset shape, ``[]``)."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    element_spec = property(lambda self: self._element_spec)
    shape = property(lambda self: self._dataset_shape)
    dtype = property(lambda self: _dt.variant)

    @property
    def value_type(self):
        return DatasetV2

    @staticmethod
    def from_value(value):
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value) -> bool:
        other = spec_or_value
        if isinstance(other, DatasetV2):
            other = DatasetSpec(other.element_spec)
        if not isinstance(other, DatasetSpec):
            return False
        fa, fb = S.dflatten(self._element_spec), S.dflatten(other._element_spec)
        return (S.same_structure(self._element_spec, other._element_spec)
                and all(a.is_compatible_with(b) for a, b in zip(fa, fb)))

    def most_specific_common_supertype(self, others):
        spec = self._element_spec
        for o in others:
            if not isinstance(o, DatasetSpec) or not S.same_structure(spec, o._element_spec):
                return None
            try:
                spec = S.relax(spec, o._element_spec)
            except TypeError:
                return None
        return DatasetSpec(spec, self._dataset_shape)

    def is_subtype_of(self, other) -> bool:
        if not isinstance(other, DatasetSpec) or not S.same_structure(self._element_spec, other._element_spec):
            return False
        return all(a.is_subtype_of(b) for a, b in zip(S.dflatten(self._element_spec),
                                                       S.dflatten(other._element_spec)))

    def __eq__(self, other):
        return (isinstance(other, DatasetSpec) and S.same_structure(self._element_spec, other._element_spec)
                and S.dflatten(self._element_spec) == S.dflatten(other._element_spec)
                and self._dataset_shape == other._dataset_shape)

    def __hash__(self):
        return hash(tuple(S.dflatten(self._element_spec)))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"

    def _batch(self, batch_size):
        return DatasetSpec(self._element_spec, TensorShape([batch_size]).concatenate(self._dataset_shape))

    def _unbatch(self):
        return DatasetSpec(self._element_spec, self._dataset_shape[1:])


# --- element <-> flat arrays ----------------------------------------------------------------

def leaf_spec(v):
    """The spec of one normalized leaf (an array, or a nested dataset)."""
    if isinstance(v, DatasetV2):
        return DatasetSpec(v.element_spec)
    if not isinstance(v, (np.ndarray, np.generic)):
        from tensorlet._src.data import composite

        if composite.is_composite(v):  # RaggedTensor / SparseTensor: its own spec
            return v._type_spec
    return S.np_spec(v)


def to_leaf(v, name="component"):
    """One element leaf as an internal value: a NumPy array (or scalar) or a Dataset."""
    if v.__class__ is EagerTensor:
        return v._v
    if isinstance(v, DatasetV2):
        return v
    if isinstance(v, Tensor):
        raise TypeError(f"tf.data needs concrete tensors, got {type(v).__name__}")
    from tensorlet._src.data import composite

    if v is not None and composite.is_composite(v):  # a RaggedTensor / SparseTensor leaf stays composite
        return composite.check_eager(v)
    from tensorlet._src.framework.tensor import convert_to_tensor

    if v is None:
        raise TypeError(f"Failed to convert elements of {v!r} to Tensor: None values are not supported in tf.data "
                        f"elements.")
    return convert_to_tensor(v)._v


def normalize(value):
    """(template, flat leaves) of a user structure: leaves become arrays/datasets."""
    leaves = S.dflatten(value)
    return value, [to_leaf(v) for v in leaves]


def spec_of_value(value):
    """Nested specs of a user value (after normalization)."""
    template, leaves = normalize(value)
    return S.dpack(template, [leaf_spec(v) for v in leaves])


def wrap_leaf(v):
    if isinstance(v, DatasetV2) or hasattr(v, "_type_spec") and not isinstance(v, Tensor):
        return v  # a nested dataset or a composite (RaggedTensor / SparseTensor)
    t = EagerTensor.__new__(EagerTensor)
    t._v = v
    return t


def out_of_range():
    return errors.OutOfRangeError(None, None, "End of sequence")


# the public implementations of dataset-producing classes import from here; keep the module list in one place
from tensorlet._src.data import options as _options  # noqa: E402,F401  (tf.data.Options is part of the base API)
