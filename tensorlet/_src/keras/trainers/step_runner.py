"""The compiled step runner of ``fit``/``evaluate``/``predict``: a Keras step (``train_step``, ...) compiled once
per batch signature with ``tf.function`` and kept across ``fit`` calls (the compile cache), called with flat
positional tensors (``tf.function``'s fast path), falling back to running eagerly for a signature that cannot be
traced or compiled."""

from __future__ import annotations

import collections.abc
import warnings

from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.graph import autograph
from tensorlet._src.graph.function import function as tf_function
from tensorlet._src.util import nest

_GRAPH_BROKEN = set()  # step kinds whose compiled form failed to trace (they then run eagerly)


def step_function(fn, run_eagerly=False, jit_compile=None, kind="train"):
    """The ONE place where Keras compiles a step: a ``StepRunner`` over ``tf.function``, or ``fn`` itself.

    ``run(data)`` runs ``fn(data)`` compiled: one ``tf.function`` per input signature (structure, shapes and
    dtypes of the batch), so the last, smaller batch of an epoch compiles once more instead of retracing.  The
    batch is passed as flat positional tensors and the results come back flat, then are rebuilt here, which keeps
    every call on ``tf.function``'s fast path.  If a signature's first (tracing) call fails, that signature runs
    eagerly from then on (an error in the step itself is then raised by the eager run), with a warning, so
    training keeps working while the graph compiler grows.  ``fit``/``evaluate`` tell the runner how often each
    batch shape will run (compile early) and whether they read each step's results (see ``StepRunner``).
    """
    if run_eagerly:
        return fn
    jit = bool(jit_compile) if jit_compile not in (None, "auto") else None
    return StepRunner(fn, tf_function, jit, kind)


