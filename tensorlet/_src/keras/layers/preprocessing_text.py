"""``TextVectorization``: standardize, split, n-grams and a ``StringLookup`` vocabulary, as Keras 3 does it.

Text work runs on the host over UTF-8 bytes (eagerly directly, as a ``numpy_function`` node inside
``tf.function`` / ``tf.data`` maps). TF's choices are kept where they show: ``lower`` is ASCII-only (TF's
``strings.lower`` without an encoding), ``whitespace`` splits on ASCII whitespace, punctuation is Keras's
``DEFAULT_STRIP_REGEX``, vocabulary ties sort by the token, descending, and int outputs pad with 0.

>>> tv = TextVectorization(vocabulary=["the", "cat"])
>>> tv(tf.constant(["The cat sat."])).numpy().tolist()
[[2, 3, 1]]
"""

from __future__ import annotations

import collections
import itertools

import numpy as np

from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.preprocessing_lookup import (StringLookup, _batches, _to_tensor, _unset_idf,
                                                              by_frequency, host_map, sparse_output)
from tensorlet._src.keras.layers import preprocessing_text_kernels as kernels
from tensorlet._src.keras.ops._dtypes import cast
from tensorlet._src.ops.registry import tf_export


def _char_split(b: bytes):
    return [c.encode("utf-8") for c in b.decode("utf-8", errors="replace")]


