"""Batching: ``batch`` (with the fused gather fast path), ``padded_batch``, ``unbatch``, ``rebatch``, ``window``,
``group_by_window`` and ``bucket_by_sequence_length``.

``batch`` over an index plan (``from_tensor_slices`` -> shuffle/take/skip/shard/repeat) gathers each batch
with one NumPy fancy-index per component instead of stacking elements: same elements, same order.

>>> [b.numpy().tolist() for b in tf.data.Dataset.range(5).batch(2, drop_remainder=True)]
[[0, 1], [2, 3]]
"""

from __future__ import annotations

import bisect
import itertools

import numpy as np

from tensorlet._src.data import composite
from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetSpec, DatasetV2, static_int, to_leaf
from tensorlet._src.data.functions import DataFunction
from tensorlet._src.data.sources import _rows
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.data.transformations import UnaryDataset
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape

__all__ = ["BatchDataset", "PaddedBatchDataset", "UnbatchDataset", "RebatchDataset", "WindowDataset",
           "GroupByWindowDataset", "bucket_by_sequence_length", "ElementsDataset"]


def _batch_size(b):
    b = static_int(b, "batch_size")
    if b <= 0:
        raise errors.InvalidArgumentError(None, "BatchDatasetV2", "Batch size must be greater than zero.")
    return b


def _batched_card(n, b, drop):
    if n in (INFINITE, UNKNOWN):
        return n
    return n // b if drop else -(-n // b)


def stack_batch(buf, what="batch", specs=None):
    """Stack a list of flat elements component-wise (TF's error for mismatched shapes); composite components
    (``specs``: the flat element spec) batch as RaggedTensors / SparseTensors."""
    out = []
    for j, col in enumerate(zip(*buf)):
        if isinstance(col[0], DatasetV2):
            raise TypeError("tensorlet cannot batch nested datasets; use `flat_map` first.")
        if specs is not None and composite.is_composite_spec(specs[j]):
            out.append(composite.batch(col, specs[j], j))
            continue
        try:
            out.append(np.stack(col))
        except ValueError:
            s0 = np.shape(col[0])
            for i, c in enumerate(col):
                if np.shape(c) != s0:
                    raise errors.InvalidArgumentError(
                        None, "IteratorGetNext",
                        f"Cannot batch tensors with different shapes in component {j}. First element had shape "
                        f"{errors.shape_str(s0)} and element {i} had shape {errors.shape_str(np.shape(c))}.") from None
            raise
    return tuple(out)


class _BatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder=False, num_parallel_calls=None, name=None):
        super().__init__(input_dataset, name)
        self._bs = _batch_size(batch_size)
        self._drop = bool(drop_remainder.numpy() if isinstance(drop_remainder, Tensor) else drop_remainder)
        dim = self._bs if self._drop else None
        self._set_spec(S.dmap(lambda s: s._batch(dim), input_dataset.element_spec))

    def _card(self):
        return _batched_card(self._input._card(), self._bs, self._drop)

    def _gen(self, ictx):
        plan = self._input._index_plan()
        if plan is not None:
            return self._gen_plan(plan, ictx)
        from tensorlet._src.data.map_batch import fused_gen

        fused = fused_gen(self, ictx)  # map(f).batch(n): f once per batch (TF's map_and_batch_fusion)
        if fused is not None:
            return fused
        return self._gen_elements(ictx)

    def _gen_elements(self, ictx):
        b, drop, me = self._bs, self._drop, id(self)
        specs = _composite_specs(self._input)
        buf = []
        for leaves in self._input._gen(ictx):
            buf.append(leaves)
            if len(buf) == b:
                try:
                    out = stack_batch(buf, specs=specs)
                except errors.OpError:
                    if me in ictx.ignore:
                        buf = []
                        continue
                    raise
                buf = []
                yield out
        if buf and not drop:
            yield stack_batch(buf, specs=specs)

    def _gen_plan(self, plan, ictx):
        b, drop = self._bs, self._drop
        arrays = plan.arrays
        cur = None
        for c in plan.chunks(ictx):
            cur = c if cur is None or not len(cur) else np.concatenate([cur, c])
            n = len(cur)
            k = 0
            while n - k >= b:
                idx = cur[k:k + b]
                k += b
                yield tuple([a[idx] for a in arrays])
            cur = cur[k:]
        if cur is not None and len(cur) and not drop:
            yield tuple([a[cur] for a in arrays])


