"""Vocabulary and hashing preprocessing layers: ``StringLookup``, ``IntegerLookup``, ``Hashing``,
``Discretization`` (Keras 3's semantics, TF's hash functions).

Token lookup runs on the host (a dict over NumPy arrays): eagerly it is called directly, inside ``tf.function`` /
``tf.data`` maps it is a ``numpy_function`` node (those graphs run on the NumPy executor). The output encodings
(one-hot, multi-hot, counts, tf-idf) are ordinary tensorlet ops. Vocabularies go into ``get_config`` (so ``.keras``
files carry them and Keras reads them back), and ``idf_weights`` too.

>>> StringLookup(vocabulary=["a", "b"])(tf.constant(["b", "z"])).numpy().tolist()
[2, 0]
"""

from __future__ import annotations

import collections
import itertools

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor
from tensorlet._src.graph.py_func import numpy_function
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.ops._dtypes import cast
from tensorlet._src.keras.ops.nn import multi_hot as _multi_hot, one_hot as _one_hot
from tensorlet._src.keras.ops.numpy_reduce import bincount as _bincount
from tensorlet._src.ops import array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.strings_ops import as_string
from tensorlet._src.ops.strings_split import _farmhash, to_hash_bucket_fast, to_hash_bucket_strong


_OWN_DTYPES = (np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.int32))


def host_map(fn, x, dtype, shape=None):
    """``fn`` (NumPy array -> NumPy array) applied to tensor ``x``: directly when eager, as a ``numpy_function``
    node when traced (its static shape set from ``shape``, a function of the input's static shape)."""
    if isinstance(x, EagerTensor):
        a = np.asarray(fn(x.numpy()))  # x.numpy() is a copy, so ``a`` aliases no tensor
        if a.dtype in _OWN_DTYPES:  # a fresh array of a tensor dtype: wrapped as it is, not copied again
            return _wrap(a)
        return convert_to_tensor(a)
    y = numpy_function(lambda a: np.asarray(fn(a)), [x], dtype)
    if shape is not None:
        s = shape(tuple(x.shape)) if x.shape.rank is not None else None
        if s is not None:  # the graph value's static shape, as TF code does with set_shape
            y.set_shape(list(s))
    return y


def _to_tensor(x, string=False):
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "__tf_tensor__"):
        return convert_to_tensor(x)
    a = np.asarray(x)
    if a.dtype.kind in "USO":
        a = np.vectorize(lambda v: v if isinstance(v, bytes) else str(v).encode("utf-8"), otypes=[object])(a) \
            if a.size else a.astype(object)
        return convert_to_tensor(a)
    return convert_to_tensor(a)


def _batches(data):
    """The adapt data as NumPy arrays, batch by batch (arrays, tensors, lists, datasets, iterables)."""
    if isinstance(data, (list, tuple)) and data and set(map(type, data)) <= {str, bytes}:
        out = np.empty(len(data), object)  # a flat list of strings: encoded as they are (no fixed-width array)
        out[:] = [v.encode("utf-8") if type(v) is str else v for v in data]
        yield out
        return
    if isinstance(data, (np.ndarray, list, tuple)):
        a = np.asarray(data)
        if a.dtype.kind in "US":  # straight to bytes objects, without a tensor round trip
            out = np.empty(a.shape, object)
            out.reshape(-1)[:] = list(map(str.encode, a.reshape(-1).tolist())) if a.dtype.kind == "U" else \
                a.reshape(-1).tolist()
            yield out
            return
    if isinstance(data, (np.ndarray, Tensor, list, tuple)) or hasattr(data, "__tf_tensor__"):
        t = _to_tensor(data)
        yield np.asarray(t.numpy())
        return
    for batch in data:
        if isinstance(batch, tuple):
            batch = batch[0]
        yield np.asarray(_to_tensor(batch).numpy())


