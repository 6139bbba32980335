"""``ConcreteFunction``: one traced graph with a fixed input signature, and how it runs.

Calling runs the graph on an executor chosen by tier: the NumPy executor on the first call, the XLA executable
(jax.jit of the graph's lowering) from the second call on (``jit_compile=True``: always; ``False``: never).
Under an eager ``GradientTape`` the call is recorded as one op whose gradient is a second traced function (the
forward graph inlined under a tape, differentiated symbolically), so gradients flow *through* functions.
"""

from __future__ import annotations

import re

from tensorlet._src.framework.context import ctx, get_logger
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph import passes, var_args
from tensorlet._src.graph.executor import Plan
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph, GraphTensor
from tensorlet._src.ops import registry
from tensorlet._src.util import nest
from tensorlet._src.ops.creation import zeros_like

_noticed = set()
_DEFAULT_NAME = re.compile(r"^arg\d+$")


class _Leaf:
    """Marks the position of the i-th flat output tensor in the structured outputs."""

    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


class _CompositeLeaf:
    """Marks a composite result (RaggedTensor, ...): its spec and the _Leafs of its component outputs."""

    __slots__ = ("spec", "leaves")

    def __init__(self, spec, leaves):
        self.spec, self.leaves = spec, leaves


def _fill(x, outs):
    if isinstance(x, _Leaf):
        return outs[x.i]
    if isinstance(x, _CompositeLeaf):
        return x.spec._from_components([outs[leaf.i] for leaf in x.leaves])
    return x


