"""TF1 graph mode on tensorlet's IR: ``tf.compat.v1.Graph``, ``placeholder``, ``Session.run``, ``gradients``,
``get_variable``/``variable_scope``, ``global_variables_initializer``, ``disable_eager_execution``.

A ``Graph`` under ``as_default()`` (or after ``disable_eager_execution()``) makes ops build nodes instead of
running.  Unlike ``tf.function`` tracing, variables are not functionalized: a read is a ``ReadVariableOp`` node
that reads the variable when a session runs it, and ``v.assign(x)`` is an ``AssignVariableOp`` node that writes
it.  ``Session.run`` executes the nodes the fetches need (stopping at fed tensors) on the NumPy kernels.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.executor import run_kernel
from tensorlet._src.graph.ir import CONST, Graph as IRGraph, GraphTensor, PLACEHOLDER, READ_VAR, Spec
from tensorlet._src.graph import ir as _ir_module
from tensorlet._src.graph.tracing import Tracer
from tensorlet._src.ops import registry
from tensorlet._src.ops.registry import NONDIFF, defop, tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.grad_utils import add_grads

# --- graph-only effect ops ----------------------------------------------------------------------------------


def _assign_np(xp, value, var, kind):
    if kind == "assign":
        new = np.array(value, dtype=var.dtype._np)
    elif kind == "assign_add":
        new = np.asarray(np.add(var._v, value), dtype=var.dtype._np)
    else:
        new = np.asarray(np.subtract(var._v, value), dtype=var.dtype._np)
    var._v = new
    return new


ASSIGN_VAR = defop("AssignVariableOp", _assign_np, grad=NONDIFF, kind="v1", stateful=True, no_lowering=True,
                   shape=lambda value, var, kind: Spec(var.shape, var.dtype))
_ASSIGN_OPS = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp",
               "assign_sub": "AssignSubVariableOp"}
NO_OP = defop("NoOp", lambda xp, *deps: (), grad=NONDIFF, n_out=None, kind="v1", stateful=True, no_lowering=True,
              shape=lambda *deps: [])


@tf_export("Operation", "compat.v1.Operation")
class Operation:
    """A node of a compat.v1 graph (``graph.get_operations()``, ``tf.group``, train ops); ``sess.run(op)`` runs
    it for its effect and gives None."""

    def __init__(self, graph, node, name=None):
        self.graph = graph
        self._node = node
        self._name = name

    @property
    def name(self):
        return self._name or self._node.name

    @property
    def type(self):
        """TF's op type (``MatMul``, ``AssignVariableOp``...)."""
        op = self._node.op
        if op is ASSIGN_VAR:
            return _ASSIGN_OPS[self._node.attrs["kind"]]
        return _tf_type(op)

    @property
    def outputs(self):
        return [] if self._node.op in (ASSIGN_VAR, NO_OP) else list(self._node.outputs)

    @property
    def inputs(self):
        return list(self._node.inputs) if self._node.op is not NO_OP else []

    @property
    def control_inputs(self):
        deps = list(self._node.control) + list(self._node.attrs.get("deps", ()) if self._node.op is NO_OP else ())
        if self._node.op is NO_OP:
            deps += [t.node for t in self._node.inputs]
        return [Operation(self.graph, n) for n in dict.fromkeys(deps)]

    @property
    def device(self):
        return ""

    @property
    def node_def(self):
        from tensorlet._src.compat import v1_graph_def

        gd = v1_graph_def.as_graph_def(self.graph)
        for nd in gd.node:
            if nd.name == self.name:
                return nd
        raise ValueError(f"Operation {self.name!r} has no NodeDef")

    def get_attr(self, name):
        from tensorlet._src.saved_model.tf_ops import attr_python

        nd = self.node_def
        if name not in nd.attr:
            raise ValueError(f"Operation {self.name!r} has no attr named '{name}'.")
        return attr_python(nd.attr[name], self.name)

    def values(self):
        return tuple(self.outputs)

    def __eq__(self, other):
        return isinstance(other, Operation) and other._node is self._node

    def __hash__(self):
        return hash(id(self._node))

    def run(self, feed_dict=None, session=None):
        (session or get_default_session() or Session(graph=self.graph)).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


# --- the builder (interpreter) and the Graph ---------------------------------------------------------------

