"""``tf.GradientTape``: reverse-mode autodiff over the ops the registry dispatches.

While a tape is active, ``bind`` calls :func:`_record` for each op; a tape keeps the
op only when one of its inputs is a tensor the tape tracks (a watched tensor, a
trainable variable's read, or an output of an earlier recorded op).  Records keep
their tensors alive, so identities (``id``) stay valid for the tape's lifetime; a
non-persistent tape drops everything after its one ``gradient`` call.

The backward pass calls each op's gradient, written in tensorlet ops, so an outer
tape records it: that is how second and higher derivatives work.
"""

from __future__ import annotations

import enum

from tensorlet._src.framework import variables as _variables
from tensorlet._src.framework.context import ctx
from tensorlet._src.ops.indexed_slices import IndexedSlices
from tensorlet._src.framework.tensor import convert_to_tensor, EagerTensor, Tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops import registry
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, REGISTRY, bind, tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops.creation import zeros_like
from tensorlet._src.ops.grad_utils import SKIPS_UNWANTED, add_grads, set_wanted

_DIFF_KINDS = frozenset("fcV")  # float, complex, and 'V' = ml_dtypes' bfloat16


@tf_export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _differentiable(t) -> bool:
    if t.__class__ is EagerTensor:
        return t._v.dtype.kind in _DIFF_KINDS
    return t.dtype._np.kind in _DIFF_KINDS


def _record(op, inputs, attrs, outputs):
    """The registry's tape hook: called after each eager op while any tape is active."""
    if op.grad is NONDIFF:
        return
    for tape in ctx.tapes:
        if not tape._recording:
            continue
        if tape.__class__ is not GradientTape:  # a ForwardAccumulator
            tape._on_op(op, inputs, attrs, outputs)
            continue
        ids = tape._ids
        for x in inputs:
            if id(x) in ids:
                break
        else:
            continue
        tape._records.append((op, inputs, attrs, outputs))
        if op.n_out == 1:
            if _differentiable(outputs):
                ids[id(outputs)] = outputs
        else:
            for o in outputs:
                if _differentiable(o):
                    ids[id(o)] = o


def _on_variable_read(var, tensor):
    """The variables' read hook: a read of a watched variable becomes a tracked tensor."""
    for tape in ctx.tapes:
        if not tape._recording:
            continue
        if tape.__class__ is not GradientTape:
            tape._on_variable_read(var, tensor)
            continue
        key = id(var)
        if key not in tape._vars:
            if not (tape._watch_accessed and var.trainable):
                continue
            tape._vars[key] = var
        tape._ids[id(tensor)] = tensor
        tape._reads.setdefault(key, []).append(tensor)


registry.tape_hook = _record
_variables.read_hook = _on_variable_read


def _seed(t):
    """ones_like(target): the gradient a target starts from (the op is bound directly: this is a hot path)."""
    return bind(REGISTRY["OnesLike"], t)


def record_custom(op, inputs, attrs, outputs):
    """Record an op-like object (e.g. a ``custom_gradient`` call) on the active tapes."""
    if ctx.tapes:
        _record(op, inputs, attrs, outputs)


