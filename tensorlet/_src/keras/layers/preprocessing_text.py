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
import re

import numpy as np

from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.preprocessing_lookup import (StringLookup, _batches, _to_tensor, _unset_idf,
                                                              host_map, sparse_output)
from tensorlet._src.keras.ops._dtypes import cast
from tensorlet._src.ops.registry import tf_export

_PUNCT = re.compile(rb'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
_ASCII_SPACE = b" \t\n\r\x0b\x0c"
# the regex's class is ASCII-only, so deleting these bytes equals the substitution (UTF-8 multi-byte sequences
# never contain ASCII bytes)
_IS_SPACE = np.isin(np.arange(256), list(_ASCII_SPACE))
_PUNCT_BYTES = bytes(c for c in range(128) if _PUNCT.fullmatch(bytes([c])))
_IS_PUNCT = np.isin(np.arange(256), list(_PUNCT_BYTES))
_LOWER = bytes(range(65)) + bytes(range(97, 123)) + bytes(range(91, 256))  # bytes.lower as a translate table


def _char_split(b: bytes):
    return [c.encode("utf-8") for c in b.decode("utf-8", errors="replace")]


def _split_rows(rows, standardize):
    """Built-in standardize + whitespace split of byte strings, all rows at once: the rows joined by newlines, one
    ``translate`` (ASCII lower-casing, punctuation deleted) and one ``split``; each token's row from where it
    starts.  Returns (tokens, row of each token, number of rows)."""
    raw = b"\n".join(rows)
    lower = standardize in ("lower", "lower_and_strip_punctuation")
    strip = standardize in ("strip_punctuation", "lower_and_strip_punctuation")
    joined = raw.translate(_LOWER if lower else None, _PUNCT_BYTES if strip else b"")
    lens = np.fromiter(map(len, rows), np.int64, len(rows))
    if strip:  # each row loses its punctuation bytes
        gone = np.flatnonzero(_IS_PUNCT[np.frombuffer(raw, np.uint8)])
        lens -= np.bincount(np.searchsorted(np.cumsum(lens + 1), gone, side="right"), minlength=len(rows))
    word = ~_IS_SPACE[np.frombuffer(joined, np.uint8)]
    starts = np.flatnonzero(word & ~np.concatenate([[False], word[:-1]]))
    return joined.split(), np.searchsorted(np.cumsum(lens + 1), starts, side="right"), len(rows)


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
            return [b.translate(None, _PUNCT_BYTES) for b in strings]
        return [b.lower().translate(None, _PUNCT_BYTES) for b in strings]

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

    def _flat_tokens(self, a):
        """(every token of every row in order, the row of each token, the number of rows, scalar input?)."""
        a = np.asarray(a, dtype=object)
        if a.ndim == 2 and a.shape[-1] == 1:
            a = a[:, 0]
        scalar = a.ndim == 0
        flat = a.reshape(-1).tolist()
        if set(map(type, flat)) - {bytes}:
            flat = [v if isinstance(v, bytes) else v.encode("utf-8") if isinstance(v, str) else str(v).encode("utf-8")
                    for v in flat]
        s = self._standardize
        if self._split == "whitespace" and not self._ngrams and not callable(s):
            return (*_split_rows(flat, s), scalar)
        std = self._standardize_np(flat)
        lists = [self._tokens(b) for b in std]
        rows = np.repeat(np.arange(len(lists)), [len(t) for t in lists])
        return list(itertools.chain.from_iterable(lists)), rows, len(lists), scalar

    # --- vocabulary ----------------------------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary (and IDF weights in ``tf_idf`` mode) from text ``data``."""
        look = self._lookup_layer
        counts, docs, ndocs = collections.Counter(), collections.Counter(), 0
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            toks, rows, nrows, _ = self._flat_tokens(batch)
            counts.update(toks)
            if self._output_mode == "tf_idf":
                docs.update(t for _, t in set(zip(rows.tolist(), toks)))
            ndocs += nrows
        counts.pop(b"", None)
        counts.pop(look.oov_token, None)
        items = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self._max_tokens:
            items = items[:max(self._max_tokens - look._token_start(), 0)]
        look._tokens = [t for t, _ in items]
        look._index = {t: i + look._token_start() for i, t in enumerate(look._tokens)}
        if self._output_mode == "tf_idf":
            dc = np.array([docs[t] for t, _ in items], np.float64)
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
        """(tokens per row, row of each token, column of each token, vocabulary index of each token, scalar?)."""
        toks, rows, nrows, scalar = self._flat_tokens(a)
        ids = self._lookup_layer.lookup_array(toks)
        lens = np.bincount(rows, minlength=nrows)
        cols = np.arange(len(ids)) - (np.cumsum(lens) - lens)[rows]
        return lens, rows, cols, ids, scalar

    def _int_np(self, a):
        lens, rows, cols, ids, scalar = self._flat_ids(a)
        n = self._output_sequence_length
        width = n if n is not None else int(lens.max()) if len(lens) else 0
        out = np.zeros((len(lens), width), np.int64)
        keep = cols < width
        out[rows[keep], cols[keep]] = ids[keep]
        return out[0] if scalar else out

    def _vec_np(self, a):
        lens, rows, _, ids, scalar = self._flat_ids(a)
        look = self._lookup_layer
        depth = look._depth()
        out = np.zeros((len(lens), depth), np.float32)
        keep = ids < depth
        np.add.at(out, (rows[keep], ids[keep]), 1.0)
        if self._output_mode == "multi_hot":
            out = np.minimum(out, 1.0)
        elif self._output_mode == "tf_idf":
            idf = look._idf if look._idf is not None else np.asarray(_unset_idf(look, depth).numpy())
            out = out * idf[:depth][None, :]
        return out[0] if scalar else out

    def _ragged_np(self, a):
        """(token ids of every row, concatenated; row lengths)."""
        lens, _, _, ids, _ = self._flat_ids(a)
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
        y = host_map(self._vec_np, x, "float32", lambda s: (s[0], depth) if s else None)
        dtype = self.compute_dtype if self._output_mode == "tf_idf" else "int64"  # as Keras's lookup outputs
        y = cast(y, dtype) if dtype != "float32" else y
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


