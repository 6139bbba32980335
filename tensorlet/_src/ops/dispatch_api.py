"""``tf.experimental.dispatch_for_api`` and friends: user handlers for public ops called with user types.

Built on :mod:`tensorlet._src.ops.dispatch` (the mechanism RaggedTensor uses): a handler is added to the public
function's dispatching twin with a matcher for its signature, so ``tf.math.add(mt1, mt2)`` reaches the handler
registered for ``{'x': MaskedTensor, 'y': MaskedTensor}`` and every other call runs as before.
"""

from __future__ import annotations

import inspect
import sys
import typing

from tensorlet._src.framework.api_export import EXPORTS, tf_export
from tensorlet._src.ops import dispatch as _dispatch
from tensorlet._src.ops.ragged import ragged_ops as _ragged_ops

__all__ = ["dispatch_for_api", "dispatch_for_unary_elementwise_apis", "dispatch_for_binary_elementwise_apis",
           "dispatch_for_binary_elementwise_assert_apis", "unregister_dispatch_for"]

# dispatch target -> [(dispatching wrapper, handler entry)]
_REGISTERED: dict = {}
_ASSERT_APIS = ("debugging.assert_equal", "debugging.assert_none_equal", "debugging.assert_near",
                "debugging.assert_less", "debugging.assert_less_equal", "debugging.assert_greater",
                "debugging.assert_greater_equal")


def _classes(ann) -> tuple:
    """The classes an annotation names (``Union``, ``Optional``, ``List[X]``/``Sequence[X]`` of them)."""
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        return tuple(c for a in typing.get_args(ann) for c in _classes(a))
    if origin is not None:
        return tuple(c for a in typing.get_args(ann) for c in _classes(a))
    return (ann,) if isinstance(ann, type) else ()


def _matches(value, ann) -> bool:
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        return any(_matches(value, a) for a in typing.get_args(ann))
    if origin in (list, tuple, list, typing.Sequence) or (
            origin is not None and getattr(origin, "__name__", "") in ("Sequence", "Iterable")):
        args = typing.get_args(ann)
        return isinstance(value, (list, tuple)) and any(_matches(v, args[0]) for v in value) and all(
            _matches(v, args[0]) or not hasattr(v, "_type_spec") for v in value)
    if ann is type(None):
        return value is None
    return isinstance(ann, type) and isinstance(value, ann)


def _plain(api):
    return getattr(api, "__wrapped__", api)


def _wrapper_of(api):
    """The dispatching twin of ``api``, re-pointing already-loaded public modules at it when it is new."""
    if api in _dispatch.DISPATCHERS.values():
        return api
    fn = _plain(api)
    if fn in _dispatch.DISPATCHERS:
        return _dispatch.DISPATCHERS[fn]
    w = _dispatch.dispatcher_of(fn)
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith("tensorlet") or name.startswith("tensorlet._src"):
            continue
        for attr, v in list(vars(mod).items()):
            if v is fn:
                setattr(mod, attr, w)
    return w


def _add(api, classes, handler, target):
    w = _wrapper_of(api)
    entry = (tuple(classes), handler)
    w._handlers.insert(0, entry)
    _dispatch.COMPOSITE_CLASSES.update(classes)
    _REGISTERED.setdefault(target, []).append((w, entry))


@tf_export("experimental.dispatch_for_api")
def dispatch_for_api(api, *signatures):
    """Decorator: run the decorated function for calls of ``api`` whose arguments match one of ``signatures``
    (``{param: type}`` dicts; by default the decorated function's own annotations)."""
    api_sig = inspect.signature(_plain(api))

    def deco(target):
        tsig = inspect.signature(target)
        if [p.name for p in tsig.parameters.values()] != [p.name for p in api_sig.parameters.values()]:
            raise ValueError(f"Dispatch function's signature {tsig} does not match API's signature {api_sig}.")
        sigs = list(signatures)
        if not sigs:
            ann = {k: p.annotation for k, p in tsig.parameters.items() if p.annotation is not inspect.Parameter.empty}
            if not ann:
                raise ValueError("must call dispatch_for_api with one or more signatures, or annotate the "
                                 "dispatch target's parameters with types.")
            sigs = [ann]
        for s in sigs:
            for k in s:
                if k not in api_sig.parameters:
                    raise ValueError(f"signature includes annotation for unknown parameter {k!r}.")

        def match(args, kwargs):
            try:
                bound = api_sig.bind(*args, **kwargs)
            except TypeError:
                return False
            return any(all(k in bound.arguments and _matches(bound.arguments[k], t) for k, t in s.items())
                       for s in sigs)

        def handler(*args, **kwargs):
            return target(*args, **kwargs)

        handler._tl_match = match
        classes = {c for s in sigs for t in s.values() for c in _classes(t)}
        _add(api, classes, handler, target)
        return target

    return deco


def _elementwise_apis(names):
    out, seen = [], set()
    for n in names:
        if n not in EXPORTS:
            continue
        fn = _ragged_ops._public(n)
        if fn not in seen:
            seen.add(fn)
            out.append(fn)
    return out


def _elementwise(names, types, arity, target):
    for fn in _elementwise_apis(names):
        def handler(*args, _fn=fn, **kwargs):
            return target(_fn, *args, **kwargs)

        def match(args, kwargs, _n=arity):
            vals = list(args[:_n])
            return len(vals) == _n and all(_matches(v, t) for v, t in zip(vals, types))

        handler._tl_match = match
        _add(fn, {c for t in types for c in _classes(t)}, handler, target)
    return target


@tf_export("experimental.dispatch_for_unary_elementwise_apis")
def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: ``target(api_func, x)`` handles every unary elementwise op called with an ``x_type``."""
    return lambda target: _elementwise(_ragged_ops.UNARY, (x_type,), 1, target)


@tf_export("experimental.dispatch_for_binary_elementwise_apis")
def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: ``target(api_func, x, y)`` handles every binary elementwise op called with these types."""
    return lambda target: _elementwise(_ragged_ops.BINARY, (x_type, y_type), 2, target)


@tf_export("experimental.dispatch_for_binary_elementwise_assert_apis")
def dispatch_for_binary_elementwise_assert_apis(x_type, y_type):
    """Decorator: ``target(assert_func, x, y)`` handles ``tf.debugging.assert_equal`` and its kin."""
    return lambda target: _elementwise(_ASSERT_APIS, (x_type, y_type), 2, target)


@tf_export("experimental.unregister_dispatch_for")
def unregister_dispatch_for(dispatch_target):
    """Remove every registration made for ``dispatch_target`` by a ``dispatch_for_*`` decorator."""
    entries = _REGISTERED.pop(dispatch_target, None)
    if not entries:
        raise ValueError(f"Function {dispatch_target} was not registered using a `@dispatch_for_*` decorator.")
    for w, entry in entries:
        if entry in w._handlers:
            w._handlers.remove(entry)