class V1Builder(Tracer):
    """Ops build nodes in a TF1 graph; variable reads/writes are nodes executed by ``Session.run``."""

    def __init__(self, graph: Graph):
        super().__init__(graph._ir)
        self.v1graph = graph

    def read_variable(self, var):
        g = self.graph
        node = g.add(READ_VAR, (), {"var": var}, [Spec(var.shape, var.dtype)],
                     name=_unique(g, var._name.split(":")[0].replace("/", "_") + "/read"))
        if all(var is not x for x in g.variables):
            g.variables.append(var)
        return node.outputs[0]

    def assign_variable(self, var, value, kind="assign"):
        value = self.capture(convert_to_tensor(value, dtype_hint=var.dtype))
        if value.dtype is not var.dtype:
            raise errors.invalid_argument(kind, f"Cannot {kind} a {value.dtype.name} value to variable "
                                                f"'{var._name}' of dtype {var.dtype.name}")
        from tensorlet._src.framework.context import get_current_name_scope

        scope = get_current_name_scope()
        node = self.graph.add(ASSIGN_VAR, [value], {"var": var, "kind": kind}, [Spec(var.shape, var.dtype)],
                              name=_unique(self.graph, (scope + "/" if scope else "") + _ASSIGN_OPS[kind]))
        return node.outputs[0]

    def variable_created(self, var):
        base = var._name[:-2] if var._name.endswith(":0") else var._name
        var._name = _unique(self.graph, base) + ":0"  # TF: a second variable "w" in a graph is "w_1"
        self.v1graph._register_variable(var)

    def bind(self, op, inputs, attrs):
        g = self.graph
        before = len(g.nodes)
        r = super().bind(op, inputs, attrs)
        if len(g.nodes) > before:
            self._name_nodes(g.nodes[before:])
        deps = self.v1graph._control
        if deps:
            for t in (r if isinstance(r, tuple) else (r,)):
                if isinstance(t, GraphTensor) and t.graph is self.graph and not t.node.control:
                    t.node.control = tuple(deps)
        return r


    def _name_nodes(self, nodes):
        """TF's node names: ``scope/OpType`` (``_1``, ``_2``... when taken); the ``name=`` the user passed to the
        public function that made them names its last node, earlier ones go under it (``name/OpType``)."""
        from tensorlet._src.framework.context import get_current_name_scope

        g = self.graph
        if not self._user_names:  # import_graph_def renames them after the GraphDef: reserve no TF-like name here
            for n in nodes:
                n.name = _unique(g, "_importing/" + _tf_type(n.op))
            return
        scope = get_current_name_scope()
        prefix = scope + "/" if scope else ""
        user, frame = _user_call() if self._user_names else (None, None)
        prev = self._last_named
        if user is not None and prev is not None and prev[0] is frame and prev[1].name == prev[2]:
            prev[1].name = _unique(g, f"{prev[2]}/{_tf_type(prev[1].op)}")  # the call made another node
            full = prev[2]
        else:
            full = _unique(g, prefix + user) if user is not None else None
        for k, n in enumerate(nodes):
            if full is not None and k == len(nodes) - 1:
                n.name = full
            else:
                n.name = _unique(g, (full + "/" if full else prefix) + _tf_type(n.op))
        self._last_named = (frame, nodes[-1], full) if full is not None else None

    _last_named = None
    _user_names = True  # (off while import_graph_def builds nodes: they take the GraphDef's names)


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _user_call():
    """``(name, frame)`` of the outermost tensorlet call on the stack (the public function the user called):
    its ``name`` argument when it is a non-empty string, else None."""
    f = sys._getframe(2)
    chain = []
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        chain.append(f)
        f = f.f_back
    if not chain:
        return None, None
    for f in reversed(chain[-3:]):  # (the public function may be a thin dispatch wrapper around the op's)
        code = f.f_code
        params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        if "name" in params:
            name = f.f_locals.get("name")
            return (name if isinstance(name, str) and name else None), chain[-1]
        kw = f.f_locals.get("kwargs") if code.co_flags & 0x08 else None  # CO_VARKEYWORDS
        if isinstance(kw, dict) and isinstance(kw.get("name"), str) and kw["name"]:
            return kw["name"], chain[-1]
    return None, chain[-1]


def _tf_type(op):
    td = op.tfdef
    return (td.op if td is not None and td.op else None) or op.name


