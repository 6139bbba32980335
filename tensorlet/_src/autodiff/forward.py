"""``tf.autodiff.ForwardAccumulator``: forward-mode JVPs computed as ops execute.

An op's JVP comes from its ``jvp`` rule in the registry when it has one, otherwise
from its gradient by transposition: the VJP ``u -> J^T u`` is linear in ``u``, so
``J t`` is the gradient of ``<J^T u, t>`` with respect to ``u``.
"""

from __future__ import annotations

from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.registry import NONDIFF, tf_export
from tensorlet._src.util import nest
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.math_binary import multiply
from tensorlet._src.ops.reduce import reduce_sum


@tf_export("autodiff.ForwardAccumulator")
class ForwardAccumulator:
    """``with ForwardAccumulator(primals, tangents) as acc: y = f(x)`` then ``acc.jvp(y)``."""

    def __init__(self, primals, tangents):
        self._tangents: dict = {}  # id(tensor) -> tangent
        self._keep: dict = {}  # id(tensor) -> tensor (keeps ids valid)
        self._var_tangents: dict = {}  # id(variable) -> tangent
        fp, ft = nest.flatten(primals), nest.flatten(tangents)
        if len(fp) != len(ft):
            raise ValueError(f"primals and tangents must have the same structure: {len(fp)} vs {len(ft)} leaves")
        for p, t in zip(fp, ft):
            if isinstance(p, Variable):
                self._var_tangents[id(p)] = convert_to_tensor(t, dtype=p.dtype)
            else:
                p = convert_to_tensor(p)
                self._set(p, convert_to_tensor(t, dtype=p.dtype))
        self._recording = False

    def _set(self, tensor, tangent):
        self._tangents[id(tensor)] = tangent
        self._keep[id(tensor)] = tensor

    def __enter__(self):
        ctx.tapes = ctx.tapes + (self,)
        self._recording = True
        return self

    def __exit__(self, *exc):
        self._recording = False
        ctx.tapes = tuple(t for t in ctx.tapes if t is not self)
        return False

    def _on_variable_read(self, var, tensor):
        t = self._var_tangents.get(id(var))
        if t is not None:
            self._set(tensor, t)

    def _on_op(self, op, inputs, attrs, outputs):
        if op.grad is NONDIFF:
            return
        tans = [self._tangents.get(id(x)) for x in inputs]
        if all(t is None for t in tans):
            return
        self._recording = False  # computing the JVP must not feed back into this accumulator
        try:
            tans = [zeros_like(x) if t is None else t for x, t in zip(inputs, tans)]
            multi = op.n_out != 1
            outs = outputs if multi else (outputs,)
            jvp = getattr(op, "jvp", None)
            if jvp is not None:
                res = jvp(tans, outputs, *inputs, **attrs)
                res = tuple(res) if multi else (res,)
            else:
                res = self._jvp_by_transposition(op, inputs, attrs, outputs, outs, tans)
            for o, r in zip(outs, res):
                if r is not None:
                    self._set(o, r)
        finally:
            self._recording = True

    @staticmethod
    def _jvp_by_transposition(op, inputs, attrs, outputs, outs, tans):
        from tensorlet._src.autodiff.tape import GradientTape

        # the VJP is linear in u, so any u works in exact arithmetic; ones (as TF) keeps gradients that
        # divide by the upstream or branch on it finite
        us = [ones_like(o) for o in outs]
        with GradientTape(persistent=False) as tape:
            tape.watch(us)
            g = tuple(us) if op.n_out != 1 else us[0]
            vjps = op.grad(g, outputs, *inputs, **attrs)
            vjps = vjps if isinstance(vjps, (tuple, list)) else (vjps,)
            total = None
            for v, t in zip(vjps, tans):
                if v is None:
                    continue
                term = reduce_sum(multiply(convert_to_tensor(v), t))
                total = term if total is None else total + term
        if total is None:
            return [None] * len(outs)
        return tape.gradient(total, us)

    def jvp(self, primals, unconnected_gradients=None):
        """The tangent of ``primals`` (a tensor or structure); ``None`` where unconnected."""
        from tensorlet._src.autodiff.tape import UnconnectedGradients

        zero = unconnected_gradients is not None and UnconnectedGradients(unconnected_gradients) is \
            UnconnectedGradients.ZERO

        def one(p):
            if isinstance(p, Variable):
                t = self._var_tangents.get(id(p))
                return zeros_like(p.value()) if t is None and zero else t
            t = self._tangents.get(id(p))
            return zeros_like(p) if t is None and zero else t

        return nest.map_structure(one, primals)
