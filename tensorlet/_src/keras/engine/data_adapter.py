"""Turns what ``fit``/``evaluate``/``predict`` accept into batches: NumPy arrays and tensors (nested in lists/dicts),
``tf.data`` datasets, Python generators and ``keras.utils.PyDataset``.

Array inputs are sliced into ``batch_size`` batches (float arrays cast to ``floatx``), shuffled each epoch with
NumPy's global generator (seeded by ``keras.utils.set_random_seed``); ``validation_split`` takes the last fraction of
the samples, before shuffling, as Keras does; ``class_weight`` becomes per-sample weights.
"""

from __future__ import annotations

import inspect
import math
import warnings

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


@tf_export("keras.utils.PyDataset", "keras.utils.Sequence")
class PyDataset:
    """Base class for Python datasets: implement ``__len__`` (batches) and ``__getitem__(index)`` (one batch)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    @property
    def num_batches(self):
        try:
            return len(self)
        except NotImplementedError:
            return None

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


# --- input kinds ----------------------------------------------------------------------------------------------------
def _is_dataset(x):
    mod = type(x).__module__ or ""
    return mod.startswith("tensorlet._src.data") or (hasattr(x, "element_spec") and hasattr(x, "__iter__"))


def _is_pydataset(x):
    return isinstance(x, PyDataset) or (hasattr(x, "__getitem__") and hasattr(x, "__len__") and
                                        hasattr(x, "on_epoch_end") and not isinstance(x, (list, tuple, dict,
                                                                                           np.ndarray)))


def _is_generator(x):
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def _is_array(x):
    return isinstance(x, (np.ndarray, Tensor, Variable)) or (hasattr(x, "__array__") and not isinstance(x, type))


def _to_array(x):
    if x is None:
        return None
    a = np.asarray(x)
    if a.dtype == np.float64 or (a.dtype.kind == "f" and a.dtype.name != _backend.floatx()):
        a = a.astype(_backend.floatx())
    return a


def _arrays_structure(x):
    """Maps a nested structure of array-likes to NumPy arrays (lists of numbers become one array)."""
    if x is None:
        return None
    if isinstance(x, dict):
        return {k: _arrays_structure(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        if x and all(_is_array(v) or isinstance(v, (list, tuple, dict)) for v in x) and \
                not all(isinstance(v, (int, float)) for v in x):
            return type(x)(_arrays_structure(v) for v in x) if not isinstance(x, tuple) else \
                tuple(_arrays_structure(v) for v in x)
        return _to_array(x)
    if _is_array(x) or isinstance(x, (int, float)):
        return _to_array(x)
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
        if not _is_array(a):
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


def _tensor(a):
    return constant(a) if a is not None else None


def _to_batch(x, y, sw):
    x = nest.map_structure(_tensor, x)
    if y is None and sw is None:
        return (x,)
    y = nest.map_structure(_tensor, y)
    if sw is None:
        return (x, y)
    return (x, y, nest.map_structure(_tensor, sw))


def _to_batch_structure(x, y, sw):
    """The structure ``_to_batch`` gives a batch, with the leaves left as they are."""
    if y is None and sw is None:
        return (x,)
    if sw is None:
        return (x, y)
    return (x, y, sw)


def _batch_maker(a):
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


def _standardize_batch(data, class_weight=None):
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
class ArrayAdapter:
    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
        self.x = _arrays_structure(x)
        self.y = _arrays_structure(y)
        self.sw = _arrays_structure(sample_weight)
        if class_weight is not None:
            if self.sw is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
            if isinstance(self.y, (list, tuple, dict)) and len(nest.flatten(self.y)) > 1:
                raise ValueError("`class_weight` is only supported for Models with a single output.")
            self.sw = class_weight_to_sample_weights(nest.flatten(self.y)[0], class_weight)
        flat = [a for a in nest.flatten([self.x, self.y, self.sw]) if a is not None]
        sizes = {int(a.shape[0]) for a in flat if a.ndim}
        if len(sizes) > 1:
            raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                             f"samples.'x' sizes: {', '.join(str(a.shape[0]) for a in nest.flatten(self.x))}\n"
                             + (f"'y' sizes: {', '.join(str(a.shape[0]) for a in nest.flatten(self.y))}\n"
                                if self.y is not None else ""))
        self.size = sizes.pop() if sizes else 0
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.num_batches = int(math.ceil(self.size / self.batch_size)) if self.size else 0
        # the batch structure of ``_to_batch`` with the full arrays as leaves: each batch slices every leaf
        self._template = _to_batch_structure(self.x, self.y, self.sw)
        self._leaves = nest.flatten(self._template)
        self._flat_tuple = self._template.__class__ is tuple and not any(
            nest.is_nested(v) for v in self._template)

    def batch_counts(self):
        """``{batch size: number of such batches per epoch}``."""
        if not self.size:
            return {}
        full, rest = divmod(self.size, self.batch_size)
        counts = {self.batch_size: full} if full else {}
        if rest:
            counts[rest] = 1
        return counts

    def __iter__(self):
        idx = None
        if self.shuffle and self.shuffle != "batch":
            idx = np.random.permutation(self.size)
        order = range(self.num_batches)
        if self.shuffle == "batch":
            order = np.random.permutation(self.num_batches)
        makers = [None if a is None else _batch_maker(a) for a in self._leaves]
        leaves = self._leaves
        for b in order:
            lo, hi = b * self.batch_size, min(self.size, (b + 1) * self.batch_size)
            sel = idx[lo:hi] if idx is not None else slice(lo, hi)
            vals = [None if m is None else m(a[sel]) for m, a in zip(makers, leaves)]
            yield tuple(vals) if self._flat_tuple else nest.pack_sequence_as(self._template, vals)

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


class DatasetAdapter:
    def __init__(self, dataset, class_weight=None):
        self.dataset = dataset
        self.class_weight = class_weight
        self.num_batches = None
        try:
            n = int(dataset.cardinality())
            if n >= 0:
                self.num_batches = n
        except Exception:  # noqa: BLE001  (a dataset without cardinality)
            self.num_batches = None

    def __iter__(self):
        for data in self.dataset:
            yield _standardize_batch(data, self.class_weight)

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


class GeneratorAdapter:
    def __init__(self, generator, class_weight=None):
        self.generator = generator
        self.class_weight = class_weight
        self.num_batches = None

    def __iter__(self):
        for data in self.generator:
            yield _standardize_batch(_convert_structure(data), self.class_weight)

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


class PyDatasetAdapter:
    def __init__(self, dataset, class_weight=None, shuffle=False):
        self.dataset = dataset
        self.class_weight = class_weight
        self.shuffle = shuffle
        try:
            self.num_batches = len(dataset)
        except (TypeError, NotImplementedError):
            self.num_batches = None

    def __iter__(self):
        if self.num_batches is None:
            i = 0
            while True:
                try:
                    data = self.dataset[i]
                except IndexError:
                    return
                yield _standardize_batch(_convert_structure(data), self.class_weight)
                i += 1
        order = np.random.permutation(self.num_batches) if self.shuffle else range(self.num_batches)
        for i in order:
            yield _standardize_batch(_convert_structure(self.dataset[int(i)]), self.class_weight)

    def on_epoch_begin(self):
        if hasattr(self.dataset, "on_epoch_begin"):
            self.dataset.on_epoch_begin()

    def on_epoch_end(self):
        if hasattr(self.dataset, "on_epoch_end"):
            self.dataset.on_epoch_end()


def _convert_structure(data):
    def conv(a):
        if a is None or isinstance(a, (Tensor, Variable)):
            return a
        return constant(_to_array(a))

    if isinstance(data, tuple):
        return tuple(nest.map_structure(conv, d) for d in data)
    return nest.map_structure(conv, data)


def get_data_adapter(x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
    if _is_dataset(x) and not _is_array(x):
        _no_extra(x, y, sample_weight, batch_size, "A tf.data.Dataset")
        return DatasetAdapter(x, class_weight)
    if _is_pydataset(x):
        _no_extra(x, y, sample_weight, batch_size, "A PyDataset")
        return PyDatasetAdapter(x, class_weight, shuffle)
    if _is_generator(x) and not _is_array(x):
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


class EpochIterator:
    """Yields ``(step, batch)`` per epoch; with ``steps_per_epoch`` the data iterator carries over between epochs."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                 class_weight=None):
        self.adapter = get_data_adapter(x, y, sample_weight, batch_size, shuffle, class_weight)
        self.steps_per_epoch = steps_per_epoch
        self._num_batches = self.adapter.num_batches
        self._current = None
        self._steps_seen = 0
        self.ran_out = False

    @property
    def num_batches(self):
        return self.steps_per_epoch or self._num_batches

    def batch_counts(self):
        """``{batch size: count}`` of the batches of one epoch when known in advance (arrays), else ``None``."""
        counts = getattr(self.adapter, "batch_counts", None)
        if counts is None or self.steps_per_epoch:
            return None
        return counts()

    def _warn(self):
        warnings.warn("Your input ran out of data; interrupting training. Make sure that your dataset or generator "
                      "can generate at least `steps_per_epoch * epochs` batches. You may need to use the "
                      "`.repeat()` function when building your dataset.", stacklevel=3)

    def enumerate_epoch(self):
        self.adapter.on_epoch_begin()
        steps = self.steps_per_epoch or self._num_batches or -1
        if steps > 0:
            if self._current is None or self.steps_per_epoch is None:
                self._current = iter(self.adapter)
                self._steps_seen = 0
            for step in range(steps):
                if self._num_batches and self._steps_seen >= self._num_batches:
                    if self.steps_per_epoch:
                        self._warn()
                        self.ran_out = True
                    break
                try:
                    data = next(self._current)
                except StopIteration:
                    if self._num_batches is None:
                        self._num_batches = self._steps_seen
                    self._warn()
                    self.ran_out = True
                    self._current = None
                    break
                self._steps_seen += 1
                yield step, data
            if self._num_batches and self._steps_seen >= self._num_batches:
                self._current = None
                self._steps_seen = 0
        else:
            step = 0
            for data in self.adapter:
                yield step, data
                step += 1
            if self._num_batches is None:
                self._num_batches = step
        self.adapter.on_epoch_end()