class ConcreteFunction:
    """A traced graph with its input signature; callable with tensors of that signature."""

    def __init__(self, graph: Graph, structured_inputs, structured_outputs, out_template, function=None):
        self.graph = graph
        self._structured_inputs = structured_inputs
        self.structured_outputs = structured_outputs
        self._out_template = out_template
        self._function = function
        self._jit = None if function is None else function._jit_compile
        self._name = graph.name
        self._calls = 0
        self._plan = None
        self._compiled = None
        self._no_xla = None  # reason XLA cannot run this graph
        self._backward = None
        self._var_binding = None  # var_args.Binding of the variable arguments' stand-ins, if any
        self._packer = self._make_packer()

    @classmethod
    def from_trace(cls, graph, tracer, structured_args, out, function):
        flat = nest.flatten(out)
        outputs, template_leaves = [], []
        for x in flat:
            if isinstance(x, Variable):
                x = x.value()
            comp = nest._components(x)
            if comp is not None:  # a RaggedTensor (or other composite) result: its components are outputs
                spec, parts = comp
                leaves = []
                for p in parts:
                    leaves.append(_Leaf(len(outputs)))
                    outputs.append(tracer.capture(p if isinstance(p, Tensor) else convert_to_tensor(p)))
                template_leaves.append(_CompositeLeaf(spec, leaves))
                continue
            if x is None or not (isinstance(x, Tensor) or isinstance(x, (int, float, bool, complex, str, bytes))
                                 or hasattr(x, "__array__")):
                template_leaves.append(x)
                continue
            t = tracer.capture(x if isinstance(x, Tensor) else convert_to_tensor(x))
            template_leaves.append(_Leaf(len(outputs)))
            outputs.append(t)
        graph.outputs = outputs
        template = nest.pack_sequence_as(out, template_leaves) if flat else out
        structured_out = nest.pack_sequence_as(out, [_fill(x, outputs) for x in template_leaves]) if flat else out
        passes.optimize(graph)
        return cls(graph, structured_args, structured_out, template, function)

    # --- introspection ----------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def structured_input_signature(self):
        from tensorlet._src.graph.specs import spec_for

        def spec(x, param=None):
            if isinstance(x, GraphTensor):
                s = spec_for(x)
                if param is not None and _DEFAULT_NAME.match(s.name or ""):  # TF names it after the parameter
                    s = type(s)(s.shape, s.dtype, name=param)
                return s
            return var_args.VariableSpec.of(x) if isinstance(x, var_args.ArgVariable) else x

        args, kwargs = self._structured_inputs
        fn = self._function
        sig = getattr(fn, "_signature", None) if fn is not None else None
        params = list(sig.parameters) if sig is not None else []
        args = tuple(spec(a, params[i] if i < len(params) else None) if isinstance(a, GraphTensor) else
                     nest.map_structure(spec, a) for i, a in enumerate(args))
        kwargs = {k: spec(v, k) if isinstance(v, GraphTensor) else nest.map_structure(spec, v)
                  for k, v in kwargs.items()}
        return args, kwargs

    @property
    def inputs(self):
        return list(self.graph.inputs)

    @property
    def outputs(self):
        return list(self.graph.outputs)

    @property
    def variables(self):
        return tuple(self.graph.variables)

    @property
    def trainable_variables(self):
        return tuple(v for v in self.graph.variables if v.trainable)

    @property
    def captured_inputs(self):
        return [v for v in self.graph.variables if not isinstance(v, var_args.ArgVariable)]

    @property
    def function_type(self):
        """TF's ``FunctionType`` of this trace (``inspect.Signature`` with trace types, output, captures)."""
        from tensorlet._src.graph import function_type

        return function_type.of_concrete(self)

    @property
    def _inference_function(self):
        from tensorlet._src.graph import function_type

        return function_type.InferenceFunction(self)

    def pretty_printed_signature(self, verbose=True):
        """TF's text of this function's type (input parameters, output type, captures)."""
        from tensorlet._src.graph import signatures

        return signatures.pretty_printed_signature(self, verbose)

    @property
    def output_dtypes(self):
        from tensorlet._src.graph import signatures

        return signatures.output_dtypes(self)

    @property
    def output_shapes(self):
        from tensorlet._src.graph import signatures

        return signatures.output_shapes(self)

    def __repr__(self):
        return f"<ConcreteFunction {self.pretty_printed_signature(verbose=False)} at 0x{id(self):X}>"

    def __str__(self):
        return f"ConcreteFunction {self._name}{self.structured_input_signature}\n{self.graph}"

    # --- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        flat = [x for x in nest.flatten((args, kwargs)) if isinstance(x, Tensor) or hasattr(x, "__array__")
                and not isinstance(x, Variable)]
        n = len(self.graph.inputs) - len(self.graph.captures)
        if len(flat) != n:
            raise TypeError(f"{self._name}() expected {n} tensor arguments, got {len(flat)}")
        tensors = []
        for x, ph in zip(flat, self.graph.inputs):
            t = convert_to_tensor(x, dtype_hint=ph.dtype)
            if t.dtype is not ph.dtype or not ph.shape.is_compatible_with(t.shape):
                raise TypeError(f"ConcreteFunction {self._name} was traced for {ph.spec!r} but got "
                                f"{t.dtype.name}{list(t.shape)}")
            tensors.append(t)
        if self._var_binding is not None:
            fn = self._function
            vs = fn._variable_args(args, kwargs) if fn is not None else var_args.variables_in((args, kwargs))
            with self._var_binding(vs, self._name):
                return self._inline(tensors) if ctx.interp is not None and not getattr(
                    ctx.interp, "eager", False) else self._call_flat(tensors)
        if ctx.interp is not None and not getattr(ctx.interp, "eager", False):
            return self._inline(tensors)
        return self._call_flat(tensors)

    def _call_flat(self, tensors):
        if ctx.interp is not None and hasattr(ctx.interp, "function_outputs"):  # check-numerics mode
            interp, ctx.interp = ctx.interp, None
            try:
                out = self._call_flat(tensors)
            finally:
                ctx.interp = interp
            return interp.function_outputs(self._name, tensors, out)
        if ctx.tapes:
            return self._call_recorded(tensors)
        return self._packer(self._run([t._v if t.__class__ is EagerTensor else convert_to_tensor(t)._v
                                       for t in tensors]))

    def _run(self, arrays):
        self._calls += 1
        if self._compiled is not None:
            return self._compiled(arrays)
        if self._jit is True or (self._jit is None and self._calls >= 2 and self._worth_compiling()):
            if self._no_xla is None and self._try_compile():
                return self._first_compiled_call(arrays)
        plan = self._plan
        if plan is None:
            plan = self._plan = Plan(self.graph)
        return plan.run(arrays)

    def _worth_compiling(self):
        """Tiny graphs (a few small ops) run faster on the NumPy executor than through an XLA dispatch."""
        w = getattr(self, "_worth", None)
        if w is None:
            ops = [n for n in self.graph.nodes if n.op not in (PLACEHOLDER, CONST, READ_VAR)]
            elems = 0
            for n in ops:
                for t in n.outputs:
                    k = t.shape.num_elements() if t.shape.rank is not None else None
                    elems += 10 ** 6 if k is None else k
            heavy = any(n.op.heavy for n in ops)
            w = self._worth = heavy or len(ops) >= 8 or elems >= 20000
        return w

    def _first_compiled_call(self, arrays):
        """The first XLA call compiles; a lowering jax rejects (value-dependent shapes it could not see while
        tracing) falls back to the NumPy executor, as a graph with no lowering does."""
        from tensorlet._src.graph.jaxrt import jax
        from tensorlet._src.graph.lowering import NotLowerable

        try:
            return self._compiled(arrays)
        except (jax.errors.ConcretizationTypeError, jax.errors.NonConcreteBooleanIndexError,
                jax.errors.TracerArrayConversionError, jax.errors.TracerBoolConversionError,
                jax.errors.TracerIntegerConversionError) as e:
            self._compiled = None
            self._no_xla = NotLowerable("?", f"cannot be compiled: {type(e).__name__}")
            if self._jit is True:
                raise
            plan = self._plan or Plan(self.graph)
            self._plan = plan
            return plan.run(arrays)

    def _try_compile(self):
        from tensorlet._src.graph.lowering import Compiled, NotLowerable

        try:
            self._compiled = Compiled(self.graph)
            return True
        except NotLowerable as e:
            self._no_xla = e
            if self._jit is True:
                from tensorlet._src.framework import errors

                raise errors.InvalidArgumentError(
                    None, e.op_name, f"tf.function '{self._name}' has jit_compile=True but {e}; XLA cannot "
                                     "compile it. Use jit_compile=None to run such functions on the NumPy "
                                     "executor.") from None
            if self._name not in _noticed:
                _noticed.add(self._name)
                get_logger().warning("tf.function '%s' runs on the NumPy graph executor (not compiled by XLA): %s.",
                                     self._name, e)
            return False

    def _make_packer(self):
        """arrays -> the structured outputs; specialised for the common shapes of results."""
        template = self._out_template
        new = object.__new__

        def wrap(a):
            r = new(EagerTensor)
            r._v = a
            return r

        if isinstance(template, _Leaf):
            return lambda arrays: wrap(arrays[0])
        if type(template) in (tuple, list) and all(isinstance(x, _Leaf) for x in template) and \
                [x.i for x in template] == list(range(len(template))):
            kind = type(template)
            return lambda arrays: kind(wrap(a) for a in arrays)
        return self._pack

    def _pack(self, arrays):
        outs = []
        for a in arrays:
            r = object.__new__(EagerTensor)
            r._v = a
            outs.append(r)
        return self._structure(outs)

    def _structure(self, outs):
        template = self._out_template
        flat = nest.flatten(template)
        if not flat:
            return template
        return nest.pack_sequence_as(template, [_fill(x, outs) for x in flat])

    # --- inlining (a call while tracing another function, and gradient recomputation) ---------------
    def _inline(self, tensors, var_values=None, write_back=True):
        g = self.graph
        env = {}
        for ph, t in zip(g.inputs, tensors):
            env[id(ph)] = t
        for outer, inner in g.captures:
            env[id(inner)] = outer
        slots = set() if self._var_binding is None else {id(s) for s in self._var_binding.slots}
        for node in g.nodes:
            op = node.op
            if op is PLACEHOLDER:
                continue
            if op is CONST:
                r = object.__new__(EagerTensor)
                r._v = node.attrs["value"]
                env[id(node.outputs[0])] = r
            elif op is READ_VAR:
                var = node.attrs["var"]
                if var_values is not None:
                    env[id(node.outputs[0])] = var_values[id(var)]
                else:  # a variable argument: the variable it is bound to in this call
                    env[id(node.outputs[0])] = (var._bound if id(var) in slots else var).value()
            else:
                r = registry.bind(op, *[env[id(t)] for t in node.inputs], **node.attrs)
                if op.n_out == 1:
                    env[id(node.outputs[0])] = r
                else:
                    for o, v in zip(node.outputs, r):
                        env[id(o)] = v
        if write_back:
            for v in g.variables:
                final = g.var_final.get(id(v))
                if final is not None:
                    (v._bound if id(v) in slots else v).assign(env[id(final)])
        return self._structure([env[id(t)] for t in g.outputs])

    # --- gradients through a call -------------------------------------------------------------------
    def _call_recorded(self, tensors):
        from tensorlet._src.autodiff.custom import _CustomOp, _Paused
        from tensorlet._src.autodiff.tape import record_custom

        g = self.graph
        read_vars = [v for v in g.variables if id(v) in g.var_reads]
        reads = tuple(var_args.real(v).value() for v in read_vars)  # tapes watching these variables see the reads
        with _Paused():
            arrays = self._run([t._v for t in (convert_to_tensor(x) for x in tensors)])
        outs = []
        for a in arrays:
            r = object.__new__(EagerTensor)
            r._v = a
            outs.append(r)
        n_in = len(tensors)

        def grad(gr, ans, *ins):
            gs = list(gr) if len(outs) > 1 else [gr]
            gs = [_zeros_like(o) if x is None else x for o, x in zip(outs, gs)]
            bwd = self._backward_function(read_vars)
            res = bwd(list(ins[:n_in]), list(ins[n_in:]), gs)
            return tuple(res)

        if outs:
            op = _CustomOp(f"PartitionedCall:{self._name}", grad, len(outs) if len(outs) > 1 else 1)
            record_custom(op, tuple(tensors) + reads, {}, tuple(outs) if len(outs) > 1 else outs[0])
        return self._structure(outs)

    def _backward_function(self, read_vars):
        if self._backward is None:
            from tensorlet._src.autodiff.tape import GradientTape
            from tensorlet._src.graph.function import Function

            def backward(args, var_vals, dys):
                with GradientTape() as tape:
                    tape.watch(args + var_vals)
                    out = self._inline(args, {id(v): x for v, x in zip(read_vars, var_vals)}, write_back=False)
                flat = [t for t in nest.flatten(out) if isinstance(t, Tensor)]
                grads = tape.gradient(flat, args + var_vals, output_gradients=dys)
                return [_zeros_like(s) if gr is None else gr for s, gr in zip(args + var_vals, grads)]

            self._backward = Function(backward, name=f"{self._name}_grad", jit_compile=self._jit, autograph=False)
        return self._backward


def _zeros_like(t):
    return zeros_like(t)