_BatchDataset.__name__ = _BatchDataset.__qualname__ = "_BatchDataset"


def _composite_specs(ds):
    """The flat element spec of ``ds`` when it has composite components (else None: the plain path)."""
    flat = list(ds._flat_spec())
    return flat if any(composite.is_composite_spec(s) for s in flat) else None


class DenseToRaggedDataset(UnaryDataset):
    """TF's ``dense_to_ragged``: components whose shape is not fully defined are re-encoded as RaggedTensors
    (ragged_rank: their last unknown axis), so elements of different shapes can be batched."""

    def __init__(self, input_dataset, row_splits_dtype=_dt.int64, name=None):
        super().__init__(input_dataset, name)
        rsd = _dt.as_dtype(row_splits_dtype)
        self._set_spec(S.dmap(lambda s: composite.to_ragged_spec(s, rsd), input_dataset.element_spec))

    def _card(self):
        return self._input._card()

    def _gen(self, ictx):
        specs = self._flat
        for leaves in self._input._gen(ictx):
            yield tuple(composite.to_ragged_value(v, s) for v, s in zip(leaves, specs))


DenseToRaggedDataset.__name__ = DenseToRaggedDataset.__qualname__ = "_DenseToRaggedDataset"


class _ParallelBatchDataset(_BatchDataset):
    pass


_ParallelBatchDataset.__name__ = _ParallelBatchDataset.__qualname__ = "_ParallelBatchDataset"


def BatchDataset(input_dataset, batch_size, drop_remainder=False, num_parallel_calls=None, name=None):
    cls = _BatchDataset if num_parallel_calls is None else _ParallelBatchDataset
    return cls(input_dataset, batch_size, drop_remainder, num_parallel_calls, name)


# --- padded_batch -------------------------------------------------------------------------------

def _default_pad(dtype):
    if dtype is _dt.string:
        return np.asarray(b"", dtype=object)
    return np.zeros((), dtype._np)


def _pad_value(v, dtype):
    if v is None:
        return _default_pad(dtype)
    a = to_leaf(v)
    if np.ndim(a) != 0:
        raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, but got {v!r}.")
    if _dt.from_numpy(a.dtype) is not dtype:
        if dtype is _dt.string or a.dtype == object:
            raise TypeError(f"Invalid `padding_values`. `padding_values` values should have the same dtype as the "
                            f"corresponding element components ({dtype.name}), but got {v!r}.")
        a = np.asarray(a).astype(dtype._np)
    return a


class PaddedBatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
                 name=None):
        super().__init__(input_dataset, name)
        self._bs = _batch_size(batch_size)
        self._drop = bool(drop_remainder)
        spec = input_dataset.element_spec
        flat = S.dflatten(spec)
        for s in flat:
            if not isinstance(s, TensorSpec):
                raise TypeError("`padded_batch` is only supported for datasets that produce tensor elements but "
                                "type spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{s}`.")
        if padded_shapes is None:
            shapes = []
            for s in flat:
                if s.shape.rank is None:
                    raise ValueError("You must provide `padded_shapes` argument because component 0 has unknown "
                                     "rank.")
                shapes.append(TensorShape([None] * s.shape.rank))
        else:
            shapes = [TensorShape(_shape_value(p)) for p in _flatten_like(spec, padded_shapes)]
            for s, p in zip(flat, shapes):
                if not s.shape.is_compatible_with(TensorShape([None] * p.rank) if p.rank is not None else p):
                    raise ValueError(f"The padded shape {p} is not compatible with the shape {s.shape} of the "
                                     f"corresponding input component.")
        if padding_values is None:
            pads = [None] * len(flat)
        elif not S.is_struct(padding_values) and S.is_struct(spec):
            pads = [padding_values] * len(flat)
        else:
            pads = _flatten_like(spec, padding_values)
        self._pads = [_pad_value(v, s.dtype) for v, s in zip(pads, flat)]
        self._shapes = shapes
        dim = self._bs if self._drop else None
        out = []
        for s, p in zip(flat, shapes):
            if p.rank is not None and s.shape.rank is not None:
                out.append(TensorSpec._make(TensorShape([dim] + list(p)), s.dtype))
            else:
                out.append(TensorSpec._make(TensorShape(None), s.dtype))
        self._set_spec(S.dpack(spec, out))

    def _card(self):
        return _batched_card(self._input._card(), self._bs, self._drop)

    def _pad(self, buf):
        out = []
        for j, col in enumerate(zip(*buf)):
            target = self._shapes[j]
            rank = np.ndim(col[0])
            dims = []
            for d in range(rank):
                m = max(np.shape(c)[d] for c in col)
                want = target[d] if target.rank is not None else None
                if want is not None and m > want:
                    raise errors.DataLossError(None, "IteratorGetNext",
                                               "Attempted to pad to a smaller size than the input element.")
                dims.append(m if want is None else want)
            pad = self._pads[j]
            arr = np.empty([len(col)] + dims, dtype=pad.dtype)
            arr[...] = pad
            for i, c in enumerate(col):
                if np.ndim(c) != rank:
                    raise errors.InvalidArgumentError(None, "IteratorGetNext", f"All elements in a batch must have the "
                                                      f"same rank as the padded shape for component{j}: expected "
                                                      f"rank {rank} but got element with rank {np.ndim(c)}")
                arr[(slice(i, i + 1),) + tuple(slice(0, s) for s in np.shape(c))] = np.asarray(c)[None]
            out.append(arr)
        return tuple(out)

    def _gen(self, ictx):
        b = self._bs
        buf = []
        for leaves in self._input._gen(ictx):
            buf.append(leaves)
            if len(buf) == b:
                yield self._pad(buf)
                buf = []
        if buf and not self._drop:
            yield self._pad(buf)


