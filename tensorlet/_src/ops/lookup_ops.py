"""``tf.lookup``: immutable hash tables (``StaticHashTable``, ``StaticVocabularyTable``) from key/value tensors or
text files, and the mutable ``experimental.MutableHashTable``/``DenseHashTable``.

A table's contents are sorted key/value arrays; ``lookup`` is one vectorized search (``LookupTableFindV2``, a
NumPy-only op whose attr is the table's contents), so it runs eagerly and inside ``tf.function``.  Out-of-vocabulary
keys of a ``StaticVocabularyTable`` go to ``num_oov_buckets`` by TF's FarmHash Fingerprint64 bucket.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec
from tensorlet._src.ops.strings_split import _farmhash

D = _dt


class _Contents:
    """Sorted keys and their values (hashable by identity so it can be an op attr)."""

    __slots__ = ("keys", "values", "__weakref__")

    def __init__(self, keys, values):
        keys = np.asarray(keys)
        values = np.asarray(values)
        order = np.argsort(keys, kind="stable") if keys.size else np.zeros(0, np.int64)
        self.keys, self.values = keys[order], values[order]

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


def _find_kernel(xp, keys, default, contents):
    k = contents.keys
    flat = keys.reshape(-1)
    if k.size == 0:
        out = np.broadcast_to(default, flat.shape).copy()
        return out.reshape(keys.shape)
    pos = np.searchsorted(k, flat)
    pos = np.minimum(pos, k.size - 1)
    hit = k[pos] == flat
    out = np.where(hit, contents.values[pos], default) if contents.values.dtype != object else \
        np.asarray([contents.values[p] if h else default[()] for p, h in zip(pos.tolist(), hit.tolist())], object)
    return out.reshape(keys.shape)


def _find_shape(keys, default, contents):
    return Spec(keys.shape, D.from_numpy(contents.values.dtype))


LOOKUP_FIND = defop("LookupTableFindV2", _find_kernel, grad=NONDIFF, no_lowering=True, shape=_find_shape)


def _oov_kernel(xp, keys, ids, num_oov_buckets, vocab_size):
    fingerprint64 = _farmhash().fingerprint64  # the strings extra: a clear ImportError when missing

    flat = keys.reshape(-1)
    out = ids.reshape(-1).copy()
    for i in np.nonzero(out < 0)[0].tolist():
        k = flat[i]
        b = k if isinstance(k, bytes) else str(int(k)).encode()
        out[i] = vocab_size + fingerprint64(b) % num_oov_buckets
    return out.reshape(keys.shape)


LOOKUP_OOV = defop("LookupTableOOVBuckets", _oov_kernel, grad=NONDIFF, no_lowering=True,
                   shape=lambda keys, ids, **a: Spec(keys.shape, ids.dtype))


# --- initializers -------------------------------------------------------------------------------

@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer:
    """Table contents from two tensors: ``KeyValueTensorInitializer(["a", "b"], [1, 2])``."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        if self._keys.shape.num_elements() != self._values.shape.num_elements():
            raise ValueError(f"keys and values must have the same size: {self._keys.shape} vs {self._values.shape}")
        self.key_dtype, self.value_dtype = self._keys.dtype, self._values.dtype

    def _arrays(self):
        return np.asarray(self._keys.numpy()).reshape(-1), np.asarray(self._values.numpy()).reshape(-1)


