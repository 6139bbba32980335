"""``tf.Module``: a named container of variables and sub-modules.

Attributes are walked to find variables and sub-modules (through lists, tuples and dicts), which is what
``module.variables``, checkpoints and SavedModel rely on.  Keras layers subclass it.
"""

from __future__ import annotations

import functools
import re

from tensorlet._src.framework.context import name_scope as _name_scope
from tensorlet._src.framework.variables import Variable

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")
# Set by tf.train.Checkpoint while restored values wait for objects created later (deferred restoration):
# called as setattr_hook(module, name, value) after each attribute assignment on a Module.
setattr_hook = None


def _camel_to_snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class Module:
    """Base class for objects holding variables: ``class Dense(tf.Module): ...``.

    >>> class Scale(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Variable(2.0)
    >>> len(Scale().trainable_variables)
    1
    """

    # attributes never walked (caches, back-references)
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",))

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        from tensorlet._src.framework.context import get_current_name_scope

        outer = get_current_name_scope()
        self._scope_name = (outer + "/" if outer else "") + name

    @property
    def name(self) -> str:
        return self._name

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if setattr_hook is not None:
            setattr_hook(self, name, value)

    @property
    def name_scope(self):
        """A ``tf.name_scope`` for this module (variables created inside are named ``module/...``)."""
        return _name_scope(self._scope_name)

    # --- walking ------------------------------------------------------------------
    def _flatten(self, predicate, recursive=True, with_path=False):
        """TF's order: a module's own leaves first (attributes sorted by name, containers flattened as tf.nest
        does), then each submodule found among them, recursively; a leaf reachable twice is yielded once."""
        seen = {id(self)}
        out = []
        stack_ids = []

        def leaves_of(obj, path):
            if isinstance(obj, dict):
                for k in sorted(obj, key=str):
                    yield from leaves_of(obj[k], path + (k,))
            elif isinstance(obj, (list, tuple)):
                for i, v in enumerate(obj):
                    yield from leaves_of(v, path + (i,))
            else:
                yield path, obj

        def walk(module, module_path, rec):
            if id(module) in stack_ids:
                rec = False
            subs = []
            for key in sorted(vars(module)):
                if key in module._TF_MODULE_IGNORED_PROPERTIES or key.startswith("__"):
                    continue
                for leaf_path, leaf in leaves_of(vars(module)[key], (key,)):
                    if not with_path:
                        if id(leaf) in seen:
                            continue
                        seen.add(id(leaf))
                    if predicate(leaf):
                        out.append((module_path + leaf_path, leaf))
                    if rec and isinstance(leaf, Module):
                        subs.append((module_path + leaf_path, leaf))
            stack_ids.append(id(module))
            for sub_path, sub in subs:
                walk(sub, sub_path, rec)
            stack_ids.pop()

        walk(self, (), recursive)
        return out if with_path else [o for _, o in out]

    def _flatten_no_self(self, predicate, recursive=True):
        return [o for o in self._flatten(predicate, recursive) if o is not self]

    @property
    def variables(self) -> tuple:
        """All variables of this module and its sub-modules (deduplicated, in attribute order)."""
        return tuple(self._flatten(lambda o: isinstance(o, Variable)))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(lambda o: isinstance(o, Variable) and o.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(lambda o: isinstance(o, Variable) and not o.trainable))

    @property
    def submodules(self) -> tuple:
        """All modules reachable from this one (not including itself)."""
        return tuple(self._flatten_no_self(lambda o: isinstance(o, Module)))

    def _flatten_modules(self, recursive=True, include_self=True):
        mods = list(self._flatten_no_self(lambda o: isinstance(o, Module), recursive))
        return ([self] if include_self else []) + mods

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"

