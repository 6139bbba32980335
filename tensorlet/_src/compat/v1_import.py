"""``tf.import_graph_def`` / ``tf.graph_util.import_graph_def``: a TensorFlow ``GraphDef`` into the current graph.

Nodes are mapped onto registry ops through TF's OpDefs (``tf_ops.tf_to_op``, as the SavedModel loader does) and
built in the current compat.v1 graph, so ``Session.run`` runs them; nothing in the proto is executed as Python.
Resource variables (``VarHandleOp``) and TF1 reference variables (``VariableV2``) become tensorlet variables
(value unset until their initializer or a ``Saver.restore`` runs); reads and assignments become the graph's
read/assign nodes; ``NoOp`` groups keep their control inputs.  The saver's own ``SaveV2`` / ``RestoreV2``
subgraph is not imported (``import_meta_graph`` returns a ``Saver`` that restores by name).  A node whose op
tensorlet lacks does not stop the import: the names that depend on it raise an error naming the op when used.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.ir import GraphTensor, Spec
from tensorlet._src.ops.registry import bind
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import SavedModelError
from tensorlet._src.saved_model.tf_ops import attr_python, default_python, opdef, tf_to_op

MAX_NODES = 2_000_000
_SAVER_OPS = frozenset(("SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "Save", "Restore",
                        "SaveSlices", "RestoreSlice"))
_VARIABLES = frozenset(("VarHandleOp", "VariableV2", "Variable"))
_ASSIGNS = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add", "AssignSubVariableOp": "assign_sub",
            "Assign": "assign", "AssignAdd": "assign_add", "AssignSub": "assign_sub"}
# TF's optimizer kernels: the number of slot variables after the variable
_APPLY = {"ApplyGradientDescent": 0, "ApplyMomentum": 1, "ApplyAdam": 2, "ApplyAdagrad": 1, "ApplyAdagradV2": 1,
          "ApplyRMSProp": 2}
_APPLY.update({"Resource" + k: v for k, v in list(_APPLY.items())})
_FUNCTIONAL = frozenset(("If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall",
                         "StatefulPartitionedCall"))
_PASS = frozenset(("Identity", "StopGradient", "Snapshot", "PreventGradient"))


class Unavailable:
    """What a node that could not be imported leaves in its place: using it raises ``error``."""

    def __init__(self, error, cls=errors.NotFoundError):
        self.error = error
        self.cls = cls


def _split(ref):
    if ref.startswith("^"):
        return ref[1:], None
    name, _, idx = ref.partition(":")
    if idx and not idx.isdigit():
        raise ValueError(f"Cannot parse tensor name {ref!r}")
    return name, int(idx or 0)


def _toposort(gd):
    by_name = {}
    for nd in gd.node:
        if nd.name in by_name:
            raise ValueError(f"Duplicate node name in graph: '{nd.name}'")
        by_name[nd.name] = nd
    order, state = [], {}
    for root in by_name:
        if root in state:
            continue
        stack = [(root, iter(by_name[root].input))]
        state[root] = 1
        while stack:
            name, it = stack[-1]
            ref = next(it, None)
            if ref is None:
                stack.pop()
                state[name] = 2
                order.append(by_name[name])
                continue
            src = _split(ref)[0]
            if src not in by_name:
                raise ValueError(f"Node '{name}': Unknown input node '{ref}'")
            if state.get(src) == 1:
                raise ValueError(f"GraphDef is not a DAG: node '{name}' is in a cycle through '{src}'")
            if src not in state:
                state[src] = 1
                stack.append((src, iter(by_name[src].input)))
    return order


def _is_const(x):
    return isinstance(x, GraphTensor) and getattr(x, "_const", None) is not None


class Importer:
    def __init__(self, builder, prefix, input_map):
        from tensorlet._src.compat import v1_graph as v1
        from tensorlet._src.compat import v1_graph_ops  # noqa: F401 - registers the run-time-shape op forms

        self.v1 = v1
        self.b = builder
        self.g = builder.graph
        self.v1graph = getattr(builder, "v1graph", None)  # None: inside tf.function (a plain tracer)
        self.prefix = prefix
        self.input_map = {}
        for k, v in (input_map or {}).items():
            if not isinstance(k, str):
                raise TypeError(f"input_map keys must be strings, got {type(k).__name__}")
            name, idx = _split(k)
            self.input_map[(name, idx)] = v
        self.used_map = set()
        self.env = {}  # TF node name -> [outputs] (GraphTensor / Variable / Unavailable)
        self.nodes = {}  # TF node name -> the IR node that carries its effect (control dependencies)
        self.variables = {}  # TF node name -> Variable
        self.functions = None  # the SavedModel loader's FunctionDef interpreter, for the graph's library

    def full(self, name):
        return self.prefix + name

    def value(self, ref, where):
        name, idx = _split(ref)
        if (name, idx) in self.input_map:
            self.used_map.add((name, idx))
            v = self.input_map[(name, idx)]
            return v if isinstance(v, (Variable, GraphTensor)) else convert_to_tensor(v)
        outs = self.env[name]
        if isinstance(outs, Unavailable):
            return outs
        if idx >= len(outs):
            raise ValueError(f"{where}: input '{ref}' names output {idx} of a node with {len(outs)} outputs")
        return outs[idx]

    def run(self, gd):
        if len(gd.node) > MAX_NODES:
            raise ValueError(f"GraphDef has {len(gd.node)} nodes (limit {MAX_NODES})")
        if gd.library.function:
            from tensorlet._src.saved_model.tf_load import MAX_FUNCTIONS, Interpreter

            if len(gd.library.function) > MAX_FUNCTIONS:
                raise ValueError(f"GraphDef has {len(gd.library.function)} library functions")
            self.functions = Interpreter({f.signature.name: f for f in gd.library.function})
        for nd in _toposort(gd):
            self.node(nd)

    def _track(self, before, name, control):
        """Names the nodes built for TF node ``name`` (the last one carries the name) and orders them after
        ``control``; returns the last one."""
        new = self.g.nodes[before:]
        if not new:
            return None
        full = self.v1._unique(self.g, self.full(name))
        for n in new[:-1]:
            n.name = self.v1._unique(self.g, f"{full}/{self.v1._tf_type(n.op)}")
        new[-1].name = full
        if control and self.v1graph is not None:
            for n in new:
                n.control = tuple(dict.fromkeys(tuple(n.control) + tuple(control)))
        return new[-1]

    def node(self, nd):
        where = f"node '{nd.name}' ({nd.op})"
        data = [i for i in nd.input if not i.startswith("^")]
        ctl_names = [i[1:] for i in nd.input if i.startswith("^")]
        ins = [self.value(i, where) for i in data]
        bad = next((x for x in ins if isinstance(x, Unavailable)), None)
        if bad is None:
            bad = next((self.env[c] for c in ctl_names if isinstance(self.env.get(c), Unavailable)), None)
        if bad is not None:
            self.env[nd.name] = bad
            self._mark(nd.name, bad)
            return
        control = [self.nodes[c] for c in ctl_names if self.nodes.get(c) is not None]
        if nd.op in _SAVER_OPS:
            bad = Unavailable(f"{where} belongs to a Saver's subgraph, which tensorlet does not import: use the "
                              "Saver import_meta_graph returns")
            self.env[nd.name] = bad
            self._mark(nd.name, bad)
            return
        try:
            outs = self._build(nd, ins, control, where)
        except (errors.NotFoundError, errors.UnimplementedError) as e:  # an op tensorlet lacks: fail when used
            bad = Unavailable(getattr(e, "message", None) or str(e), errors.NotFoundError if isinstance(
                e, errors.NotFoundError) else errors.UnimplementedError)
            self.env[nd.name] = bad
            self._mark(nd.name, bad)
            return
        self.env[nd.name] = outs

    def _mark(self, name, bad):
        if self.v1graph is None:  # a function's graph is built now and run as a whole: fail at once
            raise bad.cls(None, None, bad.error)
        self.v1graph._unavailable[self.full(name)] = bad

    def _attrs(self, nd, od, where):
        attrs = {k: attr_python(v, where) for k, v in nd.attr.items() if not k.startswith("_")}
        for a in od["attrs"]:
            if a["name"] not in attrs and "default" in a:
                attrs[a["name"]] = default_python(a)
        return attrs

    def _build(self, nd, ins, control, where):
        from tensorlet._src.saved_model.codec import UnknownOp

        op = nd.op
        od = opdef(op)
        if od is None and op not in ("VariableV2", "Variable", "AssignAdd", "AssignSub",
                                     "IsVariableInitialized", "Switch", "Merge") and op not in _APPLY:
            raise UnknownOp(f"{where}: Op type not registered '{op}' in tensorlet")
        attrs = self._attrs(nd, od, where) if od is not None else {
            k: attr_python(v, where) for k, v in nd.attr.items() if not k.startswith("_")}
        b, g = self.b, self.g
        before = len(g.nodes)
        if (nd.name, 0) in self.input_map and op in ("Placeholder", "PlaceholderWithDefault"):
            return [self.value(nd.name + ":0", where)]
        if self.v1graph is None:  # inside tf.function
            if op == "NoOp":  # (a function runs its ops in program order: control inputs have nothing to do)
                self.nodes[nd.name] = None
                return []
            if op in _VARIABLES:
                raise errors.UnimplementedError(None, op, f"{where}: a GraphDef with variables cannot be imported "
                                                          "inside tf.function; import it into a tf.compat.v1.Graph")
            if op == "Placeholder":
                raise ValueError(f"{where}: inside tf.function every Placeholder of the imported graph must be "
                                 f"replaced through input_map (input_map={{'{nd.name}:0': tensor}})")
        if op == "Placeholder":
            dtype = attrs.get("dtype")
            shape = attrs.get("shape")
            shape = shape if isinstance(shape, TensorShape) else None  # (the OpDef's default: unknown)
            if not isinstance(dtype, _dt.DType):
                raise ValueError(f"{where}: a Placeholder needs a dtype")
            t = g.placeholder(Spec(shape if shape is not None else None, dtype),
                              name=self.v1._unique(g, self.full(nd.name)))
            return [t]
        if op == "PlaceholderWithDefault":
            shape = attrs.get("shape")
            node = g.add(self.v1.registry.REGISTRY["Identity"], [b.capture(ins[0])], {},
                         [Spec(shape if isinstance(shape, TensorShape) else None, ins[0].dtype)],
                         name=self.v1._unique(g, self.full(nd.name)))
            node.control = tuple(control) if self.v1graph is not None else ()
            self.nodes[nd.name] = node
            return [node.outputs[0]]
        if op == "Const":
            if "value" not in attrs:
                raise ValueError(f"{where}: Const without a value")
            t = g.constant(attrs["value"])
            t.node.name = self.v1._unique(g, self.full(nd.name))
            if control and self.v1graph is not None:  # (TF1 conds: constants run only in the taken branch)
                t.node.control = tuple(control)  # (what folds it gets these control inputs too: _track)
            self.nodes[nd.name] = t.node
            return [t]
        if op in _VARIABLES:
            return [self._variable(nd, attrs, where)]
        if op in ("VarIsInitializedOp", "IsVariableInitialized"):
            t = g.constant(np.asarray(True))
            t.node.name = self.v1._unique(g, self.full(nd.name))
            return [t]
        if op == "ReadVariableOp" or (op in _PASS and ins and isinstance(ins[0], Variable)):
            t = b.read_variable(_var(ins, where))
            self._track(before, nd.name, control)
            self.nodes[nd.name] = t.node
            return [t]
        if op in _ASSIGNS:
            if len(ins) != 2:
                raise ValueError(f"{where}: needs a variable and a value")
            t = b.assign_variable(_var(ins, where), ins[1], _ASSIGNS[op])
            self.nodes[nd.name] = self._track(before, nd.name, control)
            return [t] if op in ("Assign", "AssignAdd", "AssignSub") else []
        if op in _APPLY:
            t = _apply_update(b, op, ins, attrs, where)
            self.nodes[nd.name] = self._track(before, nd.name, control)
            return [t] if not op.startswith("Resource") else []
        if op == "NoOp":
            node = g.add(self.v1.NO_OP, [], {"deps": list(control)}, [],
                         name=self.v1._unique(g, self.full(nd.name)))
            self.nodes[nd.name] = node
            return []
        if op in _FUNCTIONAL:
            if self.functions is None:
                raise ValueError(f"{where}: the GraphDef has no function library")
            f = self.functions
            r = (f._if(attrs, ins, where) if op.endswith("If") else f._while(attrs, ins, where) if
                 op.endswith("While") else f.run(attrs.get("f"), ins))
            outs = list(r)
            last = self._track(before, nd.name, control)
            self.nodes[nd.name] = last
            return outs
        if any(isinstance(x, Variable) for x in ins):
            raise ValueError(f"{where}: a variable handle used as a tensor")
        if op in ("Switch", "Merge"):
            if self.v1graph is None:
                raise errors.UnimplementedError(None, op, f"{where}: TF1 control flow (Switch / Merge) cannot be "
                                                          "imported inside tf.function")
            from tensorlet._src.compat import v1_graph_ops

            if (op == "Switch" and len(ins) != 2) or (op == "Merge" and not ins):
                raise ValueError(f"{where}: wrong number of inputs ({len(ins)})")
            r = bind(v1_graph_ops.SWITCH if op == "Switch" else v1_graph_ops.MERGE, *[b.capture(x) for x in ins])
            outs = list(r)
            self.nodes[nd.name] = self._track(before, nd.name, control)
            return outs
        if op in _PASS:
            t = b.capture(ins[0]) if ins else None
            if t is None:
                raise ValueError(f"{where}: needs an input")
            reg = self.v1.registry.REGISTRY["Identity"]
            r = bind(reg, t)
        else:
            try:
                reg, inputs, kw = tf_to_op(op, od, attrs, ins, _is_const, where)
            except SavedModelError as e:
                if isinstance(e, errors.NotFoundError):
                    raise
                raise errors.UnimplementedError(None, op, str(e)) from None
            try:
                r = bind(reg, *inputs, **kw)
            except (TypeError, ValueError, KeyError, IndexError) as e:
                raise ValueError(f"{where}: cannot apply {reg.name}: {type(e).__name__}: {e}") from None
        outs = list(r) if isinstance(r, (tuple, list)) else [r]
        last = self._track(before, nd.name, control)
        if last is None:  # folded to an existing tensor: an Identity carries the name and the control inputs
            outs = [bind(self.v1.registry.REGISTRY["Identity"], b.capture(o)) for o in outs]
            last = self._track(before, nd.name, control)
        self.nodes[nd.name] = last
        return outs

    def _variable(self, nd, attrs, where):
        dtype = attrs.get("dtype")
        shape = attrs.get("shape")
        if not isinstance(dtype, _dt.DType) or dtype.name in ("resource", "variant"):
            raise ValueError(f"{where}: bad variable dtype {dtype!r}")
        dtype = dtype.base_dtype if hasattr(dtype, "base_dtype") else dtype
        if not isinstance(shape, TensorShape) or shape.rank is None or None in shape.as_list():
            raise errors.UnimplementedError(None, nd.op, f"{where}: a variable of unknown shape {shape}")
        if int(np.prod(shape.as_list(), dtype=np.float64)) > 1 << 31:
            raise ValueError(f"{where}: variable of shape {shape} is too large")
        from tensorlet._src.framework.context import ctx

        saved = ctx.name_scope
        ctx.name_scope = []
        try:
            v = Variable(np.zeros(shape.as_list(), dtype._np), name=self.full(nd.name), dtype=dtype)
        finally:
            ctx.name_scope = saved
        vg = self.v1graph
        for key in ("variables", "trainable_variables"):  # (import_meta_graph rebuilds the collections)
            lst = vg._collections.get(key, [])
            if any(x is v for x in lst):
                lst[:] = [x for x in lst if x is not v]
        vg._initial_values.pop(id(v), None)
        vg._imported_variables[v.name] = v
        self.variables[nd.name] = v
        return v

    def element(self, name):
        """A ``return_elements`` entry: ``"op:0"`` a tensor, ``"op"`` an operation."""
        node_name, idx = _split(name) if ":" in name else (name, None)
        if node_name not in self.env:
            raise ValueError(f"Requested return_element {name!r} not found in graph_def.")
        outs = self.env[node_name]
        if isinstance(outs, Unavailable):
            raise outs.cls(None, None, outs.error)
        if idx is None:
            node = self.nodes.get(node_name)
            if node is None and outs and isinstance(outs[0], GraphTensor):
                node = outs[0].node
            if node is None:
                raise ValueError(f"Requested return_element {name!r} is not an operation tensorlet imported")
            return self.v1.Operation(self.v1graph, node) if self.v1graph is not None else node
        if idx >= len(outs):
            raise ValueError(f"Requested return_element {name!r} not found in graph_def.")
        x = outs[idx]
        return x.value() if isinstance(x, Variable) else x


def _apply_update(b, op, ins, attrs, where):
    """An optimizer kernel; the variable's assignment runs after its slots' (a session running it runs those)."""
    g = b.graph
    before = len(g.nodes)
    t = _apply_update_body(b, op, ins, attrs, where)
    from tensorlet._src.compat.v1_graph import ASSIGN_VAR

    slots = [n for n in g.nodes[before:] if n.op is ASSIGN_VAR and n is not t.node]
    t.node.control = tuple(t.node.control) + tuple(slots)
    return t


def _apply_update_body(b, op, ins, attrs, where):
    """TF's optimizer update kernels (``ResourceApplyAdam`` & co) as reads, arithmetic and assignments; returns
    the variable's new value (see ``_apply_update``)."""
    from tensorlet._src.ops.math_binary import add, multiply, subtract, truediv
    from tensorlet._src.ops.math_unary import sqrt, square

    n_slots = _APPLY[op]
    if len(ins) < 1 + n_slots or not all(isinstance(x, Variable) for x in ins[:1 + n_slots]):
        raise ValueError(f"{where}: needs a variable and {n_slots} slot variables first")
    var, slots, rest = ins[0], ins[1:1 + n_slots], [b.capture(x) for x in ins[1 + n_slots:]]
    kind = op[8:] if op.startswith("Resource") else op
    need = {"ApplyGradientDescent": 2, "ApplyMomentum": 3, "ApplyAdam": 7, "ApplyAdagrad": 2, "ApplyAdagradV2": 3,
            "ApplyRMSProp": 5}[kind]
    if len(rest) != need:
        raise ValueError(f"{where}: takes {1 + n_slots + need} inputs, got {len(ins)}")
    nesterov = bool(attrs.get("use_nesterov"))
    one = np.asarray(1, var.dtype._np)
    if kind == "ApplyGradientDescent":
        lr, g = rest
        return b.assign_variable(var, multiply(lr, g), "assign_sub")
    if kind == "ApplyMomentum":
        lr, g, mom = rest
        accum = add(multiply(b.read_variable(slots[0]), mom), g)
        b.assign_variable(slots[0], accum)
        step = add(multiply(g, lr), multiply(multiply(accum, mom), lr)) if nesterov else multiply(accum, lr)
        return b.assign_variable(var, step, "assign_sub")
    if kind == "ApplyAdam":
        b1p, b2p, lr, b1, b2, eps, g = rest
        lr_t = truediv(multiply(lr, sqrt(subtract(one, b2p))), subtract(one, b1p))
        m = add(multiply(b1, b.read_variable(slots[0])), multiply(subtract(one, b1), g))
        v = add(multiply(b2, b.read_variable(slots[1])), multiply(subtract(one, b2), square(g)))
        b.assign_variable(slots[0], m)
        b.assign_variable(slots[1], v)
        num = add(multiply(m, b1), multiply(subtract(one, b1), g)) if nesterov else m
        return b.assign_variable(var, truediv(multiply(lr_t, num), add(sqrt(v), eps)), "assign_sub")
    if kind in ("ApplyAdagrad", "ApplyAdagradV2"):
        lr, g = rest[0], rest[-1]
        accum = b.read_variable(slots[0])
        if attrs.get("update_slots", True):
            accum = add(accum, square(g))
            b.assign_variable(slots[0], accum)
        denom = sqrt(accum) if kind == "ApplyAdagrad" else add(sqrt(accum), rest[1])
        return b.assign_variable(var, truediv(multiply(g, lr), denom), "assign_sub")
    lr, rho, momentum, eps, g = rest  # ApplyRMSProp
    ms = add(multiply(rho, b.read_variable(slots[0])), multiply(subtract(one, rho), square(g)))
    mom = add(multiply(momentum, b.read_variable(slots[1])), truediv(multiply(lr, g), sqrt(add(ms, eps))))
    b.assign_variable(slots[0], ms)
    b.assign_variable(slots[1], mom)
    return b.assign_variable(var, mom, "assign_sub")


