"""Dataset sources: ``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``, ``list_files``,
``counter``, ``experimental.from_list``.

>>> ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2], "y": [3., 4.]})
>>> ds.element_spec["x"]
TensorSpec(shape=(), dtype=tf.int32, name=None)
"""

from __future__ import annotations

import glob
import os

import numpy as np

from tensorlet._src.data import structure as S
from tensorlet._src.data.dataset_ops import UNKNOWN, DatasetV2, leaf_spec, normalize, static_int
from tensorlet._src.data.structure import TensorSpec
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.math_binary import cast

__all__ = ["TensorSliceDataset", "TensorDataset", "RangeDataset", "EmptyDataset", "from_generator", "list_files",
           "counter", "from_list"]

_CHUNK = 1 << 16


def _check_leaves(leaves):
    for v in leaves:
        if isinstance(v, DatasetV2):
            raise TypeError("Datasets cannot be elements of `from_tensors`/`from_tensor_slices`; use "
                            "`tf.data.Dataset.zip` or `flat_map`.")


class TensorSliceDataset(DatasetV2):
    """Slices along the first dimension; random access (an index plan) for fused shuffle/batch."""

    def __init__(self, tensors, name=None):
        from tensorlet._src.data.transformations import IndexPlan

        if tensors is None or (S.is_struct(tensors) and not S.dflatten(tensors)):
            raise ValueError("Invalid `element`. `element` should not be empty.")
        template, leaves = normalize(tensors)
        _check_leaves(leaves)
        if any(not isinstance(v, np.ndarray) for v in leaves):
            self._init_composite(template, leaves)
            return
        n = None
        for v in leaves:
            if v.ndim == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if n is None:
                n = v.shape[0]
            elif v.shape[0] != n:
                raise ValueError(f"Dimensions {n} and {v.shape[0]} are not compatible")
        self._arrays = [np.ascontiguousarray(v) for v in leaves]
        self._n = n
        self._set_spec(S.dpack(template, [leaf_spec(v)._unbatch() for v in self._arrays]))
        self._plan = IndexPlan(self._arrays, n, self._chunks)

    def _init_composite(self, template, leaves):
        """Slices of RaggedTensor / SparseTensor leaves (and tensors beside them): rows computed once, no index
        plan (batching them is composite batching, not a gather)."""
        from tensorlet._src.data import composite

        specs = [leaf_spec(v) for v in leaves]
        n = None
        for v, s in zip(leaves, specs):
            if isinstance(v, np.ndarray) and v.ndim == 0 or s.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            k = v.shape[0] if isinstance(v, np.ndarray) else composite.num_rows(v, s)
            if n is None:
                n = k
            elif k != n:
                raise ValueError(f"Dimensions {n} and {k} are not compatible")
        self._rows = [list(_rows(v)) if isinstance(v, np.ndarray) else composite.rows(v, s)
                      for v, s in zip(leaves, specs)]
        self._arrays = None
        self._n = n
        self._set_spec(S.dpack(template, [s._unbatch() for s in specs]))
        self._plan = None

    def _card(self):
        return self._n

    def _chunks(self, ictx):
        n = self._n
        for s in range(0, n, _CHUNK):
            yield np.arange(s, min(n, s + _CHUNK), dtype=np.int64)

    def _index_plan(self):
        return self._plan

    def _gen(self, ictx):
        arrays = self._arrays
        its = [_rows(a) for a in arrays] if arrays is not None else [iter(r) for r in self._rows]
        if len(its) == 1:
            for x in its[0]:
                yield (x,)
        else:
            yield from zip(*its)


def _rows(a):
    """Row views of ``a`` as valid tensor values (0-d object arrays for strings, not bare ``bytes``)."""
    if a.dtype == object and a.ndim == 1:
        return (a[i, ...] for i in range(a.shape[0]))
    return iter(a)


TensorSliceDataset.__name__ = TensorSliceDataset.__qualname__ = "_TensorSliceDataset"


class TensorDataset(DatasetV2):
    def __init__(self, tensors, name=None):
        if tensors is None or (S.is_struct(tensors) and not S.dflatten(tensors)):
            raise ValueError("Invalid `element`. `element` should not be empty.")
        template, leaves = normalize(tensors)
        self._leaves = tuple(leaves)
        self._set_spec(S.dpack(template, [leaf_spec(v) for v in leaves]))

    def _card(self):
        return 1

    def _gen(self, ictx):
        yield self._leaves


