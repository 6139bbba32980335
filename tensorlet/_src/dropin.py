"""Drop-in: ``import tensorflow`` and ``import keras`` resolve to tensorlet (``tensorlet run``).

A meta path finder maps ``tensorflow`` -> ``tensorlet`` and ``tensorflow.X.Y`` -> ``tensorlet.X.Y`` (``keras`` ->
``tensorlet.keras``), so ``import tensorflow.compat.v1 as tf`` gives the very module object ``tensorlet.compat.v1``.
Modules tensorlet lacks raise ``ModuleNotFoundError`` saying tensorlet does not implement them yet.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys

# alias prefix -> tensorlet module it stands for (longest prefix wins).  The public name
# ``tf.enable_tensorflow_alias`` is registered by tensorlet/_src/compat/exports.py.
ALIASES = {"tensorflow.compat.v2": "tensorlet", "tensorflow": "tensorlet", "keras": "tensorlet.keras",
           "tensorflow_model_optimization": "tensorlet._src.tfmot",
           # the private TF modules programs and TensorBoard commonly import (deprecation.silence, ...)
           "tensorflow.python": "tensorlet._src.compat.tf_python"}


def _target(fullname: str):
    for alias, real in sorted(ALIASES.items(), key=lambda kv: -len(kv[0])):
        if fullname == alias:
            return real
        if fullname.startswith(alias + "."):
            return real + fullname[len(alias):]
    return None


class _AliasLoader:
    """Loads an alias by importing the real tensorlet module and putting *that* object in ``sys.modules``.

    The import protocol needs only these methods; the ``importlib.abc`` bases would cost ``import tensorlet``
    ~10 ms (they pull in importlib.resources, pathlib, tempfile, shutil).
    """

    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        return None  # a throwaway module; exec_module replaces it in sys.modules

    def exec_module(self, module):
        real = _import_real(module.__name__, self.real)
        sys.modules[module.__name__] = real  # the import system returns what sys.modules holds after exec


def _import_real(alias: str, real: str):
    try:
        return importlib.import_module(real)
    except ModuleNotFoundError as e:
        if e.name is None or not (real == e.name or real.startswith(e.name + ".")):
            raise  # a genuine missing dependency inside tensorlet
        parent, _, child = real.rpartition(".")
        if parent:  # a public *name* rather than a module, e.g. ``import tensorflow.nn.relu`` is not valid either
            mod = sys.modules.get(parent) or importlib.import_module(parent)
            obj = getattr(mod, child, None)
            if obj is not None and isinstance(obj, type(sys)):
                return obj
        pub = "tf" + real[len("tensorlet"):] if real.startswith("tensorlet") else real
        err = ModuleNotFoundError(f"tensorlet does not implement {pub} yet (no module named {alias!r})", name=alias)
        raise err from None


class _AliasFinder:
    """``find_spec`` for the ``tensorflow``/``keras`` names; anything else is left to the other finders."""

    def find_spec(self, fullname, path=None, target=None):
        real = _target(fullname)
        if real is None:
            return None
        is_pkg = True  # every alias may have children (``tensorflow.keras.layers``)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real), is_package=is_pkg)


_FINDER = _AliasFinder()


def enable_tensorflow_alias(keras: bool = True) -> None:
    """Makes ``import tensorflow`` (and ``import keras``) import tensorlet in this process.

    Every submodule follows: ``import tensorflow.compat.v1 as tf`` is ``tensorlet.compat.v1``,
    ``from tensorflow.keras.layers import Dense`` is tensorlet's ``Dense``.

    >>> import tensorlet
    >>> tensorlet.enable_tensorflow_alias()
    >>> import tensorflow as tf
    >>> tf is tensorlet
    True
    """
    ALIASES.pop("keras", None)
    if keras:
        ALIASES["keras"] = "tensorlet.keras"
    ALIASES["tensorflow_model_optimization"] = "tensorlet._src.tfmot"
    for name in list(sys.modules):  # a real TensorFlow/Keras imported earlier would shadow the alias
        if _target(name) is not None and not _is_tensorlet(sys.modules[name]):
            del sys.modules[name]
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def disable_tensorflow_alias() -> None:
    """Undoes :func:`enable_tensorflow_alias` (the aliased modules leave ``sys.modules``)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in list(sys.modules):
        if _target(name) is not None and _is_tensorlet(sys.modules[name]):
            del sys.modules[name]


def _is_tensorlet(mod) -> bool:
    return getattr(mod, "__name__", "").split(".")[0] == "tensorlet"


def run_script(path: str, args=(), v1: bool = False) -> int:
    """Runs the Python file ``path`` as ``__main__`` with ``sys.argv = [path, *args]`` and the aliases on.

    Returns the exit status: the script's ``sys.exit`` code, 0 when it ends normally, 1 (after printing the
    traceback) when it raises.  ``v1=True`` makes ``import tensorflow`` mean ``tensorflow.compat.v1``
    (TF 1.x scripts).
    """
    import os
    import runpy
    import traceback

    if not os.path.exists(path):
        print(f"tensorlet run: can't open file {path!r}: [Errno 2] No such file or directory", file=sys.stderr)
        return 2
    enable_tensorflow_alias()
    if v1:
        ALIASES["tensorflow"] = "tensorlet.compat.v1"
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - reported like the interpreter does, then exit status 1
        tb = e.__traceback__
        target = os.path.abspath(path)
        while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
            tb = tb.tb_next  # start the traceback at the script, as ``python script.py`` would
        traceback.print_exception(type(e), e, tb or e.__traceback__)
        return 1
    finally:
        sys.stdout.flush()
    return 0