def _unique(g, base):
    """A node name not used yet in ``g``: ``base``, else ``base_1``, ``base_2``... (TF compares names case-blind)."""
    names = getattr(g, "_names", None)
    if names is None:
        names = g._names = {}
    key = base.lower()
    n = names.get(key, 0)
    name = base if n == 0 else f"{base}_{n}"
    while n and name.lower() in names:
        n += 1
        name = f"{base}_{n}"
    names[key] = n + 1
    if name.lower() != key:
        names[name.lower()] = 1
    return name


_default = threading.local()


class _Dead:
    """The value on the untaken output of a TF1 ``Switch`` (``v1_graph_ops``): ops reading it are not run."""

    def __repr__(self):
        return "<dead tensor>"


DEAD = _Dead()
GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER = 2474, 12  # the GraphDef versions TF 2.21 writes
registry.export_value("compat.v1.GRAPH_DEF_VERSION", __name__, "GRAPH_DEF_VERSION")
registry.export_value("compat.v1.GRAPH_DEF_VERSION_MIN_CONSUMER", __name__, "GRAPH_DEF_VERSION_MIN_CONSUMER")


class _ProtoClass(type):
    """``tf.compat.v1.GraphDef`` & co: TF's protobuf message classes (tensorboard's copies, the same wire format),
    loaded on first use so that ``tf.compat.v1`` does not import protobuf."""

    def _real(cls):
        from tensorlet._src.saved_model import protos

        return getattr(protos, cls.__name__)

    def __call__(cls, *args, **kwargs):
        return cls._real()(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._real())

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls._real(), name)


@tf_export("compat.v1.GraphDef")
class GraphDef(metaclass=_ProtoClass):
    """TF's ``GraphDef`` protocol buffer message."""


@tf_export("compat.v1.MetaGraphDef")
class MetaGraphDef(metaclass=_ProtoClass):
    """TF's ``MetaGraphDef`` protocol buffer message."""


@tf_export("compat.v1.NodeDef")
class NodeDef(metaclass=_ProtoClass):
    """TF's ``NodeDef`` protocol buffer message."""


@tf_export("Graph", "compat.v1.Graph")
class Graph:
    """A TF1 computation graph: ``with tf.Graph().as_default(): ...``."""

    def __init__(self):
        self._ir = IRGraph("v1_graph")
        self._ir.hashable_tensors = True
        self._builder = V1Builder(self)
        self._collections: dict[str, list] = {}
        self._var_store: dict[str, Variable] = {}
        self._initial_values: dict[int, np.ndarray] = {}
        self._finalized = False
        self._control = []  # nodes from enclosing tf.control_dependencies blocks
        self._unavailable: dict = {}  # imported node name -> v1_import.Unavailable (why it was not imported)
        self._imported_variables: dict[str, Variable] = {}  # "w:0" -> variable made by import_graph_def
        self._initializers: dict[int, object] = {}  # id(imported variable) -> its initializer node
        self._savers: list = []  # the Savers built in this graph (their save/ nodes are written with it)
        self.seed = None

    @contextlib.contextmanager
    def as_default(self):
        stack = _graph_stack()
        prev_interp = ctx.interp
        stack.append(self)
        ctx.interp = self._builder
        try:
            yield self
        finally:
            stack.pop()
            ctx.interp = prev_interp

    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def get_operations(self):
        return [Operation(self, n) for n in self._ir.nodes]

    def _check_available(self, op_name):
        why = self._unavailable.get(op_name)
        if why is not None:
            raise why.cls(None, op_name, f"'{op_name}' was not imported: {why.error}")

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        op_name, sep, idx = name.rpartition(":")
        if not sep or not idx.isdigit():
            raise ValueError(f"The name '{name}' looks a like an Operation name, not a Tensor name. Tensor names "
                             "must be of the form \"<op_name>:<output_index>\".")
        for n in self._ir.nodes:
            if n.name == op_name and int(idx) < len(n.outputs):
                return n.outputs[int(idx)]
        v = self._imported_variables.get(name)
        if v is None:  # ("w:0": TF's variable handle; sess.run reads it)
            v = next((x for x in list(self.get_collection("variables")) + list(self._ir.variables)
                      if x.name == name), None)
        if v is not None:
            return v
        self._check_available(op_name)
        raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The operation, '{op_name}', "
                       "does not exist in the graph.")

    def get_operation_by_name(self, name):
        for n in self._ir.nodes:
            if n.name == name:
                return Operation(self, n)
        self._check_available(name)
        raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        return obj

    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope:
            items = [x for x in items if re.match(scope, getattr(x, "name", ""))]
        return items

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def _register_variable(self, var):
        self.add_to_collection("variables", var)
        if var.trainable:
            self.add_to_collection("trainable_variables", var)
        self._initial_values[id(var)] = np.array(var._v)

    def as_graph_def(self, from_version=None, add_shapes=False):
        """This graph as a TensorFlow ``GraphDef`` proto (TF's op names and attrs; resource variables)."""
        from tensorlet._src.compat import v1_graph_def

        return v1_graph_def.as_graph_def(self, from_version, add_shapes)

    @property
    def graph_def_versions(self):
        from tensorlet._src.saved_model import protos as P

        return P.versions_pb2.VersionDef(producer=GRAPH_DEF_VERSION, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER)

    def __repr__(self):
        return f"<tensorlet.compat.v1.Graph with {len(self._ir.nodes)} nodes>"