PaddedBatchDataset.__name__ = PaddedBatchDataset.__qualname__ = "_PaddedBatchDataset"


def _shape_value(p):
    if isinstance(p, Tensor):
        p = p.numpy().tolist()
    if isinstance(p, TensorShape):
        return p
    if isinstance(p, (list, tuple, np.ndarray)):
        return [None if (d is None or (not isinstance(d, type(None)) and int(d) == -1)) else int(d) for d in p]
    return p


def _flatten_like(spec, value):
    """Leaves of ``value`` aligned with ``spec``'s leaves; shape-like lists/tuples stay leaves."""
    if not S.is_struct(spec):
        return [value]
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise ValueError(f"The two structures don't have the same nested structure: {spec} vs {value}")
        out = []
        for s, v in zip(spec, value):
            out.extend(_flatten_like(s, v))
        return out
    out = []
    for k in S._keys(spec):
        out.extend(_flatten_like(spec[k], value[k]))
    return out


# --- unbatch / rebatch ----------------------------------------------------------------------------

class UnbatchDataset(UnaryDataset):
    def __init__(self, input_dataset, name=None):
        super().__init__(input_dataset, name)
        flat = S.dflatten(input_dataset.element_spec)
        lead = None
        for s in flat:
            if s.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
            d = s.shape[0] if s.shape.rank else None
            if d is not None:
                if lead is not None and d != lead:
                    raise ValueError(f"`unbatch()` is only supported for datasets of elements whose components have "
                                     f"a matching leading dimension. Encountered both {lead} and {d}.")
                lead = d
        self._set_spec(S.dmap(lambda s: s._unbatch(), input_dataset.element_spec))

    def _card(self):
        n = self._input._card()
        return INFINITE if n == INFINITE else UNKNOWN

    def _gen(self, ictx):
        specs = _composite_specs(self._input)
        if specs is not None:
            yield from self._gen_composite(ictx, specs)
            return
        for leaves in self._input._gen(ictx):
            n = np.shape(leaves[0])[0]
            for v in leaves[1:]:
                if np.shape(v)[0] != n:
                    raise errors.InvalidArgumentError(None, "IteratorGetNext",
                                                      "Input element must have the same batch size in each "
                                                      "component. Component 0 had size " f"{n} but component had "
                                                      f"size {np.shape(v)[0]}.")
            if len(leaves) == 1:
                for x in _rows(leaves[0]):
                    yield (x,)
            else:
                yield from zip(*[_rows(a) for a in leaves])

    def _gen_composite(self, ictx, specs):
        for leaves in self._input._gen(ictx):
            cols = [composite.rows(v, s) if composite.is_composite_spec(s) else list(_rows(v))
                    for v, s in zip(leaves, specs)]
            n = len(cols[0])
            for c in cols[1:]:
                if len(c) != n:
                    raise errors.InvalidArgumentError(None, "IteratorGetNext",
                                                      "Input element must have the same batch size in each "
                                                      f"component. Component 0 had size {n} but component had "
                                                      f"size {len(c)}.")
            yield from zip(*cols)


