"""``tf.experimental.StructuredTensor``: a (possibly ragged) tensor of structs, stored field by field.

Each field is a Tensor, RaggedTensor or StructuredTensor whose outer dimensions are the struct tensor's shape;
a scalar StructuredTensor is one record (``{"a": 1, "b": [1.0, 2.0]}``), a rank-1 one a list of records and so
on, with ``row_partitions`` for the ragged outer dimensions.  ``from_pyval`` / ``to_pyval`` follow TF 2.21
(dicts become structs, lists of values become Tensors if rank 1, else RaggedTensors).  Its TypeSpec
(``StructuredTensor.Spec``) makes it a composite: its components are the fields' (in name order) and then its
shape's, so it goes through ``tf.function`` and ``tf.nest.flatten(expand_composites=True)``.

>>> st = tf.experimental.StructuredTensor.from_pyval([{"a": 1, "b": [1, 2]}, {"a": 2, "b": [3]}])
>>> st.shape, st.field_value("b")
(TensorShape([2]), <tf.RaggedTensor [[1, 2], [3]]>)
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.type_spec import TypeSpec
from tensorlet._src.ops.array_shape import reshape, shape as _shape
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.ragged.dynamic_ragged_shape import DynamicRaggedShape
from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor
from tensorlet._src.ops.ragged.row_partition import RowPartition

__all__ = ["StructuredTensor"]


def _field_shape(v):
    return v.shape


def _convert_field(v):
    if isinstance(v, (Tensor, RaggedTensor, StructuredTensor)):
        return v
    return convert_to_tensor(v)


@tf_export("experimental.StructuredTensor")
class StructuredTensor:
    """A tensor of structs: build with ``from_pyval`` or ``from_fields``; read with ``field_value`` / ``[]``."""

    FieldName = str

    def __init__(self, fields, ragged_shape, shape, internal=False):
        if not internal:
            raise ValueError("StructuredTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., StructuredTensor.from_fields())")
        self._fields = fields
        self._ragged_shape = ragged_shape
        self._shape = shape

    # --- factories ---------------------------------------------------------------------------------
    @classmethod
    def from_fields(cls, fields, shape=(), nrows=None, row_partitions=None, validate=False):
        shape = TensorShape(shape)
        if shape.rank is None:
            raise ValueError("StructuredTensor's shape must have known rank.")
        if not isinstance(fields, dict):
            raise TypeError(f"fields must be a dictionary, got {type(fields).__name__}")
        rank = shape.rank
        given = shape
        fields = {k: _convert_field(v) for k, v in fields.items()}
        for k, v in fields.items():
            if not isinstance(k, str):
                raise TypeError(f"Unexpected type for key in `fields`: {k!r}")
            fs = _field_shape(v)
            if fs.rank is not None and fs.rank < rank:
                raise ValueError(f"Field {k!r} has rank {fs.rank}, which is less than the StructuredTensor's "
                                 f"rank {rank}")
            prefix = TensorShape(fs.as_list()[:rank]) if fs.rank is not None else TensorShape([None] * rank)
            if not given.is_compatible_with(prefix):
                raise ValueError(f"Shapes {given} and {prefix} are not compatible")
            if not shape.is_compatible_with(prefix):
                raise ValueError(f"Error in shape of {k}")
            shape = shape.merge_with(prefix)
        if rank == 0:
            return cls(fields, DynamicRaggedShape((), np.zeros([0], np.int64)), shape, internal=True)
        if row_partitions is None and rank > 1:
            row_partitions = _partitions_of(fields, shape, rank, nrows)
        row_partitions = tuple(row_partitions or ())
        if rank > 1:
            _check_partitions(fields, row_partitions, rank)
        if nrows is None:
            if row_partitions:
                nrows = row_partitions[0].nrows()
            elif fields:
                nrows = _outer_dim(next(iter(fields.values())))
            elif shape[0] is not None:
                nrows = shape[0]
            else:
                raise ValueError("nrows must be specified if rank==1 and `fields` is empty.")
        nrows = cast(convert_to_tensor(nrows, dtype_hint=_dt.int64), _dt.int64)
        if shape[0] is None and nrows.__class__ is EagerTensor:
            shape = TensorShape([int(nrows.numpy())] + shape.as_list()[1:])
        if row_partitions:
            inner = reshape(cast(row_partitions[-1].nvals(), _dt.int64), [1])
        else:
            inner = reshape(nrows, [1])
        return cls(fields, DynamicRaggedShape(row_partitions, inner, dtype=_dt.int64), shape, internal=True)

    @classmethod
    def from_fields_and_rank(cls, fields, rank, validate=False, dtype=None):
        """A StructuredTensor of rank ``rank`` whose shape comes from its (non-empty) fields."""
        if not fields:
            raise ValueError("Must provide at least one field")
        if not isinstance(rank, int) or rank < 0:
            raise ValueError("rank must be a nonnegative integer")
        st = cls.from_fields(fields, shape=[None] * rank, validate=validate)
        return st if dtype is None else st.with_shape_dtype(dtype)

    @classmethod
    def from_shape(cls, ragged_shape):
        """A StructuredTensor with no fields and the shape ``ragged_shape`` (a DynamicRaggedShape)."""
        lengths = ragged_shape.static_lengths(ragged_lengths=False)
        return cls({}, ragged_shape, TensorShape(lengths), internal=True)

    def with_shape_dtype(self, dtype):
        """This StructuredTensor with its shape's row partitions (and nrows) in ``dtype`` (int32 or int64)."""
        return StructuredTensor(self._fields, self._ragged_shape.with_dtype(dtype), self._shape, internal=True)

    @classmethod
    def from_pyval(cls, pyval, typespec=None):
        return _from_pyval(pyval, typespec, ())

    # --- properties ------------------------------------------------------------------------------------
    @property
    def shape(self):
        return self._shape

    @property
    def rank(self):
        return self._shape.rank

    @property
    def row_partitions(self):
        return self._ragged_shape.row_partitions

    def nrows(self):
        if self.rank == 0:
            return None
        rps = self.row_partitions
        return rps[0].nrows() if rps else self._ragged_shape.inner_shape[0]

    def field_names(self):
        return tuple(self._fields.keys())

    def field_value(self, field_name):
        if isinstance(field_name, (list, tuple)):
            value = self
            for f in field_name:
                if not isinstance(value, StructuredTensor):
                    raise KeyError(f"Field path {field_name!r} not found in {self!r}")
                value = value.field_value(f)
            return value
        return self._fields[field_name]

    def with_updates(self, updates, validate=False):
        fields = dict(self._fields)
        for name, value in updates.items():
            path = name if isinstance(name, tuple) else (name,)
            if len(path) > 1:
                inner = fields[path[0]]
                fields[path[0]] = inner.with_updates({path[1:]: value}, validate)
            elif value is None:
                fields.pop(path[0], None)
            else:
                fields[path[0]] = value(fields.get(path[0])) if callable(value) else value
        return StructuredTensor.from_fields(fields, self._shape, self.nrows() if self.rank else None,
                                            self.row_partitions if self.rank and self.rank > 1 else None)

    # --- indexing ----------------------------------------------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, str) or (isinstance(key, tuple) and key and isinstance(key[0], str)):
            return self.field_value(key)
        if self.rank == 0:
            raise ValueError("Cannot index a scalar StructuredTensor by position; index it by field name.")
        keys = key if isinstance(key, tuple) else (key,)
        n_int = sum(1 for k in keys if not isinstance(k, slice))
        fields = {k: v[key] for k, v in self._fields.items()}
        new_rank = self.rank - n_int
        if fields:
            first = next(iter(fields.values()))
            shape = TensorShape(first.shape.as_list()[:new_rank]) if first.shape.rank is not None else \
                TensorShape([None] * new_rank)
            rps = _nested_partitions(first)[:max(new_rank - 1, 0)] if new_rank > 1 else None
            return StructuredTensor.from_fields(fields, shape, row_partitions=rps)
        from tensorlet._src.ops.creation import range as _range

        rows = _range(cast(self.nrows(), _dt.int64))[key]
        return StructuredTensor.from_fields({}, TensorShape([None] * new_rank),
                                            nrows=_outer_dim(rows) if new_rank else None)

    # --- conversion --------------------------------------------------------------------------------------
    def to_pyval(self):
        values = {}
        for k, v in self._fields.items():
            if isinstance(v, EagerTensor):
                v = v.numpy()
                v = v.tolist() if isinstance(v, np.ndarray) else v
            elif isinstance(v, RaggedTensor):
                v = v.to_list()
            elif isinstance(v, StructuredTensor):
                v = v.to_pyval()
            else:
                raise ValueError("StructuredTensor.to_pyval() is only supported in eager mode.")
            values[k] = v
        if self.rank == 0:
            return values
        if not values:
            return _empty_dicts(self.row_partitions, int(self.nrows().numpy()))
        return _records(list(values), list(values.values()), self.rank)

    def merge_dims(self, outer_axis, inner_axis):
        rank = self.rank
        if outer_axis < 0:
            outer_axis += rank
        if inner_axis < 0:
            inner_axis += rank
        if not 0 <= outer_axis <= inner_axis < rank:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis}) and both within the rank ({rank})")
        if outer_axis == inner_axis:
            return self
        fields = {k: _merge(v, outer_axis, inner_axis) for k, v in self._fields.items()}
        dims = self._shape.as_list()
        merged = None if None in dims[outer_axis:inner_axis + 1] else int(np.prod(dims[outer_axis:inner_axis + 1]))
        shape = TensorShape(dims[:outer_axis] + [merged] + dims[inner_axis + 1:])
        first = next(iter(fields.values()), None)
        rps = _nested_partitions(first)[:max(shape.rank - 1, 0)] if first is not None and shape.rank > 1 else None
        return StructuredTensor.from_fields(fields, shape, row_partitions=rps)

    def partition_outer_dimension(self, row_partition):
        if not isinstance(row_partition, RowPartition):
            raise TypeError("row_partition must be a RowPartition.")
        if self.rank == 0:
            raise ValueError("Shape of self must have rank >= 1")
        fields = {k: _partition(v, row_partition) for k, v in self._fields.items()}
        shape = TensorShape([row_partition.static_nrows, row_partition.static_uniform_row_length]
                            + self._shape.as_list()[1:])
        rps = (row_partition,) + tuple(self.row_partitions)
        return StructuredTensor.from_fields(fields, shape, nrows=row_partition.nrows(), row_partitions=rps)

    @property
    def _type_spec(self):
        fields = {k: _spec_of(v) for k, v in self._fields.items()}
        return StructuredTensorSpec(fields, self._ragged_shape._type_spec, self._shape)

    def __repr__(self):
        fields = sorted(self._fields.items())
        text = ",\n        ".join('"{}": {}'.format(k, str(v).replace("\n", "\n            ")) for k, v in fields)
        return f"<StructuredTensor(\n    fields={{\n        {text}}},\n    shape={self._shape})>"