def _graph_stack():
    s = getattr(_default, "graphs", None)
    if s is None:
        s = _default.graphs = []
    return s


_global = {"graph": None, "eager_disabled": False}


@tf_export("import_graph_def", "graph_util.import_graph_def", "compat.v1.import_graph_def",
           "compat.v1.graph_util.import_graph_def")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports a TensorFlow ``GraphDef`` proto into the current graph under the name scope ``name`` (default
    ``"import"``; ``""`` for none): ``input_map`` replaces its tensors ({"x:0": tensor}); returns the tensors and
    operations named in ``return_elements`` (``"name:0"`` / ``"name"``), or None (see ``v1_import``)."""
    from tensorlet._src.compat import v1_import

    return v1_import.import_graph_def(graph_def, input_map, return_elements, name, op_dict, producer_op_list)


@tf_export("compat.v1.wrap_function")
def wrap_function(fn, signature, name=None):
    """Builds ``fn(*placeholders)`` once in a TF1 graph (``signature``: TensorSpecs, one placeholder each) and
    returns it as a callable ``WrappedFunction`` with ``prune(feeds, fetches)`` (see ``v1_wrap_function``)."""
    from tensorlet._src.compat import v1_wrap_function

    return v1_wrap_function.wrap_function(fn, signature, name)


@tf_export("compat.v1.get_default_graph")
def get_default_graph():
    stack = _graph_stack()
    if stack:
        return stack[-1]
    if _global["graph"] is None:
        _global["graph"] = Graph()
    return _global["graph"]


@tf_export("compat.v1.reset_default_graph")
def reset_default_graph():
    if _graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs.")
    _global["graph"] = Graph()
    if _global["eager_disabled"]:
        ctx.interp = _global["graph"]._builder


@tf_export("compat.v1.disable_eager_execution", "compat.v1.disable_v2_behavior")
def disable_eager_execution():
    """Switch this thread to TF1 graph mode: ops build nodes in the default graph; run them with a Session."""
    _global["eager_disabled"] = True
    ctx.interp = get_default_graph()._builder


@tf_export("compat.v1.enable_eager_execution", "compat.v1.enable_v2_behavior")
def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Eager execution (the default in tensorlet, as in TF2): leaves graph mode if it was entered."""
    if _global["eager_disabled"]:
        _global["eager_disabled"] = False
        if isinstance(ctx.interp, V1Builder):
            ctx.interp = None


@tf_export("compat.v1.executing_eagerly_outside_functions")
def executing_eagerly_outside_functions():
    return not _global["eager_disabled"]


def _current_builder():
    return ctx.interp if isinstance(ctx.interp, V1Builder) else None


@tf_export("compat.v1.placeholder")
def placeholder(dtype, shape=None, name=None):
    """A value fed at ``Session.run`` time (TF1 graph mode only)."""
    b = _current_builder()
    if b is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    ph = b.graph.placeholder(Spec(TensorShape(shape), _dt.as_dtype(dtype)),
                             name=_unique(b.graph, name or "Placeholder"))
    return ph


@tf_export("compat.v1.placeholder_with_default")
def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's name
    b = _current_builder()
    value = convert_to_tensor(input)
    if b is None:
        return value
    t = b.capture(value)
    node = b.graph.add(registry.REGISTRY["Identity"], [t], {}, [Spec(TensorShape(shape), t.dtype)],
                       name=_unique(b.graph, name or "PlaceholderWithDefault"))
    return node.outputs[0]


