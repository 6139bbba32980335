"""``tf.nest``: flatten and rebuild nested structures (lists, tuples, namedtuples, dicts).

Dicts flatten in sorted-key order, as in TF; ``None`` is a leaf.
"""

from __future__ import annotations

import collections.abc

from tensorlet._src.framework.api_export import tf_export


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


_SEQ = (list, tuple, dict)


@tf_export("nest.is_nested")
def is_nested(structure) -> bool:
    """True for lists, tuples (incl. namedtuples) and mappings."""
    return isinstance(structure, _SEQ) or isinstance(structure, collections.abc.Mapping)


def _children(s):
    if isinstance(s, collections.abc.Mapping):
        return [s[k] for k in _sorted_keys(s)]
    return list(s)


def _components(x):
    """A composite value's component tensors (RaggedTensor, SparseTensor, ...: anything whose ``_type_spec``
    has ``_to_components``), or None for plain leaves."""
    spec = getattr(x, "_type_spec", None)
    to = getattr(spec, "_to_components", None)
    if to is None or isinstance(x, type):
        return None
    return spec, list(to(x))


@tf_export("nest.flatten")
def flatten(structure, expand_composites=False):
    """Leaves of ``structure`` in TF's order: ``flatten({"b": 1, "a": [2, 3]}) == [2, 3, 1]``.

    With ``expand_composites=True`` a RaggedTensor/SparseTensor contributes its component tensors."""
    c = structure.__class__
    if not expand_composites and (c is list or c is tuple) and not any(is_nested(x) for x in structure):
        return list(structure)  # the common flat case
    if not is_nested(structure) and not expand_composites:
        return [structure]
    out = []
    stack = [structure]
    while stack:
        s = stack.pop()
        if is_nested(s):
            stack.extend(reversed(_children(s)))
            continue
        comp = _components(s) if expand_composites else None
        if comp is not None:
            stack.extend(reversed(comp[1]))
        else:
            out.append(s)
    return out


def _rebuild(template, children):
    if isinstance(template, collections.abc.Mapping):
        items = dict(zip(_sorted_keys(template), children))
        if isinstance(template, collections.defaultdict):
            out = type(template)(template.default_factory)
            out.update((k, items[k]) for k in template)
            return out
        return type(template)((k, items[k]) for k in template)  # keeps the user's key order
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children) if type(template) is list else type(template)(children)


@tf_export("nest.pack_sequence_as")
def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Inverse of :func:`flatten`: put ``flat_sequence``'s items into ``structure``'s shape (with
    ``expand_composites=True``, composite values in ``structure`` are rebuilt from their components)."""
    flat_sequence = list(flat_sequence)
    if not is_nested(structure) and not (expand_composites and _components(structure) is not None):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    pos = [0]

    def build(s):
        if not is_nested(s):
            comp = _components(s) if expand_composites else None
            if comp is not None:
                spec, parts = comp
                return spec._from_components([build(p) for p in parts])
            if pos[0] >= len(flat_sequence):
                raise ValueError(f"Could not pack sequence. Structure had more leaves than the {len(flat_sequence)}"
                                 " items in the flat sequence.")
            v = flat_sequence[pos[0]]
            pos[0] += 1
            return v
        return _rebuild(s, [build(c) for c in _children(s)])

    out = build(structure)
    if pos[0] != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {pos[0]} leaves, but flat_sequence had "
                         f"{len(flat_sequence)} items.")
    return out


@tf_export("nest.assert_same_structure")
def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError (or TypeError for type mismatches) if the two structures differ."""
    def walk(a, b):
        na, nb = is_nested(a), is_nested(b)
        if na != nb:
            raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: {nest1}"
                             f"\n\nSecond structure: {nest2}")
        if not na:
            return
        if check_types and type(a) is not type(b) and not (isinstance(a, list) and isinstance(b, list)):
            raise TypeError(f"The two structures don't have the same sequence type. Input structure has type "
                            f"{type(a)}, while shallow structure has type {type(b)}.")
        if isinstance(a, collections.abc.Mapping) and set(a) != set(b):
            raise ValueError(f"The two dictionaries don't have the same set of keys: {sorted(a)} vs {sorted(b)}")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(f"The two structures don't have the same number of elements.\n\nFirst structure: "
                             f"{nest1}\n\nSecond structure: {nest2}")
        for x, y in zip(ca, cb):
            walk(x, y)

    walk(nest1, nest2)


@tf_export("nest.map_structure")
def map_structure(func, *structure, **kwargs):
    """Apply ``func`` leaf-wise over one or more structures of the same shape."""
    check_types = kwargs.pop("check_types", True)
    expand = bool(kwargs.pop("expand_composites", False))
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, got {kwargs}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)], expand_composites=expand)