def _spec_of(v):
    if isinstance(v, (RaggedTensor, StructuredTensor)):
        return v._type_spec
    from tensorlet._src.framework.tensor_spec import TensorSpec

    return TensorSpec(v.shape, v.dtype)


def _outer_dim(v):
    d = v.shape[0] if v.shape.rank else None
    if d is not None:
        return d
    if isinstance(v, RaggedTensor):
        return v.nrows()
    if isinstance(v, StructuredTensor):
        return v.nrows()
    return _shape(v, out_type=_dt.int64)[0]


def _nested_partitions(v):
    if isinstance(v, RaggedTensor):
        return v._nested_row_partitions
    if isinstance(v, StructuredTensor):
        return v.row_partitions
    return ()


def _partitions_of(fields, shape, rank, nrows):
    """The row partitions of a rank > 1 struct tensor from its fields: a ragged or struct field's, else uniform
    ones from the dense fields' dimensions."""
    for v in fields.values():
        rps = _nested_partitions(v)
        if len(rps) >= rank - 1:
            return rps[:rank - 1]
    dims = shape.as_list()
    if None in dims[:rank]:
        if fields:
            first = next(iter(fields.values()))
            s = _shape(first, out_type=_dt.int64)
            dims = [s[i] for i in range(rank)]
        else:
            raise ValueError("When rank > 1 and `fields` is empty, row_partitions must be given.")
    rps, n = [], dims[0] if nrows is None else nrows
    for d in dims[1:rank]:
        rps.append(RowPartition.from_uniform_row_length(d, nrows=n))
        n = n * d
    return tuple(rps)


