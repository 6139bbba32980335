"""``tf.tpu``: the configuration objects, and what a machine without TPUs can run.

Configuration classes (``XLAOptions``, the embedding optimizers, ``TableConfig``, ``FeatureConfig``) hold their
fields as in TF.  ``TPUEmbeddingForServing`` and ``serving_embedding_lookup`` are TF's CPU path for serving TPU
embedding models: tables are variables and lookups are gathers combined per example (sum, mean or sqrtn), so they
run here.  Names that need a TPU system fail as TF does without one.
"""

from __future__ import annotations

import enum
import math
from typing import NamedTuple

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.util import nest

__all__ = ["XLAOptions", "TableConfig", "FeatureConfig", "serving_embedding_lookup", "TPUEmbeddingForServing"]


@tf_export("tpu.XLAOptions")
class XLAOptions(NamedTuple):
    """XLA compilation options of TPU programs."""

    use_spmd_for_xla_partitioning: bool = True
    enable_xla_dynamic_padder: bool = True
    use_shardy_partitioner: bool = False


@tf_export("tpu.experimental.DeviceOrderMode")
class DeviceOrderMode(enum.IntEnum):
    """How logical TPU cores are laid out on the physical topology."""

    AUTO = 0
    RING = 1
    MESH = 2


@tf_export("tpu.experimental.HardwareFeature")
class HardwareFeature:
    """The hardware features of a TPU system (from its ``tpu_hardware_feature`` proto)."""

    class EmbeddingFeature(enum.Enum):
        UNSUPPORTED = "UNSUPPORTED"
        V1 = "V1"
        V2 = "V2"

    def __init__(self, tpu_hardware_feature_proto):
        self._proto = tpu_hardware_feature_proto

    @property
    def embedding_feature(self):
        v = getattr(self._proto, "embedding_feature", None)
        names = {0: "UNSUPPORTED", 1: "V1", 2: "V2"}
        return HardwareFeature.EmbeddingFeature(names.get(v, "UNSUPPORTED"))

    @property
    def num_embedding_devices_per_chip(self):
        return int(getattr(self._proto, "num_embedding_devices_per_chip", 0) or 0)


@tf_export("tpu.experimental.TPUSystemMetadata")
class TPUSystemMetadata(NamedTuple):
    """What ``initialize_tpu_system`` found: cores, hosts, cores per host, topology, devices."""

    num_cores: int
    num_hosts: int
    num_of_cores_per_host: int
    topology: object
    devices: object


@tf_export("tpu.experimental.Topology")
class Topology:
    """The physical layout of a TPU slice: ``mesh_shape`` and each task's ``device_coordinates``."""

    def __init__(self, serialized=None, mesh_shape=None, device_coordinates=None):
        if serialized is not None:
            raise ValueError("tensorlet reads TPU topologies from mesh_shape/device_coordinates, not a serialized "
                             "TopologyProto")
        if mesh_shape is None or device_coordinates is None:
            raise TypeError("int() argument must be a string, a bytes-like object or a real number, not 'NoneType'")
        self._mesh_shape = np.asarray(mesh_shape, dtype=np.int32)
        self._device_coordinates = np.asarray(device_coordinates, dtype=np.int32)
        if self._mesh_shape.ndim != 1 or self._device_coordinates.ndim != 3:
            raise ValueError("mesh_shape must be a vector and device_coordinates a rank-3 array")

    mesh_shape = property(lambda self: self._mesh_shape)
    mesh_rank = property(lambda self: len(self._mesh_shape))
    device_coordinates = property(lambda self: self._device_coordinates)
    num_tasks = property(lambda self: self._device_coordinates.shape[0])
    num_tpus_per_task = property(lambda self: self._device_coordinates.shape[1])
    missing_devices = property(lambda self: np.zeros((0, len(self._mesh_shape)), np.int32))

    def task_ordinal_at_coordinates(self, device_coordinates):
        for t in range(self.num_tasks):
            for d in range(self.num_tpus_per_task):
                if tuple(self._device_coordinates[t, d]) == tuple(device_coordinates):
                    return t
        raise ValueError(f"No device at coordinates {device_coordinates}")

    def tpu_device_ordinal_at_coordinates(self, device_coordinates):
        for t in range(self.num_tasks):
            for d in range(self.num_tpus_per_task):
                if tuple(self._device_coordinates[t, d]) == tuple(device_coordinates):
                    return d
        raise ValueError(f"No device at coordinates {device_coordinates}")


