"""``tf.function``: trace Python into a graph once per input signature, then run the graph.

Tracing rules are TF's: tensors (and NumPy arrays) are keyed by dtype and shape, Python values by value,
other objects by identity; ``input_signature`` fixes the key (``None`` dims accepted); ``reduce_retracing``
relaxes differing dims to ``None``.  A retrace logs *why* (which argument changed, old vs new), and
``tf.config.experimental.set_retracing_policy("raise")`` turns retraces into errors.

Execution is tiered: the first call of a concrete function runs its optimized graph on the NumPy executor; from
the second call (or the first, with ``jit_compile=True``) it runs the XLA executable compiled through jax.
Graphs that XLA cannot run (strings, ``py_function``, value-dependent shapes) stay on the NumPy executor
with a one-time notice naming the op; ``jit_compile=True`` makes that an error.
"""

from __future__ import annotations

import functools
import sys
import threading
import weakref

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.context import ctx, get_logger
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph import var_args
from tensorlet._src.graph.concrete import ConcreteFunction
from tensorlet._src.graph.ir import Graph, Spec
from tensorlet._src.graph.tracing import Tracer
from tensorlet._src.ops.registry import export_value, tf_export
from tensorlet._src.util import nest

_config = {"run_eagerly": False, "retracing": "warn"}
_tracing_state = threading.local()


# TF's frequent-tracing warning: 5 traces among the last 10 calls, at most 2 warnings per function
_TRACING_WINDOW, _TRACING_THRESHOLD, _TRACING_MAX_WARNINGS = 10, 5, 2


class RetracingWarning(UserWarning):
    """A ``tf.function`` traced again; the message says which argument changed."""


class RetracingError(RuntimeError):
    """Raised instead of retracing under ``set_retracing_policy("raise")``."""


@tf_export("config.run_functions_eagerly", "config.experimental_run_functions_eagerly")
def run_functions_eagerly(run_eagerly):
    """``tf.config.run_functions_eagerly(True)``: every ``tf.function`` runs its Python directly (debugging)."""
    _config["run_eagerly"] = bool(run_eagerly)


@tf_export("config.functions_run_eagerly", "config.experimental_functions_run_eagerly")
def functions_run_eagerly():
    return _config["run_eagerly"]


@tf_export("config.experimental.set_retracing_policy")
def set_retracing_policy(policy):
    """What a ``tf.function`` retrace does: ``"warn"`` (default: a RetracingWarning saying why), ``"raise"``
    (a RetracingError: for test suites that must not retrace), or ``"ignore"``.  tensorlet-only."""
    if policy not in ("warn", "raise", "ignore"):
        raise ValueError(f"retracing policy must be 'warn', 'raise' or 'ignore', got {policy!r}")
    _config["retracing"] = policy


# --- trace keys ----------------------------------------------------------------------

class _TensorKey:
    """Key of a tensor argument: dtype and shape (dims may be None)."""

    __slots__ = ("dtype", "shape", "_hash")

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = shape  # tuple of int/None, or None for unknown rank
        self._hash = hash((dtype, shape))

    def __eq__(self, other):
        return other.__class__ is _TensorKey and self.dtype is other.dtype and self.shape == other.shape

    def __hash__(self):
        return self._hash

    def accepts(self, other) -> bool:
        if other.__class__ is not _TensorKey or other.dtype is not self.dtype:
            return False
        if self.shape is None:
            return True
        if other.shape is None or len(other.shape) != len(self.shape):
            return False
        return all(a is None or a == b for a, b in zip(self.shape, other.shape))

    def __repr__(self):
        return f"TensorSpec(shape={_shape_repr(self.shape)}, dtype=tf.{self.dtype.name}, name=None)"


