"""``tf.data.experimental``: the aliases TF keeps (transformation functions for ``Dataset.apply``) and
``assert_cardinality``.

>>> ds = tf.data.Dataset.range(6).apply(tf.data.experimental.group_by_window(lambda x: x % 2,
...                                     lambda k, d: d.batch(3), window_size=3))
"""

from __future__ import annotations

from tensorlet._src.data.dataset_ops import INFINITE, DatasetV2, static_int
from tensorlet._src.data.iterators import get_single_element as _single
from tensorlet._src.data.transformations import UnaryDataset
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import export_value, tf_export

__all__ = []

SHARD_HINT = -1
export_value("data.experimental.SHARD_HINT", __name__, "SHARD_HINT")


@tf_export("data.experimental.cardinality")
def cardinality(dataset):
    """``dataset.cardinality()``: -1 infinite, -2 unknown."""
    return dataset.cardinality()


class _AssertCardinalityDataset(UnaryDataset):
    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._expected = static_int(expected, "expected_cardinality")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        return self._expected

    def _gen(self, ictx):
        n = 0
        exp = self._expected
        for x in self._input._gen(ictx):
            n += 1
            if exp != INFINITE and n > exp:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {exp} elements but contained at least "
                                f"{n} elements.")
            yield x
        if n != exp:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_count(exp)} elements but contained only {n} "
                            f"element{'s' if n != 1 else ''}.")


_AssertCardinalityDataset.__name__ = _AssertCardinalityDataset.__qualname__ = "_AssertCardinalityDataset"


def _count(n):
    return "an infinite number of" if n == INFINITE else str(n)


@tf_export("data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality):
    """A transformation asserting the dataset has ``expected_cardinality`` elements (checked while iterating)."""
    return lambda dataset: _AssertCardinalityDataset(dataset, expected_cardinality)


@tf_export("data.experimental.bucket_by_sequence_length")
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    return lambda ds: ds.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                                                   padded_shapes, padding_values, pad_to_bucket_boundary,
                                                   no_padding, drop_remainder)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return DatasetV2.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


@tf_export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return DatasetV2.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


@tf_export("data.experimental.Counter")
def Counter(start=0, step=1, dtype=_dt.int64, name=None):  # noqa: N802 - TF's public name
    return DatasetV2.counter(start, step, dtype, name)


@tf_export("data.experimental.RandomDataset")
def RandomDataset(seed=None, name=None):  # noqa: N802 - TF's public name
    return DatasetV2.random(seed, name=name)


@tf_export("data.experimental.enumerate_dataset")
def enumerate_dataset(start=0):
    return lambda ds: ds.enumerate(start)


@tf_export("data.experimental.get_single_element")
def get_single_element(dataset):
    return _single(dataset)


@tf_export("data.experimental.group_by_window")
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


@tf_export("data.experimental.ignore_errors")
def ignore_errors(log_warning=False):
    return lambda ds: ds.ignore_errors(log_warning)


@tf_export("data.experimental.scan")
def scan(initial_state, scan_func):
    return lambda ds: ds.scan(initial_state, scan_func)


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


@tf_export("data.experimental.take_while")
def take_while(predicate):
    return lambda ds: ds.take_while(predicate)


@tf_export("data.experimental.unbatch")
def unbatch():
    return lambda ds: ds.unbatch()


@tf_export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=_dt.int64):
    """``ds.apply(dense_to_ragged_batch(2))``: ``Dataset.ragged_batch`` as a transformation."""
    return lambda ds: ds.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


@tf_export("data.experimental.unique")
def unique():
    return lambda ds: ds.unique()


@tf_export("data.experimental.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    return lambda ds: ds.interleave(map_func, cycle_length, block_length, num_parallel_calls=cycle_length,
                                    deterministic=not sloppy)


@tf_export("data.experimental.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    return lambda ds: ds.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)


@tf_export("data.experimental.copy_to_device")
def copy_to_device(target_device, source_device="/cpu:0"):
    return lambda ds: ds


@tf_export("data.experimental.prefetch_to_device")
def prefetch_to_device(device, buffer_size=None):
    return lambda ds: ds.prefetch(-1 if buffer_size is None else buffer_size)


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    return iterator.get_next_as_optional()


@tf_export("data.experimental.get_structure")
def get_structure(dataset_or_iterator):
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or "
                        f"tf.data.Iterator object, but got {type(dataset_or_iterator)}.") from None


@tf_export("data.experimental.enable_debug_mode")
def enable_debug_mode():
    """tensorlet already runs dataset functions eagerly by default: nothing to switch."""


@tf_export("data.experimental.TFRecordWriter")
class TFRecordWriter:
    """Writes a dataset of ``tf.string`` scalars to one TFRecord file: ``TFRecordWriter(path).write(ds)``."""

    def __init__(self, filename, compression_type=None):
        self._filename = filename
        self._compression = compression_type

    def write(self, dataset):
        from tensorlet._src.data.structure import TensorSpec
        from tensorlet._src.io.tfrecord import TFRecordWriter as _Writer

        spec = dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is _dt.string and spec.shape.rank in (0, None)):
            raise TypeError(f"Invalid `dataset.` Expected a`dataset` that produces scalar `tf.string` elements, but "
                            f"got a dataset which produces elements with shapes {spec.shape} and types {spec.dtype}.")
        with _Writer(self._filename, self._compression or None) as w:
            for rec in dataset.as_numpy_iterator():
                w.write(rec)