@tf_export("tpu.experimental.DeviceAssignment")
class DeviceAssignment:
    """Which TPU core runs each logical core of each replica (``core_assignment[replica, logical_core]``)."""

    def __init__(self, topology, core_assignment):
        if not isinstance(topology, Topology):
            raise ValueError(f"topology must be a Topology object, got {type(topology)}")
        ca = np.asarray(core_assignment, dtype=np.int32)
        if ca.ndim != 3:
            raise ValueError(f"core_assignment must be a rank 3 numpy array, got shape {ca.shape}")
        self._topology = topology
        self._core_assignment = ca

    topology = property(lambda self: self._topology)
    core_assignment = property(lambda self: self._core_assignment)
    num_replicas = property(lambda self: self._core_assignment.shape[0])
    num_cores_per_replica = property(lambda self: self._core_assignment.shape[1])

    def coordinates(self, replica, logical_core):
        return tuple(self._core_assignment[replica, logical_core, :])

    def tpu_ordinal(self, replica=0, logical_core=0):
        return self._topology.tpu_device_ordinal_at_coordinates(self.coordinates(replica, logical_core))

    def host_device(self, replica=0, logical_core=0, job=None):
        t = self._topology.task_ordinal_at_coordinates(self.coordinates(replica, logical_core))
        return f"/job:{job or 'localhost'}/task:{t}/device:CPU:0"

    def tpu_device(self, replica=0, logical_core=0, job=None):
        t = self._topology.task_ordinal_at_coordinates(self.coordinates(replica, logical_core))
        return f"/job:{job or 'localhost'}/task:{t}/device:TPU:{self.tpu_ordinal(replica, logical_core)}"

    @classmethod
    def build(cls, topology, computation_shape=None, computation_stride=None, num_replicas=1,
              device_order_mode=DeviceOrderMode.AUTO):
        n = topology.num_tasks * topology.num_tpus_per_task
        if num_replicas > n:
            raise ValueError(f"requested {num_replicas} replicas but only {n} cores are available")
        coords = topology.device_coordinates.reshape(-1, topology.mesh_rank)[:num_replicas]
        return cls(topology, coords[:, None, :])


# --- TPU embedding configuration -----------------------------------------------------------------------------

class _Optimizer:
    _slots: tuple = ()

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self._kwargs = kwargs

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self.learning_rate!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._kwargs == self._kwargs

    __hash__ = object.__hash__


def _optimizer(name, defaults, doc):
    def __init__(self, *args, **kwargs):
        names = list(defaults)
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} positional arguments")
        vals = dict(defaults)
        vals.update(zip(names, args))
        for k in kwargs:
            if k not in vals:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument {k!r}")
        vals.update(kwargs)
        lr = vals["learning_rate"]
        if not callable(lr) and lr is not None and lr < 0:
            raise ValueError(f"learning_rate must be non-negative, got {lr}")
        _Optimizer.__init__(self, **vals)

    cls = type(name, (_Optimizer,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})
    return tf_export(f"tpu.experimental.embedding.{name}")(cls)


_COMMON = {"use_gradient_accumulation": True, "clip_weight_min": None, "clip_weight_max": None,
           "weight_decay_factor": None, "multiply_weight_decay_factor_by_learning_rate": None}