UnbatchDataset.__name__ = UnbatchDataset.__qualname__ = "_UnbatchDataset"


class RebatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder=False, name=None):
        super().__init__(input_dataset, name)
        if isinstance(batch_size, Tensor):
            batch_size = batch_size.numpy().tolist()
        sizes = list(batch_size) if isinstance(batch_size, (list, tuple, np.ndarray)) else [batch_size]
        self._sizes = [_batch_size(s) for s in sizes]
        self._drop = bool(drop_remainder)
        single = not isinstance(batch_size, (list, tuple, np.ndarray))
        dim = self._sizes[0] if (self._drop and single) else None
        self._unbatched = UnbatchDataset(input_dataset)
        self._set_spec(S.dmap(lambda s: s._unbatch()._batch(dim), input_dataset.element_spec))

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        sizes = itertools.cycle(self._sizes)
        b = next(sizes)
        buf = []
        specs = _composite_specs(self._unbatched)
        for leaves in self._unbatched._gen(ictx):
            buf.append(leaves)
            if len(buf) == b:
                yield stack_batch(buf, specs=specs)
                buf = []
                b = next(sizes)
        if buf and not self._drop:
            yield stack_batch(buf, specs=specs)


RebatchDataset.__name__ = RebatchDataset.__qualname__ = "_RebatchDataset"


# --- window -----------------------------------------------------------------------------------------

class ElementsDataset(DatasetV2):
    """A finite dataset of given flat elements (windows and groups)."""

    def __init__(self, elements, spec):
        self._elements = elements
        self._set_spec(spec)

    def _card(self):
        return len(self._elements)

    def _gen(self, ictx):
        return iter(self._elements)


ElementsDataset.__name__ = ElementsDataset.__qualname__ = "_TensorSliceDataset"


class WindowDataset(UnaryDataset):
    def __init__(self, input_dataset, size, shift=None, stride=1, drop_remainder=False, name=None):
        super().__init__(input_dataset, name)
        self._size = static_int(size, "size")
        self._shift = self._size if shift is None else static_int(shift, "shift")
        self._stride = static_int(stride, "stride")
        self._drop = bool(drop_remainder)
        if self._size <= 0:
            raise errors.InvalidArgumentError(None, "WindowDataset", "Window size must be greater than zero.")
        if self._shift <= 0:
            raise errors.InvalidArgumentError(None, "WindowDataset", "Window shift must be greater than zero.")
        if self._stride <= 0:
            raise errors.InvalidArgumentError(None, "WindowDataset", "Window stride must be greater than zero.")
        spec = input_dataset.element_spec
        self._leaf_specs = S.dflatten(spec)
        self._set_spec(S.dmap(lambda s: DatasetSpec(s), spec))

    def _card(self):
        n = self._input._card()
        if n in (INFINITE, UNKNOWN):
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _gen(self, ictx):
        size, shift, stride, drop = self._size, self._shift, self._stride, self._drop
        span = (size - 1) * stride + 1
        inp = self._input._gen(ictx)
        buf = []  # elements from position `base`
        base = 0
        exhausted = False
        start = 0
        while True:
            while not exhausted and base + len(buf) < start + span:
                try:
                    buf.append(next(inp))
                except StopIteration:
                    exhausted = True
            if start >= base + len(buf):
                return
            pos = range(start - base, min(start - base + span, len(buf)), stride)
            win = [buf[p] for p in pos]
            if len(win) < size and drop:
                return
            yield tuple(ElementsDataset([(e[j],) for e in win], s) for j, s in enumerate(self._leaf_specs))
            start += shift
            drop_n = min(len(buf), start - base)
            if drop_n > 0:
                del buf[:drop_n]
                base += drop_n


WindowDataset.__name__ = WindowDataset.__qualname__ = "_WindowDataset"


# --- group_by_window / bucket_by_sequence_length -------------------------------------------------------

def _scalar_int(v, what):
    a = to_leaf(v)
    if np.ndim(a) != 0 or a.dtype.kind not in "iu":
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single tf.int64 scalar tensor but its return "
                         f"type is {TensorSpec(np.shape(a), _dt.from_numpy(a.dtype))}.")
    return int(a)