# --- initializers, groups -------------------------------------------------------------------------------

def _op_from(deps, name):
    b = _current_builder()
    g = get_default_graph()
    tensors = [d for d in deps if isinstance(d, GraphTensor)]
    tensors += [d._node.outputs[0] if d._node.outputs else None for d in deps if isinstance(d, Operation)]
    node_deps = [d._node for d in deps if isinstance(d, Operation)]
    node_deps += [d for d in deps if isinstance(d, _ir_module.Node)]
    node = b.graph.add(NO_OP, [t for t in tensors if t is not None], {"deps": node_deps}, [],
                       name=_unique(b.graph, name))
    return Operation(g, node)


@tf_export("compat.v1.global_variables_initializer", "compat.v1.initialize_all_variables")
def global_variables_initializer():
    """An op that (re)sets every variable of the default graph to its initial value."""
    g = get_default_graph()
    return variables_initializer(g.get_collection("variables"))


@tf_export("compat.v1.variables_initializer", "compat.v1.initialize_variables")
def variables_initializer(var_list, name="init"):
    b = _current_builder()
    if b is None:
        return None
    g = get_default_graph()
    assigns = []
    for v in var_list:
        imported = g._initializers.get(id(v))
        if imported is not None:  # a variable of an imported graph: its own initializer op
            assigns.append(imported)
            continue
        init = g._initial_values.get(id(v))
        if init is None:
            init = np.array(v._v)
        c = b.graph.constant(init)
        assigns.append(b.graph.add(ASSIGN_VAR, [c], {"var": v, "kind": "assign"}, [Spec(v.shape, v.dtype)],
                                   name=_unique(b.graph, "Assign")).outputs[0])
    return _op_from(assigns, name)


@tf_export("compat.v1.local_variables_initializer")
def local_variables_initializer():
    return variables_initializer(get_default_graph().get_collection("local_variables"), "init_local")


@tf_export("group")
def group(*inputs, name=None):
    """One op that runs all of ``inputs`` (``sess.run(tf.group(a, b))``); eagerly, nothing to do."""
    if _current_builder() is None:
        return None
    flat = [x for x in nest.flatten(list(inputs)) if x is not None]
    return _op_from([x if isinstance(x, (GraphTensor, Operation)) else convert_to_tensor(x) for x in flat],
                    name or "group_deps")


@tf_export("compat.v1.global_variables", "compat.v1.all_variables")
def global_variables(scope=None):
    return get_default_graph().get_collection("variables", scope)


@tf_export("compat.v1.trainable_variables")
def trainable_variables(scope=None):
    return get_default_graph().get_collection("trainable_variables", scope)


@tf_export("compat.v1.get_collection")
def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


@tf_export("compat.v1.add_to_collection")
def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


@tf_export("control_dependencies", "compat.v1.control_dependencies")
@contextlib.contextmanager
def control_dependencies(control_inputs):
    """Ops created in the block run after ``control_inputs`` (TF1 graphs). Eagerly and inside tf.function
    ops already run in program order, so there it only checks its argument, as TF 2 does."""
    b = _current_builder()
    if b is None:
        yield None
        return
    g = b.v1graph
    nodes = []
    for c in nest.flatten(control_inputs or []):
        if isinstance(c, Operation):
            nodes.append(c._node)
        elif isinstance(c, GraphTensor):
            nodes.append(c.node)
        elif isinstance(c, Variable):
            continue
        elif c is not None:
            raise TypeError(f"Control input must be Operation or Tensor: {c!r}")
    saved = list(g._control)
    g._control = saved + nodes if control_inputs is not None else []
    try:
        yield None
    finally:
        g._control = saved


# --- Session -------------------------------------------------------------------------------------------------

_sessions = threading.local()


@tf_export("compat.v1.get_default_session")
def get_default_session():
    s = getattr(_sessions, "stack", None)
    return s[-1] if s else None