def _shape_repr(shape):
    if shape is None:
        return "<unknown>"
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class _VarKey:
    """Key of a variable argument: TF's ``VariableSpec`` (shape, dtype, trainable, alias id), not its identity.
    ``_key_of`` leaves ``alias`` None (``ident`` is the variable's id); ``_alias_vars`` numbers them."""

    __slots__ = ("dtype", "shape", "trainable", "ident", "alias", "_hash")

    def __init__(self, dtype, shape, trainable, ident, alias=None):
        self.dtype, self.shape, self.trainable, self.ident, self.alias = dtype, shape, trainable, ident, alias
        self._hash = hash((dtype, shape, trainable, alias))

    def __eq__(self, other):
        return other.__class__ is _VarKey and self.dtype is other.dtype and self.shape == other.shape and \
            self.trainable == other.trainable and self.alias == other.alias

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return var_args.spec_text(TensorShape(None) if self.shape is None else TensorShape(list(self.shape)),
                                  self.dtype, self.trainable, self.alias)


def _alias_vars(key):
    """``key`` with its variable keys numbered by first appearance (TF's alias ids: f(a, a) and f(a, b) differ)."""
    seen = {}

    def walk(k):
        if k.__class__ is _VarKey:
            return _VarKey(k.dtype, k.shape, k.trainable, None, seen.setdefault(k.ident, len(seen)))
        if k.__class__ is tuple:
            return tuple(walk(x) for x in k)
        return k

    return walk(key)


def _has_var_key(key):
    cls = key.__class__
    if cls is _VarKey:
        return True
    if cls is not tuple:
        return False
    for k in key:
        c = k.__class__
        if c is _VarKey or c is tuple and _has_var_key(k):
            return True
    return False


class _ObjKey:
    __slots__ = ("ref", "_id", "desc")

    def __init__(self, obj):
        self._id = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = None
        self.desc = f"{type(obj).__name__} object at {hex(id(obj))}"

    def __eq__(self, other):
        return other.__class__ is _ObjKey and self._id == other._id

    def __hash__(self):
        return self._id

    def __repr__(self):
        return self.desc


def _key_of(x):
    cls = x.__class__
    if cls is EagerTensor:
        v = x._v
        return _TensorKey(_dt._FROM_NP[v.dtype], v.shape)
    if cls is np.ndarray:
        return _TensorKey(_dt.from_numpy(x.dtype), x.shape)
    if cls is int or cls is float or cls is bool:
        return (_NUMBER, x)  # TF's trace type of a Python number is its value: f(1), f(1.0), f(True) share a trace
    if cls in (str, bytes, type(None)):
        return (cls, x)
    if cls is tuple or cls is list:
        return (cls, tuple(_key_of(v) for v in x))
    if cls is dict:
        return (dict, tuple((k, _key_of(x[k])) for k in sorted(x, key=repr)))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (cls, tuple(_key_of(v) for v in x))
    if isinstance(x, Variable):
        shape = x._shape
        return _VarKey(x.dtype, tuple(shape.as_list()) if shape.rank is not None else None, x.trainable, id(x))
    if isinstance(x, Tensor):
        return _TensorKey(x.dtype, tuple(x.shape.as_list()) if x.shape.rank is not None else None)
    if isinstance(x, np.generic):
        return (type(x), x.item())
    if isinstance(x, _SpecLike):
        shape = TensorShape(x.shape)
        return _TensorKey(_dt.as_dtype(x.dtype), tuple(shape.as_list()) if shape.rank is not None else None)
    comp = nest._components(x)
    if comp is not None:  # RaggedTensor, SparseTensor, ...: traced per component specs (TF's trace type)
        cs = getattr(comp[0], "_component_specs", None)
        static = getattr(comp[0], "_static_key", None)  # an ExtensionType's static fields retrace when they change
        if static is not None:
            cls = (cls, static)
        if cs is not None:
            return (cls, tuple(_TensorKey(c.dtype, tuple(c.shape.as_list()) if c.shape.rank is not None else None)
                               for c in cs))
        return (cls, tuple(_key_of(c) for c in comp[1]))
    return _ObjKey(x)


def _generalize(old, new):
    """A key covering ``old`` and ``new`` with differing dims relaxed to None, or None if structures differ."""
    if old.__class__ is _TensorKey and new.__class__ is _TensorKey:
        if old.dtype is not new.dtype:
            return None
        if old.shape is None or new.shape is None or len(old.shape) != len(new.shape):
            return _TensorKey(old.dtype, None)
        return _TensorKey(old.dtype, tuple(a if a == b else None for a, b in zip(old.shape, new.shape)))
    if isinstance(old, tuple) and isinstance(new, tuple) and len(old) == len(new):
        parts = []
        for a, b in zip(old, new):
            g = _generalize(a, b)
            if g is None:
                return None
            parts.append(g)
        return tuple(parts)
    return old if old == new else None


def _accepts(spec_key, key) -> bool:
    if spec_key.__class__ is _TensorKey:
        return spec_key.accepts(key)
    if isinstance(spec_key, tuple) and isinstance(key, tuple) and len(spec_key) == len(key):
        return all(_accepts(a, b) for a, b in zip(spec_key, key))
    return spec_key == key


def _describe_change(names, old, new):
    """Which argument differs between two canonical keys, for the retracing message."""
    for name, a, b in zip(names, old, new):
        if a != b:
            return f"argument `{name}` changed from {_key_text(a)} to {_key_text(b)}"
    return "a different number of arguments"


_NUMBER = "Python number"


def _key_text(k):
    if k.__class__ is _TensorKey:
        return repr(k)
    if isinstance(k, tuple) and len(k) == 2 and k[0] is _NUMBER:
        return f"Python {type(k[1]).__name__} {k[1]!r}"
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type) and k[0] in (int, float, bool, str, bytes):
        return f"Python {k[0].__name__} {k[1]!r}"
    if isinstance(k, tuple) and len(k) == 2 and k[0] is type(None):
        return "None"
    return repr(k)


# --- tf.function -------------------------------------------------------------------------

