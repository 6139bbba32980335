"""NumPy arrays and tensors (nested in lists/dicts) sliced into ``batch_size`` batches, shuffled each epoch with
NumPy's global generator (seeded by ``keras.utils.set_random_seed``)."""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import (
    arrays_structure, batch_maker, class_weight_to_sample_weights, to_batch_structure)
from tensorlet._src.util import nest


class ArrayAdapter:
    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
        self.x = arrays_structure(x)
        self.y = arrays_structure(y)
        self.sw = arrays_structure(sample_weight)
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
        self._template = to_batch_structure(self.x, self.y, self.sw)
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
        makers = [None if a is None else batch_maker(a) for a in self._leaves]
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
