"""Element-wise and structural transformations: map, filter, zip, take/skip/repeat/shard, concatenate,
take_while, scan/reduce, unique, flat_map/interleave, directed interleave, ignore_errors, with_options.

Also ``IndexPlan``: the random-access form of a pipeline over ``from_tensor_slices`` (see dataset_ops).
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import (AUTOTUNE, INFINITE, UNKNOWN, DatasetSpec, DatasetV2, leaf_spec,
                                             static_int, to_leaf, wrap_leaf)
from tensorlet._src.data.functions import DataFunction
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor

__all__ = ["IndexPlan", "MapDataset", "FilterDataset", "ZipDataset", "RepeatDataset", "TakeDataset", "SkipDataset",
           "ShardDataset", "TakeWhileDataset", "ConcatenateDataset", "ScanDataset", "reduce_dataset",
           "UniqueDataset", "FlatMapDataset", "InterleaveDataset", "DirectedInterleaveDataset",
           "IgnoreErrorsDataset", "OptionsDataset", "UnaryDataset", "num_workers"]


def num_workers(n):
    """Threads for ``num_parallel_calls`` / ``cycle_length`` (AUTOTUNE: the CPU count)."""
    if n is None:
        return 1
    n = static_int(n, "num_parallel_calls")
    if n == AUTOTUNE:
        return max(1, os.cpu_count() or 1)
    if n <= 0:
        raise ValueError(f"`num_parallel_calls` must be positive or AUTOTUNE, got {n}")
    return n


class IndexPlan:
    """Random-access arrays (axis 0 = element) plus a function giving the element order as index chunks."""

    __slots__ = ("arrays", "n", "chunks")

    def __init__(self, arrays, n, chunks):
        self.arrays = arrays
        self.n = n
        self.chunks = chunks  # chunks(ictx) -> iterator of int64 index arrays

    def derive(self, chunks):
        return IndexPlan(self.arrays, self.n, chunks)

    def gather(self, idx):
        return tuple(a[idx] for a in self.arrays)


class UnaryDataset(DatasetV2):
    """A node with one input and (by default) the same element spec and cardinality."""

    def __init__(self, input_dataset, name=None):
        if not isinstance(input_dataset, DatasetV2):
            raise TypeError(f"Expected a `tf.data.Dataset`, got {type(input_dataset)}")
        self._input = input_dataset
        self._name = name

    def _inputs(self):
        return [self._input]

    def _card(self):
        return self._input._card()


# --- map / filter --------------------------------------------------------------------------------

class _MapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func, num_parallel_calls=None, deterministic=None, name=None):
        super().__init__(input_dataset, name)
        self._fn = DataFunction(map_func, input_dataset.element_spec, "map_func")
        self._parallel = num_parallel_calls
        self._deterministic = deterministic
        spec = self._fn.output_spec
        if spec is not None:
            self._set_spec(spec)

    def _resolve_spec(self):
        # the probe could not run the function on placeholder values: use the first real element
        from tensorlet._src.data.iterators import IterCtx

        ictx = IterCtx()
        try:
            for leaves in self._input._gen(ictx):
                self._set_spec(self._fn.spec_from_output(self._fn.call_structured(leaves)))
                return
        finally:
            ictx.close()
        self._set_spec(TensorSpec(None, _dt.float32))

    def _gen(self, ictx):
        fn = self._fn
        me = id(self)
        for leaves in self._input._gen(ictx):
            try:
                out = fn(leaves)
            except Exception:
                if me in ictx.ignore:
                    continue
                raise
            yield out


def MapDataset(input_dataset, map_func, num_parallel_calls=None, deterministic=None, name=None):
    if num_parallel_calls is None:
        return _MapDataset(input_dataset, map_func, name=name)
    from tensorlet._src.data.parallel import ParallelMapDataset

    return ParallelMapDataset(input_dataset, map_func, num_parallel_calls, deterministic, name=name)


_MapDataset.__name__ = _MapDataset.__qualname__ = "_MapDataset"


def _predicate_value(out, what="predicate"):
    if out.__class__ is EagerTensor:
        v = out._v
    elif isinstance(out, (bool, np.bool_)):
        return bool(out)
    else:
        v = to_leaf(out)
    if v.dtype != np.bool_ or v.ndim != 0:
        raise ValueError(f"Invalid `{what}`. `{what}` must return a `tf.bool` scalar tensor, but its return type "
                         f"is {TensorSpec(np.shape(v), _dt.from_numpy(v.dtype))}.")
    return bool(v)


class FilterDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate, name=None):
        super().__init__(input_dataset, name)
        self._fn = DataFunction(predicate, input_dataset.element_spec, "predicate")
        spec = self._fn.output_spec
        if spec is not None and not (isinstance(spec, TensorSpec) and spec.dtype is _dt.bool
                                     and spec.shape.rank in (0, None)):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {spec}.")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        call = self._fn.call_structured
        me = id(self)
        for leaves in self._input._gen(ictx):
            try:
                keep = _predicate_value(call(leaves))
            except Exception:
                if me in ictx.ignore:
                    continue
                raise
            if keep:
                yield leaves


FilterDataset.__name__ = FilterDataset.__qualname__ = "_FilterDataset"


class TakeWhileDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate, name=None):
        super().__init__(input_dataset, name)
        self._fn = DataFunction(predicate, input_dataset.element_spec, "predicate")
        spec = self._fn.output_spec
        if spec is not None and not (isinstance(spec, TensorSpec) and spec.dtype is _dt.bool
                                     and spec.shape.rank in (0, None)):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its "
                             f"return type is{spec}.")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        call = self._fn.call_structured
        for leaves in self._input._gen(ictx):
            if not _predicate_value(call(leaves)):
                return
            yield leaves


TakeWhileDataset.__name__ = TakeWhileDataset.__qualname__ = "_TakeWhileDataset"


# --- zip / concatenate --------------------------------------------------------------------------

class ZipDataset(DatasetV2):
    def __init__(self, datasets, name=None):
        if isinstance(datasets, list):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` "
                            "instead.")
        flat = S.dflatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV2):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects but encountered object of type {type(d)}.")
        self._datasets = flat
        self._set_spec(S.dpack(datasets, [d.element_spec for d in flat]))

    def _inputs(self):
        return list(self._datasets)

    def _card(self):
        cards = [d._card() for d in self._datasets]
        if any(c == UNKNOWN for c in cards):
            return UNKNOWN
        finite = [c for c in cards if c != INFINITE]
        return min(finite) if finite else INFINITE

    def _gen(self, ictx):
        gens = [d._gen(ictx) for d in self._datasets]
        if len(gens) == 2:
            for a, b in zip(*gens):
                yield a + b
            return
        for parts in zip(*gens):
            yield tuple(itertools.chain.from_iterable(parts))


ZipDataset.__name__ = ZipDataset.__qualname__ = "_ZipDataset"


def _relaxed_spec(specs, what):
    base = specs[0]
    for other in specs[1:]:
        if not S.same_structure(base, other):
            raise TypeError(f"Incompatible dataset elements:\n  {base} vs.   {other}")
        fa, fb = S.dflatten(base), S.dflatten(other)
        out = []
        for a, b in zip(fa, fb):
            r = a.most_specific_common_supertype([b]) if type(a) is type(b) else None
            if r is None:
                raise TypeError(f"Incompatible dataset elements:\n  {base} vs.   {other}")
            out.append(r)
        base = S.dpack(base, out)
    return base


class ConcatenateDataset(DatasetV2):
    def __init__(self, input_dataset, dataset_to_concatenate, name=None):
        self._a, self._b = input_dataset, dataset_to_concatenate
        self._set_spec(_relaxed_spec([input_dataset.element_spec, dataset_to_concatenate.element_spec],
                                     "concatenate"))

    def _inputs(self):
        return [self._a, self._b]

    def _card(self):
        a, b = self._a._card(), self._b._card()
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b

    def _gen(self, ictx):
        yield from self._a._gen(ictx)
        yield from self._b._gen(ictx)


ConcatenateDataset.__name__ = ConcatenateDataset.__qualname__ = "_ConcatenateDataset"


# --- take / skip / repeat / shard -------------------------------------------------------------------

class TakeDataset(UnaryDataset):
    def __init__(self, input_dataset, count, name=None):
        super().__init__(input_dataset, name)
        self._count = static_int(count, "count")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        n, k = self._input._card(), self._count
        if k < 0:
            return n
        if n == INFINITE:
            return k
        if n == UNKNOWN:
            return UNKNOWN if k > 0 else 0
        return min(n, k)

    def _gen(self, ictx):
        k = self._count
        if k < 0:
            yield from self._input._gen(ictx)
            return
        if k == 0:
            return
        gen = self._input._gen(ictx)
        for i, x in enumerate(gen, 1):
            yield x
            if i >= k:
                getattr(gen, "close", _noop)()
                return

    def _index_plan(self):
        plan = self._input._index_plan()
        if plan is None:
            return None
        k = self._count

        def chunks(ictx):
            left = k
            if left < 0:
                yield from plan.chunks(ictx)
                return
            for c in plan.chunks(ictx):
                if left <= 0:
                    return
                if len(c) > left:
                    c = c[:left]
                left -= len(c)
                yield c

        return plan.derive(chunks)


TakeDataset.__name__ = TakeDataset.__qualname__ = "_TakeDataset"


class SkipDataset(UnaryDataset):
    def __init__(self, input_dataset, count, name=None):
        super().__init__(input_dataset, name)
        self._count = static_int(count, "count")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        n, k = self._input._card(), self._count
        if k < 0:
            return 0 if n != INFINITE else INFINITE
        if n in (INFINITE, UNKNOWN):
            return n
        return max(0, n - k)

    def _gen(self, ictx):
        k = self._count
        gen = self._input._gen(ictx)
        if k < 0:
            for _ in gen:
                pass
            return
        for _ in itertools.islice(gen, k):
            pass
        yield from gen

    def _index_plan(self):
        plan = self._input._index_plan()
        if plan is None:
            return None
        k = self._count

        def chunks(ictx):
            if k < 0:
                return
            left = k
            for c in plan.chunks(ictx):
                if left > 0:
                    if len(c) <= left:
                        left -= len(c)
                        continue
                    c = c[left:]
                    left = 0
                yield c

        return plan.derive(chunks)


SkipDataset.__name__ = SkipDataset.__qualname__ = "_SkipDataset"


class RepeatDataset(UnaryDataset):
    def __init__(self, input_dataset, count=None, name=None):
        super().__init__(input_dataset, name)
        self._count = -1 if count is None else static_int(count, "count")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        n, c = self._input._card(), self._count
        if c == 0 or n == 0:
            return 0
        if c < 0:
            return INFINITE
        if n in (INFINITE, UNKNOWN):
            return n
        return n * c

    def _gen(self, ictx):
        c = self._count
        epoch = 0
        while c < 0 or epoch < c:
            produced = False
            for x in self._input._gen(ictx):
                produced = True
                yield x
            epoch += 1
            if not produced and c < 0:
                return  # an empty input repeated forever is empty (TF's behaviour)

    def _index_plan(self):
        plan = self._input._index_plan()
        if plan is None:
            return None
        c = self._count

        def chunks(ictx):
            epoch = 0
            while c < 0 or epoch < c:
                produced = False
                for ch in plan.chunks(ictx):
                    if len(ch):
                        produced = True
                        yield ch
                epoch += 1
                if not produced and c < 0:
                    return

        return plan.derive(chunks)


RepeatDataset.__name__ = RepeatDataset.__qualname__ = "_RepeatDataset"


class ShardDataset(UnaryDataset):
    def __init__(self, input_dataset, num_shards, index, name=None):
        super().__init__(input_dataset, name)
        self._n = static_int(num_shards, "num_shards")
        self._i = static_int(index, "index")
        if self._n <= 0:
            raise errors.InvalidArgumentError(None, None, f"Number of shards must be greater than zero "
                                                          f"(currently num_shards = {self._n}).")
        if not 0 <= self._i < self._n:
            raise errors.InvalidArgumentError(None, None, f"Index must be between 0 and {self._n - 1} "
                                                          f"(currently index = {self._i}).")
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        n = self._input._card()
        if n in (INFINITE, UNKNOWN):
            return n
        return n // self._n + (1 if self._i < n % self._n else 0)

    def _gen(self, ictx):
        return itertools.islice(self._input._gen(ictx), self._i, None, self._n)

    def _index_plan(self):
        plan = self._input._index_plan()
        if plan is None:
            return None
        n, i0 = self._n, self._i

        def chunks(ictx):
            pos = 0
            for c in plan.chunks(ictx):
                first = (i0 - pos) % n
                sel = c[first::n]
                pos += len(c)
                if len(sel):
                    yield sel

        return plan.derive(chunks)


ShardDataset.__name__ = ShardDataset.__qualname__ = "_ShardDataset"


# --- scan / reduce ------------------------------------------------------------------------------

def _state_leaves(state):
    _, leaves = _normalize(state)
    return leaves


def _normalize(value):
    from tensorlet._src.data.dataset_ops import normalize

    return normalize(value)


class ScanDataset(UnaryDataset):
    def __init__(self, input_dataset, initial_state, scan_func, name=None):
        super().__init__(input_dataset, name)
        template, leaves = _normalize(initial_state)
        self._state_template = template
        self._init_leaves = leaves
        state_spec = S.dpack(template, [leaf_spec(v) for v in leaves])
        self._fn = DataFunction(scan_func, (state_spec, input_dataset.element_spec), "scan_func")
        spec = self._fn.output_spec
        if spec is not None:
            if not (isinstance(spec, tuple) and len(spec) == 2):
                raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and "
                                f"the output value but its return type is {spec}.")
            self._set_spec(spec[1])

    def _resolve_spec(self):
        self._set_spec(TensorSpec(None, _dt.float32))

    def _gen(self, ictx):
        state_leaves = list(self._init_leaves)
        call = self._fn.call_structured
        for leaves in self._input._gen(ictx):
            out = call(tuple(state_leaves) + tuple(leaves))
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError("The scan function must return a pair comprising the new state and the output "
                                "value.")
            new_state, value = out
            state_leaves = [to_leaf(v) for v in S.dflatten(new_state)]
            yield tuple(to_leaf(v) for v in S.dflatten(value))


ScanDataset.__name__ = ScanDataset.__qualname__ = "_ScanDataset"


def reduce_dataset(dataset, initial_state, reduce_func):
    """``Dataset.reduce``: fold all elements into the state; returns the state as tensors."""
    from tensorlet._src.data.iterators import IterCtx

    template, leaves = _normalize(initial_state)
    state_spec = S.dpack(template, [leaf_spec(v) for v in leaves])
    fn = DataFunction(reduce_func, (state_spec, dataset.element_spec), "reduce_func")
    state = list(leaves)
    ictx = IterCtx()
    try:
        for el in dataset._gen(ictx):
            out = fn.call_structured(tuple(state) + tuple(el))
            new = [to_leaf(v) for v in S.dflatten(out)]
            if len(new) != len(state):
                raise TypeError(f"The element types for the new state must match the initial state. Expected "
                                f"{state_spec}; got {out}.")
            for a, b in zip(state, new):
                if not isinstance(a, DatasetV2) and a.dtype != b.dtype:
                    raise TypeError(f"The element types for the new state must match the initial state. Expected "
                                    f"{state_spec}; got {S.dpack(template, [leaf_spec(v) for v in new])}.")
            state = new
    finally:
        ictx.close()
    return S.dpack(template, [wrap_leaf(v) for v in state])


# --- unique / ignore_errors / options ---------------------------------------------------------------

class UniqueDataset(UnaryDataset):
    def __init__(self, input_dataset, name=None):
        super().__init__(input_dataset, name)
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype not in (_dt.int32, _dt.int64, _dt.string):
            dt = spec.dtype if isinstance(spec, TensorSpec) else type(spec)
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {dt} -- only `tf.int32`, `tf.int64`, "
                            f"and `tf.string` are supported.")
        self._set_spec(spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        seen = set()
        for leaves in self._input._gen(ictx):
            v = leaves[0]
            key = v.tobytes() + repr(v.shape).encode() if v.dtype != object else (b"s", v.shape, tuple(v.ravel()))
            if key not in seen:
                seen.add(key)
                yield leaves


UniqueDataset.__name__ = UniqueDataset.__qualname__ = "_UniqueDataset"


class IgnoreErrorsDataset(UnaryDataset):
    """Drops elements whose computation upstream raised (map/filter/batch/reader errors)."""

    def __init__(self, input_dataset, log_warning=False, name=None):
        super().__init__(input_dataset, name)
        self._log = log_warning
        self._set_spec(input_dataset.element_spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        ictx.ignore.update(id(d) for d in self._input._upstream_chain())
        gen = self._input._gen(ictx)
        while True:
            try:
                x = next(gen)
            except StopIteration:
                return
            except Exception as e:  # a source that raised cannot continue: end here, as TF's ended input does
                if self._log:
                    import logging

                    logging.getLogger("tensorlet").warning("Ignoring error: %s", e)
                return
            yield x


IgnoreErrorsDataset.__name__ = IgnoreErrorsDataset.__qualname__ = "_IgnoreErrorsDataset"


class OptionsDataset(UnaryDataset):
    def __init__(self, input_dataset, options, name=None):
        from tensorlet._src.data.options import Options

        super().__init__(input_dataset, name)
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {type(options)}")
        self._options_ = options
        self._set_spec(input_dataset.element_spec)

    def _gen(self, ictx):
        return self._input._gen(ictx)

    def _index_plan(self):
        return self._input._index_plan()


OptionsDataset.__name__ = OptionsDataset.__qualname__ = "_OptionsDataset"


# --- flat_map / interleave ----------------------------------------------------------------------

def _dataset_fn(map_func, input_spec, name="map_func"):
    fn = DataFunction(map_func, input_spec, name)
    spec = fn.output_spec
    if spec is not None and not isinstance(spec, DatasetSpec):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {_type_name(spec)}.")
    return fn, (spec.element_spec if spec is not None else None)


def _type_name(spec):
    return "<class 'tensorflow.python.framework.tensor.Tensor'>" if isinstance(spec, TensorSpec) else str(type(spec))


def _call_dataset_fn(fn, leaves):
    out = fn.call_structured(leaves)
    if not isinstance(out, DatasetV2):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(out)}.")
    return out


class _FromFunctionSpec(UnaryDataset):
    """Shared: element spec from the datasets ``map_func`` returns (resolved on a real element if needed)."""

    def _resolve_spec(self):
        from tensorlet._src.data.iterators import IterCtx

        ictx = IterCtx()
        try:
            for leaves in self._input._gen(ictx):
                self._set_spec(_call_dataset_fn(self._fn, leaves).element_spec)
                return
        finally:
            ictx.close()
        self._set_spec(TensorSpec(None, _dt.float32))

    def _card(self):
        return UNKNOWN


class FlatMapDataset(_FromFunctionSpec):
    def __init__(self, input_dataset, map_func, name=None):
        super().__init__(input_dataset, name)
        self._fn, spec = _dataset_fn(map_func, input_dataset.element_spec)
        if spec is not None:
            self._set_spec(spec)

    def _gen(self, ictx):
        for leaves in self._input._gen(ictx):
            yield from _call_dataset_fn(self._fn, leaves)._gen(ictx)


FlatMapDataset.__name__ = FlatMapDataset.__qualname__ = "_FlatMapDataset"


class _InterleaveDataset(_FromFunctionSpec):
    def __init__(self, input_dataset, map_func, cycle_length=None, block_length=None, name=None):
        super().__init__(input_dataset, name)
        self._fn, spec = _dataset_fn(map_func, input_dataset.element_spec)
        if spec is not None:
            self._set_spec(spec)
        cl = AUTOTUNE if cycle_length is None else static_int(cycle_length, "cycle_length")
        self._cycle = num_workers(cl) if cl == AUTOTUNE else cl
        self._block = 1 if block_length is None else static_int(block_length, "block_length")
        if self._cycle <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        if self._block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")

    def _open(self, leaves, ictx):
        return _call_dataset_fn(self._fn, leaves)._gen(ictx)

    def _gen(self, ictx):
        """TF's interleave order: cycle over ``cycle_length`` open iterators, ``block_length`` from each."""
        cycle, block = self._cycle, self._block
        slots = [None] * cycle
        inp = self._input._gen(ictx)
        end_of_input = False
        num_open = 0
        ci = bi = 0
        while not end_of_input or num_open > 0:
            cur = slots[ci]
            if cur is not None:
                try:
                    x = next(cur)
                except StopIteration:
                    slots[ci] = None
                    num_open -= 1
                    ci, bi = (ci + 1) % cycle, 0
                    continue
                bi += 1
                if bi == block:
                    ci, bi = (ci + 1) % cycle, 0
                yield x
            elif not end_of_input:
                try:
                    leaves = next(inp)
                except StopIteration:
                    end_of_input = True
                    continue
                slots[ci] = self._open(leaves, ictx)
                num_open += 1
            else:
                ci, bi = (ci + 1) % cycle, 0