@tf_export("keras.layers.TextVectorization")
class TextVectorization(Layer):
    """Turns strings into token indices (``int``), or ``multi_hot`` / ``count`` / ``tf_idf`` vectors.

    ``standardize``: ``"lower_and_strip_punctuation"`` (default), ``"lower"``, ``"strip_punctuation"``, None or a
    callable (tensor -> tensor); ``split``: ``"whitespace"``, ``"character"``, None or a callable; ``ngrams``: an
    int n (1..n-grams) or a tuple of widths; ``output_sequence_length`` pads/truncates int outputs.
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'int', 'multi_hot', "
                             f"'count', 'tf_idf'}}. Received: output_mode={output_mode}")
        if standardize not in (None, "lower_and_strip_punctuation", "lower", "strip_punctuation") and \
                not callable(standardize):
            raise ValueError(f"Invalid value for argument `standardize`. Received: standardize={standardize}")
        if split not in (None, "whitespace", "character") and not callable(split):
            raise ValueError(f"Invalid value for argument `split`. Received: split={split}")
        if ngrams is not None and not (isinstance(ngrams, int) or (isinstance(ngrams, (tuple, list)) and
                                                                   all(isinstance(n, int) for n in ngrams))):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                             f"Received output_sequence_length={output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} and "
                             f"output_mode={output_mode}")
        self._standardize, self._split = standardize, split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else \
            (tuple(ngrams) if ngrams is not None else None)
        self._output_mode, self._output_sequence_length = output_mode, output_sequence_length
        self._max_tokens, self._pad_to_max_tokens = max_tokens, pad_to_max_tokens
        self._ragged, self._sparse, self._encoding = ragged, sparse, encoding
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
                                          sparse=sparse, encoding=encoding, name=f"{self.name}_lookup")
        self._key_table = None  # the vocabulary as a kernels.KeyTable, built on the first call
        self.supports_masking = False
        self.built = True

    # --- text -> tokens -------------------------------------------------------------------------------------------
    def _standardize_np(self, strings):
        s = self._standardize
        if s is None:
            return strings
        if callable(s):
            return np.asarray(s(convert_to_tensor(strings)).numpy(), dtype=object)
        if s == "lower":  # ASCII only, as tf.strings.lower without an encoding
            return [b.lower() for b in strings]
        if s == "strip_punctuation":
            return [b.translate(None, kernels.PUNCT_BYTES) for b in strings]
        return [b.lower().translate(None, kernels.PUNCT_BYTES) for b in strings]

    def _tokens(self, b):
        sp = self._split
        if sp is None:
            toks = [b]
        elif sp == "whitespace":
            toks = b.split()
        elif sp == "character":
            toks = _char_split(b)
        else:
            toks = [t if isinstance(t, bytes) else str(t).encode() for t in
                    np.asarray(sp(convert_to_tensor(np.array([b], dtype=object))).numpy(), dtype=object)
                    .reshape(-1)]
        if self._ngrams:
            grams = []
            for n in self._ngrams:
                grams += [b" ".join(toks[i:i + n]) for i in range(len(toks) - n + 1)]
            toks = grams
        return toks

    def _rows(self, a):
        """(the rows as a list of bytes, scalar input?)."""
        a = np.asarray(a, dtype=object)
        if a.ndim == 2 and a.shape[-1] == 1:
            a = a[:, 0]
        flat = a.reshape(-1).tolist()
        if set(map(type, flat)) - {bytes}:
            flat = [v if isinstance(v, bytes) else v.encode("utf-8") if isinstance(v, str) else str(v).encode("utf-8")
                    for v in flat]
        return flat, a.ndim == 0

    def _builtin(self):
        """Built-in standardize and whitespace split, no n-grams: the all-rows-at-once kernels apply."""
        return self._split == "whitespace" and not self._ngrams and not callable(self._standardize)

    def _flat_tokens(self, a, lengths=True):
        """(every token of every row in order, tokens per row (int64; None when ``lengths`` is false), scalar
        input?)."""
        flat, scalar = self._rows(a)
        if self._builtin():
            return (*kernels.split_rows(flat, self._standardize, lengths), scalar)
        std = self._standardize_np(flat)
        lists = [self._tokens(b) for b in std]
        lens = np.fromiter(map(len, lists), np.int64, len(lists))
        return list(itertools.chain.from_iterable(lists)), lens, scalar

    # --- vocabulary ----------------------------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary (and IDF weights in ``tf_idf`` mode) from text ``data``."""
        look = self._lookup_layer
        counts, docs, ndocs = collections.Counter(), collections.Counter(), 0
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            tf_idf = self._output_mode == "tf_idf"
            if self._builtin() and not tf_idf:  # counted over the joined bytes, without a token list
                kernels.count_tokens(kernels.standardize_join(self._rows(batch)[0], self._standardize)[1], counts)
                continue
            toks, lens, _ = self._flat_tokens(batch, lengths=tf_idf)
            counts.update(toks)
            if tf_idf:
                rows = np.repeat(np.arange(len(lens)), lens)
                docs.update(t for _, t in set(zip(rows.tolist(), toks)))
                ndocs += len(lens)
        counts.pop(b"", None)
        counts.pop(look.oov_token, None)
        start = look._token_start()
        look._tokens = by_frequency(counts, max(self._max_tokens - start, 0) if self._max_tokens else None)
        look._index = dict(zip(look._tokens, range(start, start + len(look._tokens))))
        if self._output_mode == "tf_idf":
            dc = np.array([docs[t] for t in look._tokens], np.float64)
            idf = np.log(1.0 + ndocs / (1.0 + dc)).astype(np.float32)
            idf = np.concatenate([np.full(look._token_start(), idf.mean() if len(idf) else 0.0, np.float32), idf])
            if self._pad_to_max_tokens and self._max_tokens is not None:
                idf = np.pad(idf, (0, self._max_tokens - len(idf)))
            look._idf = idf

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (list or file path) and, in ``tf_idf`` mode, the IDF weights."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def get_vocabulary(self, include_special_tokens=True):
        """``["", "[UNK]", ...]`` in int mode (the padding and OOV tokens first)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    # --- call -----------------------------------------------------------------------------------------------------
    def _flat_ids(self, a):
        """(tokens per row, vocabulary index of each token, scalar?)."""
        look = self._lookup_layer
        if self._builtin() and look.num_oov_indices == 1:  # looked up by span, without a token list
            oov, table = look._table()
            keys = self._key_table
            if keys is None or keys.source is not table:
                self._key_table = keys = kernels.KeyTable(table)
            flat, scalar = self._rows(a)
            raw, joined = kernels.standardize_join(flat, self._standardize)
            starts, ends = kernels.token_spans(joined)
            lens = kernels.row_lengths(flat, raw, joined, self._standardize, starts)
            return lens, keys.lookup(joined, starts, ends, oov), scalar
        toks, lens, scalar = self._flat_tokens(a)
        return lens, look.lookup_array(toks), scalar

    def _int_np(self, a):
        lens, ids, scalar = self._flat_ids(a)
        longest = int(lens.max()) if len(lens) else 0
        width = self._output_sequence_length if self._output_sequence_length is not None else longest
        if longest > width:  # truncated: only each row's first `width` tokens
            ids = ids[np.arange(len(ids)) - np.repeat(np.cumsum(lens) - lens, lens) < width]
            lens = np.minimum(lens, width)
        out = np.zeros((len(lens), width), np.int64)
        out[np.arange(width) < lens[:, None]] = ids  # row-major: each row's tokens, left-aligned
        return out[0] if scalar else out

    def _vec_np(self, a):
        """multi_hot / count (int64) or tf_idf (float32) rows, built flat: row * depth + index per token."""
        lens, ids, scalar = self._flat_ids(a)
        look = self._lookup_layer
        depth = look._depth()
        n = len(lens)
        flat = np.repeat(np.arange(n, dtype=np.int64) * depth, lens)
        flat += ids
        if len(ids) and ids.max() >= depth:
            flat = flat[ids < depth]
        if self._output_mode == "multi_hot":
            out = np.zeros(n * depth, np.int64)
            out[flat] = 1
        else:
            out = np.bincount(flat, minlength=n * depth).astype(np.int64, copy=False)
        out = out.reshape(n, depth)
        if self._output_mode == "tf_idf":
            idf = look._idf if look._idf is not None else np.asarray(_unset_idf(look, depth).numpy())
            out = out.astype(np.float32)
            out *= idf[:depth][None, :]
        return out[0] if scalar else out

    def _ragged_np(self, a):
        """(token ids of every row, concatenated; row lengths)."""
        lens, ids, _ = self._flat_ids(a)
        return ids.astype(np.int64), lens.astype(np.int64)

    def _ragged_call(self, x):
        from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor

        if x.shape.rank == 0:
            raise ValueError("TextVectorization(ragged=True) needs a batch of strings (rank 1, or rank 2 with a "
                             f"last dimension of 1). Received an input of shape {x.shape}")
        values = host_map(lambda a: self._ragged_np(a)[0], x, "int64", lambda s: (None,))
        lengths = host_map(lambda a: self._ragged_np(a)[1], x, "int64", lambda s: (s[0],) if s else None)
        return RaggedTensor.from_row_lengths(values, lengths, validate=False)

    def call(self, inputs):
        x = _to_tensor(inputs)
        if self._output_mode == "int":
            if self._ragged:
                return self._ragged_call(x)
            L = self._output_sequence_length
            return host_map(self._int_np, x, "int64", lambda s: (s[0], L) if s else None)
        depth = self._lookup_layer._depth()
        tf_idf = self._output_mode == "tf_idf"  # float32 weights, else int64 (Keras's lookup output dtypes)
        y = host_map(self._vec_np, x, "float32" if tf_idf else "int64", lambda s: (s[0], depth) if s else None)
        if tf_idf and self.compute_dtype != "float32":
            y = cast(y, self.compute_dtype)
        return sparse_output(y, self._sparse)

    def compute_output_shape(self, input_shape):
        batch = input_shape[0] if input_shape else None
        if self._output_mode == "int":
            return (batch, self._output_sequence_length)
        return (batch, self._lookup_layer._depth())

    # Keras 3 .keras files: the lookup layer's idf weights and vocabulary file, under this layer's path too.
    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def _load_keras_assets(self, files):
        self._lookup_layer._load_keras_assets(files)

    def get_config(self):
        config = super().get_config()
        look = self._lookup_layer
        config.update({"max_tokens": self._max_tokens, "standardize": self._standardize, "split": self._split,
                       "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                       "output_sequence_length": self._output_sequence_length,
                       "pad_to_max_tokens": self._pad_to_max_tokens, "sparse": self._sparse,
                       "ragged": self._ragged, "encoding": self._encoding,
                       "vocabulary": look.get_vocabulary(include_special_tokens=False) if look._tokens else None,
                       "idf_weights": None if look._idf is None else look._idf[look._token_start():].tolist(),
                       "vocabulary_size": look.vocabulary_size()})
        if callable(self._standardize) or callable(self._split):
            from tensorlet._src.keras.saving.serialization import serialize_keras_object

            for k in ("standardize", "split"):
                if callable(config[k]):
                    config[k] = serialize_keras_object(config[k])
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("vocabulary_size", None)
        for k in ("standardize", "split"):
            if isinstance(config.get(k), dict):
                from tensorlet._src.keras.saving.serialization import deserialize_keras_object

                config[k] = deserialize_keras_object(config[k])
        return cls(**config)