@tf_export("lookup.TextFileIndex")
class TextFileIndex:
    WHOLE_LINE = -2
    LINE_NUMBER = -1


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer:
    """Table contents from a text file: one entry per line, key and value taken from columns (``delimiter``) or
    ``TextFileIndex.WHOLE_LINE`` / ``LINE_NUMBER``."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        self._filename = filename.numpy().decode() if hasattr(filename, "numpy") else str(filename)
        self.key_dtype, self.value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        self._key_index, self._value_index = int(key_index), int(value_index)
        self._vocab_size, self._delimiter, self._offset = vocab_size, delimiter, int(value_index_offset)

    def _column(self, line, index, lineno, dtype):
        if index == TextFileIndex.LINE_NUMBER:
            v = lineno + self._offset
        elif index == TextFileIndex.WHOLE_LINE:
            v = line
        else:
            cols = line.split(self._delimiter)
            if index >= len(cols):
                raise errors.InvalidArgumentError(None, None, f"Invalid number of columns in {self._filename} line "
                                                              f"{lineno} (looking for field {index}) : {line}")
            v = cols[index]
        if dtype is D.string:
            return v.encode() if isinstance(v, str) else v
        return dtype.as_numpy_dtype(v)

    def _arrays(self):
        keys, values = [], []
        with open(self._filename, encoding="utf-8") as f:
            for lineno, line in enumerate(f):
                if self._vocab_size is not None and lineno >= self._vocab_size:
                    break
                line = line.rstrip("\r\n")
                keys.append(self._column(line, self._key_index, lineno, self.key_dtype))
                values.append(self._column(line, self._value_index, lineno, self.value_dtype))
        if self._vocab_size is not None and len(keys) < self._vocab_size:
            raise errors.InvalidArgumentError(None, None, f"Invalid vocab_size in {self._filename}: expected "
                                                          f"{self._vocab_size}, got {len(keys)}")
        kd = object if self.key_dtype is D.string else self.key_dtype.as_numpy_dtype
        vd = object if self.value_dtype is D.string else self.value_dtype.as_numpy_dtype
        k = np.empty(len(keys), kd)
        k[:] = keys
        v = np.empty(len(values), vd)
        v[:] = values
        return k, v


# --- tables ---------------------------------------------------------------------------------------

class _Table:
    def _set(self, keys, values):
        if keys.size and len(np.unique(keys)) != keys.size:
            raise errors.InvalidArgumentError(None, None, "HashTable has different value for same key.")
        self._contents = _Contents(keys, values)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    def size(self, name=None):
        return convert_to_tensor(np.int64(self._contents.keys.size))

    def _find(self, keys, default):
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        return bind(LOOKUP_FIND, keys, convert_to_tensor(default, dtype=self._value_dtype), contents=self._contents)

    def export(self, name=None):
        return convert_to_tensor(self._contents.keys), convert_to_tensor(self._contents.values)


@tf_export("lookup.StaticHashTable")
class StaticHashTable(_Table):
    """An immutable table: ``StaticHashTable(KeyValueTensorInitializer(keys, values), default_value=-1)``."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        self._default = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._set(*initializer._arrays())

    @property
    def default_value(self):
        return self._default

    def lookup(self, keys, name=None):
        return self._find(keys, self._default)

    def __getitem__(self, keys):
        return self.lookup(keys)


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(_Table):
    """Keys to ids; keys not in the vocabulary go to ``num_oov_buckets`` extra ids by hash bucket."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0 and initializer is None:
            raise ValueError("num_oov_buckets must be > 0 when there is no initializer")
        self._num_oov = int(num_oov_buckets)
        if initializer is None:
            keys, values = np.zeros(0, object), np.zeros(0, np.int64)
            self._key_dtype = D.as_dtype(lookup_key_dtype or D.string)
        else:
            keys, values = initializer._arrays()
            self._key_dtype = initializer.key_dtype
        self._value_dtype = D.int64
        self._set(keys, values.astype(np.int64))
        self._vocab_size = keys.size

    def lookup(self, keys, name=None):
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        ids = self._find(keys, -1)
        if self._num_oov:
            ids = bind(LOOKUP_OOV, keys, ids, num_oov_buckets=self._num_oov, vocab_size=self._vocab_size)
        return ids

    def __getitem__(self, keys):
        return self.lookup(keys)

    def size(self, name=None):
        return convert_to_tensor(np.int64(self._vocab_size + self._num_oov))


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(_Table):
    """A table that can change: ``insert``, ``remove``, ``lookup``, ``export``."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", experimental_is_anonymous=False):
        self._key_dtype, self._value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        self._default = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._dict = {}
        self._refresh()

    def _refresh(self):
        kd = object if self._key_dtype is D.string else self._key_dtype.as_numpy_dtype
        vd = object if self._value_dtype is D.string else self._value_dtype.as_numpy_dtype
        k = np.empty(len(self._dict), kd)
        k[:] = list(self._dict)
        v = np.empty(len(self._dict), vd)
        v[:] = list(self._dict.values())
        self._contents = _Contents(k, v)

    def insert(self, keys, values, name=None):
        k = np.asarray(convert_to_tensor(keys, dtype=self._key_dtype).numpy()).reshape(-1)
        v = np.asarray(convert_to_tensor(values, dtype=self._value_dtype).numpy()).reshape(-1)
        for a, b in zip(k.tolist(), v.tolist()):
            self._dict[a] = b
        self._refresh()

    def remove(self, keys, name=None):
        for a in np.asarray(convert_to_tensor(keys, dtype=self._key_dtype).numpy()).reshape(-1).tolist():
            self._dict.pop(a, None)
        self._refresh()

    def lookup(self, keys, dynamic_default_values=None, name=None):
        return self._find(keys, self._default if dynamic_default_values is None else dynamic_default_values)

    def __getitem__(self, keys):
        return self.lookup(keys)


@tf_export("lookup.experimental.DenseHashTable")
class DenseHashTable(MutableHashTable):
    """TF's open-addressing table: the same interface as MutableHashTable; ``empty_key``/``deleted_key`` may not
    be inserted."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype, default_value, name)
        self._reserved = {np.asarray(convert_to_tensor(empty_key, dtype=self._key_dtype).numpy()).item(),
                          np.asarray(convert_to_tensor(deleted_key, dtype=self._key_dtype).numpy()).item()}

    def insert_or_assign(self, keys, values, name=None):
        return self.insert(keys, values)

    def insert(self, keys, values, name=None):
        k = np.asarray(convert_to_tensor(keys, dtype=self._key_dtype).numpy()).reshape(-1)
        if any(x in self._reserved for x in k.tolist()):
            raise errors.InvalidArgumentError(None, None, "Using the empty_key or deleted_key as a table key is "
                                                          "not allowed")
        super().insert(keys, values)

    def erase(self, keys, name=None):
        return self.remove(keys)
