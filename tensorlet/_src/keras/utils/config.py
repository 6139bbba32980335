"""``keras.utils.Config``: a dict of named values with attribute access, freezing and JSON export (Keras 3).

>>> c = tf.keras.utils.Config(learning_rate=0.1)
>>> c.seed = 7
>>> c["seed"], c.learning_rate, sorted(c)
(7, 0.1, ['learning_rate', 'seed'])
"""

from __future__ import annotations

import copy
import difflib
import json

from tensorlet._src.ops.registry import tf_export

_OWN = frozenset(("_config", "_frozen"))


@tf_export("keras.utils.Config")
class Config:
    """Named values read and set as attributes or items; ``freeze()`` makes every later change raise
    ``ValueError``; iterating yields the keys sorted; ``to_json()``/``as_dict()`` export it."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", kwargs)
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        """Whether the config is frozen."""
        return self._frozen

    def freeze(self):
        """Marks the config as frozen: setting, updating, popping or deleting entries then raises."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self):
        return copy.copy(self._config)

    def to_json(self):
        return json.dumps(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def get(self, keyname, value=None):
        return self._config.get(keyname, value)

    def pop(self, *args):
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        self._raise_if_frozen()
        return self._config.update(*args, **kwargs)

    def __setattr__(self, name, value):
        if name in _OWN or hasattr(type(self), name):  # the class's own attributes stay attributes
            return object.__setattr__(self, name, value)
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):  # only reached for names that are not real attributes
        if name.startswith("__") or name in _OWN:
            raise AttributeError(name)
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        msg = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, config.keys(), n=1, cutoff=0.7)
        if close:
            msg += f" Did you mean '{close[0]}'?"
        raise AttributeError(msg)

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __iter__(self):
        return iter(sorted(self._config.keys()))

    def __len__(self):
        return len(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"
