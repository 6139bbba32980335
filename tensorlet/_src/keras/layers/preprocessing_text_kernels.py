"""Host kernels of ``TextVectorization``'s built-in path (built-in standardize, whitespace split): every row of a
batch at once, over one byte buffer (the rows joined by newlines, standardized by one ``bytes.translate``).

Tokens are the maximal runs of bytes that are not ASCII whitespace (what ``bytes.split()`` and TF's whitespace
split cut on). A token of at most 7 bytes has a uint64 *key*: its bytes little-endian with its length in the top
byte, so two tokens share a key only when they are equal. Counting (``adapt``) and vocabulary lookup (``call``) of
those tokens are then NumPy work over integers, with no Python object per token (and no per-token garbage for the
collector); longer tokens go through bytes objects and a dict.

>>> joined = standardize_join([b"The cat", b"sat."], "lower_and_strip_punctuation")[1]
>>> joined[:13], [s.tolist() for s in token_spans(joined)]
(b'\\nthe cat\\nsat\\n', [[1, 5, 9], [4, 8, 12]])
"""

from __future__ import annotations

import itertools
import re

import numpy as np

# Keras's DEFAULT_STRIP_REGEX. Its class is ASCII-only, so deleting these bytes equals the substitution (UTF-8
# multi-byte sequences never contain ASCII bytes).
_PUNCT = re.compile(rb'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
PUNCT_BYTES = bytes(c for c in range(128) if _PUNCT.fullmatch(bytes([c])))
_IS_PUNCT = np.isin(np.arange(256), list(PUNCT_BYTES))
# 1 on the bytes that are not ASCII whitespace, else 0: a bool view of the translated buffer marks token bytes
_WORD_BYTE = bytes(c not in b" \t\n\r\x0b\x0c" for c in range(256))
_LOWER = bytes(range(65)) + bytes(range(97, 123)) + bytes(range(91, 256))  # bytes.lower as a translate table
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)], np.uint64)  # masks of the low k bytes
SHORT = 8  # tokens shorter than this have keys


_TAIL = b"\n" * 7  # the buffer ends in 8 newlines: 8 bytes can be read from any token start


def standardize_join(rows, standardize):
    """(the rows framed by newlines: one before the first, one between each two, 8 after the last; the same
    standardized): ASCII lower-casing and/or punctuation deleted by one ``translate`` for all rows (a newline is
    neither, so the separators stay where they were).  Every token is then preceded and followed by whitespace."""
    raw = b"\n".join([b"", *rows, _TAIL])
    lower = standardize in ("lower", "lower_and_strip_punctuation")
    strip = standardize in ("strip_punctuation", "lower_and_strip_punctuation")
    return raw, raw.translate(_LOWER if lower else None, PUNCT_BYTES if strip else b"")


def token_spans(joined):
    """(start, end) byte offsets (int64 arrays) of the tokens of a framed buffer, in order."""
    word = np.frombuffer(joined.translate(_WORD_BYTE), np.bool_)
    edges = np.flatnonzero(word[1:] != word[:-1])  # token starts and ends alternate (the buffer is framed)
    edges += 1  # (in place: fresh large arrays cost page faults)
    return edges[0::2], edges[1::2]


def row_lengths(rows, raw, joined, standardize, starts):
    """Tokens per row (int64): a row's tokens are those that start before its separator."""
    n = len(rows)
    if n <= 1:
        return np.array([len(starts)] * n, np.int64)
    seps = np.flatnonzero(np.frombuffer(joined, np.uint8) == 10)
    if len(seps) == n + len(_TAIL) + 1:  # no row holds a newline: the separators are the newlines between rows
        seps = seps[1:n]
    else:  # the separators from the row lengths
        lens = np.fromiter(map(len, rows), np.int64, n)
        ends = np.cumsum(lens + 1)  # row i is raw[ends[i - 1] + 1:ends[i]], its separator at ends[i]
        if standardize in ("strip_punctuation", "lower_and_strip_punctuation"):  # rows lose their punctuation
            gone = np.flatnonzero(_IS_PUNCT[np.frombuffer(raw, np.uint8)])
            lens -= np.bincount(np.searchsorted(ends, gone, side="right"), minlength=n)
            ends = np.cumsum(lens + 1)
        seps = ends[:-1]
    return np.diff(np.searchsorted(starts, seps), prepend=0, append=len(starts))


