"""A ``tf.data.Dataset`` as batches (its elements are the batches)."""

from __future__ import annotations

from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import standardize_batch


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
            yield standardize_batch(data, self.class_weight)

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass
