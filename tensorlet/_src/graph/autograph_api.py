"""``tf.autograph``: ``to_graph``/``to_code`` (the converted function and its source), ``set_verbosity``,
``trace``, ``experimental.Feature``/``set_loop_options``.  The conversion itself is ``autograph.py``."""

from __future__ import annotations

import ast
import enum
import inspect
import os
import textwrap

from tensorlet._src.graph import autograph as _ag
from tensorlet._src.ops.registry import tf_export

_VERBOSITY = {"level": int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0), "stdout": False}


@tf_export("autograph.to_graph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The AutoGraph-converted function: Python ``if``/``while``/``for`` on tensors become graph control flow when
    it is traced (called eagerly it runs as Python).  ``entity`` itself when there is nothing to convert."""
    if not callable(entity):
        raise ValueError(f"Expected a function or method, got {entity!r}")
    return _ag.convert(entity)


@tf_export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source AutoGraph generates for ``entity`` (calls into ``ag__``, the AutoGraph runtime)."""
    fn = getattr(entity, "__func__", entity)
    fn = getattr(fn, "python_function", fn)  # a tf.function: its Python function
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise ValueError(f"Unable to locate the source code of {entity!r}: {e}") from None
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ValueError(f"to_code expects a function, got {entity!r}")
    fdef.decorator_list = []
    tr = _ag._Transformer()
    fdef.body = tr.block(fdef.body, in_function=True)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


@tf_export("autograph.set_verbosity")
def set_verbosity(level, alsologtostdout=False):
    """AutoGraph's log verbosity (0 = quiet, 10 = most detail); ``AUTOGRAPH_VERBOSITY`` overrides, as in TF."""
    env = os.environ.get("AUTOGRAPH_VERBOSITY")
    _VERBOSITY["level"] = int(env) if env else int(level)
    _VERBOSITY["stdout"] = bool(alsologtostdout)


def get_verbosity() -> int:
    return _VERBOSITY["level"]


@tf_export("autograph.trace")
def trace(*args):
    """Print the arguments when the code runs (at trace time inside a ``tf.function``), as ``print`` would."""
    print(*args)


@tf_export("autograph.experimental.Feature")
class Feature(enum.Enum):
    """Optional AutoGraph conversions (``experimental_optional_features``)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls):
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude):
        exclude = (exclude,) if isinstance(exclude, Feature) else tuple(exclude)
        return tuple(f for f in cls.all() if f not in exclude and f is not cls.ALL)


@tf_export("autograph.experimental.set_loop_options")
def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Options for the enclosing converted loop.  tensorlet's loops are XLA ``while``s, so these are accepted and
    checked but not applied (``parallel_iterations``/``swap_memory`` mean nothing there; a ``maximum_iterations``
    given here is not applied -- use ``tf.while_loop(maximum_iterations=...)``)."""
    for name, v in (("parallel_iterations", parallel_iterations), ("maximum_iterations", maximum_iterations)):
        if v is not None and int(v) < 1 and name == "parallel_iterations":
            raise ValueError(f"{name} must be a positive integer, got {v}")
