"""The server's long-lived objects and Python's cyclic garbage collector.

A serving process holds a few hundred thousand long-lived objects (jax, the libraries, the loaded models); every
full collection walks all of them (~70 ms on the 2-core machine), stalling every request in flight.  Request
garbage is short-lived and dies in the young generations, so the full passes find almost nothing.  After a version
loads, ``settle`` moves every object alive into the permanent generation (``gc.freeze``), which collections skip:
a full pass then walks only what was created since.  An unloaded version's objects were frozen with the rest;
``release`` unfreezes, collects once (freeing the version's reference cycles) and freezes again -- one pause per
unload instead of one every few thousand requests.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()


def settle():
    """After a version has loaded and warmed: move every object alive now out of the collector's way."""
    with _lock:
        gc.freeze()


def release():
    """After a version is unloaded: let the collector free what it left in reference cycles, then settle again."""
    with _lock:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