def _static_splits(v, rank):
    """The NumPy row splits of ``v``'s axes 1..rank-1 (eager values), or None where they are not known."""
    if isinstance(v, (RaggedTensor, StructuredTensor)):
        rps = _nested_partitions(v)
        if len(rps) < rank - 1:
            return None
        out = [rp.row_splits() for rp in rps[:rank - 1]]
        return [o._v for o in out] if all(o.__class__ is EagerTensor for o in out) else None
    dims = v.shape.as_list() if v.shape.rank is not None else None
    if dims is None or None in dims[:rank]:
        return None
    out, n = [], dims[0]
    for d in dims[1:rank]:
        out.append(np.arange(n + 1, dtype=np.int64) * d)
        n *= d
    return out


def _check_partitions(fields, rps, rank):
    """Each field's outer (ragged) dimensions must be the struct tensor's (TF: ``Error in shape of <field>``)."""
    want = [rp.row_splits()._v if rp.row_splits().__class__ is EagerTensor else None for rp in rps]
    for k, v in fields.items():
        got = _static_splits(v, rank)
        if got is None:
            continue
        for a, b in zip(got, want):
            if b is not None and (a.shape != b.shape or np.any(a != b)):
                raise ValueError(f"Error in shape of {k}")


def _merge(v, outer, inner):
    if isinstance(v, (RaggedTensor, StructuredTensor)):
        return v.merge_dims(outer, inner)
    dims = v.shape.as_list()
    return reshape(v, dims[:outer] + [-1] + dims[inner + 1:])