def by_frequency(counts, limit=None):
    """The keys of ``counts`` (a Counter) by descending count, ties by descending token (Keras's vocabulary order),
    the first ``limit`` of them.  Sorted without a tuple per token: an adapt on a large vocabulary then allocates
    few GC-tracked objects (so it does not set off full garbage collections)."""
    toks = sorted(counts, reverse=True)
    freq = np.fromiter(map(counts.__getitem__, toks), np.int64, len(toks))
    order = np.argsort(-freq, kind="stable")[:limit]
    return list(map(toks.__getitem__, order.tolist()))


def encode_categorical(indices, output_mode, depth, dtype, count_weights=None):
    """Keras's categorical encodings of integer ``indices`` (rank <= 2 for the non-int modes)."""
    if output_mode == "int":
        return cast(indices, dtype)
    rank = indices.shape.rank
    if rank == 0:
        indices = array_shape.expand_dims(indices, -1)
        rank = 1
    if rank > 2:
        raise ValueError("When output_mode is not `'int'`, maximum supported output rank is 2. "
                         f"Received output_mode {output_mode} and input shape {indices.shape}, which would result "
                         f"in output rank {rank}.")
    if output_mode == "multi_hot":
        return _multi_hot(indices, depth, dtype=dtype)
    if output_mode == "one_hot":
        if rank > 1 and indices.shape[-1] == 1:
            indices = array_shape.squeeze(indices, axis=[-1])
        return _one_hot(indices, depth, dtype=dtype)
    if output_mode in ("count", "tf_idf"):
        counts = cast(_bincount(indices, minlength=depth), dtype)
        if output_mode == "tf_idf":
            counts = mb.multiply(counts, cast(count_weights, dtype))
        return counts
    raise ValueError(f"Unknown output_mode: {output_mode}")


def _unset_idf(layer, depth):
    """Placeholder idf weights while a model is being built symbolically (before the vocabulary is set, e.g.
    while loading a file); Keras's error on a real call."""
    from tensorlet._src.keras.engine.call_context import in_symbolic_build

    if in_symbolic_build():
        return convert_to_tensor(np.ones(depth, np.float32))
    raise RuntimeError("When using `output_mode=tf_idf` and `pad_to_max_tokens=False`, you must set the layer's "
                       "vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or call "
                       "`adapt` with some sample data.")


def sparse_output(y, sparse):
    """``y`` as a ``tf.SparseTensor`` of its non-zero entries when ``sparse`` (Keras's ``sparse=True`` outputs:
    indices in row-major order, values of ``y``'s dtype), else ``y``."""
    if not sparse:
        return y
    from tensorlet._src.io.sparse import from_dense

    return from_dense(y)