SGD = _optimizer("SGD", {"learning_rate": 0.01, **_COMMON, "clipvalue": None,
                         "low_dimensional_packing_status": False}, "Plain SGD for TPU embedding tables.")
Adagrad = _optimizer("Adagrad", {"learning_rate": 0.001, "initial_accumulator_value": 0.1, **_COMMON,
                                 "slot_variable_creation_fn": None, "clipvalue": None,
                                 "low_dimensional_packing_status": False}, "Adagrad for TPU embedding tables.")
AdagradMomentum = _optimizer("AdagradMomentum", {"learning_rate": 0.001, "momentum": 0.0, "use_nesterov": False,
                                                 "exponent": 2, "beta2": 1, "epsilon": 1e-10, **_COMMON,
                                                 "slot_variable_creation_fn": None, "clipvalue": None,
                                                 "low_dimensional_packing_status": False},
                             "Adagrad with momentum for TPU embedding tables.")
Adam = _optimizer("Adam", {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07,
                           "lazy_adam": True, "sum_inside_sqrt": True, **_COMMON, "slot_variable_creation_fn": None,
                           "clipvalue": None, "low_dimensional_packing_status": False},
                  "Adam for TPU embedding tables.")
FTRL = _optimizer("FTRL", {"learning_rate": 0.001, "learning_rate_power": -0.5, "l1_regularization_strength": 0.0,
                           "l2_regularization_strength": 0.0, "beta": 0.0, "initial_accumulator_value": 0.1,
                           **_COMMON, "slot_variable_creation_fn": None, "clipvalue": None,
                           "multiply_linear_by_learning_rate": False, "allow_zero_accumulator": False,
                           "low_dimensional_packing_status": False}, "FTRL for TPU embedding tables.")
CustomOptimizer = _optimizer("CustomOptimizer", {"custom_computation": None, "learning_rate": 0.01,
                                                 "slot_names": None, "slot_initializers": None,
                                                 "hyperparameters": None, "slot_dims": None},
                             "A user-written embedding update (a tf.function over the table and its slots).")


@tf_export("tpu.experimental.embedding.CustomCombiner")
class CustomCombiner:
    """A user-written combiner of the embeddings of one example's ids."""

    def __init__(self, combiner_computation, max_valency, num_weights=0, initializer=None,
                 combiner_weights_learning_rate=0.01):
        if max_valency < 1:
            raise ValueError(f"max_valency must be positive, got {max_valency}")
        self.combiner_computation = combiner_computation
        self.max_valency = max_valency
        self.num_weights = num_weights
        self.initializer = initializer
        self.combiner_weights_learning_rate = combiner_weights_learning_rate


@tf_export("tpu.experimental.embedding.QuantizationConfig")
class QuantizationConfig:
    """Simulated quantization of embedding lookups: ``num_buckets`` levels in ``[lower, upper]``."""

    def __init__(self, num_buckets, lower, upper):
        if num_buckets < 2:
            raise ValueError(f"num_buckets is {num_buckets}, must be at least 2 for simulated quantization.")
        self.num_buckets, self.lower, self.upper = num_buckets, lower, upper

    def __repr__(self):
        return f"QuantizationConfig(num_buckets={self.num_buckets!r}, lower={self.lower!r}, upper={self.upper!r})"


@tf_export("tpu.experimental.embedding.RowIdInitializer")
class RowIdInitializer:
    """Initializes each row of a table with its row id (plus ``offset``): handy to check lookups."""

    def __init__(self, offset=0):
        self.offset = offset

    def __call__(self, shape, dtype=_dt.float32):
        rows = np.arange(shape[0], dtype=np.float64)[:, None] + self.offset
        return convert_to_tensor(np.broadcast_to(rows, tuple(shape)).astype(_dt.as_dtype(dtype).as_numpy_dtype))


