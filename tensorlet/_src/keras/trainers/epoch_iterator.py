"""``EpochIterator``: ``(step, batch)`` pairs per epoch over a data adapter, honouring ``steps_per_epoch`` (the data
iterator then carries over between epochs) and warning when the input runs out."""

from __future__ import annotations

import warnings

from tensorlet._src.distribute.input_lib import DistributedDataset
from tensorlet._src.keras.trainers.data_adapters import get_data_adapter


class EpochIterator:
    """Yields ``(step, batch)`` per epoch; with ``steps_per_epoch`` the data iterator carries over between epochs."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                 class_weight=None):
        if isinstance(x, DistributedDataset):  # global batches: the strategy's step splits each over the replicas
            x = x._dataset
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

    def enumerate_groups(self, n, whole_groups=True):
        """``(begin_step, end_step, batches)`` per execution of ``n`` steps (``steps_per_execution``), as Keras 3:
        ``end_step`` is ``begin_step + n - 1`` even for the shorter last group of an epoch, and with
        ``steps_per_epoch`` every epoch runs whole groups (``steps_per_epoch=3``, ``n=4``: 4 steps an epoch)
        unless ``whole_groups`` is false."""
        group, begin = [], 0
        for step, data in self.enumerate_epoch(round_to=n if whole_groups else 1):
            if not group:
                begin = step
            group.append(data)
            if len(group) == n:
                yield begin, begin + n - 1, group
                group = []
        if group:
            yield begin, begin + n - 1, group

    def enumerate_epoch(self, round_to=1):
        self.adapter.on_epoch_begin()
        steps = self.steps_per_epoch or self._num_batches or -1
        if self.steps_per_epoch and round_to > 1:
            steps = -(-steps // round_to) * round_to
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