_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class IndexLookup(Layer):
    """Shared machinery of ``StringLookup`` and ``IntegerLookup``."""

    _string = True

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, **kwargs):
        kwargs.pop("vocabulary_size", None)
        kwargs.pop("has_input_vocabulary", None)
        super().__init__(**kwargs)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in _MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {list(_MODES)}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, `'count'` or "
                             f"`'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode}")
        if output_mode == "tf_idf" and idf_weights is None and vocabulary is not None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"Invalid value for argument `oov_method` of {type(self).__name__}. Expected one of "
                             f"('floormod', 'farmhash'). Received: oov_method={oov_method}")
        if salt is not None:
            if not self._string and oov_method != "farmhash":
                raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. Received: "
                                 f"oov_method={oov_method}")
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = [int(s) for s in salt]
            elif isinstance(salt, int) and not isinstance(salt, bool):
                salt = [salt, salt]
            else:
                raise ValueError("The `salt` argument for `IndexLookup` can only be a tuple of 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
        self.oov_method, self.salt = oov_method, salt
        self._index = {}
        self._pending_idf = None
        self.max_tokens, self.num_oov_indices = max_tokens, num_oov_indices
        self.mask_token, self.oov_token = self._token(mask_token), self._token(oov_token)
        self.vocabulary_dtype = vocabulary_dtype
        self.invert, self.output_mode, self.sparse = invert, output_mode, sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.input_vocabulary, self.input_idf_weights = vocabulary, idf_weights
        self._tokens = []
        self._idf = None
        self._has_input_vocabulary = vocabulary is not None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.supports_masking = False
        self.built = True

    # --- tokens ---------------------------------------------------------------------------------------------------
    def _token(self, t):
        if t is None:
            return None
        if self._string:
            return t if isinstance(t, bytes) else str(t).encode("utf-8")
        return int(t)

    def _public(self, t):
        return t.decode("utf-8") if isinstance(t, bytes) else t

    def _token_start(self):
        return (1 if self.mask_token is not None and self.output_mode == "int" else 0) + self.num_oov_indices

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (a list, an array, or a text file with one token per line)."""
        if isinstance(vocabulary, str) and self._string or (isinstance(vocabulary, str) and not self._string):
            with open(vocabulary, encoding="utf-8") as f:
                vocab = [line.rstrip("\n") for line in f]
            if not self._string:
                vocab = [int(v) for v in vocab]
        else:
            vocab = np.asarray(_to_tensor(vocabulary).numpy() if isinstance(vocabulary, Tensor) else vocabulary,
                               dtype=object).reshape(-1).tolist()
        vocab = [self._token(v) for v in vocab]
        special = ([self.mask_token] if self.mask_token is not None and self.output_mode == "int" else []) + \
            [self.oov_token] * self.num_oov_indices
        if vocab[:len(special)] == special and special:
            vocab = vocab[len(special):]
        if self.mask_token is not None and self.mask_token in vocab:
            raise ValueError(f"Found reserved mask token at unexpected location in `vocabulary`. Note that passed "
                             f"`vocabulary` does not need to include the OOV and mask tokens. Either remove all "
                             f"mask and OOV tokens, or include them only at the start of the vocabulary in precisely "
                             f"this order: {[self._public(t) for t in special]}. Received: "
                             f"mask_token={self._public(self.mask_token)} at vocabulary index "
                             f"{vocab.index(self.mask_token)}")
        if self.num_oov_indices and self.oov_token in vocab:
            raise ValueError("Found reserved OOV token at unexpected location in `vocabulary`. Note that passed "
                             "`vocabulary` does not need to include the OOV and mask tokens.")
        if len(set(vocab)) != len(vocab):
            repeated = [self._public(t) for t, c in collections.Counter(vocab).items() if c > 1]
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             f"The repeated terms are: {repeated}")
        if self.max_tokens is not None and len(vocab) + self._token_start() > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary "
                             f"size is {len(vocab) + self._token_start()}; `max_tokens` is {self.max_tokens}.")
        self._tokens = vocab
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'")
            w = np.asarray(idf_weights, dtype=np.float32).reshape(-1)
            if len(w) == len(vocab):
                w = np.concatenate([np.full(self._token_start(), w.mean() if len(w) else 0.0, np.float32), w])
            self._idf = w
        self._index = dict(zip(vocab, range(self._token_start(), self._token_start() + len(vocab))))

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary (mask and OOV tokens first unless ``include_special_tokens`` is False)."""
        vocab = [self._public(t) for t in self._tokens]
        if not include_special_tokens:
            return vocab
        special = ([self.mask_token] if self.mask_token is not None and self.output_mode == "int" else []) + \
            [self.oov_token] * self.num_oov_indices
        return [self._public(t) for t in special] + vocab

    def vocabulary_size(self):
        """``len(get_vocabulary())`` (or ``max_tokens`` when padding to it)."""
        return len(self._tokens) + self._token_start()

    # --- adapt ----------------------------------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary from ``data``: tokens by descending frequency (ties: larger token first)."""
        counts = collections.Counter()
        docs = collections.Counter()
        ndocs = 0
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            flat = [self._token(v) for v in batch.reshape(-1)]
            counts.update(flat)
            if self.output_mode == "tf_idf":
                rows = batch.reshape(batch.shape[0], -1) if batch.ndim > 1 else batch.reshape(-1, 1)
                ndocs += rows.shape[0] if batch.ndim > 1 else 1
                if batch.ndim <= 1:
                    docs.update(set(flat))
                else:
                    for row in rows:
                        docs.update({self._token(v) for v in row})
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        self._tokens = by_frequency(counts, max(self.max_tokens - self._token_start(), 0) if self.max_tokens else None)
        self._index = dict(zip(self._tokens, range(self._token_start(), self._token_start() + len(self._tokens))))
        if self.output_mode == "tf_idf":
            dc = np.array([docs[t] for t in self._tokens], np.float64)
            idf = np.log(1.0 + ndocs / (1.0 + dc)).astype(np.float32)
            idf = np.concatenate([np.full(self._token_start(), idf.mean() if len(idf) else 0.0, np.float32), idf])
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - len(idf)))
            self._idf = idf
        self._has_input_vocabulary = False

    # --- call -----------------------------------------------------------------------------------------------------
    def lookup_list(self, toks):
        """Indices (a list) of a list of tokens (bytes for strings, ints)."""
        oov_start, fast = self._table()
        default = oov_start if self.num_oov_indices == 1 else None
        out = list(map(fast.get, toks, itertools.repeat(default)))
        if default is None and None in out:
            for i, j in enumerate(out):
                if j is None:
                    out[i] = self._oov_index(toks[i], oov_start)
        return out

    def _table(self):
        """(the first OOV index, the token -> index dict with the mask token at 0)."""
        oov_start = 1 if self.mask_token is not None and self.output_mode == "int" else 0
        fast = self._index
        if self.mask_token is not None:
            cached = getattr(self, "_with_mask", None)
            if cached is None or cached[0] is not fast:
                table = dict(fast)
                table[self.mask_token] = 0
                self._with_mask = cached = (fast, table)
            fast = cached[1]
        return oov_start, fast

    def lookup_array(self, toks):
        """``lookup_list`` as an int64 array."""
        if self.num_oov_indices == 1:  # one C-level pass (the common case)
            oov_start, table = self._table()
            return np.fromiter(map(table.get, toks, itertools.repeat(oov_start)), np.int64, len(toks))
        return np.array(self.lookup_list(toks), np.int64)

    def _oov_index(self, t, oov_start):
        if self.num_oov_indices == 0:
            raise errors.InvalidArgumentError(
                None, None, f"{type(self).__name__}: found an out-of-vocabulary token {self._public(t)!r} and "
                            "num_oov_indices=0")
        if not self._string and self.oov_method != "farmhash":
            return oov_start + int(t) % self.num_oov_indices  # Keras's floormod default for integers
        key = t if self._string else str(int(t)).encode()
        data = convert_to_tensor(np.array([key], dtype=object))
        if self.salt is not None:  # SipHash with the salt, as Keras does
            bucket = to_hash_bucket_strong(data, self.num_oov_indices, list(self.salt))
        else:  # TF's Fingerprint64 bucket
            bucket = to_hash_bucket_fast(data, self.num_oov_indices)
        return oov_start + int(bucket.numpy()[0])

    def _lookup_np(self, a):
        flat = a.reshape(-1).tolist()
        if self._string:
            flat = [v if isinstance(v, bytes) else self._token(v) for v in flat]
        return np.asarray(self.lookup_list(flat), np.int64).reshape(a.shape)

    def _invert_np(self, a):
        vocab = self.get_vocabulary()
        flat = a.reshape(-1)
        default = self.oov_token if self.oov_token is not None else (b"" if self._string else -1)
        toks = []
        for v in flat:
            v = int(v)
            if self.mask_token is not None and v == 0:
                toks.append(self.mask_token)
            elif 0 <= v < len(vocab) and v >= self._token_start():
                toks.append(self._tokens[v - self._token_start()])
            else:
                toks.append(default)
        if self._string:
            return np.array(toks, dtype=object).reshape(a.shape)
        return np.array(toks, dtype=np.int64).reshape(a.shape)

    def _depth(self):
        return self.max_tokens if self.pad_to_max_tokens and self.max_tokens is not None else self.vocabulary_size()

    def call(self, inputs):
        x = _to_tensor(inputs)
        if self.invert:
            return host_map(self._invert_np, x, "string" if self._string else "int64", lambda s: s)
        idx = host_map(self._lookup_np, x, "int64", lambda s: s)
        if self.output_mode == "int":
            return idx
        weights = None if self._idf is None else convert_to_tensor(self._idf[:self._depth()])
        if self.output_mode == "tf_idf" and weights is None:
            weights = _unset_idf(self, self._depth())
        dtype = self.compute_dtype if self.output_mode == "tf_idf" else "int64"  # Keras's lookup output dtypes
        return sparse_output(encode_categorical(idx, self.output_mode, self._depth(), dtype, weights), self.sparse)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self._depth()
        if self.output_mode == "one_hot" and input_shape and input_shape[-1] != 1:
            return tuple(input_shape) + (depth,)
        return tuple(input_shape[:-1]) + (depth,)

    def get_config(self):
        config = super().get_config()
        vocab = self.get_vocabulary(include_special_tokens=False) if self._tokens else None
        config.update({"invert": self.invert, "max_tokens": self.max_tokens,
                       "num_oov_indices": self.num_oov_indices, "oov_token": self._public(self.oov_token),
                       "mask_token": self._public(self.mask_token), "output_mode": self.output_mode,
                       "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                       "vocabulary_dtype": self.vocabulary_dtype, "vocabulary": vocab,
                       "idf_weights": None if self._idf is None else self._idf[self._token_start():].tolist(),
                       "oov_method": self.oov_method, "salt": self.salt})
        return config

    # --- Keras 3 .keras files: idf weights as a variable, the vocabulary as an asset --------------------------------
    def save_own_variables(self, store):
        if self.output_mode == "tf_idf" and self._idf is not None:
            store["idf_weights"] = np.asarray(self._idf[:self.vocabulary_size()], np.float32)

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf" and "idf_weights" in store:
            self._pending_idf = np.asarray(store["idf_weights"], np.float32).reshape(-1)
            if self._tokens:  # the vocabulary came with the config: only the weights are new
                self._idf = self._pending_idf

    def _load_keras_assets(self, files):
        """Keras writes an adapted vocabulary (special tokens first) to ``vocabulary.txt``, one token a line."""
        if self.input_vocabulary is not None or "vocabulary.txt" not in files:
            return
        lines = files["vocabulary.txt"].decode("utf-8").splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        values = lines if self._string else [int(v) for v in lines]
        idf = self._pending_idf if self.output_mode == "tf_idf" else None
        if self.output_mode == "tf_idf" and idf is None:
            raise ValueError(f"{type(self).__name__} '{self.name}': the file has a tf_idf vocabulary but no "
                             "`idf_weights` variable")
        self.set_vocabulary(values, idf)