@tf_export("compat.v1.Session", "compat.v1.InteractiveSession")
class Session:
    """Runs TF1 graphs: ``with tf.Session() as sess: sess.run(fetches, feed_dict={x: value})``."""

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph if graph is not None else get_default_graph()
        self._closed = False
        self._ctx = None

    def __enter__(self):
        if not hasattr(_sessions, "stack"):
            _sessions.stack = []
        _sessions.stack.append(self)
        self._ctx = self.graph.as_default()
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        _sessions.stack.pop()
        self.close()
        return False

    def close(self):
        self._closed = True

    def as_default(self):
        return _SessionDefault(self)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        targets = []
        for f in flat:
            targets.append(self._resolve(f))
        feeds = {}
        for k, v in (feed_dict or {}).items():
            t = self._resolve(k)
            if not isinstance(t, GraphTensor):
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {k!r}")
            arr = np.asarray(v.numpy() if isinstance(v, Tensor) else v)
            if t.dtype is _dt.string:
                arr = convert_to_tensor(v)._v
            else:
                arr = arr.astype(t.dtype._np, copy=False)
            if not t.shape.is_compatible_with(TensorShape(arr.shape)):
                raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor {t.name!r}, which has shape "
                                 f"{tuple(t.shape.as_list()) if t.shape.rank is not None else '<unknown>'}")
            feeds[id(t)] = arr
        values = _execute(self.graph._ir, targets, feeds)
        out = []
        for f, v in zip(targets, values):
            if isinstance(f, Operation) or v is None:
                out.append(None)
            else:
                out.append(v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v)
        if not nest.is_nested(fetches):
            return out[0]
        return nest.pack_sequence_as(fetches, out)

    def _resolve(self, f):
        if isinstance(f, str):
            f = self.graph.get_tensor_by_name(f) if ":" in f else self.graph.get_operation_by_name(f)
        if isinstance(f, Variable):
            with self.graph.as_default():
                return f.value()
        if isinstance(f, (GraphTensor, Operation)):
            return f
        if isinstance(f, EagerTensor):
            return f
        raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}, must be a string or Tensor.")


class _SessionDefault:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        if not hasattr(_sessions, "stack"):
            _sessions.stack = []
        _sessions.stack.append(self.s)
        return self.s

    def __exit__(self, *exc):
        _sessions.stack.pop()
        return False


def _execute(graph: IRGraph, targets, feeds):
    """Run the nodes ``targets`` need (stopping at fed tensors) in graph order; return their values."""
    need = set()
    todo = []
    for t in targets:
        if isinstance(t, Operation):
            todo.append(t._node)
        elif isinstance(t, GraphTensor):
            if id(t) not in feeds:
                todo.append(t.node)
    while todo:
        n = todo.pop()
        if id(n) in need:
            continue
        need.add(id(n))
        for t in n.inputs:
            if id(t) not in feeds:
                todo.append(t.node)
        for d in n.attrs.get("deps", ()) if n.op is NO_OP else ():
            todo.append(d)
        todo.extend(n.control)
    env = dict(feeds)
    dead = set()  # ids of nodes not run: they read a dead tensor (TF1 Switch / Merge), or run after one
    for n in graph.nodes:
        if id(n) not in need:
            continue
        op = n.op
        if dead and any(id(c) in dead for c in n.control) or (
                op.name != "Merge" and any(env.get(id(t)) is DEAD for t in n.inputs)):
            dead.add(id(n))
            for o in n.outputs:
                env[id(o)] = DEAD
            continue
        if op is PLACEHOLDER:
            if id(n.outputs[0]) not in env:
                t = n.outputs[0]
                raise errors.InvalidArgumentError(
                    None, n.name, f"You must feed a value for placeholder tensor '{n.name}' with dtype "
                                  f"{t.dtype.name}" + (f" and shape {t.shape.as_list()}" if t.shape.rank else ""))
            continue
        if op is CONST:
            env[id(n.outputs[0])] = n.attrs["value"]
            continue
        if op is READ_VAR:
            env[id(n.outputs[0])] = n.attrs["var"]._v
            continue
        vals = [env[id(t)] for t in n.inputs]
        attrs = {k: v for k, v in n.attrs.items() if not (op is NO_OP and k == "deps")}
        r = run_kernel(op, vals, attrs, n.loc)
        if op.n_out == 1:
            env[id(n.outputs[0])] = r
        else:
            for o, v in zip(n.outputs, r):
                env[id(o)] = v
    out = []
    for k, t in enumerate(targets):
        if isinstance(t, GraphTensor) and env[id(t)] is DEAD:
            raise errors.InvalidArgumentError(None, t.node.name, f"Retval[{k}] does not have value (fetch "
                                                                 f"{t.name} is on an untaken branch)")
        if isinstance(t, GraphTensor):
            out.append(np.asarray(env[id(t)]) if not isinstance(env[id(t)], np.ndarray) else env[id(t)])
        elif isinstance(t, EagerTensor):
            out.append(t._v)
        else:
            out.append(None)
    return out