def split_rows(rows, standardize, lengths=True):
    """The tokens (bytes objects) of all rows in order and, when ``lengths``, the tokens per row (else None)."""
    raw, joined = standardize_join(rows, standardize)
    toks = joined.split()
    if not lengths:
        return toks, None
    return toks, row_lengths(rows, raw, joined, standardize, token_spans(joined)[0])


def _keys(joined, starts, lens):
    """The key of each token (``lens`` < 8) of a framed buffer."""
    keys = np.ndarray((len(joined) - 7,), "<u8", joined, 0, (1,))[starts]  # 8 bytes from each start (unaligned)
    keys &= _LOW_BYTES[lens]
    top = lens.astype(np.uint64)
    top <<= np.uint64(56)
    keys |= top
    return keys


def _tokens_of_keys(keys):
    b = keys.astype("<u8").tobytes()
    return [b[8 * i:8 * i + n] for i, n in enumerate((keys >> np.uint64(56)).tolist())]


def _long_tokens(joined, starts, ends):
    return list(map(joined.__getitem__, map(slice, starts.tolist(), ends.tolist())))


def count_tokens(joined, counts):
    """Adds each token's number of occurrences in ``joined`` to ``counts`` (a Counter)."""
    starts, ends = token_spans(joined)
    lens = ends - starts
    short = lens < SHORT
    every = bool(short.all())
    keys = _keys(joined, starts, lens) if every else _keys(joined, starts[short], lens[short])
    uniq, n = np.unique(keys, return_counts=True)
    counts.update(dict(zip(_tokens_of_keys(uniq), n.tolist())))
    if not every:
        counts.update(_long_tokens(joined, starts[~short], ends[~short]))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier


class KeyTable:
    """A token -> index dict for span lookups: the short tokens' keys in an open-addressing hash table (linear
    probing, key 0 marks an empty slot: no token of a span is empty), a dict for the rest. ``source`` is the dict it
    was built from (rebuilt when the vocabulary object changes)."""

    def __init__(self, table):
        self.source = table
        short = [t for t in table if 0 < len(t) < SHORT]
        keys = np.frombuffer(b"".join([t.ljust(8, b"\0") for t in short]), "<u8").astype(np.uint64)
        keys |= np.fromiter(map(len, short), np.uint64, len(short)) << np.uint64(56)  # the length in the top byte
        ids = np.fromiter(map(table.__getitem__, short), np.int64, len(short))
        self.bits = max(4, (2 * len(short)).bit_length())  # at most half full
        self.keys = np.zeros(1 << self.bits, np.uint64)
        self.ids = np.zeros(1 << self.bits, np.int64)
        slot, pending = self._slots(keys), np.arange(len(short))
        while len(pending):  # each round: the first claimant of each free slot takes it, the rest probe on
            free = self.keys[slot] == 0
            taken, first = np.unique(slot[free], return_index=True)
            winners = pending[free][first]
            self.keys[taken], self.ids[taken] = keys[winners], ids[winners]
            left = np.ones(len(pending), bool)
            left[np.flatnonzero(free)[first]] = False
            pending, slot = pending[left], (slot[left] + 1) & ((1 << self.bits) - 1)
        self.long = {t: i for t, i in table.items() if len(t) >= SHORT}

    def _slots(self, keys):
        return ((keys * _GOLDEN) >> np.uint64(64 - self.bits)).astype(np.int64)

    def _lookup_keys(self, keys, default):
        mask = (1 << self.bits) - 1
        slot = self._slots(keys)
        found = self.keys[slot]
        hit = found == keys
        out = np.where(hit, self.ids[slot], default)
        todo = np.flatnonzero(~hit & (found != 0))  # their slot holds another key: probe on
        slot = slot[todo]
        while len(todo):
            slot = (slot + 1) & mask
            found = self.keys[slot]
            hit = found == keys[todo]
            out[todo[hit]] = self.ids[slot[hit]]
            on = ~hit & (found != 0)
            todo, slot = todo[on], slot[on]
        return out

    def lookup(self, joined, starts, ends, default):
        """The index of each token span of ``joined`` (``default`` for tokens not in the table)."""
        lens = ends - starts
        short = lens < SHORT
        if short.all():
            return self._lookup_keys(_keys(joined, starts, lens), default)
        out = np.empty(len(starts), np.int64)
        out[short] = self._lookup_keys(_keys(joined, starts[short], lens[short]), default)
        long = ~short
        toks = _long_tokens(joined, starts[long], ends[long])
        out[long] = np.fromiter(map(self.long.get, toks, itertools.repeat(default)), np.int64, len(toks))
        return out