@tf_export("keras.layers.StringLookup")
class StringLookup(IndexLookup):
    """Maps strings to vocabulary indices (index 0 is the OOV token ``"[UNK]"`` by default).

    >>> StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot")(tf.constant([["a", "c"]])).numpy().tolist()
    [[0, 1, 0, 1]]
    """

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, **kwargs):
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse,
                         vocabulary_dtype="string", name=name, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["encoding"] = self.encoding
        config.pop("vocabulary_dtype", None)
        return config


@tf_export("keras.layers.IntegerLookup")
class IntegerLookup(IndexLookup):
    """Maps integers to vocabulary indices (OOV token ``-1``, index 0 by default).

    >>> IntegerLookup(vocabulary=[12, 36])(tf.constant([36, 7])).numpy().tolist()
    [2, 0]
    """

    _string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, output_mode="int",
                 sparse=False, vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 name=None, **kwargs):
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup only supports vocabulary_dtype='int64'. Received: {vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse, vocabulary_dtype=vocabulary_dtype, name=name,
                         **kwargs)


@tf_export("keras.layers.Hashing")
class Hashing(Layer):
    """Hashes strings (or integers, via their decimal text) into ``num_bins`` buckets with TF's FarmHash
    Fingerprint64 (or SipHash with ``salt``), so buckets equal TF's.

    >>> Hashing(num_bins=3)(tf.constant([["A"], ["B"]])).shape
    TensorShape([2, 1])
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             f"num_bins={num_bins}.")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot', "
                             f"'multi_hot', 'count'}}. Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError('`sparse` may only be true if `output_mode` is `"one_hot"`, `"multi_hot"`, or `"count"`. '
                             f"Received: sparse={sparse} and output_mode={output_mode}")
        if isinstance(salt, (tuple, list)):
            if len(salt) != 2:
                raise ValueError(f"`salt` must be an integer or a tuple of two integers. Received: salt={salt}")
            self.strong_hash, self.salt = True, [int(salt[0]), int(salt[1])]
        elif isinstance(salt, int):
            self.strong_hash, self.salt = True, [salt, salt]
        elif salt is None:
            self.strong_hash, self.salt = False, None
        else:
            raise ValueError(f"`salt` can only be a tuple of size 2 integers, or a single integer. Received: "
                             f"salt={salt}.")
        self.num_bins, self.mask_value, self.output_mode, self.sparse = num_bins, mask_value, output_mode, sparse
        self.built = True

    def _buckets(self, x, n):
        if self.strong_hash:
            return to_hash_bucket_strong(x, n, self.salt)
        return to_hash_bucket_fast(x, n)

    def call(self, inputs):
        x = _to_tensor(inputs)
        if x.dtype.is_floating:
            raise ValueError("Hashing supports string and integer inputs")
        strs = x if x.dtype.name == "string" else as_string(x)
        if self.mask_value is None:
            idx = self._buckets(strs, self.num_bins)
        else:
            mask = mb.equal(x, convert_to_tensor(self.mask_value, x.dtype.name))
            shifted = mb.add(self._buckets(strs, self.num_bins - 1), 1)
            idx = where(mask, mb.multiply(shifted, 0), shifted)
        y = encode_categorical(idx, self.output_mode, self.num_bins, "int64" if self.output_mode == "int"
                               else self.compute_dtype)
        return sparse_output(y, self.sparse)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        if self.output_mode == "one_hot" and input_shape and input_shape[-1] != 1:
            return tuple(input_shape) + (self.num_bins,)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                       "output_mode": self.output_mode, "sparse": self.sparse})
        return config


@tf_export("keras.layers.Discretization")
class Discretization(Layer):
    """Buckets continuous values by ``bin_boundaries`` (bucket ``i`` holds ``[b[i-1], b[i])``), or by
    ``num_bins`` quantile boundaries learned with ``adapt``.

    >>> Discretization(bin_boundaries=[0.0, 1.0])(tf.constant([-0.5, 0.5, 1.5])).numpy().tolist()
    [0, 1, 2]
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, name=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot', "
                             f"'multi_hot', 'count'}}. Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse=True` may only be used if `output_mode` is `'one_hot'`, `'multi_hot'`, or "
                             f"`'count'`. Received: sparse={sparse} and output_mode={output_mode}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            if len(bin_boundaries) != num_bins - 1:
                raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. Received: "
                                 f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        self.built = True

    def adapt(self, data, batch_size=None, steps=None):
        """Learns ``num_bins - 1`` boundaries at the data's evenly spaced quantiles."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, "
                             "use `num_bins` instead.")
        vals = np.concatenate([np.asarray(b, np.float64).reshape(-1) for b in _batches(data)])
        qs = np.linspace(0, 1, self.num_bins + 1)[1:-1]
        self.bin_boundaries = np.quantile(vals, qs, method="inverted_cdf").tolist() if len(vals) else []

    def call(self, inputs):
        from tensorlet._src.ops.scan_sort import searchsorted

        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or call "
                             "`adapt(dataset)` before you can start using the `Discretization` layer.")
        x = _to_tensor(inputs)
        xf = cast(x, "float64")
        flat = array_shape.reshape(xf, [-1])
        b = convert_to_tensor(np.asarray(self.bin_boundaries, np.float64))
        idx = array_shape.reshape(searchsorted(b, flat, side="right", out_type="int32"), _shape_of(x))
        depth = len(self.bin_boundaries) + 1
        y = encode_categorical(idx, self.output_mode, depth, "int32" if self.output_mode == "int"
                               else self.compute_dtype)
        return sparse_output(y, self.sparse)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        return tuple(input_shape[:-1]) + (depth,)

    def get_config(self):
        config = super().get_config()
        config.update({"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins, "epsilon": self.epsilon,
                       "output_mode": self.output_mode, "sparse": self.sparse})
        return config


def _shape_of(x):
    from tensorlet._src.ops.array_shape import shape

    return shape(x)


_M64 = 0xFFFFFFFFFFFFFFFF
_CROSS_KEY = 0xDECAFCAFFE  # TF's SparseCrossHashed starting key
_CAT_MUL = 0xC6A4A7935BD1E995


def _mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1, fp2):
    """TF's ``FingerprintCat64``: combines two 64-bit fingerprints (what ``tf.sparse.cross_hashed`` chains)."""
    r = fp1 ^ _CAT_MUL
    r ^= (_mix((fp2 * _CAT_MUL) & _M64) * _CAT_MUL) & _M64
    r = (r * _CAT_MUL) & _M64
    r = (_mix(r) * _CAT_MUL) & _M64
    return _mix(r)