class GroupByWindowDataset(UnaryDataset):
    def __init__(self, input_dataset, key_func, reduce_func, window_size=None, window_size_func=None, name=None,
                 spec_keys=None):
        super().__init__(input_dataset, name)
        self._spec_keys = spec_keys
        if (window_size is None) == (window_size_func is None):
            if window_size is None:
                raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                                 "specified.")
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified, but not both.")
        spec = input_dataset.element_spec
        self._key_fn = DataFunction(key_func, spec, "key_func")
        if window_size is not None:
            ws = static_int(window_size, "window_size")
            self._ws_fn = lambda key: ws
        else:
            f = DataFunction(window_size_func, TensorSpec([], _dt.int64), "window_size_func")
            self._ws_fn = lambda key: _scalar_int(f.call_structured((np.int64(key),)), "window_size_func")
        self._reduce_fn = DataFunction(reduce_func, (TensorSpec([], _dt.int64), DatasetSpec(spec)), "reduce_func")
        out = self._reduce_fn.output_spec if spec_keys is None else None
        if out is not None:
            if not isinstance(out, DatasetSpec):
                raise TypeError(f"Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object "
                                f"but its return type is {out}.")
            self._set_spec(out.element_spec)

    def _resolve_spec(self):
        from tensorlet._src.data.transformations import _relaxed_spec

        specs = []
        for k in (self._spec_keys if self._spec_keys is not None else [0]):
            try:
                specs.append(self._reduce(k, []).element_spec)
            except Exception:  # noqa: BLE001 - a key the reduce function rejects does not shape the spec
                continue
        self._set_spec(_relaxed_spec(specs, "reduce_func") if specs else self._input.element_spec)

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _reduce(self, key, elems):
        ds = self._reduce_fn.call_structured((np.int64(key), ElementsDataset(elems, self._input.element_spec)))
        if not isinstance(ds, DatasetV2):
            raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object.")
        return ds

    def _gen(self, ictx):
        groups = {}
        sizes = {}
        for leaves in self._input._gen(ictx):
            key = _scalar_int(self._key_fn.call_structured(leaves), "key_func")
            g = groups.get(key)
            if g is None:
                g = groups[key] = []
                sizes[key] = self._ws_fn(key)
            g.append(leaves)
            if len(g) >= sizes[key]:
                del groups[key]
                yield from self._reduce(key, g)._gen(ictx)
        for key in sorted(groups):
            yield from self._reduce(key, groups[key])._gen(ictx)


GroupByWindowDataset.__name__ = GroupByWindowDataset.__qualname__ = "_GroupByWindowDataset"


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                              no_padding=False, drop_remainder=False):
    """TF's bucketing: key = bucket of ``element_length_func(element)``; each bucket is (padded-)batched."""
    boundaries = [static_int(b, "bucket_boundaries") for b in bucket_boundaries]
    batch_sizes = [static_int(b, "bucket_batch_sizes") for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")
    if boundaries != sorted(boundaries):
        raise ValueError(f"`bucket_boundaries` must be a sorted list of integers, got {boundaries}.")
    length_fn = DataFunction(element_length_func, dataset.element_spec, "element_length_func")

    def key_func(*args):
        leaves = S.dflatten(args[0] if len(args) == 1 else args)
        n = _scalar_int(length_fn.call_structured([to_leaf(v) for v in leaves]), "element_length_func")
        return np.int64(bisect.bisect_right(boundaries, n))

    def window_size_func(bucket_id):
        return np.int64(batch_sizes[int(bucket_id)])

    def reduce_func(bucket_id, grouped):
        b = batch_sizes[int(bucket_id)]
        if no_padding:
            return grouped.batch(b, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if shapes is None:
            shapes = S.dmap(lambda s: TensorShape(s.shape), grouped.element_spec)
        if pad_to_bucket_boundary:
            i = int(bucket_id)
            if i >= len(boundaries):
                raise errors.InvalidArgumentError(None, None, "When pad_to_bucket_boundary=True, elements must have "
                                                              "length < max(bucket_boundaries).")
            fill = boundaries[i] - 1
            shapes = S.dmap(lambda s: TensorShape([fill if d is None else d for d in TensorShape(s)])
                            if TensorShape(s).rank is not None else s, shapes)
        return grouped.padded_batch(b, shapes, padding_values, drop_remainder=drop_remainder)

    return GroupByWindowDataset(dataset, key_func, reduce_func, window_size_func=window_size_func,
                                spec_keys=list(range(len(batch_sizes))))