def _partition(v, rp):
    if isinstance(v, StructuredTensor):
        return v.partition_outer_dimension(rp)
    return RaggedTensor._from_row_partition(v, rp)


def _records(keys, values, depth):
    """Field-major values (one nested list per key) as node-major records (a nested list of dicts)."""
    if depth == 0:
        return dict(zip(keys, values))
    return [_records(keys, list(row), depth - 1) for row in zip(*values)]


def _empty_dicts(rps, nrows):
    if not rps:
        return [{} for _ in range(nrows)]
    inner = _empty_dicts(rps[1:], int(rps[0].row_splits().numpy()[-1]))
    splits = rps[0].row_splits().numpy()
    return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]


# --- from_pyval ----------------------------------------------------------------------------------------

def _struct_depth(pyval, keys):
    """The nesting depth of the dicts in ``pyval`` (collecting their keys), or None if it holds none."""
    if isinstance(pyval, dict):
        keys.update(pyval)
        return 0
    if isinstance(pyval, (list, tuple)):
        depth = None
        for child in pyval:
            d = _struct_depth(child, keys)
            if d is not None:
                if depth is None:
                    depth = d + 1
                elif depth != d + 1:
                    raise ValueError("Inconsistent depth of dictionaries")
        return depth
    return None


def _collect(pyval, fields, depth):
    """Append ``pyval``'s field values (dicts at ``depth``, lists above) to the field-major ``fields``."""
    if not isinstance(pyval, (dict, list, tuple)):
        raise ValueError("Expected dict or nested list/tuple of dict")
    for key, target in fields.items():
        for _ in range(1, depth):
            target = target[-1]
        target.append(pyval[key] if isinstance(pyval, dict) else [])
    if isinstance(pyval, (list, tuple)):
        for child in pyval:
            _collect(child, fields, depth + 1)


def _from_pyval(pyval, typespec, path):
    from tensorlet._src.ops.ragged.ragged_ops import constant as ragged_constant

    if isinstance(pyval, dict):
        specs = _field_specs(typespec, pyval, path, rank=0)
        fields = {k: _from_pyval(v, specs.get(k), path + (k,)) for k, v in pyval.items()}
        return StructuredTensor.from_fields(fields, shape=())
    if isinstance(pyval, (list, tuple)):
        keys = set()
        rank = _struct_depth(pyval, keys)
        if rank is not None:
            fields = {k: [] for k in sorted(keys)}
            for child in pyval:
                _collect(child, fields, 1)
            specs = _field_specs(typespec, fields, path, rank=rank)
            try:
                if not fields:
                    return _empty_struct_list(pyval, rank)
                values = {k: _from_pyval(v, specs.get(k), path + (k,)) for k, v in fields.items()}
                return StructuredTensor.from_fields(values, shape=[None] * rank)
            except (ValueError, TypeError) as e:
                raise ValueError(f"Error parsing path {path!r}") from e
        try:
            if typespec is not None and hasattr(typespec, "dtype"):
                return ragged_constant(pyval, dtype=typespec.dtype)
            return ragged_constant(pyval)
        except (ValueError, TypeError) as e:
            raise ValueError(f"Error parsing path {path!r}") from e
    try:
        return convert_to_tensor(pyval, typespec.dtype if typespec is not None and hasattr(typespec, "dtype")
                                 else None)
    except (ValueError, TypeError) as e:
        raise ValueError(f"Error parsing path {path!r}") from e


