"""``keras.utils.PyDataset`` (``Sequence``): a Python object giving batch ``i`` for ``dataset[i]``."""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import convert_structure, standardize_batch
from tensorlet._src.ops.registry import tf_export


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
                yield standardize_batch(convert_structure(data), self.class_weight)
                i += 1
        order = np.random.permutation(self.num_batches) if self.shuffle else range(self.num_batches)
        for i in order:
            yield standardize_batch(convert_structure(self.dataset[int(i)]), self.class_weight)

    def on_epoch_begin(self):
        if hasattr(self.dataset, "on_epoch_begin"):
            self.dataset.on_epoch_begin()

    def on_epoch_end(self):
        if hasattr(self.dataset, "on_epoch_end"):
            self.dataset.on_epoch_end()
