"""``tf.data.Options`` and its option groups (threading, optimization, autotune, distribute).

Options are plain records: tensorlet reads ``deterministic``, ``threading.private_threadpool_size`` and
``experimental_optimization.map_and_batch_fusion`` / ``apply_default_optimizations`` (``data/vectorize.py``: map+batch
fusion and vectorized parallel-map chunks); the rest are accepted and merged as TF does (a later ``with_options``
wins for every option it sets).  An iterator applies the options of the dataset it iterates to the whole pipeline.

>>> o = tf.data.Options(); o.deterministic = False
>>> tf.data.Dataset.range(3).with_options(o).options().deterministic
False
"""

from __future__ import annotations

import enum

from tensorlet._src.ops.registry import tf_export

__all__ = ["Options", "ThreadingOptions", "OptimizationOptions", "AutotuneOptions", "DistributeOptions",
           "AutoShardPolicy", "ExternalStatePolicy", "AutotuneAlgorithm", "ServiceOptions"]


@tf_export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@tf_export("data.experimental.ExternalStatePolicy")
class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


@tf_export("data.experimental.AutotuneAlgorithm")
class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionsBase:
    """A record of options; unset options read as their default and are not merged."""

    _DEFAULTS: dict = {}
    _GROUPS: dict = {}  # name -> option-group class (nested records)
    _ALIASES: dict = {}

    def __init__(self):
        object.__setattr__(self, "_set", {})
        for k, cls in self._GROUPS.items():
            self._set[k] = cls()

    def __getattr__(self, name):
        name = self._ALIASES.get(name, name)
        d = self.__dict__.get("_set", {})
        if name in d:
            return d[name]
        if name in self._DEFAULTS:
            return self._DEFAULTS[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        name = self._ALIASES.get(name, name)
        if name not in self._DEFAULTS and name not in self._GROUPS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        if name in self._GROUPS and not isinstance(value, self._GROUPS[name]):
            raise TypeError(f"Property `{name}` must be of type {self._GROUPS[name].__name__}, got {value!r}.")
        self._set[name] = value

    def __eq__(self, other):
        return type(other) is type(self) and self._values() == other._values()

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def _values(self):
        out = {k: getattr(self, k) for k in self._DEFAULTS}
        out.update({k: self._set[k]._values() for k in self._GROUPS})
        return out

    def merge(self, other):
        """A new record: ``self``'s options overridden by the ones ``other`` sets."""
        out = type(self)()
        for k, v in self._set.items():
            if k not in self._GROUPS:
                out._set[k] = v
        for k, v in other._set.items():
            if k not in self._GROUPS:
                out._set[k] = v
        for k in self._GROUPS:
            out._set[k] = self._set[k].merge(other._set[k])
        return out

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in sorted(self._set.items()) if k not in self._GROUPS)
        return f"{type(self).__name__}({items})"


@tf_export("data.ThreadingOptions", "data.experimental.ThreadingOptions")
class ThreadingOptions(_OptionsBase):
    """``max_intra_op_parallelism``, ``private_threadpool_size`` (worker threads for AUTOTUNE)."""

    _DEFAULTS = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionsBase):
    _DEFAULTS = {"apply_default_optimizations": None, "filter_fusion": None, "filter_parallelization": None,
                 "inject_prefetch": None, "map_and_batch_fusion": None, "map_and_filter_fusion": None,
                 "map_fusion": None, "map_parallelization": None, "noop_elimination": None,
                 "parallel_batch": None, "seq_interleave_prefetch": None, "shuffle_and_repeat_fusion": None,
                 "warm_start": None}


@tf_export("data.experimental.AutotuneOptions")
class AutotuneOptions(_OptionsBase):
    _DEFAULTS = {"enabled": None, "cpu_budget": None, "ram_budget": None, "autotune_algorithm": None,
                 "initial_parallelism": None, "min_parallelism": None}


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionsBase):
    _DEFAULTS = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


@tf_export("data.experimental.ServiceOptions")
class ServiceOptions(_OptionsBase):
    """``pinned``: TF's hint to pin the tf.data service's buffers (accepted; host memory here is never pinned)."""

    _DEFAULTS = {"pinned": None}


@tf_export("data.Options")
class Options(_OptionsBase):
    """Options for a dataset: ``ds.with_options(opts)``; ``deterministic=False`` lets parallel map/interleave
    return elements as they finish."""

    _DEFAULTS = {"deterministic": None, "dataset_name": None, "framework_type": None,
                 "experimental_external_state_policy": None, "experimental_slack": None,
                 "experimental_symbolic_checkpoint": None, "experimental_warm_start": None}
    _GROUPS = {"autotune": AutotuneOptions, "experimental_distribute": DistributeOptions,
               "experimental_optimization": OptimizationOptions, "experimental_service": ServiceOptions,
               "threading": ThreadingOptions}
    _ALIASES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}