def eval_tensor(t, feed_dict=None, session=None):
    """``tensor.eval()`` in TF1 graph mode (the default session)."""
    s = session or get_default_session()
    if s is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use `with "
                         "sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return s.run(t, feed_dict)


# --- symbolic gradients (tf.gradients) -------------------------------------------------------------------------

@tf_export("compat.v1.gradients", "gradients")
def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """d(sum of ys)/d(xs) built as graph ops (TF1 graphs and inside tf.function; use GradientTape eagerly)."""
    interp = ctx.interp
    if not isinstance(interp, Tracer):
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    from tensorlet._src.framework.context import name_scope

    with name_scope(name or "gradients"):
        return _gradients(interp, ys, xs, grad_ys, stop_gradients, unconnected_gradients)


def _gradients(interp, ys, xs, grad_ys, stop_gradients, unconnected_gradients):
    from tensorlet._src.autodiff.tape import _differentiable

    graph = interp.graph
    ys = [interp.capture(y.value() if isinstance(y, Variable) else y) for y in nest.flatten(ys)]
    xs_flat = nest.flatten(xs)
    stops = {id(t) for t in nest.flatten(stop_gradients or [])}
    # sources: tensors, or every read of a variable
    src_tensors = []
    for x in xs_flat:
        if isinstance(x, Variable):
            reads = [n.outputs[0] for n in graph.nodes if n.op is READ_VAR and n.attrs["var"] is x]
            cur = graph.var_reads.get(id(x))
            if cur is not None and all(r is not cur for r in reads):
                reads.append(cur)
            src_tensors.append(reads)
        else:
            src_tensors.append([x])
    sources = {id(t) for ts in src_tensors for t in ts}
    nodes = list(graph.nodes)
    # forward reachability from the sources
    reach = set(sources)
    on_path = []
    for n in nodes:
        if any(id(t) in reach for t in n.inputs) and n.op.grad is not NONDIFF:
            for o in n.outputs:
                reach.add(id(o))
            on_path.append(n)
    grads: dict = {}
    gys = nest.flatten(grad_ys) if grad_ys is not None else [None] * len(ys)
    for y, gy in zip(ys, gys):
        g = ones_like(y) if gy is None else convert_to_tensor(gy, dtype=y.dtype)
        grads[id(y)] = g if id(y) not in grads else add_grads(grads[id(y)], g)
    for n in reversed(on_path):
        if id(n) in stops:
            continue
        outs = n.outputs
        gs = [grads.get(id(o)) for o in outs]
        if all(g is None for g in gs):
            continue
        if n.op.grad is None or n.op.grad is registry.NO_GRADIENT:
            raise LookupError(f"No gradient defined for operation '{n.name}' (op type: {n.op.name})")
        g = gs[0] if n.op.n_out == 1 else tuple(zeros_like(o) if x is None and _differentiable(o) else x
                                                 for o, x in zip(outs, gs))
        in_grads = n.op.grad(g, outs[0] if n.op.n_out == 1 else tuple(outs), *n.inputs, **n.attrs)
        if not isinstance(in_grads, (tuple, list)):
            in_grads = (in_grads,)
        for x, gx in zip(n.inputs, in_grads):
            if gx is None or id(x) not in reach or id(x) in stops:
                continue
            grads[id(x)] = gx if id(x) not in grads else add_grads(grads[id(x)], gx)
    out = []
    for x, ts in zip(xs_flat, src_tensors):
        total = None
        for t in ts:
            g = grads.get(id(t))
            if g is not None:
                total = g if total is None else add_grads(total, g)
        if total is not None and hasattr(total, "_dense") and not isinstance(x, Variable):
            total = total._dense()
        if total is None and str(getattr(unconnected_gradients, "value", unconnected_gradients)) == "zero":
            total = zeros_like(x.value() if isinstance(x, Variable) else x)
        out.append(total)
    return out


_ir_module.eval_hook = eval_tensor