class StepRunner:
    """Calls a Keras step compiled per batch signature (see ``step_function``).

    ``expect(counts)`` tells the runner how often each batch size will run in the coming loop (``{32: 312, 8:
    2}``); a train step signature that will run at least twice is compiled with XLA on its first call (the tiered
    executor would compile it on its second), so every compile happens in the first epoch.

    ``quiet(check)``: while set, the loop does not look at each step's results (no callback hooks batches), so a
    signature whose results ``check(template)`` finds readable later from the metrics runs a variant of the step
    that returns nothing: the compiled call then returns without waiting for the step to finish, and the next
    batch is prepared while it runs.  Such calls return ``None``.
    """

    def __init__(self, fn, tf_function, jit, kind, fallback=None):
        self.python_function = fn
        self._fallback = fallback  # what a signature that cannot be compiled runs instead of ``fn`` eagerly
        self._tf_function = tf_function
        self._jit = jit
        self._kind = kind
        self._fast = ({}, {})  # [quiet] (np dtype, shape) per element of a flat tuple batch -> run(batch)
        self._by_key = ({}, {})  # [quiet] (structure, leaf signatures) -> run(batch, flat leaves)
        self._expected = None
        self._quiet_check = None
        self._converted = None

    def expect(self, counts):
        self._expected = counts

    def quiet(self, check):
        self._quiet_check = check

    def __call__(self, data):
        q = self._quiet_check is not None
        if data.__class__ is tuple:
            key = []
            for t in data:
                if t.__class__ is not EagerTensor:
                    break
                v = t._v
                key.append((v.dtype, v.shape))
            else:
                run = self._fast[q].get(tuple(key))
                if run is not None:
                    return run(data)
        flat, sig = [], []
        skey = _tuple_key(data, flat, sig) if data.__class__ is tuple else False
        if skey is not False:  # nested tuples of eager tensors (a steps_per_execution group): one walk
            key = (skey, tuple(sig))
        else:
            flat = nest.flatten(data)
            if all(x.__class__ is EagerTensor or x is None for x in flat):
                key = (_structure_key(data), tuple(None if x is None else (x._v.dtype, x._v.shape) for x in flat))
            else:  # composite or symbolic leaves: the structured call, keyed as tf.function would
                key = ("structured", _signature(data))
        run = self._by_key[q].get(key)
        if run is not None:
            return run(data, flat)
        if q and self._first_quiet(key, data, flat):
            return None
        if q:  # this signature's results are needed: its quiet calls run the step with results
            self._by_key[1][key] = lambda b, fl: self._loud(key, b, fl)
            if key[0] != "structured" and data.__class__ is tuple and None not in flat:
                self._fast[1][key[1]] = lambda b: self._loud(key, b, list(b))
        return self._loud(key, data, flat)

    def _loud(self, key, data, flat):
        run = self._by_key[0].get(key)
        if run is not None:
            return run(data, flat)
        if key[0] == "structured":
            f = self._tf_function(self.python_function, jit_compile=self._jit)
            return self._guarded(key, data, lambda: self._install(key, lambda b, fl: f(b))(data, flat))
        flat_step, positions, out_template = self._flat_fn(data, flat, quiet=False)
        tensors = [flat[i] for i in positions]
        plain = data.__class__ is tuple and len(positions) == len(data)  # a flat tuple of tensors
        jits = self._jit_choices(flat)

        def first(f):
            result = f(*tensors)
            unpack = _unpacker(out_template[0])
            if plain:
                self._fast[0][key[1]] = lambda b: unpack(f(*b))
            self._install(key, lambda b, fl: unpack(f(*[fl[i] for i in positions])))
            return unpack(result)

        def attempt():
            f = self._tf_function(flat_step, jit_compile=jits[0], autograph=False)
            f.get_concrete_function(*tensors)  # an error while tracing goes to the eager fallback at once
            try:
                return first(f)
            except Exception:  # noqa: BLE001
                if len(jits) == 1:
                    raise
            # XLA could not compile it: the tiered executor runs it
            return first(self._tf_function(flat_step, jit_compile=jits[1], autograph=False))

        return self._guarded(key, data, attempt)

    def _first_quiet(self, key, data, flat):
        """Compiles and runs the result-less variant of the step for this signature; False (nothing run) when its
        results are needed, or when it cannot be traced or compiled (the step with results then handles errors and
        fallbacks).  A failed first call writes no variables, so the step can run again."""
        if key[0] == "structured":
            return False
        flat_step, positions, out_template = self._flat_fn(data, flat, quiet=True)
        tensors = [flat[i] for i in positions]
        jits = self._jit_choices(flat)
        f = self._tf_function(flat_step, jit_compile=jits[0], autograph=False)
        try:
            f.get_concrete_function(*tensors)
            if not out_template or not self._quiet_check(out_template[0]):
                return False
        except Exception:  # noqa: BLE001
            return False
        for i, jit in enumerate(jits):
            if i:
                f = self._tf_function(flat_step, jit_compile=jit, autograph=False)
            try:
                f(*tensors)
            except Exception:  # noqa: BLE001
                continue
            self._install_quiet(key, f, positions, data.__class__ is tuple and len(positions) == len(data))
            return True
        return False

    def _install_quiet(self, key, f, positions, plain):
        def run_plain(batch):
            f(*batch)

        def run(batch, flat):
            f(*[flat[i] for i in positions])

        if plain:
            self._fast[1][key[1]] = run_plain
        self._by_key[1][key] = run

    def _jit_choices(self, flat):
        """``jit_compile`` for a new signature, then the fallback if XLA cannot compile it: a train step signature
        that will run at least twice compiles with XLA on its first call (the tiered executor as fallback)."""
        if self._jit is None and self._kind == "train" and self._expected is not None and \
                self._expected.get(_batch_dim(flat), 0) >= 2:
            return (True, None)
        return (self._jit,)

    def _flat_fn(self, data, flat, quiet):
        """The step as a function of the batch's tensors, flat and positional (``tf.function``'s fast path), with
        flat results; the results' structure is recorded while tracing."""
        positions = [i for i, x in enumerate(flat) if x is not None]
        n_leaves, python = len(flat), self._python()
        template = nest.pack_sequence_as(data, [None] * n_leaves)  # the structure, without the batch's tensors
        out_template = []

        def flat_step(*tensors):
            leaves = [None] * n_leaves
            for i, t in zip(positions, tensors):
                leaves[i] = t
            out = python(nest.pack_sequence_as(template, leaves))
            out_template[:] = [out]
            return () if quiet else tuple(nest.flatten(out))

        flat_step.__name__ = flat_step.__qualname__ = getattr(self.python_function, "__name__", self._kind + "_step")
        return flat_step, positions, out_template

    def _python(self):
        if self._converted is None:
            # the flat wrapper is tensorlet code, which AutoGraph does not descend into
            self._converted = autograph.convert(self.python_function)
        return self._converted

    def _install(self, key, run):
        self._by_key[0][key] = run
        return run

    def _guarded(self, key, data, call):
        """The first call of a signature; if it cannot be compiled, that signature runs eagerly from then on."""
        try:
            return call()
        except Exception as e:  # noqa: BLE001
            fn = self._fallback or self.python_function
            self._install(key, lambda b, fl: fn(b))
            out = fn(data)  # a genuine error in the step raises here, eagerly
            if self._kind not in _GRAPH_BROKEN and self._fallback is None:
                _GRAPH_BROKEN.add(self._kind)
                warnings.warn(f"The Keras {self._kind} step could not be compiled ({type(e).__name__}: {e}); it "
                              "runs eagerly.", stacklevel=5)
            return out


