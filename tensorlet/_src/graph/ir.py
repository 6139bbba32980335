"""tensorlet's graph IR: a function body as a list of nodes in execution order.

A ``Node`` is one op application: a registry ``Op`` (or one of the graph-only ops below), its input
``GraphTensor``s, its attrs (static Python values, as in eager), and its output specs.  A ``Graph`` has
placeholders (the flattened function arguments), captured values (constants and variables) and outputs.
Executors (NumPy, XLA through jax) and passes walk ``graph.nodes`` in order; sub-graphs of control-flow ops
are ``Graph`` attrs of their node.
"""

from __future__ import annotations

import itertools

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, numpy_text
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.registry import NONDIFF, defop, export_value
from tensorlet._src.ops.array_blocks import unstack

__all__ = ["Graph", "Node", "GraphTensor", "PLACEHOLDER", "CONST", "READ_VAR", "Spec"]


class Spec:
    """Shape and dtype of one value in a graph (``shape`` may have None dims)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self.dtype = dtype

    def __repr__(self):
        return f"{self.dtype.name}{_shape_text(self.shape)}"


def _shape_text(shape: TensorShape) -> str:
    if shape.rank is None:
        return "[?]"  # unknown rank
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _graph_only(name):
    # the executors and lowering handle these nodes themselves: the kernel is never called
    return defop(name, lambda xp, *a, **k: None, grad=NONDIFF, kind="graph")


PLACEHOLDER = _graph_only("Placeholder")  # a function argument
CONST = _graph_only("Const")  # attrs: value (np.ndarray)
READ_VAR = _graph_only("ReadVariableOp")  # attrs: var (the Variable); the value at function entry


class Node:
    __slots__ = ("id", "op", "inputs", "attrs", "outputs", "name", "loc", "control", "__weakref__")

    def __init__(self, graph, op, inputs, attrs, specs, name=None):
        self.id = next(graph._ids)
        self.op = op
        self.inputs = list(inputs)
        self.attrs = attrs
        self.name = name or f"{op.name}_{self.id}"
        self.loc = ""  # " (at file.py:LINE: source)" for nodes whose run-time errors must name the user's line
        self.control = ()  # nodes that must run before this one (TF1 tf.control_dependencies)
        self.outputs = [GraphTensor(graph, self, i, s.shape, s.dtype) for i, s in enumerate(specs)]

    @property
    def type(self):
        return self.op.name

    def __repr__(self):
        return f"<Node {self.name}>"


class Graph:
    """One traced function body.  ``print(graph)`` lists its ops (readable, one per line)."""

    def __init__(self, name="graph", outer=None):
        self.name = name
        self.outer = outer  # the graph this one is nested in (control-flow branches), or None
        self._ids = itertools.count()
        self.nodes: list[Node] = []
        self.inputs: list[GraphTensor] = []  # placeholders, in flat-argument order
        self.outputs: list[GraphTensor] = []  # flat outputs
        self.const_ids: dict[int, GraphTensor] = {}  # id(eager tensor) -> its Const node output
        self._const_keep = []  # the eager tensors behind const_ids (keeps ids valid)
        self.var_reads: dict[int, GraphTensor] = {}  # id(variable) -> value at function entry
        self.variables: list = []  # variables read or written, in first-use order
        self.var_final: dict[int, GraphTensor] = {}  # id(variable) -> value to write back at exit
        self.captures: list[tuple[Tensor, GraphTensor]] = []  # outer graph tensor -> placeholder (nested graphs)
        self.stateful = False  # has side effects beyond variable writes (print, py_function)
        self.hashable_tensors = False  # TF1 graph mode: its tensors are hashable (feed_dict keys)

    def add(self, op, inputs, attrs, specs, name=None) -> Node:
        node = Node(self, op, inputs, attrs, specs, name)
        self.nodes.append(node)
        return node

    def placeholder(self, spec: Spec, name=None) -> GraphTensor:
        node = self.add(PLACEHOLDER, (), {}, [spec], name or f"arg{len(self.inputs)}")
        t = node.outputs[0]
        self.inputs.append(t)
        return t

    def constant(self, value: np.ndarray, keep=None) -> GraphTensor:
        if keep is not None:
            hit = self.const_ids.get(id(keep))
            if hit is not None:
                return hit
        value = np.asarray(value)
        node = self.add(CONST, (), {"value": value}, [Spec(TensorShape._from_tuple(value.shape),
                                                              _dt._FROM_NP[value.dtype])])
        t = node.outputs[0]
        t._const = value
        if keep is not None:
            self.const_ids[id(keep)] = t
            self._const_keep.append(keep)
        return t

    # --- printing -------------------------------------------------------------------
    def __str__(self):
        return format_graph(self)

    def __repr__(self):
        return f"<tensorlet Graph {self.name!r}: {len(self.nodes)} nodes>"

    def as_text(self):
        return format_graph(self)

    def get_operations(self):
        return list(self.nodes)

    def as_graph_def(self, add_shapes=False):
        """A ``GraphDef`` protocol buffer of this graph (TensorBoard's graph view, ``trace_export``): one
        ``NodeDef`` per node with its op name, inputs, dtype ``T`` and output shapes; sub-graphs are not expanded."""
        from tensorboard.compat.proto import graph_pb2

        gd = graph_pb2.GraphDef()
        names = {}
        for node in self.nodes:
            for t in node.outputs:
                names[id(t)] = node.name if t.index == 0 else f"{node.name}:{t.index}"
        for node in self.nodes:
            nd = gd.node.add(name=node.name, op=node.op.name)
            nd.input.extend(names.get(id(t), "?") for t in node.inputs)
            nd.input.extend(f"^{c.name}" for c in node.control)
            if node.outputs:
                nd.attr["T"].type = node.outputs[0].dtype.as_datatype_enum
                shapes = nd.attr["_output_shapes"].list
                for t in node.outputs:
                    sh = shapes.shape.add()
                    if t.shape.rank is None:
                        sh.unknown_rank = True
                    else:
                        for d in t.shape.as_list():
                            sh.dim.add(size=-1 if d is None else d)
        return gd


def _attr_text(k, v):
    if isinstance(v, np.ndarray):
        if v.size <= 8:
            return f"{k}={numpy_text(v, False)}".replace("\n", " ")
        return f"{k}=<{_dt._FROM_NP[v.dtype].name}{list(v.shape)}>"
    if isinstance(v, Graph):
        return f"{k}=<graph {v.name}>"
    if isinstance(v, np.dtype):
        return f"{k}={_dt._FROM_NP[v].name}"
    if hasattr(v, "_name") and hasattr(v, "assign"):
        return f"{k}={v._name}"
    if callable(v):
        return f"{k}={getattr(v, '__name__', type(v).__name__)}"
    return f"{k}={v!r}"


def format_graph(g: Graph, indent="") -> str:
    lines = [f"{indent}graph {g.name}({', '.join(f'%{t.node.name}: {t.spec}' for t in g.inputs)}) {{"]
    names = {}
    for node in g.nodes:
        for t in node.outputs:
            names[id(t)] = f"%{node.name}" + (f":{t.index}" if len(node.outputs) > 1 else "")
    for node in g.nodes:
        if node.op is PLACEHOLDER:
            continue
        outs = ", ".join(names[id(t)] for t in node.outputs)
        ins = ", ".join(names.get(id(t), "%?") for t in node.inputs)
        attrs = ", ".join(_attr_text(k, v) for k, v in node.attrs.items())
        specs = ", ".join(t.spec.__repr__() for t in node.outputs)
        body = f"{node.op.name}({ins}{'; ' if ins and attrs else ''}{attrs})"
        lines.append(f"{indent}  {outs} = {body} : {specs}" if outs else f"{indent}  {body}")
        for v in node.attrs.values():
            if isinstance(v, Graph):
                lines.append(format_graph(v, indent + "    "))
    for var_id, t in g.var_final.items():
        var = next((v for v in g.variables if id(v) == var_id), None)
        lines.append(f"{indent}  assign {getattr(var, '_name', '?')} <- {names.get(id(t), '%?')}")
    outs = ", ".join(names.get(id(t), "%?") for t in g.outputs)
    lines.append(f"{indent}  return {outs}")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor that needs its value (``bool(t)``, iterating unknown length)."""


# Set by TF1 graph mode: eval_hook(tensor, feed_dict, session) runs ``tensor.eval()`` in a session.
eval_hook = None


class GraphTensor(Tensor):
    """A symbolic tensor: an output of a node in a graph being traced (``tf.Tensor`` inside ``tf.function``)."""

    __slots__ = ("graph", "node", "index", "_shape", "_dtype", "_const", "__weakref__")

    def __init__(self, graph, node, index, shape, dtype):
        self.graph = graph
        self.node = node
        self.index = index
        self._shape = shape
        self._dtype = dtype
        self._const = None  # the value when known at trace time (constants, folded shapes)

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def spec(self) -> Spec:
        return Spec(self._shape, self._dtype)

    @property
    def ndim(self):
        return self._shape.rank

    @property
    def op(self):
        return self.node

    @property
    def name(self):
        return f"{self.node.name}:{self.index}"

    @property
    def device(self):
        return ""

    def set_shape(self, shape):
        shape = TensorShape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied shape {shape}.")
        self._shape = self._shape.merge_with(shape)

    def get_shape(self):
        return self._shape

    def numpy(self):
        raise NotImplementedError(
            f"Cannot call .numpy() on symbolic tensor {self.name} (shape {self._shape}, dtype {self._dtype.name}) "
            "inside a tf.function: its value exists only when the function runs. Return it from the function, "
            "or use tf.print to print it.")

    def __array__(self, dtype=None, copy=None):
        if self._const is not None:
            a = np.asarray(self._const)
            return a.astype(dtype) if dtype is not None else a
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}, shape {self._shape}, dtype {self._dtype.name}) "
            "to a numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, "
            "which is not supported inside tf.function.")

    def __bool__(self):
        if self._const is not None and self._const.size == 1:
            return bool(self._const)
        raise OperatorNotAllowedInGraphError(
            f"Using a symbolic `tf.Tensor` ({self.name}) as a Python `bool` is not allowed in a tf.function "
            "unless AutoGraph converts the statement (it does for `if`/`while` on tensors in the decorated "
            "function's own code); use tf.cond / tf.while_loop otherwise.")

    def __index__(self):
        if self._const is not None and self._const.ndim == 0 and self._const.dtype.kind in "iu":
            return int(self._const)
        raise TypeError(f"Cannot use symbolic tensor {self.name} as a Python index inside a tf.function.")

    def __int__(self):
        return self.__index__()

    def __float__(self):
        if self._const is not None and self._const.size == 1:
            return float(self._const)
        raise TypeError(f"Cannot convert symbolic tensor {self.name} to a Python float inside a tf.function.")

    def __len__(self):
        r = self._shape.rank
        if r is None or r == 0 or self._shape[0] is None:
            raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}) of shape {self._shape}. "
                            "Please call `x.shape` rather than `len(x)` for shape information.")
        return self._shape[0]

    def __iter__(self):
        r = self._shape.rank
        if r is None or r == 0:
            raise TypeError("Cannot iterate over a scalar tensor." if r == 0 else
                            f"Cannot iterate over a tensor ({self.name}) with unknown rank.")
        n = self._shape[0]
        if n is None:
            raise OperatorNotAllowedInGraphError(
                f"Iterating over a symbolic `tf.Tensor` ({self.name}) with an unknown first dimension is not "
                "allowed in a tf.function; use tf.range/tf.while_loop or a known shape.")
        return iter(unstack(self, num=n))

    def eval(self, feed_dict=None, session=None):
        if eval_hook is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        return eval_hook(self, feed_dict, session)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __format__(self, spec):
        return str(self)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __hash__(self):
        if self.graph.hashable_tensors:
            return id(self)
        return Tensor.__hash__(self)


export_value("errors.OperatorNotAllowedInGraphError", __name__, "OperatorNotAllowedInGraphError")