@tf_export("tpu.experimental.embedding.SparseCoreEmbeddingConfig")
class SparseCoreEmbeddingConfig(NamedTuple):
    """Options of embeddings on TPU SparseCores."""

    disable_table_stacking: bool = False
    max_ids_per_chip_per_sample: int = 64
    max_ids_per_table: dict | None = None
    max_unique_ids_per_table: dict | None = None
    allow_id_dropping: bool = False
    initialize_tables_on_host: bool = True
    enable_fast_table_initialization: bool = False


@tf_export("tpu.experimental.embedding.TableConfig")
class TableConfig:
    """One embedding table: ``vocabulary_size`` rows of width ``dim``."""

    def __init__(self, vocabulary_size, dim, initializer=None, optimizer=None, combiner="mean", name=None,
                 quantization_config=None, layout=None, dtype=_dt.float32):
        if not isinstance(vocabulary_size, int) or vocabulary_size < 1:
            raise ValueError(f"Argument `vocabulary_size` must be an int and must be >= 1. Received: "
                             f"{vocabulary_size}")
        if not isinstance(dim, int) or dim < 1:
            raise ValueError(f"Argument `dim` (embedding dimension) must be an int and must be >= 1. Received: {dim}")
        if initializer is not None and not callable(initializer):
            raise ValueError(f"Argument `initializer` must be a callable (or None). Received: {initializer}")
        if not isinstance(combiner, CustomCombiner) and combiner not in ("mean", "sum", "sqrtn"):
            raise ValueError(f"Argument `combiner` must be one of 'mean', 'sum', 'sqrtn'. Received: {combiner}")
        self.vocabulary_size, self.dim, self.initializer, self.optimizer = vocabulary_size, dim, initializer, optimizer
        self.combiner, self.name, self.quantization_config = combiner, name, quantization_config
        self.layout, self.dtype = layout, _dt.as_dtype(dtype)

    def __repr__(self):
        return (f"TableConfig(vocabulary_size={self.vocabulary_size!r}, dim={self.dim!r}, initializer="
                f"{self.initializer!r}, optimizer={self.optimizer!r}, combiner={self.combiner!r}, name={self.name!r}, "
                f"quantization_config={self.quantization_config!r})")


@tf_export("tpu.experimental.embedding.FeatureConfig")
class FeatureConfig:
    """One input feature looked up in ``table`` (``max_sequence_length > 0``: a sequence feature)."""

    def __init__(self, table, max_sequence_length=0, validate_weights_and_indices=True, output_shape=None,
                 name=None):
        if not isinstance(table, TableConfig):
            raise ValueError(f"Argument `table` has invalid type {type(table)}. Expected "
                             "`tf.tpu.experimental.embedding.TableConfig`.")
        if not isinstance(max_sequence_length, int) or max_sequence_length < 0:
            raise ValueError(f"Argument `max_sequence_length` must be an int and must be >= 0. Received: "
                             f"{max_sequence_length}")
        from tensorlet._src.framework.tensor_shape import TensorShape

        self.table, self.max_sequence_length = table, max_sequence_length
        self.validate_weights_and_indices = validate_weights_and_indices
        self.output_shape = TensorShape(output_shape)
        self.name = name

    def __repr__(self):
        return (f"FeatureConfig(table={self.table!r}, max_sequence_length={self.max_sequence_length!r}, "
                f"validate_weights_and_indices={self.validate_weights_and_indices!r}, output_shape="
                f"{self.output_shape!r}, name={self.name!r})")


def _lookup_one(inp, weight, table_var, feature):
    """Embeddings of one feature's ids (dense ``[batch, n]`` or SparseTensor), combined per example."""
    from tensorlet._src.ops import math_binary, reduce
    from tensorlet._src.ops.gather_scatter import gather

    if hasattr(inp, "dense_shape"):
        idx = np.asarray(inp.indices.numpy())
        vals = np.asarray(inp.values.numpy()).astype(np.int64)
        batch = int(inp.dense_shape.numpy()[0])
        width = int(np.prod(inp.dense_shape.numpy()[1:])) if len(inp.dense_shape.numpy()) > 1 else 1
        ids = np.zeros((batch, max(width, 1)), np.int64)
        w = np.zeros((batch, max(width, 1)), np.float32)
        wv = np.asarray(weight.values.numpy()) if weight is not None else np.ones(len(vals), np.float32)
        for (r, *c), v, wt in zip(idx, vals, wv):
            col = c[0] if c else 0
            ids[r, col], w[r, col] = v, wt
    else:
        t = convert_to_tensor(inp)
        emb = gather(table_var, t)
        if t.shape.rank == 1 or feature.max_sequence_length > 0:
            return emb
        ids = None
        w = np.ones(t.shape.as_list(), np.float32) if weight is None else np.asarray(convert_to_tensor(weight).numpy())
        combiner = feature.table.combiner
        if combiner == "mean":
            w = w / np.maximum(w.sum(axis=1, keepdims=True), 1e-30)
        elif combiner == "sqrtn":
            w = w / np.maximum(np.sqrt((w * w).sum(axis=1, keepdims=True)), 1e-30)
        return reduce.reduce_sum(math_binary.multiply(emb, convert_to_tensor(w[..., None].astype(np.float32))), 1)
    combiner = feature.table.combiner
    if combiner == "mean":
        s = w.sum(axis=1, keepdims=True)
        w = np.divide(w, s, out=np.zeros_like(w), where=s > 0)
    elif combiner == "sqrtn":
        s = np.sqrt((w * w).sum(axis=1, keepdims=True))
        w = np.divide(w, s, out=np.zeros_like(w), where=s > 0)
    emb = gather(table_var, convert_to_tensor(ids))
    return reduce.reduce_sum(math_binary.multiply(emb, convert_to_tensor(w[..., None])), 1)


@tf_export("tpu.experimental.embedding.serving_embedding_lookup")
def serving_embedding_lookup(inputs, weights, tables, feature_config):
    """CPU lookup of TPU embedding features: ``inputs``/``weights`` nest like ``feature_config``; ``tables``
    maps each TableConfig to its variable.  Returns the combined embeddings in the same nest."""
    flat_in = nest.flatten(inputs)
    flat_cfg = nest.flatten(feature_config)
    flat_w = [None] * len(flat_in) if weights is None else nest.flatten(weights)
    if len(flat_in) != len(flat_cfg):
        raise ValueError(f"inputs has {len(flat_in)} features but feature_config has {len(flat_cfg)}")
    out = [_lookup_one(i, w, tables[f.table], f) for i, w, f in zip(flat_in, flat_w, flat_cfg)]
    return nest.pack_sequence_as(feature_config, out)


@tf_export("tpu.experimental.embedding.TPUEmbeddingForServing")
class TPUEmbeddingForServing:
    """The CPU twin of TPUEmbedding for serving: creates the tables (variables) and looks features up."""

    def __init__(self, feature_config, optimizer=None, experimental_sparsecore_restore_info=None):
        from tensorlet._src.framework.variables import Variable
        from tensorlet._src.ops import random_gen

        self._feature_config = feature_config
        self._optimizer = optimizer
        self.embedding_tables = {}
        tables = []
        for f in nest.flatten(feature_config):
            if f.table not in tables:
                tables.append(f.table)
        for i, t in enumerate(tables):
            shape = [t.vocabulary_size, t.dim]
            init = t.initializer(shape, t.dtype) if t.initializer is not None else \
                random_gen.truncated_normal(shape, stddev=1.0 / math.sqrt(t.dim), dtype=t.dtype)
            self.embedding_tables[t] = Variable(init, name=t.name or f"table_{i}")

    def build(self):
        return None

    def embedding_lookup(self, features, weights=None):
        return serving_embedding_lookup(features, weights, self.embedding_tables, self._feature_config)

    __call__ = embedding_lookup
