"""Lookup tables of TF-written SavedModels (``tf.lookup.StaticHashTable`` / ``StaticVocabularyTable``, Keras
``StringLookup`` / ``IntegerLookup`` / ``TextVectorization``).

TF saves a table as a ``resource`` object whose ``_create_resource`` function makes the handle (``HashTableV2``)
and whose ``_initialize`` function fills it (``LookupTableImportV2`` from constants, or
``InitializeTableFromTextFileV2`` from an asset).  The loader runs both once, eagerly, before it traces the
functions that capture the table; a handle here is a ``TableHandle`` whose contents are tensorlet's sorted
key/value arrays, so a ``LookupTableFindV2`` in a traced function becomes tensorlet's lookup op with those
contents as its attr.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.saved_model.codec import CorruptSavedModel
from tensorlet._src.saved_model.tf_ops import known_value

CREATE = frozenset(("HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2", "MutableDenseHashTableV2"))
OPS = CREATE | frozenset(("LookupTableImportV2", "InitializeTableFromTextFileV2", "LookupTableFindV2",
                          "LookupTableSizeV2", "LookupTableExportV2", "LookupTableInsertV2", "LookupTableRemoveV2"))
# the functions of a resource object the loader runs itself (they take or return a handle, not tensors)
RESOURCE_FUNCTIONS = ("_create_resource", "_initialize", "_destroy_resource")


_OUTPUTS = {"LookupTableFindV2": ("values",), "LookupTableSizeV2": ("size",), "LookupTableExportV2": ("keys", "values")}


def opdef(op):
    """The output names of a table op (the ones tf_opdefs.json may not list), for ``node:output:index`` refs."""
    outs = ("table_handle",) if op in CREATE else _OUTPUTS.get(op, ())
    return {"attrs": [], "inputs": [], "outputs": [{"name": n} for n in outs]}


class TableHandle:
    """A table resource: key/value dtypes and contents (``None`` until initialized)."""

    def __init__(self, op, key_dtype, value_dtype):
        self.op, self.key_dtype, self.value_dtype = op, key_dtype, value_dtype
        self.contents = None

    def __repr__(self):
        n = "uninitialized" if self.contents is None else f"{self.contents.keys.size} entries"
        return f"<TableHandle {self.op} {n}>"


def _concrete(x, where):
    """The NumPy value of an eager tensor or of a traced constant (None: not known while loading)."""
    if not hasattr(x, "node") and not hasattr(x, "numpy"):
        raise CorruptSavedModel(f"{where}: expected a tensor, got {type(x).__name__}")
    return known_value(x)


def _handle(ins, where) -> TableHandle:
    if not ins or not isinstance(ins[0], TableHandle):
        raise CorruptSavedModel(f"{where}: the table input is not a table of the SavedModel")
    return ins[0]


def _contents(h, where):
    if h.contents is None:
        from tensorlet._src.framework import errors

        raise errors.FailedPreconditionError(None, None, f"{where}: Table not initialized.")
    return h.contents


def _fill(h, keys, values, where):
    from tensorlet._src.ops.lookup_ops import _Contents

    keys, values = np.asarray(keys).reshape(-1), np.asarray(values)
    if values.shape[:1] != keys.shape:
        raise CorruptSavedModel(f"{where}: {keys.size} keys but {values.shape[:1]} values")
    if keys.size and len(np.unique(keys)) != keys.size:
        raise CorruptSavedModel(f"{where}: HashTable has different value for same key.")
    h.contents = _Contents(keys, values)


def run(op, ins, attrs, where):
    """The outputs of table op ``op`` on interpreter values ``ins`` (a list)."""
    from tensorlet._src.ops.lookup_ops import LOOKUP_FIND
    from tensorlet._src.ops.registry import bind
    from tensorlet._src.saved_model.tf_ops import dtype_of

    if op in CREATE:
        kd, vd = attrs.get("key_dtype"), attrs.get("value_dtype")
        h = TableHandle(op, dtype_of(kd, where) if isinstance(kd, int) else kd,
                        dtype_of(vd, where) if isinstance(vd, int) else vd)
        if op != "HashTableV2":  # a mutable table starts empty (its saved entries are not restored)
            _fill(h, np.zeros(0, h.key_dtype.as_numpy_dtype if h.key_dtype != D.string else object),
                  np.zeros(0, h.value_dtype.as_numpy_dtype if h.value_dtype != D.string else object), where)
        return [h]
    h = _handle(ins, where)
    if op == "LookupTableImportV2":
        if len(ins) != 3:
            raise CorruptSavedModel(f"{where}: needs a table, keys and values")
        k, v = _concrete(ins[1], where), _concrete(ins[2], where)
        if k is None or v is None:  # (traced with fed values: the loader runs initializers eagerly)
            return []
        _fill(h, k, v, where)
        return []
    if op == "InitializeTableFromTextFileV2":
        from tensorlet._src.ops.lookup_ops import TextFileInitializer

        name = _concrete(ins[1], where) if len(ins) == 2 else None
        if name is None:
            return []
        name = name.reshape(()).item()
        name = name.decode() if isinstance(name, bytes) else str(name)
        vocab = int(attrs.get("vocab_size", -1))
        init = TextFileInitializer(name, h.key_dtype, int(attrs.get("key_index", -2)), h.value_dtype,
                                   int(attrs.get("value_index", -1)), vocab_size=None if vocab < 0 else vocab,
                                   delimiter=attrs.get("delimiter", "\t"),
                                   value_index_offset=int(attrs.get("offset", 0)))
        try:
            k, v = init._arrays()
        except OSError as e:
            raise CorruptSavedModel(f"{where}: cannot read the table's file: {e}") from None
        _fill(h, k, v, where)
        return []
    if op == "LookupTableFindV2":
        if len(ins) != 3:
            raise CorruptSavedModel(f"{where}: needs a table, keys and a default value")
        c = _contents(h, where)
        keys = convert_to_tensor(ins[1], dtype=h.key_dtype)
        default = convert_to_tensor(ins[2], dtype=h.value_dtype)
        return [bind(LOOKUP_FIND, keys, default, contents=c)]
    if op == "LookupTableSizeV2":
        return [constant(np.int64(_contents(h, where).keys.size))]
    if op == "LookupTableExportV2":
        c = _contents(h, where)
        return [constant(c.keys), constant(c.values)]
    from tensorlet._src.framework import errors

    raise errors.UnimplementedError(None, op, f"{where}: {op} changes a table; tensorlet loads tables as "
                                              "immutable (StaticHashTable)")