TensorDataset.__name__ = TensorDataset.__qualname__ = "_TensorDataset"


class EmptyDataset(DatasetV2):
    """No elements, given spec (placeholders for nested datasets while probing functions)."""

    def __init__(self, element_spec):
        self._set_spec(element_spec)

    def _card(self):
        return 0

    def _gen(self, ictx):
        return iter(())


EmptyDataset.__name__ = EmptyDataset.__qualname__ = "_TensorSliceDataset"


class RangeDataset(DatasetV2):
    def __init__(self, *args, output_type=_dt.int64, name=None, **kwargs):
        if kwargs:
            raise TypeError(f"Unexpected keyword arguments: {sorted(kwargs)}")
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        vals = [static_int(a, "args") for a in args]
        start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
        if step == 0:
            raise errors.InvalidArgumentError(None, "RangeDataset", "step must be a non-zero integer.")
        self._start, self._stop, self._step = start, stop, step
        self._dtype = _dt.as_dtype(output_type)
        self._set_spec(TensorSpec([], self._dtype))

    def _card(self):
        a, b, s = self._start, self._stop, self._step
        if s > 0:
            return max(0, (b - a + s - 1) // s)
        return max(0, (a - b - s - 1) // -s)

    def _gen(self, ictx):
        a, s = self._start, self._step
        np_dt = self._dtype._np
        n = self._card()
        for k in range(0, n, _CHUNK):
            m = min(_CHUNK, n - k)
            base = a + k * s
            chunk = (base + np.arange(m, dtype=np.int64) * s)
            if np_dt != np.int64:
                chunk = chunk.astype(np_dt)
            for x in chunk:
                yield (x,)


RangeDataset.__name__ = RangeDataset.__qualname__ = "_RangeDataset"


# --- from_generator ---------------------------------------------------------------------------------

def _gen_error(msg):
    return errors.InvalidArgumentError(None, "IteratorGetNext", f"TypeError: {msg}")


def _convert_yielded(value, spec: TensorSpec):
    dt = spec.dtype
    try:
        if isinstance(value, Tensor):
            value = np.asarray(value)
        if dt is _dt.string:
            a = np.asarray(value)
            if a.dtype.kind == "U":
                a = np.vectorize(lambda x: x.encode("utf8"), otypes=[object])(a) if a.ndim else \
                    np.asarray(str(a[()]).encode("utf8"), dtype=object)
            elif a.dtype.kind == "S":
                a = a.astype(object)
            if a.dtype != object:
                raise TypeError("not a string")
            a = np.array(a, dtype=object)
        else:
            a = np.asarray(np.asarray(value).astype(dt._np), order="C")
    except (TypeError, ValueError):
        raise _gen_error(f"`generator` yielded an element that could not be converted to the expected type. The "
                         f"expected type was {dt.name}, but the yielded element was {value}.") from None
    if not spec.shape.is_compatible_with(a.shape):
        raise _gen_error(f"`generator` yielded an element of shape {a.shape} where an element of shape "
                         f"{spec.shape} was expected.")
    return a


class GeneratorDataset(DatasetV2):
    def __init__(self, generator, spec, args):
        self._generator = generator
        self._args = args
        self._set_spec(spec)

    def _card(self):
        return UNKNOWN

    def _gen(self, ictx):
        flat = self._flat
        spec = self._spec
        single = not S.is_struct(spec)
        it = iter(self._generator(*self._args))
        for value in it:
            if single:
                yield (_convert_yielded(value, flat[0]),)
                continue
            try:
                leaves = _flatten_up_to(spec, value)
            except (TypeError, ValueError):
                raise _gen_error(f"`generator` yielded an element that did not match the expected structure. The "
                                 f"expected structure was {_types_of(spec)}, but the yielded element was "
                                 f"{value}.") from None
            yield tuple(_convert_yielded(v, s) for v, s in zip(leaves, flat))


GeneratorDataset.__name__ = GeneratorDataset.__qualname__ = "_FlatMapDataset"


def _types_of(spec):
    return S.dmap(lambda s: s.dtype, spec)


def _flatten_up_to(spec, value):
    """Leaves of ``value`` at the positions of ``spec``'s leaves (a list may stand for a tuple)."""
    if not S.is_struct(spec):
        return [value]
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise ValueError("structure mismatch")
        out = []
        for s, v in zip(spec, value):
            out.extend(_flatten_up_to(s, v))
        return out
    if not isinstance(value, dict) or set(value) != set(spec):
        raise ValueError("structure mismatch")
    out = []
    for k in S._keys(spec):
        out.extend(_flatten_up_to(spec[k], value[k]))
    return out


def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None):
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        if output_types is not None:
            raise TypeError("The `output_types` argument can not be used together with the `output_signature` "
                            "argument.")
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument can not be used together with the `output_signature` "
                            "argument.")
        for s in S.dflatten(output_signature):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but "
                                f"found {type(s)} which is not.")
        spec = output_signature
    else:
        if output_types is None:
            raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                            "argument or the `output_types` argument.")
        if output_shapes is None:
            spec = S.dmap(lambda t: TensorSpec(None, _dt.as_dtype(t)), output_types)
        else:
            flat_t = S.dflatten(output_types)
            flat_s = _flatten_shapes(output_types, output_shapes)
            spec = S.dpack(output_types, [TensorSpec(s, _dt.as_dtype(t)) for t, s in zip(flat_t, flat_s)])
    if args is None:
        py_args = ()
    else:
        py_args = tuple(_arg_value(a) for a in args)
    return GeneratorDataset(generator, spec, py_args)


