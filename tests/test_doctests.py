"""The runnable examples (``>>>``) in the docstrings of public names run as doctests.

Every name in the export table is visited once (aliases share a docstring); each example runs with its module's
names, ``tf`` (the public package) and ``np`` in scope, and its printed output must match.
"""

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.framework.api_export import EXPORTS

# the lazily imported implementation packages: load them so their public names are in the table
for _pkg in ("keras", "data", "io", "train", "summary", "saved_model", "compat", "distribute"):
    _mod = importlib.import_module(f"tensorlet._src.{_pkg}")
    for _info in pkgutil.walk_packages(_mod.__path__, f"{_mod.__name__}."):
        importlib.import_module(_info.name)


# (module, name) -> why its example cannot run here; each entry is a docstring to fix
SKIP = {
    ("tensorlet._src.keras.saving.saving_api", "load_model"): "reads /tmp/model.keras, which nothing wrote",
    ("tensorlet._src.keras.saving.saving_api", "save_model"): "uses a `model` the example never builds",
    ("tensorlet._src.keras.optimizers", "get"): "the optimizer's name depends on how many were made before",
}


def _docstring_objects():
    seen, out = set(), []
    for name, (module, attr) in sorted(EXPORTS.items()):
        obj = getattr(importlib.import_module(module), attr, None)
        doc = getattr(obj, "__doc__", None)
        if obj is None or id(obj) in seen or not isinstance(doc, str) or ">>>" not in doc:
            continue
        home = getattr(obj, "__module__", None) or module
        if not home.startswith("tensorlet") or (home, getattr(obj, "__name__", attr)) in SKIP:
            continue  # re-exported NumPy types keep NumPy's docstrings
        seen.add(id(obj))
        out.append((name, obj, home))  # (a dispatch twin: its function's module)
    return out


_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_OBJECTS = _docstring_objects()


def test_public_docstrings_have_examples():
    assert len(_OBJECTS) > 100


@pytest.mark.parametrize("name,obj,module", _OBJECTS, ids=[n for n, _, _ in _OBJECTS])
def test_docstring_example(name, obj, module):
    # examples see their module's names (as `python -m doctest` would), plus tf and np
    scope = {**vars(importlib.import_module(module)), "tf": tf, "np": np}
    test = doctest.DocTestParser().get_doctest(obj.__doc__, scope, f"tf.{name}", None, 0)
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