_InterleaveDataset.__name__ = _InterleaveDataset.__qualname__ = "_InterleaveDataset"


def InterleaveDataset(input_dataset, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                      deterministic=None, name=None):
    if num_parallel_calls is None:
        return _InterleaveDataset(input_dataset, map_func, cycle_length, block_length, name)
    from tensorlet._src.data.parallel import ParallelInterleaveDataset

    return ParallelInterleaveDataset(input_dataset, map_func, cycle_length, block_length, num_parallel_calls,
                                     deterministic, name)


class DirectedInterleaveDataset(DatasetV2):
    """Element i from ``datasets[selector_i]`` (TF's DirectedInterleave: exhausted inputs are skipped)."""

    def __init__(self, selector_input, data_inputs, stop_on_empty_dataset=False):
        data_inputs = list(data_inputs)
        if not data_inputs:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if not isinstance(selector_input, DatasetV2):
            raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
                            f"{type(selector_input)}.")
        sel = selector_input.element_spec
        if not (isinstance(sel, TensorSpec) and sel.dtype is _dt.int64 and sel.shape.is_compatible_with([])):
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                            f"tensors but are {sel}.")
        self._selector = selector_input
        self._data = data_inputs
        self._stop = bool(stop_on_empty_dataset)
        self._set_spec(_relaxed_spec([d.element_spec for d in data_inputs], "datasets"))

    def _inputs(self):
        return [self._selector] + self._data

    def _gen(self, ictx):
        gens = [d._gen(ictx) for d in self._data]
        active = len(gens)
        n = len(gens)
        for (sel,) in self._selector._gen(ictx):
            i = int(sel)
            if i < 0 or i >= n:
                raise errors.InvalidArgumentError(None, None, f"Selector index out of range: {i} >= {n}")
            g = gens[i]
            if g is None:
                continue
            try:
                yield next(g)
                continue
            except StopIteration:
                pass
            if self._stop:
                return
            gens[i] = None
            active -= 1
            if active == 0:
                return


DirectedInterleaveDataset.__name__ = DirectedInterleaveDataset.__qualname__ = "_DirectedInterleaveDataset"


def _noop():
    pass
