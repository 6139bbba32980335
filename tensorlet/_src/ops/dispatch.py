"""Type-based dispatch of public ops: how ``tf.add(ragged, 1)`` or ``tf.concat([rt1, rt2], 0)`` reach the code
that handles RaggedTensors (and other composite values), as TF's ``dispatch_for_api`` does.

A family registers a handler for a public function and the composite classes it handles::

    @dispatch_for(math_unary.abs, RaggedTensor)
    def _ragged_abs(x, name=None): ...

The first registration for a function makes its dispatching twin (one wrapper, kept in :data:`DISPATCHERS`) and
re-points the function's public names (``tf.abs``, ``tf.math.abs``) to it; internal callers keep the plain
function, so only public calls pay the check.  The check looks at the positional and keyword arguments and one
level into lists/tuples (``concat``'s ``values``): a plain-tensor call costs a few class tests.
"""

from __future__ import annotations

import functools

from tensorlet._src.framework.api_export import EXPORTS

__all__ = ["dispatch_for", "dispatcher_of", "DISPATCHERS", "COMPOSITE_CLASSES"]

# public function -> its dispatching wrapper
DISPATCHERS: dict = {}
# every class some handler is registered for
COMPOSITE_CLASSES: set = set()


def _composite_in(args, kwargs):
    classes = COMPOSITE_CLASSES
    for a in (*args, *kwargs.values()) if kwargs else args:
        c = a.__class__
        if c in classes:
            return c
        if c is list or c is tuple:
            for b in a:
                if b.__class__ in classes:
                    return b.__class__
    return None


def dispatcher_of(fn):
    """The dispatching twin of public function ``fn`` (made, and exported in its place, on first use)."""
    w = DISPATCHERS.get(fn)
    if w is not None:
        return w
    handlers: list = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        c = _composite_in(args, kwargs) if COMPOSITE_CLASSES else None
        if c is not None:
            for classes, handler in handlers:
                if issubclass(c, classes):
                    match = getattr(handler, "_tl_match", None)  # tf.experimental.dispatch_for_api's signatures
                    if match is None or match(args, kwargs):
                        return handler(*args, **kwargs)
        return fn(*args, **kwargs)

    wrapper._handlers = handlers
    wrapper.__wrapped__ = fn
    attr = f"{fn.__module__.rsplit('.', 1)[-1]}__{fn.__name__}"
    wrapper.__name__ = fn.__name__
    globals()[attr] = wrapper
    DISPATCHERS[fn] = wrapper
    src = (fn.__module__, fn.__name__)
    for name, where in list(EXPORTS.items()):
        if where == src:
            EXPORTS[name] = (__name__, attr)  # the public name now means the dispatching twin
    return wrapper


def dispatch_for(fn, *classes):
    """Decorator: ``handler`` runs when a call of public ``fn`` has an argument of one of ``classes``."""

    def deco(handler):
        w = dispatcher_of(fn)
        w._handlers.append((tuple(classes), handler))
        COMPOSITE_CLASSES.update(classes)
        return handler

    return deco
