"""``keras.utils.set_random_seed``: one call seeds Python's ``random``, NumPy and tensorlet's global seed."""

from __future__ import annotations

import random

import numpy as np

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.random_gen import set_seed

_STATE = {"seed": None}


@tf_export("keras.utils.set_random_seed")
def set_random_seed(seed):
    """Seeds ``random``, ``np.random`` and ``tf.random.set_seed`` so that a program runs reproducibly.

    >>> tf.keras.utils.set_random_seed(42)
    """
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    _STATE["seed"] = seed
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)
    for hook in list(_SEED_HOOKS):  # e.g. Keras's global SeedGenerator, reset as Keras does
        hook(seed)


_SEED_HOOKS = []


def get_random_seed():
    """The seed last given to ``set_random_seed`` (None if it was never called)."""
    return _STATE["seed"]