class Function:
    """A Python function traced into graphs (``tf.function``).  Call it like the Python function."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True, jit_compile=None,
                 reduce_retracing=False, instance=None):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = bool(reduce_retracing)
        self._instance = instance
        self._fast = {}  # raw (args, kwargs) key -> ConcreteFunction
        self._eager_fast = {}  # ((np dtype, shape) per argument) -> ConcreteFunction, for all-eager-tensor calls
        self._lock = threading.RLock()
        self._cache = {}  # canonical key -> ConcreteFunction
        self._relaxed = []  # (canonical key with None dims, ConcreteFunction)
        self._trace_count = 0
        self._ncalls = 0  # calls so far, for TF's frequent-retracing warning (_note_trace)
        self._trace_calls = []  # call numbers of the traces in TF's window
        self._retrace_warnings = 0
        self._last_key = None
        self._methods = weakref.WeakKeyDictionary()
        self._converted = None
        self._sig = False  # inspect.signature, computed when first needed (inspect costs ~15 ms to import)
        functools.update_wrapper(self, python_function, updated=())

    # --- methods: one Function (and trace cache) per instance ---------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._methods.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(self._python_function.__get__(instance, owner), self._name, self._input_signature,
                             self._autograph, self._jit_compile, self._reduce_retracing, instance=None)
            bound._unbound = self._python_function
            try:
                self._methods[instance] = bound
            except TypeError:
                pass
        return bound

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_type(self):
        """TF's ``FunctionType`` of the Python signature (parameters without trace types)."""
        from tensorlet._src.graph import function_type

        return function_type.of_function(self)

    @property
    def _signature(self):
        if self._sig is False:
            import inspect

            try:
                self._sig = inspect.signature(self._python_function)
            except (TypeError, ValueError):
                self._sig = None
        return self._sig

    @property
    def function_spec(self):
        return self._signature

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        """The printed signatures of every trace so far, in tracing order (as TF prints them)."""
        seen, sigs = set(), []
        for cf in list(self._cache.values()) + [c for _, c in self._relaxed]:
            if id(cf) not in seen:
                seen.add(id(cf))
                sigs.append(cf.pretty_printed_signature(verbose=verbose))
        return "\n\n".join(sigs)

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """``f.experimental_get_compiler_ir(x)(stage="hlo")``: the XLA program of this ``jit_compile=True``
        function for these arguments (jax's HLO; stages as TF's: ``hlo``, ``hlo_serialized``, ``optimized_hlo``,
        ``optimized_hlo_serialized``, ``optimized_hlo_dot``)."""
        from tensorlet._src.graph.compiler_ir import get_compiler_ir

        return get_compiler_ir(self, args, kwargs)

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._trace_count

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        self._ncalls += 1
        c = ctx
        if not kwargs and c.interp is None and not c.tapes:
            # hot path: eager tensors only, a signature seen before
            key = []
            for a in args:
                if a.__class__ is not EagerTensor:
                    break
                v = a._v
                key.append((v.dtype, v.shape))
            else:
                cf = self._eager_fast.get(tuple(key))
                if cf is not None and not _config["run_eagerly"]:
                    return cf._packer(cf._run([a._v for a in args]))
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if _config["run_eagerly"]:
            return self._python_function(*args, **kwargs)
        if self._input_signature is not None and args:  # Python lists/NumPy values bound to TensorSpecs
            args = tuple(convert_to_tensor(a, dtype=s.dtype) if isinstance(s, _SpecLike) and not isinstance(
                a, (Tensor, Variable)) and not isinstance(a, _SpecLike) else a
                for s, a in zip(self._input_signature, args)) + tuple(args[len(self._input_signature):])
        if ctx.interp is not None and not getattr(ctx.interp, "eager", False):
            # called while tracing another function: inline this function's graph into the outer one
            cf = self._concrete_for(args, kwargs)
            if cf._var_binding is not None:
                with cf._var_binding(self._variable_args(args, kwargs), self._name):
                    return cf._inline(self._flat_tensors(args, kwargs))
            return cf._inline(self._flat_tensors(args, kwargs))
        try:
            fast_key = (tuple(map(_key_of, args)), tuple((k, _key_of(v)) for k, v in kwargs.items()))
            if _has_var_key(fast_key):
                fast_key = _alias_vars(fast_key)
            cf = self._fast.get(fast_key)
        except TypeError:
            fast_key, cf = None, None
        if cf is None:
            with self._lock:  # one trace at a time (tf.data calls functions from worker threads)
                cf = self._concrete_for(args, kwargs)
            if fast_key is not None and len(self._fast) < 256:
                self._fast[fast_key] = cf
        if not kwargs and len(self._eager_fast) < 256 and all(a.__class__ is EagerTensor for a in args):
            self._eager_fast[tuple((a._v.dtype, a._v.shape) for a in args)] = cf
        if cf._var_binding is not None:  # the cache key matched the variables' specs
            with cf._var_binding(self._variable_args(args, kwargs), self._name, check=False):
                return cf._call_flat(self._flat_tensors(args, kwargs))
        return cf._call_flat(self._flat_tensors(args, kwargs))

    def _flat_tensors(self, args, kwargs):
        return [x for x in nest.flatten((args, kwargs), expand_composites=True) if _is_tensor_arg(x)]

    def _canonical(self, args, kwargs):
        """(names, key per argument) with TF's canonicalization: f(1) and f(x=1) share a trace."""
        sig = self._signature
        if sig is not None:
            try:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                names = tuple(bound.arguments)
                key = tuple(_key_of(bound.arguments[n]) for n in names)
                return names, _alias_vars(key) if _has_var_key(key) else key
            except TypeError:
                pass
        names = tuple(f"args[{i}]" for i in range(len(args))) + tuple(sorted(kwargs))
        key = tuple(_key_of(a) for a in args) + tuple(_key_of(kwargs[k]) for k in sorted(kwargs))
        return names, _alias_vars(key) if _has_var_key(key) else key

    def _variable_args(self, args, kwargs):
        """The distinct variables among the arguments, in the canonical (signature) order."""
        if not kwargs:  # positional arguments are already in signature order
            if all(isinstance(a, (Variable, Tensor)) for a in args):
                seen, out = set(), []
                for a in args:
                    if isinstance(a, Variable) and id(a) not in seen:
                        seen.add(id(a))
                        out.append(a)
                return out
            return var_args.variables_in(list(args))
        sig = self._signature
        if sig is not None:
            try:
                bound = sig.bind(*args, **kwargs)
                return var_args.variables_in([bound.arguments[n] for n in bound.arguments])
            except TypeError:
                pass
        return var_args.variables_in((list(args), [kwargs[k] for k in sorted(kwargs)]))

    def _concrete_for(self, args, kwargs):
        if self._input_signature is not None:
            return self._concrete_for_signature(args, kwargs)
        names, key = self._canonical(args, kwargs)
        cf = self._cache.get(key)
        if cf is not None:
            return cf
        for relaxed, rcf in self._relaxed:
            if _accepts(relaxed, key):
                return rcf
        trace_key = key
        if self._reduce_retracing and self._last_key is not None:
            g = _generalize(self._last_key, key)
            if g is not None:
                trace_key = g
        self._check_retrace(names, key)
        try:
            cf = self._trace(args, kwargs, trace_key, names)
        except Exception:
            if trace_key == key:
                raise
            # some op needs static shapes the relaxed trace does not have: specialize to this call's shapes
            _log_specialized(self._name)
            trace_key = key
            cf = self._trace(args, kwargs, key, names)
        self._cache[key] = cf
        if trace_key != key:
            self._relaxed.append((trace_key, cf))
        self._last_key = key
        return cf

    def _check_retrace(self, names, key):
        policy = _config["retracing"]
        reason = None
        if self._trace_count and policy != "ignore":
            reason = _describe_change(names, self._last_key, key) if self._last_key is not None else "new arguments"
            if policy == "raise":
                raise RetracingError(f"tf.function '{self._name}' is tracing again (trace #{self._trace_count + 1}): "
                                     f"{reason}.")
        self._note_trace(reason if policy == "warn" else None, policy == "ignore")

    def _note_trace(self, reason, quiet):
        """TF's frequent-tracing detector: warn (at most twice per function, through the ``tensorflow`` logger)
        when 5 of the last calls (a window of about 10) traced; tensorlet adds which argument changed."""
        calls = self._trace_calls
        n = max(self._ncalls, 1)
        calls.append(n)
        while len(calls) > 1 and (n - calls[0] + 1) - (calls[1] - calls[0]) > _TRACING_WINDOW:
            calls.pop(0)
        if quiet or self._retrace_warnings >= _TRACING_MAX_WARNINGS or len(calls) < _TRACING_THRESHOLD:
            return
        self._retrace_warnings += 1
        from tensorlet._src.framework.context import get_logger

        msg = (f"{len(calls)} out of the last {n - calls[0] + 1} calls to {self._python_function!r} triggered "
               "tf.function retracing. Tracing is expensive and the excessive number of tracings could be due to (1) "
               "creating @tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) passing "
               "Python objects instead of tensors. For (1), please define your @tf.function outside of the loop. "
               "For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary retracing. For "
               "(3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing and "
               "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")
        if reason:
            msg += f" (tensorlet: the last retrace was because {reason}.)"
        get_logger().warning(msg)

    def _concrete_for_signature(self, args, kwargs):
        sig = self._input_signature
        flat_args = list(args)
        if kwargs:
            names = list(self._signature.parameters) if self._signature is not None else []
            for n in names[len(flat_args):len(sig)]:
                if n in kwargs:
                    flat_args.append(kwargs[n])
        if len(flat_args) > len(sig) or kwargs and len(flat_args) < len(sig):
            raise TypeError(f"{self._name}() got {len(flat_args)} positional arguments but input_signature has "
                            f"{len(sig)} entries")
        cf = self._cache.get("signature")
        _check_signature(self._name, sig, flat_args)
        if cf is None and not getattr(self, "_specialize_signature", False):
            specs = nest.map_structure(lambda s: s, list(sig))
            try:
                cf = self._trace(tuple(specs), {}, "signature", None, from_specs=True)
                self._cache["signature"] = cf
            except Exception:
                if all(isinstance(x, _SpecLike) for x in nest.flatten(flat_args)):
                    raise
                self._specialize_signature = True
                _log_specialized(self._name)
        if cf is None:  # the signature's None dims are specialized per concrete input shape
            names, key = self._canonical(tuple(flat_args), {})
            cf = self._cache.get(("signature", key))
            if cf is None:
                cf = self._trace(tuple(flat_args), {}, key, names)
                self._cache[("signature", key)] = cf
        return cf

    # --- tracing --------------------------------------------------------------------------------
    def _python_for_tracing(self):
        if self._converted is None:
            fn = self._python_function
            if self._autograph:
                from tensorlet._src.graph.autograph import convert

                fn = convert(fn)
            self._converted = fn
        return self._converted

    def _trace(self, args, kwargs, key, names, from_specs=False):
        first = self._trace_count == 0
        self._created = 0
        cf = self._trace_once(args, kwargs, key, names, from_specs)
        if first and self._created and not (getattr(self._python_function, "__module__", "") or "").startswith(
                "tensorlet."):
            # TF traces a function that created variables a second time: creating them again is an error
            # (on_variable_created raises), reading them is the graph that is kept; TF 2.21 counts both traces
            # (experimental_get_tracing_count() is 2 after the first call)
            cf = self._trace_once(args, kwargs, key, names, from_specs)
        return cf

    def _trace_once(self, args, kwargs, key, names, from_specs=False):
        graph = Graph(self._name)
        tracer = Tracer(graph)
        arg_vars = {}  # id(variable argument) -> its ArgVariable (one per distinct variable: TF's alias ids)

        def to_placeholder(x):
            if isinstance(x, Variable) and not from_specs:
                slot = arg_vars.get(id(x))
                if slot is None:
                    slot = arg_vars[id(x)] = var_args.ArgVariable(x, len(arg_vars))
                return slot
            if from_specs or isinstance(x, _SpecLike):
                spec = Spec(TensorShape(x.shape), _dt.as_dtype(x.dtype))
                return graph.placeholder(spec, name=getattr(x, "name", None))
            if _is_tensor_arg(x):
                t = x if isinstance(x, Tensor) else convert_to_tensor(x)
                shape = t.shape
                return graph.placeholder(Spec(shape, t.dtype))
            comp = nest._components(x)
            if comp is not None:  # a composite argument: one placeholder per component, rebuilt for the function
                spec, parts = comp
                cs = getattr(spec, "_component_specs", None)
                if cs is not None:
                    return spec._from_components([graph.placeholder(Spec(TensorShape(c.shape), c.dtype)) for c in cs])
                return spec._from_components([to_placeholder(p) for p in parts])
            return x

        structured_args = nest.map_structure(to_placeholder, (args, kwargs))
        if not from_specs:
            for x, ph in zip(nest.flatten((args, kwargs)), nest.flatten(structured_args)):
                if ph is not x and isinstance(ph, Tensor) and (x.__class__ is EagerTensor or
                                                               isinstance(x, np.ndarray)):
                    tracer.arg_values[id(ph)] = x._v if x.__class__ is EagerTensor else np.asarray(x)
        if key is not None and not from_specs:
            structured_args = _relax_placeholders(structured_args, key, names, self._signature)
        fn = self._python_for_tracing()
        prev_interp, prev_tapes = ctx.interp, ctx.tapes
        ctx.interp, ctx.tapes = tracer, ()
        stack = _trace_stack()
        stack.append(self)
        try:
            out = fn(*structured_args[0], **structured_args[1])
        finally:
            stack.pop()
            ctx.interp, ctx.tapes = prev_interp, prev_tapes
        self._trace_count += 1
        cf = ConcreteFunction.from_trace(graph, tracer, structured_args, out, self)
        if arg_vars:
            slots = [arg_vars[id(v)] for v in self._variable_args(args, kwargs)]
            for i, slot in enumerate(slots):
                slot._alias_id = i
            cf._var_binding = var_args.Binding(slots)
        summary = sys.modules.get("tensorlet._src.summary.summary_ops")
        if summary is not None and summary.is_tracing_graphs():  # tf.summary.trace_on(graph=True)
            summary.record_function_graph(graph)
        return cf

    def get_concrete_function(self, *args, **kwargs):
        """The ``ConcreteFunction`` for these arguments (tensors or ``tf.TensorSpec``s), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            return self._concrete_for_signature(list(self._input_signature), {})
        if self._input_signature is not None:
            return self._concrete_for_signature(args, kwargs)
        if any(isinstance(x, _SpecLike) for x in nest.flatten((args, kwargs))):
            names, key = self._canonical(args, kwargs)
            cf = self._cache.get(key)
            if cf is None:
                self._check_retrace(names, key)
                cf = self._trace(args, kwargs, None, names)
                self._cache[key] = cf
                self._last_key = key
            return cf
        return self._concrete_for(args, kwargs)

    def __repr__(self):
        return f"<tensorlet.Function {self._name}>"


class _SpecLikeMeta(type):
    def __instancecheck__(cls, obj):
        return hasattr(obj, "shape") and hasattr(obj, "dtype") and type(obj).__name__ == "TensorSpec"


class _SpecLike(metaclass=_SpecLikeMeta):
    """``tf.TensorSpec`` (defined in the tf.data package) recognised without importing it."""


def _is_tensor_arg(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray)) and not isinstance(x, Variable) or isinstance(x, _SpecLike)


def _relax_placeholders(structured, key, names, signature):
    """Give placeholders the (possibly relaxed) shapes of the trace key."""
    leaves = [x for x in nest.flatten(structured, expand_composites=True) if isinstance(x, Tensor) and
              hasattr(x, "node")]
    keys = [k for k in _flat_keys(key) if k.__class__ is _TensorKey]
    for ph, k in zip(leaves, keys):
        ph._shape = TensorShape(None) if k.shape is None else TensorShape(list(k.shape))
    return structured


def _flat_keys(key):
    if key.__class__ is _TensorKey:
        yield key
    elif isinstance(key, tuple):
        for k in key:
            yield from _flat_keys(k)


def _check_signature(name, sig, args):
    for spec, a in zip(sig, args):
        for s, x in zip(nest.flatten(spec), nest.flatten(a)):
            if not isinstance(s, _SpecLike) or isinstance(x, _SpecLike):
                continue
            t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype_hint=s.dtype)
            shape = TensorShape(s.shape)
            if t.dtype is not _dt.as_dtype(s.dtype) or not shape.is_compatible_with(t.shape):
                raise TypeError(
                    f"Binding inputs to tf.function `{name}` failed due to `Can not cast "
                    f"TensorSpec(shape={t.shape}, dtype=tf.{t.dtype.name}, name=None) to "
                    f"{s!r}`. Received args: {args!r}")


def _trace_stack():
    s = getattr(_tracing_state, "stack", None)
    if s is None:
        s = _tracing_state.stack = []
    return s


def _log_specialized(name):
    get_logger().info("tf.function '%s': an op needs static shapes, so the function is traced for each concrete "
                      "input shape instead of once for the shapes with None dims.", name)


def on_variable_created(var):
    """Called by ``tf.Variable.__init__``: variables may be created only while a function traces the first time."""
    stack = getattr(_tracing_state, "stack", None)
    if stack and stack[-1]._trace_count > 0:
        raise ValueError(
            f"tf.function '{stack[-1]._name}' only supports singleton tf.Variables created on the first call. "
            "Make sure the tf.Variable is only created once or created outside tf.function. See "
            "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
    if stack:
        stack[-1]._created = getattr(stack[-1], "_created", 0) + 1


@tf_export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Compiles a function into a graph: ``@tf.function`` / ``tf.function(f, input_signature=[...])``.

    >>> @tf.function
    ... def f(x):
    ...     return x * 2
    >>> f(tf.constant(3.0))
    <tf.Tensor: shape=(), dtype=float32, numpy=6.0>
    """
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile
    if experimental_relax_shapes:
        reduce_retracing = True

    def deco(f):
        if isinstance(f, Function):
            return f
        return Function(f, input_signature=input_signature, autograph=autograph, jit_compile=jit_compile,
                        reduce_retracing=reduce_retracing)

    return deco if func is None else deco(func)


export_value("types.experimental.GenericFunction", __name__, "Function")
export_value("types.experimental.PolymorphicFunction", __name__, "Function")