def _flatten_shapes(types, shapes):
    if not S.is_struct(types):
        return [TensorShape(shapes)]
    if isinstance(types, tuple):
        out = []
        for t, s in zip(types, shapes):
            out.extend(_flatten_shapes(t, s))
        return out
    out = []
    for k in S._keys(types):
        out.extend(_flatten_shapes(types[k], shapes[k]))
    return out


def _arg_value(a):
    """Generator args arrive as NumPy values (bytes for strings), as TF passes them."""
    from tensorlet._src.framework.tensor import convert_to_tensor

    v = convert_to_tensor(a)._v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v


# --- list_files / counter / from_list ---------------------------------------------------------------

def list_files(file_pattern, shuffle=None, seed=None, name=None):
    from tensorlet._src.framework.tensor import convert_to_tensor

    pats = convert_to_tensor(file_pattern)._v
    pats = [p.decode() if isinstance(p, bytes) else str(p) for p in np.ravel(pats).tolist()]
    names = []
    for p in pats:
        names.extend(sorted(glob.glob(p)))
    if not names:
        raise errors.InvalidArgumentError(None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                                      f"Summarized data: b'No files matched pattern: "
                                                      f"{', '.join(pats)}'")
    arr = np.empty(len(names), object)
    arr[:] = [os.fsencode(n) for n in names]
    ds = TensorSliceDataset(arr)
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(names), seed=seed)
    return ds


def counter(start=0, step=1, dtype=_dt.int64, name=None):
    dtype = _dt.as_dtype(dtype)
    start_t = cast(start, dtype)
    step_t = cast(step, dtype)
    return TensorDataset(0).repeat(None).scan(start_t, lambda state, _: (state + step_t, state))


class ListDataset(DatasetV2):
    def __init__(self, elements, name=None):
        elements = list(elements)
        if not elements:
            raise ValueError("Invalid `elements`. `elements` should not be empty.")
        normed = [normalize(e) for e in elements]
        template = normed[0][0]
        specs = []
        for t, leaves in normed:
            if not S.same_structure(template, t):
                raise ValueError(f"Invalid `elements`. All elements of `elements` must have the same structure. "
                                 f"{elements[0]} vs {t}")
            specs.append(S.dpack(template, [leaf_spec(v) for v in leaves]))
        from tensorlet._src.data.transformations import _relaxed_spec

        self._elements = [tuple(leaves) for _, leaves in normed]
        self._set_spec(_relaxed_spec(specs, "elements"))

    def _card(self):
        return len(self._elements)

    def _gen(self, ictx):
        return iter(self._elements)


ListDataset.__name__ = ListDataset.__qualname__ = "_ListDataset"


@tf_export("data.experimental.from_list")
def from_list(elements, name=None):
    """A dataset of the given list of elements (each a structure of tensors)."""
    return ListDataset(elements, name)