def _field_specs(typespec, fields, path, rank):
    if typespec is None:
        return {}
    if not isinstance(typespec, StructuredTensorSpec) or (set(fields) - set(typespec._field_specs)):
        raise ValueError(f"Value at {path!r} does not match typespec: {fields!r} vs {typespec!r}")
    return typespec._field_specs


def _empty_struct_list(pyval, rank):
    if rank == 1:
        return StructuredTensor.from_fields({}, shape=(len(pyval),), nrows=len(pyval))
    from tensorlet._src.ops.ragged.ragged_ops import constant as ragged_constant

    def zeros_of(x):
        return [zeros_of(c) for c in x] if isinstance(x, (list, tuple)) else 0

    rt = ragged_constant(zeros_of(pyval))
    return StructuredTensor.from_fields({}, shape=[len(pyval)] + [None] * (rank - 1), nrows=len(pyval),
                                        row_partitions=rt._nested_row_partitions[:rank - 1])


# --- StructuredTensor.Spec ------------------------------------------------------------------------------

class StructuredTensorSpec(TypeSpec):
    """``StructuredTensor.Spec``: the specs of the fields and of the shape (a DynamicRaggedShape.Spec)."""

    __slots__ = ("_field_specs", "_ragged_shape", "_shape")

    def __init__(self, fields, ragged_shape, shape=None):
        self._field_specs = dict(fields)
        self._ragged_shape = ragged_shape
        self._shape = TensorShape(shape) if shape is not None else TensorShape(
            [None] * (len(ragged_shape._row_partitions) + (ragged_shape._static_inner_shape.rank or 0)))

    value_type = property(lambda self: StructuredTensor)

    @property
    def _fields(self):
        return self._field_specs

    def _key(self):
        return (tuple(sorted(self._field_specs.items())), self._ragged_shape)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((tuple(sorted(self._field_specs)), self._ragged_shape))

    def __repr__(self):
        return f"StructuredTensor.Spec(_fields={self._field_specs!r}, _ragged_shape={self._ragged_shape!r})"

    def is_compatible_with(self, spec_or_value) -> bool:
        o = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        return isinstance(o, StructuredTensorSpec) and set(o._field_specs) == set(self._field_specs) and all(
            s.is_compatible_with(o._field_specs[k]) for k, s in self._field_specs.items()) and \
            self._ragged_shape.is_compatible_with(o._ragged_shape)

    def is_subtype_of(self, other) -> bool:
        return isinstance(other, StructuredTensorSpec) and set(other._field_specs) == set(self._field_specs) and \
            all(s.is_subtype_of(other._field_specs[k]) for k, s in self._field_specs.items()) and \
            self._ragged_shape.is_subtype_of(other._ragged_shape)

    def most_specific_common_supertype(self, others):
        fields, shape = dict(self._field_specs), self._ragged_shape
        for o in others:
            if not isinstance(o, StructuredTensorSpec) or set(o._field_specs) != set(fields):
                return None
            fields = {k: s.most_specific_common_supertype([o._field_specs[k]]) for k, s in fields.items()}
            shape = shape.most_specific_common_supertype([o._ragged_shape])
            if shape is None or any(v is None for v in fields.values()):
                return None
        return StructuredTensorSpec(fields, shape, self._shape.most_specific_compatible_shape(
            others[-1]._shape) if others else self._shape)

    def _parts(self):
        return [[s] if not hasattr(s, "_component_specs") or type(s).__name__ == "TensorSpec"
                else list(s._component_specs) for _, s in sorted(self._field_specs.items())]

    @property
    def _component_specs(self):
        return [c for p in self._parts() for c in p] + list(self._ragged_shape._component_specs)

    def _to_components(self, value):
        out = []
        for k, s in sorted(self._field_specs.items()):
            v = value._fields[k]
            out.extend([v] if type(s).__name__ == "TensorSpec" else s._to_components(v))
        return out + self._ragged_shape._to_components(value._ragged_shape)

    def _from_components(self, components):
        it = iter(components)
        fields = {}
        for (k, s), parts in zip(sorted(self._field_specs.items()), self._parts()):
            got = [next(it) for _ in parts]
            fields[k] = got[0] if type(s).__name__ == "TensorSpec" else s._from_components(got)
        rest = list(it)
        ragged_shape = self._ragged_shape._from_components(rest)
        return StructuredTensor(fields, ragged_shape, self._shape, internal=True)


StructuredTensor.Spec = StructuredTensorSpec
StructuredTensorSpec.__qualname__ = "StructuredTensor.Spec"