def _cross_np(num_bins, *arrays):
    farmhash = _farmhash()
    flat = [a.reshape(-1).tolist() for a in arrays]
    out = np.empty(len(flat[0]), np.int64)
    for i, values in enumerate(zip(*flat)):
        h = _CROSS_KEY
        for v in values:
            h = fingerprint_cat64(h, farmhash.fingerprint64(v) if isinstance(v, bytes) else int(v) & _M64)
        out[i] = h % num_bins
    return out.reshape(arrays[0].shape)


@tf_export("keras.layers.HashedCrossing")
class HashedCrossing(Layer):
    """Crosses categorical features into ``num_bins`` buckets exactly as ``tf.sparse.cross_hashed`` does
    (FarmHash fingerprints of strings, integer values as they are, chained with ``FingerprintCat64``).

    >>> HashedCrossing(num_bins=5)((tf.constant(["A", "B", "A"]), tf.constant([1, 2, 3]))).numpy().tolist()
    [0, 1, 1]
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None, **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype, **kwargs)
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {{'int', 'one_hot'}}. "
                             f"Received: output_mode={output_mode}")
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, sparse

    def call(self, inputs):
        if not isinstance(inputs, (tuple, list)) or len(inputs) < 2:
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of at least two inputs. "
                             f"Received: inputs={inputs}")
        xs = [_to_tensor(x) for x in inputs]
        shapes = {tuple(x.shape) for x in xs}
        if len(shapes) > 1:
            raise ValueError(f"All `HashedCrossing` inputs should have the same shape. Received: inputs={inputs}")
        for x in xs:
            if x.dtype.is_floating:
                raise ValueError(f"Non-string and non-int inputs are not supported in HashedCrossing. "
                                 f"Received: {x.dtype.name}")
        fn = lambda *arrays: _cross_np(self.num_bins, *arrays)  # noqa: E731
        if all(isinstance(x, EagerTensor) for x in xs):
            idx = convert_to_tensor(fn(*[x.numpy() for x in xs]))
        else:
            idx = numpy_function(fn, xs, "int64")
            if xs[0].shape.rank is not None:
                idx.set_shape(list(xs[0].shape))
        y = encode_categorical(idx, self.output_mode, self.num_bins, "int64" if self.output_mode == "int"
                               else self.compute_dtype)
        return sparse_output(y, self.sparse)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape[0])
        return shape if self.output_mode == "int" else shape + (self.num_bins,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": self.sparse})
        return config