def _var(ins, where):
    if not ins or not isinstance(ins[0], Variable):
        raise ValueError(f"{where}: the first input is not a variable")
    return ins[0]


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports ``graph_def`` (a ``GraphDef`` proto) into the current graph, under the name scope ``name``
    (default ``"import"``; ``""`` for none); returns the ``return_elements`` tensors/operations, or None."""
    from tensorlet._src.compat import v1_graph as v1

    if not isinstance(graph_def, P.GraphDef):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}")
    if return_elements is not None and (isinstance(return_elements, str) or not all(
            isinstance(x, str) for x in return_elements)):
        raise TypeError("return_elements must be a list of strings.")
    from tensorlet._src.framework.context import ctx
    from tensorlet._src.graph.tracing import Tracer

    if v1._current_builder() is None and not isinstance(ctx.interp, Tracer):
        with v1.get_default_graph().as_default():  # (eagerly: into the default TF1 graph, as TF does)
            return import_graph_def(graph_def, input_map, return_elements, name, op_dict, producer_op_list)
    imp = run_import(graph_def, input_map, "import" if name is None else name)
    if return_elements is None:
        return None
    return [imp.element(x) for x in return_elements]


def run_import(graph_def, input_map, base):
    """Imports ``graph_def`` into the current compat.v1 graph under the scope ``base``; returns the Importer."""
    from tensorlet._src.compat import v1_graph as v1
    from tensorlet._src.framework.context import get_current_name_scope

    from tensorlet._src.framework.context import ctx

    b = v1._current_builder() or ctx.interp
    scope = get_current_name_scope()
    prefix = ""
    if base:
        full = (scope + "/" if scope else "") + base
        used = {n.name.split("/")[0].lower() for n in b.graph.nodes} if not scope else set()
        k = 0
        cand = full
        while cand.lower() in used:  # TF: a second import under "import" is "import_1"
            k += 1
            cand = f"{full}_{k}"
        prefix = cand + "/"
    elif scope:
        prefix = scope + "/"
    imp = Importer(b, prefix, input_map)
    saved = getattr(b, "_user_names", True)
    b._user_names = False  # (the nodes take the GraphDef's names, not the import call's name=)
    try:
        imp.run(graph_def)
    finally:
        b._user_names = saved
    missing = [f"{n}:{i}" for n, i in imp.input_map if (n, i) not in imp.used_map]
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
    return imp


def read_graph_def(path, text=None):
    """A ``GraphDef`` from a file (binary, or text format when ``text`` or when it does not parse as binary)."""
    from tensorlet._src.compat.v1_meta_graph import read_proto

    return read_proto(path, P.GraphDef, text)
