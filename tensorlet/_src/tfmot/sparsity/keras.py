"""``tfmot.sparsity.keras``: magnitude pruning of Keras layers (see ``tensorlet._src.tfmot.pruning``)."""

from tensorlet._src.tfmot.pruning import (ConstantSparsity, PolynomialDecay, PruneLowMagnitude, PruningSchedule,
                                          PruningSummaries, UpdatePruningStep, prune_low_magnitude, strip_pruning)

__all__ = ["ConstantSparsity", "PolynomialDecay", "PruneLowMagnitude", "PruningSchedule", "PruningSummaries",
           "UpdatePruningStep", "prune_low_magnitude", "strip_pruning"]
