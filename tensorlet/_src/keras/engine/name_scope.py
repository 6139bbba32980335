"""Keras's name scopes for weight paths: a weight created while ``dense`` builds inside ``sequential`` has the
path ``sequential/dense/kernel``.  Per thread; re-entering a layer's own scope adds nothing."""

from __future__ import annotations

import threading

_local = threading.local()


def scope_stack():
    """This thread's open scopes, innermost last: ``[(name, layer), ...]``."""
    s = getattr(_local, "scopes", None)
    if s is None:
        s = _local.scopes = []
    return s


class KerasScope:
    """``with KerasScope(layer.name, layer):`` -- weights created inside get ``.../<name>/<weight>`` paths."""

    __slots__ = ("name", "caller", "pushed")

    def __init__(self, name, caller=None):
        self.name = name
        self.caller = caller
        self.pushed = False

    def __enter__(self):
        s = scope_stack()
        if not (s and self.caller is not None and s[-1][1] is self.caller):
            s.append((self.name, self.caller))
            self.pushed = True
        return self

    def __exit__(self, *exc):
        if self.pushed:
            scope_stack().pop()
        return False


def current_path():
    """The open scopes joined with ``/`` (``"sequential/dense"``)."""
    return "/".join(n for n, _ in scope_stack())
