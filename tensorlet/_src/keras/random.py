"""``keras.random.SeedGenerator``: a seed state variable for the stateless random ops of layers (Dropout, noise).

Each ``next()`` returns the current ``[seed, counter]`` pair and advances the counter with ``assign``, so random
layers give new values every step, eagerly and inside ``tf.function``.

>>> g = tf.keras.random.SeedGenerator(1)
>>> g.next().numpy().tolist()
[1, 0]
"""

from __future__ import annotations

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops.array_identity import identity


@tf_export("keras.random.SeedGenerator")
class SeedGenerator:
    """Holds a ``[seed, counter]`` int32 state variable (``seed=None`` draws the seed from Python's ``random``)."""

    def __init__(self, seed=None, name=None, **kwargs):
        from tensorlet._src.framework.context import init_scope
        from tensorlet._src.framework.variables import Variable
        from tensorlet._src.keras import backend as _backend

        if name is None:
            name = _backend.auto_name("seed_generator")
        self.name = name
        if seed is None:
            import random as _random

            seed = _random.randint(1, int(1e9))
        elif not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self._initial_seed = seed
        with init_scope():
            self.state = Variable([int(seed) % (2**31 - 1), 0], dtype="int32", trainable=False,
                                  name="seed_generator_state")
        self.state._name = "seed_generator_state"
        self.state.path = f"{name}/seed_generator_state"

    def next(self, ordered=True):
        """The seed to use now; advances the state."""
        value = identity(self.state.value())
        self.state.assign_add(constant([0, 1], "int32"))
        return value

    def get_config(self):
        return {"seed": self._initial_seed}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
