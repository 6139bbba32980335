"""A Python generator of batches."""

from __future__ import annotations

from tensorlet._src.keras.trainers.data_adapters.data_adapter_utils import convert_structure, standardize_batch


class GeneratorAdapter:
    def __init__(self, generator, class_weight=None):
        self.generator = generator
        self.class_weight = class_weight
        self.num_batches = None

    def __iter__(self):
        for data in self.generator:
            yield standardize_batch(convert_structure(data), self.class_weight)

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass
