"""``MirroredStrategy`` over several local devices: replicas as one SPMD XLA program.

``MirroredStrategy(devices)`` builds a jax device mesh with one axis, ``"replica"``.  ``run(fn, args)`` traces
``fn`` once per argument signature into tensorlet's graph IR with a replica context whose collectives become
``CollectiveReduceV2`` / ``CollectiveGatherV2`` / ``ReplicaId`` ops, lowers the graph with the same op lowerings
as ``tf.function``, and runs it under ``jax.shard_map`` over the mesh: per-replica arguments are split along the
replica axis, everything else (variables, plain tensors) is replicated.  Variables the function assigns come
back replicated and stay on the devices until eager code reads them, so a training loop keeps its weights on the
mesh between steps.  Keras optimizers sum gradients over the replicas inside ``apply_gradients`` (as Keras on TF
does), so all replicas apply the same update and mirrored variables stay in sync.

A variable assigned inside ``run`` is combined over the replicas by its ``aggregation``: SUM adds the replicas'
changes (Keras metric totals and counts); MEAN averages the new values; ONLY_FIRST_REPLICA and NONE take replica
0's value, as Keras on TF ends up with (BatchNormalization's moving statistics without ``synchronized=True``).
XLA's varying-value analysis tells which new values are equal on every replica (an optimizer step on all-reduced
gradients): those are written back without any communication.

On a CPU-only machine the CPU can be split into logical devices before first use, the TF way:
``tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)`` (or
``TENSORLET_NUM_CPU_DEVICES=4``); then ``MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"])``.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.distribute import strategy as _s
from tensorlet._src.distribute.values import (DistributedValues, Mirrored, array_of, per_replica_from_stacked,
                                              regroup)
from tensorlet._src.framework import device as _device
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.dtypes import from_numpy
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.indexed_slices import IndexedSlices
from tensorlet._src.framework.variables import Variable, VariableAggregation
from tensorlet._src.ops.array_shape import dense
from tensorlet._src.graph.function import Function
from tensorlet._src.graph.lowering import build_fn, check_lowerable
from tensorlet._src.ops import collective_ops
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

AXIS = "replica"


class MultiReplicaContext(_s.ReplicaContext):
    """The replica context while a multi-replica ``run`` traces its function: collectives are graph ops."""

    def __init__(self, strategy):
        super().__init__(strategy)
        self._id = None

    @property
    def replica_id_in_sync_group(self):
        if self._id is None:
            self._id = collective_ops.replica_id(self.num_replicas_in_sync, AXIS)
        return self._id

    def all_reduce(self, reduce_op, value, options=None):
        op = _s._reduce_op(reduce_op)
        n = self.num_replicas_in_sync
        kind = "sum" if op is _s.ReduceOp.SUM else "mean"
        return nest.map_structure(lambda v: collective_ops.all_reduce(_dense(v), kind, n, AXIS), value)

    def all_gather(self, value, axis, options=None):
        return nest.map_structure(lambda v: _all_gather(_dense(v), axis, self.num_replicas_in_sync), value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args)`` in cross-replica context; tensor args arrive as per-replica values whose
        ``strategy.reduce`` / ``gather`` are collectives of the SPMD program."""
        def wrap(x):
            return _SpmdPerReplica(x, self.num_replicas_in_sync) if isinstance(x, Tensor) else x

        args, kwargs = nest.map_structure(wrap, (tuple(args), dict(kwargs or {})))
        with _s._in_cross_replica(self._strategy):
            return merge_fn(self._strategy, *args, **kwargs)


class _SpmdPerReplica(DistributedValues):
    """A traced value that differs per replica of the SPMD program (inside ``merge_call``)."""

    def __init__(self, tensor, n):
        super().__init__([tensor])
        self._tensor, self._n = tensor, n

    def reduce(self, op, axis):
        from tensorlet._src.ops.reduce import reduce_sum

        t = self._tensor if axis is None else reduce_sum(self._tensor, axis=axis)
        total = collective_ops.all_reduce(t, "sum", self._n, AXIS)
        if op is _s.ReduceOp.SUM:
            return total
        count = self._n if axis is None else self._n * self._tensor.shape[axis]
        return total / count

    def gather(self, axis):
        return _all_gather(self._tensor, axis, self._n)


def _all_gather(v, axis, n):
    """Every replica's ``v`` concatenated along ``axis`` (a collective of the SPMD program)."""
    from tensorlet._src.ops.array_shape import transpose

    if axis == 0:
        return collective_ops.all_gather(v, n, AXIS)
    perm = list(range(v.shape.rank))
    perm[0], perm[axis] = perm[axis], perm[0]
    return transpose(collective_ops.all_gather(transpose(v, perm), n, AXIS), perm)


def _dense(v):
    if isinstance(v, Variable):
        return v.value()
    if isinstance(v, IndexedSlices):
        return dense(v)
    return v if isinstance(v, Tensor) else convert_to_tensor(v)


def _jax_device(name: str, jax):
    spec = _device.canonical_device(name)
    kind, idx = spec.rsplit(":", 2)[-2:]
    kind = kind.rsplit("/", 1)[-1].split("device:")[-1].upper()
    platform = {"CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}.get(kind)
    if platform is None:
        raise ValueError(f"Unknown device type {kind!r} in {name!r}")
    try:
        devs = jax.devices(platform)
    except RuntimeError:
        devs = []
    i = int(idx)
    if i >= len(devs):
        hint = (" Split the CPU into logical devices first: tf.config.set_logical_device_configuration("
                "tf.config.list_physical_devices('CPU')[0], [tf.config.LogicalDeviceConfiguration()] * N), "
                "before any other tensorlet call that compiles") if platform == "cpu" else ""
        raise ValueError(f"MirroredStrategy: device {spec} does not exist ({len(devs)} {kind} devices).{hint}")
    return devs[i]


@tf_export("distribute.MirroredStrategy")
class MirroredStrategy(_s.Strategy):
    """Synchronous data parallelism over the local devices: one replica per device, one XLA program per step.

    ``devices=None`` takes every GPU, or the CPU alone when there is none (TF's choice).
    """

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__()
        if devices is None:
            gpus = _device.list_logical_devices("GPU")
            devices = [d.name for d in gpus] or ["/device:CPU:0"]
        if isinstance(devices, str):
            devices = [devices]
        names = [_device.canonical_device(d if isinstance(d, str) else d.name) for d in devices]
        if not names:
            raise ValueError("MirroredStrategy needs at least one device")
        if len(set(names)) != len(names):
            raise ValueError(f"No duplicates allowed in `devices` argument: {names}")
        self._setup(names, cross_device_ops)

    def _setup(self, names, cross_device_ops=None):
        self._devices = tuple(names)
        self._cross_device_ops = cross_device_ops
        self._mesh = None
        self._cache = {}
        self._multi_process = False  # MultiWorkerMirroredStrategy over several processes
        self._local = (0, len(names))  # (first global replica index on this process, number of local replicas)
        self._num_workers, self._worker_index = 1, 0

    @property
    def num_replicas_in_sync(self):
        return len(self._devices)

    @property
    def worker_devices(self):
        return self._devices

    parameter_devices = worker_devices

    def __repr__(self):
        return f"<MirroredStrategy ({len(self._devices)} replicas: {', '.join(self._devices)})>"

    # --- the mesh ------------------------------------------------------------------------------
    def _get_mesh(self):
        if self._mesh is None:
            from tensorlet._src.graph.jaxrt import jax

            devs = [_jax_device(d, jax) for d in self._devices]
            self._mesh = jax.sharding.Mesh(np.array(devs), (AXIS,))
        return self._mesh

    # --- run -------------------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on every replica, as one compiled SPMD program; returns PerReplica values.

        ``PerReplica`` arguments (from a distributed dataset, or ``experimental_distribute_values_from_function``)
        give each replica its own component; any other tensor argument is the same on every replica.
        """
        if self.num_replicas_in_sync == 1:
            return super().run(fn, args, kwargs, options)
        kwargs = kwargs or {}
        structure = (tuple(args), dict(kwargs))
        flat = nest.flatten(structure)
        tracing = ctx.interp is not None and not getattr(ctx.interp, "eager", False)
        kinds, values, specs, statics = [], [], [], []
        for x in flat:
            if isinstance(x, DistributedValues) and not isinstance(x, Mirrored):
                if len(x.values) != self._local[1]:
                    raise ValueError(f"a PerReplica argument has {len(x.values)} components; this strategy has "
                                     f"{self._local[1]} replicas on this worker")
                kind, value = "split", (x._stacked_graph() if tracing else x._stacked_array())
            elif isinstance(x, Mirrored):
                kind, value = "same", x.values[0] if tracing else array_of(x.values[0])
            elif isinstance(x, (Tensor, np.ndarray)):
                kind, value = "same", (convert_to_tensor(x) if tracing else array_of(x))
            else:
                kinds.append("static")
                values.append(None)
                specs.append(x)
                statics.append(x)
                continue
            kinds.append(kind)
            values.append(value)
            shape = tuple(value.shape)
            specs.append(TensorSpec(shape[1:] if kind == "split" else shape,
                                    value.dtype if tracing else from_numpy(np.dtype(value.dtype))))
        key = (fn, repr(nest.pack_sequence_as(structure, ["*"] * len(flat))),
               tuple(k if k == "static" else (k, sp.dtype.name, tuple(sp.shape)) for k, sp in zip(kinds, specs)),
               tuple(_static_key(x) for x in statics))
        step = self._cache.get(key)
        if step is None:
            step = self._cache[key] = _ReplicaStep(self, fn, structure, kinds, specs)
        return step.trace_call(values) if tracing else step(values)

    # --- cross-replica reductions ------------------------------------------------------------
    def reduce(self, reduce_op, value, axis=None):
        op = _s._reduce_op(reduce_op)
        if isinstance(value, _SpmdPerReplica):
            return value.reduce(op, axis)
        if self._multi_process and isinstance(value, DistributedValues):
            return _wrap(self._global_reduce(op, value, axis))
        if isinstance(value, DistributedValues) and not all(v.__class__ is EagerTensor for v in value.values):
            return _reduce_traced(op, value, axis)  # inside tf.function: graph ops over the stacked replicas
        if not isinstance(value, DistributedValues):
            if self.num_replicas_in_sync == 1 or axis is not None:
                return super().reduce(op, value, axis)
            # a plain tensor in cross-replica context: the same value on every replica
            from tensorlet._src.ops.math_binary import multiply

            v = convert_to_tensor(value)
            return multiply(v, self.num_replicas_in_sync) if op is _s.ReduceOp.SUM and \
                v.dtype.is_floating else v
        return _reduce_components(op, [array_of(v) for v in value.values], axis)

    def gather(self, value, axis):
        if not isinstance(value, DistributedValues):
            return value
        if isinstance(value, _SpmdPerReplica):
            return value.gather(axis)
        if self._multi_process:
            return _wrap(self._global_reduce(None, value, axis))
        if not all(v.__class__ is EagerTensor for v in value.values):
            from tensorlet._src.ops.array_blocks import concat

            return concat(list(value.values), axis=axis)
        return _wrap(np.concatenate([np.asarray(array_of(v)) for v in value.values], axis=axis))

    # --- several processes (MultiWorkerMirroredStrategy) ---------------------------------------------
    def _sharding(self, split: bool):
        from tensorlet._src.graph.jaxrt import jax

        P = jax.sharding.PartitionSpec
        return jax.sharding.NamedSharding(self._get_mesh(), P(AXIS) if split else P())

    def _to_global(self, a, split: bool):
        """A process-local value -> a global jax array (split: this process's rows of the replica axis)."""
        from tensorlet._src.graph.jaxrt import jax

        if isinstance(a, jax.Array) and not a.is_fully_addressable:
            return a
        a = np.asarray(a)
        shape = ((self.num_replicas_in_sync,) + a.shape[1:]) if split else a.shape
        return jax.make_array_from_process_local_data(self._sharding(split), a, shape)

    def _global_reduce(self, op, value, axis):
        """SUM / MEAN (or, with op None, the concatenation) of a per-replica value over every worker."""
        from tensorlet._src.graph.jaxrt import jax, jnp

        g = value._global if getattr(value, "_global", None) is not None else \
            self._to_global(value._stacked_array(), True)
        n = self.num_replicas_in_sync

        def combine(x):
            if op is None:  # gather: concatenate the replicas along `axis`
                parts = [x[i] for i in range(n)]
                return jnp.concatenate([p[None] if p.ndim == 0 else p for p in parts], axis=axis)
            axes = (0,) if axis is None else (0, axis + 1)
            total = jnp.sum(x, axis=axes)
            if op is _s.ReduceOp.MEAN:
                count = n if axis is None else n * x.shape[axis + 1]
                total = total / count if jnp.issubdtype(total.dtype, jnp.inexact) else total // count
            return total.astype(x.dtype)

        try:
            out = jax.jit(combine, out_shardings=self._sharding(False))(g)
            return np.asarray(out.addressable_data(0))
        except Exception as e:
            raise errors.UnavailableError(None, None, f"MultiWorkerMirroredStrategy: a cross-worker reduction "
                                                      f"failed; a worker has probably died ({type(e).__name__}: "
                                                      f"{str(e).splitlines()[0][:300]})") from None

    def experimental_local_results(self, value):
        if isinstance(value, DistributedValues):
            return value.values
        if isinstance(value, Variable):
            return tuple(value for _ in range(self.num_replicas_in_sync))
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        from tensorlet._src.distribute.input_lib import DistributedDataset

        return DistributedDataset(dataset, self.num_replicas_in_sync, split=True, local=self._local)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        from tensorlet._src.distribute.input_lib import DistributedDataset

        ds = dataset_fn(_s.InputContext(num_input_pipelines=self._num_workers, input_pipeline_id=self._worker_index,
                                        num_replicas_in_sync=self.num_replicas_in_sync))
        return DistributedDataset(ds, self.num_replicas_in_sync, split=False, local=self._local)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        n = self.num_replicas_in_sync
        if n == 1:
            return value_fn(_s.ValueContext(0, 1))
        first, count = self._local
        return regroup([value_fn(_s.ValueContext(i, n)) for i in range(first, first + count)])




def _static_key(x):
    try:
        hash(x)
        return x
    except TypeError:
        return id(x)


def _reduce_components(op, arrays, axis):
    arrays = [np.asarray(a) for a in arrays]
    if axis is None:
        total = arrays[0]
        for a in arrays[1:]:
            total = total + a
        if op is _s.ReduceOp.MEAN:
            total = (total / len(arrays)).astype(arrays[0].dtype) if arrays[0].dtype.kind in "fc" else \
                total // len(arrays)
        return _wrap(np.asarray(total, arrays[0].dtype))
    cat = np.concatenate([np.expand_dims(a, 0) if a.ndim == 0 else a for a in arrays], axis=axis)
    out = cat.sum(axis=axis) if op is _s.ReduceOp.SUM else cat.mean(axis=axis)
    return _wrap(np.asarray(out, arrays[0].dtype))


def _reduce_traced(op, value, axis):
    from tensorlet._src.ops.reduce import reduce_mean, reduce_sum

    stacked = value._stacked_graph()
    axes = [0] if axis is None else [0, axis + 1]
    return (reduce_sum if op is _s.ReduceOp.SUM else reduce_mean)(stacked, axis=axes)


class _ReplicaStep:
    """One traced replica function, compiled as a shard_map over the strategy's mesh.

    Called eagerly (``__call__``) it runs the compiled program; called while an enclosing ``tf.function`` traces
    (``trace_call``) it adds one ``SpmdCall`` node running the same program, so the outer function compiles it
    into its own XLA program.
    """

    def __init__(self, strategy, fn, structure, kinds, specs):
        self.strategy = strategy
        self.kinds = kinds
        n = strategy.num_replicas_in_sync
        tensor_pos = [i for i, k in enumerate(kinds) if k != "static"]

        def replica_fn(*tensors):
            leaves = list(specs)
            for i, t in zip(tensor_pos, tensors):
                leaves[i] = t
            args, kwargs = nest.pack_sequence_as(structure, leaves)
            with _s.in_replica(MultiReplicaContext(strategy)):
                return fn(*args, **kwargs)

        replica_fn.__name__ = getattr(fn, "__name__", "replica_fn")
        tf_fn = Function(replica_fn, name=replica_fn.__name__)
        tensor_specs = [specs[i] for i in tensor_pos]
        with strategy.scope():
            try:
                cf = tf_fn.get_concrete_function(*tensor_specs)
            except (ValueError, TypeError, errors.InvalidArgumentError) as e:
                if any(None in sp.shape.as_list() for sp in tensor_specs if sp.shape.rank is not None):
                    hint = (f"{e}\n(MirroredStrategy.run traced {replica_fn.__name__} for per-replica inputs of "
                            f"unknown size {tensor_specs}; batch datasets with drop_remainder=True so every "
                            "replica's shapes are static)")
                    raise (errors.InvalidArgumentError(None, None, hint) if isinstance(e, errors.OpError)
                           else type(e)(hint)) from None
                raise
        graph = cf.graph
        try:
            check_lowerable(graph)
        except Exception as e:
            raise errors.UnimplementedError(None, None, f"MirroredStrategy.run: {replica_fn.__name__} cannot be "
                                                        f"compiled for {n} replicas: {e}") from None
        self.cf = cf
        self.read_vars = list(graph.variables)
        self.written = [v for v in graph.variables if id(v) in graph.var_final]
        f, self.big = build_fn(graph)
        self.fn = self._shard(f, len(self.read_vars), [kinds[i] for i in tensor_pos], len(self.big))

    def _shard(self, f, n_vars, arg_kinds, n_big):
        from tensorlet._src.graph.jaxrt import jax, lax

        mesh = self.strategy._get_mesh()
        P = jax.sharding.PartitionSpec
        n = self.strategy.num_replicas_in_sync
        aggs = [v.aggregation for v in self.written]
        pos = {id(v): i for i, v in enumerate(self.read_vars)}
        write_index = [pos[id(v)] for v in self.written]

        def first_replica(x):
            return lax.psum(jax.numpy.where(lax.axis_index(AXIS) == 0, x, jax.numpy.zeros_like(x)), AXIS)

        def local(var_values, args, big):
            args = [a[0] if k == "split" else a for a, k in zip(args, arg_kinds)]
            outs, finals = f(var_values, args, big)
            synced = []
            for agg, i, new in zip(aggs, write_index, finals):
                if agg is VariableAggregation.SUM:  # every replica's change counts, equal or not
                    old = var_values[i]
                    synced.append(old + lax.psum(new - old, AXIS))
                    continue
                if AXIS not in jax.typeof(new).manual_axis_type.varying:
                    synced.append(new)  # the same on every replica (e.g. updated from all-reduced gradients)
                    continue
                if agg is VariableAggregation.MEAN:
                    new = lax.pmean(new, AXIS) if new.dtype.kind in "fc" else lax.psum(new, AXIS) // n
                else:  # ONLY_FIRST_REPLICA, and NONE as Keras on TF behaves (BatchNormalization's moving stats)
                    new = first_replica(new)
                synced.append(new)
            return [o[None] for o in outs], synced

        in_specs = ([P()] * n_vars, [P(AXIS) if k == "split" else P() for k in arg_kinds], [P()] * n_big)
        out_specs = ([P(AXIS)] * len(self.cf.graph.outputs), [P()] * len(self.written))
        sm = jax.shard_map(local, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
        return jax.jit(sm)

    def trace_call(self, values):
        """Inside an enclosing trace: one SpmdCall node (variables read and written through the outer graph)."""
        s = self.strategy
        if s._multi_process:
            raise errors.UnimplementedError(None, None, "MultiWorkerMirroredStrategy.run inside tf.function is not "
                                                        "supported yet; call strategy.run from eager code")
        tensors = [v for v, k in zip(values, self.kinds) if k != "static"]
        reads = [v.value() for v in self.read_vars]
        n_out = len(self.cf.graph.outputs)
        n = s.num_replicas_in_sync
        out_specs = [(TensorShape([n] + t.shape.as_list()), t.dtype) for t in self.cf.graph.outputs]
        out_specs += [(v.shape, v.dtype) for v in self.written]
        results = collective_ops.spmd_call(self, reads + tensors, out_specs)
        for var, final in zip(self.written, results[n_out:]):
            var.assign(final)
        return self.cf._structure([per_replica_from_stacked_graph(o, n) for o in results[:n_out]])

    # the SpmdCall op's program interface (collective_ops): NumPy executor and XLA lowering
    def run_arrays(self, arrays):
        nv = len(self.read_vars)
        outs, finals = self.fn(list(arrays[:nv]), list(arrays[nv:]), self.big)
        return tuple(np.asarray(o) for o in outs) + tuple(np.asarray(f) for f in finals)

    def run_jax(self, arrays):
        nv = len(self.read_vars)
        outs, finals = self.fn(list(arrays[:nv]), list(arrays[nv:]), self.big)
        return tuple(outs) + tuple(finals)

    def __call__(self, arrays):
        from tensorlet._src.graph.jaxrt import jax

        tensors = [a for a, k in zip(arrays, self.kinds) if k != "static"]
        vals = [v._host if v._dev is None else v._dev for v in self.read_vars]
        s = self.strategy
        if s._multi_process:
            kinds = [k for k in self.kinds if k != "static"]
            tensors = [s._to_global(a, k == "split") for a, k in zip(tensors, kinds)]
            vals = [s._to_global(v, False) for v in vals]
        if s._multi_process:
            try:
                outs, finals = self.fn(vals, tensors, self.big)
                jax.block_until_ready(outs)
            except Exception as e:  # a peer died or stopped answering: the collectives fail
                raise errors.UnavailableError(
                    None, None, f"MultiWorkerMirroredStrategy: a collective across the {s._num_workers} workers "
                                f"failed; a worker has probably died or is unreachable ({type(e).__name__}: "
                                f"{str(e).splitlines()[0][:300]})") from None
        else:
            outs, finals = self.fn(vals, tensors, self.big)
        for var, value in zip(self.written, finals):
            var._dev = value  # replicated on the mesh until eager code reads it
        results = [per_replica_from_global(o) if s._multi_process else per_replica_from_stacked(o) for o in outs]
        return self.cf._structure(results)


def per_replica_from_stacked_graph(stacked, n):
    """A PerReplica of graph tensors: the rows of a traced [replicas, ...] tensor."""
    from tensorlet._src.distribute.values import PerReplica
    from tensorlet._src.ops.array_blocks import unstack

    return PerReplica(unstack(stacked, num=n, axis=0), stacked=stacked)


def per_replica_from_global(g):
    """A PerReplica over this process's replicas of a global [replicas, ...] array (the global kept for
    cross-worker reductions)."""
    shards = sorted(g.addressable_shards, key=lambda sh: sh.index[0].start or 0)
    local = np.concatenate([np.asarray(sh.data) for sh in shards])
    pr = per_replica_from_stacked(local)
    pr._global = g
    return pr