def _batch_dim(flat):
    for x in flat:
        if x is not None and x._v.ndim:
            return x._v.shape[0]
    return None


def _tuple_key(x, flat, sig):
    """``_structure_key`` of nested plain tuples whose leaves are eager tensors or ``None``, appending the leaves
    (``nest.flatten``'s order) to ``flat`` and their ``(dtype, shape)`` to ``sig``; ``False`` for anything else."""
    if x.__class__ is tuple:
        parts = []
        for v in x:
            k = _tuple_key(v, flat, sig)
            if k is False:
                return False
            parts.append(k)
        return (tuple, tuple(parts))
    if x.__class__ is EagerTensor:
        flat.append(x)
        v = x._v
        sig.append((v.dtype, v.shape))
        return 0
    if x is None:
        flat.append(None)
        sig.append(None)
        return None
    return False


def _structure_key(x):
    """The nesting of a batch (container types and dict keys), with leaves reduced to tensor/None."""
    cls = x.__class__
    if cls is tuple or cls is list or isinstance(x, (tuple, list)):
        return (cls, tuple(_structure_key(v) for v in x))
    if isinstance(x, collections.abc.Mapping):
        return (cls, tuple((repr(k), _structure_key(x[k])) for k in sorted(x, key=repr)))
    return None if x is None else 0


def _unpacker(template):
    """flat step outputs -> the step's structured outputs (a flat dict of results is the common case)."""
    if not nest.is_nested(template):
        return lambda outs: outs[0]
    if template.__class__ is dict and not any(nest.is_nested(v) for v in template.values()):
        keys = list(template)
        try:
            ordered = sorted(keys)
        except TypeError:
            ordered = keys
        if ordered == keys:
            return lambda outs: dict(zip(keys, outs))
        return lambda outs: (lambda d: {k: d[k] for k in keys})(dict(zip(ordered, outs)))
    return lambda outs: nest.pack_sequence_as(template, list(outs))


def _signature(data):
    key = []
    for x in nest.flatten(data):
        shape = getattr(x, "shape", None)
        if shape is not None and hasattr(x, "dtype"):
            key.append((tuple(shape), x.dtype))
        else:
            key.append((type(x), x if isinstance(x, (int, float, str, bool, type(None))) else id(x)))
    return tuple(key)