@tf_export("GradientTape", "autodiff.GradientTape")
class GradientTape:
    """Records operations for automatic differentiation.

    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> g.gradient(y, x)
    <tf.Tensor: shape=(), dtype=float32, numpy=6.0>
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._records: list = []
        self._ids: dict = {}  # id(tensor) -> tensor, for every tensor this tape tracks (kept alive)
        self._vars: dict = {}  # id(variable) -> variable, in first-watched order
        self._reads: dict = {}  # id(variable) -> tensors read from it while recording
        self._recording = False
        self._entered = 0
        self._used = False

    # --- context ------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        ctx.tapes = ctx.tapes + (self,)
        self._recording = True
        return self

    def __exit__(self, *exc):
        self._recording = False
        ctx.tapes = tuple(t for t in ctx.tapes if t is not self)
        return False

    def stop_recording(self):
        """``with tape.stop_recording():`` -- ops inside are not recorded by this tape."""
        return _StopRecording(self)

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording if active)."""
        self._records.clear()
        self._ids.clear()
        self._vars.clear()
        self._reads.clear()
        self._used = False

    # --- watching -------------------------------------------------------------------
    def watch(self, tensor):
        """Track ``tensor`` (a tensor, a variable, or a nested structure of them)."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._vars.setdefault(id(t), t)
            elif isinstance(t, Tensor):
                if isinstance(t, EagerTensor) and not _differentiable(t):
                    continue  # TF: integer tensors cannot be watched (their gradient is None)
                self._ids[id(t)] = t
            elif hasattr(t, "__tf_tensor__"):
                self.watch(t.__tf_tensor__())
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")

    def watched_variables(self):
        """The variables this tape watched (explicitly or by reading them), in first-watched order."""
        return tuple(self._vars.values())

    # --- gradients ------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of targets)/d(sources), shaped like ``sources``.  ``None`` for unconnected sources."""
        self._check_usable("gradients")
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if s.__class__ is not Variable and not isinstance(s, (Tensor, Variable)) and \
                    not hasattr(s, "__tf_tensor__"):
                raise ValueError(f"Argument `sources` must contain tf.Tensor or tf.Variable objects, got {s!r}")
        flat_targets = nest.flatten(target)
        flat_out = None if output_gradients is None else nest.flatten(output_gradients)
        if unconnected_gradients.__class__ is not UnconnectedGradients:
            unconnected_gradients = UnconnectedGradients(unconnected_gradients)
        result = self._backward(flat_targets, flat_out, flat_sources, unconnected_gradients)
        if not self._persistent:
            self._release()
        return nest.pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """d(target)/d(source) for each source: shape ``target.shape + source.shape``."""
        from tensorlet._src.autodiff import jacobians

        self._check_usable("jacobians")
        out = jacobians.jacobian(self, target, sources, UnconnectedGradients(unconnected_gradients))
        if not self._persistent:
            self._release()
        return out

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobian: ``target`` [B, ...] and ``source`` [B, ...] -> [B, target..., source...]."""
        from tensorlet._src.autodiff import jacobians

        self._check_usable("jacobians")
        out = jacobians.batch_jacobian(self, target, source, UnconnectedGradients(unconnected_gradients))
        if not self._persistent:
            self._release()
        return out

    # --- engine -----------------------------------------------------------------------
    def _check_usable(self, what):
        if self._used and not self._persistent:
            raise RuntimeError(f"A non-persistent GradientTape can only be used to compute one set of {what} "
                               "(or jacobians)")
        self._used = True

    def _release(self):
        self._records = []
        self._ids = {}
        self._reads = {}

    def _backward(self, flat_targets, flat_out_grads, flat_sources, unconnected):
        """Reverse accumulation over the records; returns one gradient (or None) per source."""
        grads: dict = {}
        for i, tgt in enumerate(flat_targets):
            if isinstance(tgt, Variable):
                tgt = self._latest_read(tgt)
                if tgt is None:
                    continue
            if tgt.__class__ is not EagerTensor:
                tgt = convert_to_tensor(tgt)
            if id(tgt) not in self._ids:
                continue
            g0 = flat_out_grads[i] if flat_out_grads is not None else None
            g0 = _seed(tgt) if g0 is None else convert_to_tensor(g0, dtype=tgt.dtype)
            _accumulate(grads, tgt, g0)

        was_recording = self._recording
        self._recording = False  # the backward pass is recorded by outer tapes only
        try:
            for op, inputs, attrs, outputs in reversed(self._records):
                if op.n_out == 1:
                    g = grads.get(id(outputs))
                    if g is None:
                        continue
                else:
                    gs = [grads.get(id(o)) for o in outputs]
                    if all(x is None for x in gs):
                        continue
                    g = tuple(zeros_like(o) if x is None and _differentiable(o) else x for o, x in zip(outputs, gs))
                if op.grad is None or op.grad is NO_GRADIENT:
                    raise LookupError(f"gradient registry has no entry for: {op.name}")
                if g.__class__ is not EagerTensor and not op.sparse_grad:
                    g = _dense(g)
                if op in SKIPS_UNWANTED:  # tell it which inputs this tape tracks (see grad_utils.wanted)
                    set_wanted(tuple(id(x) in self._ids for x in inputs))
                    try:
                        in_grads = op.grad(g, outputs, *inputs, **attrs)
                    finally:
                        set_wanted(None)
                else:
                    in_grads = op.grad(g, outputs, *inputs, **attrs)
                if not isinstance(in_grads, (tuple, list)):
                    in_grads = (in_grads,)
                for x, gx in zip(inputs, in_grads):
                    if gx is not None and id(x) in self._ids:
                        _accumulate(grads, x, gx)
        finally:
            self._recording = was_recording

        out = []
        for s in flat_sources:
            if isinstance(s, Variable):
                reads = self._reads.get(id(s), ())
                g = None
                for r in reads:
                    gr = grads.get(id(r))
                    if gr is not None:
                        g = gr if g is None else _add(g, gr)
                if g is None and unconnected is UnconnectedGradients.ZERO:
                    g = zeros_like(s.value())
            else:
                s = convert_to_tensor(s)
                g = grads.get(id(s))
                if g is None and unconnected is UnconnectedGradients.ZERO:
                    g = zeros_like(s)
            if g.__class__ is IndexedSlices and not isinstance(s, Variable):
                g = g._dense()  # tensor sources get dense gradients; variables keep IndexedSlices, as in TF
            out.append(g)
        return out

    def _latest_read(self, var):
        reads = self._reads.get(id(var))
        return reads[-1] if reads else None


def _dense(g):
    """Upstream gradients reach an op's gradient function dense unless it declares ``sparse_grad``."""
    if isinstance(g, tuple):
        return tuple(_dense(x) for x in g)
    return g._dense() if isinstance(g, IndexedSlices) else g


def _add(a, b):
    return add_grads(a, b)


def _accumulate(grads, x, g):
    prev = grads.get(id(x))
    grads[id(x)] = g if prev is None else _add(prev, g)


class _StopRecording:
    def __init__(self, tape):
        self._tape = tape

    def __enter__(self):
        if not self._tape._recording:
            raise ValueError("Cannot stop recording on a tape that is not recording.")
        self._tape._recording = False

    def __exit__(self, *exc):
        self._tape._recording = True
        return False
