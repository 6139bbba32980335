"""Graph IR <-> JSON: the ``graphs`` table of ``saved_model.json``.

Each distinct ``Graph`` (a function body or a control-flow sub-graph) is written once; attrs refer to other
graphs by index.  A node is ``{"op", "name", "in": [[node, output], ...], "attrs", "out": [[dtype, shape], ...]}``
with inputs referring to *earlier* nodes of the same graph, so a loaded graph is in execution order and
acyclic by construction.  Ops are looked up by name in tensorlet's op tables; an unknown name, or an op that
calls Python (``py_function``), is refused.
"""

from __future__ import annotations

from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR, Graph, Spec
from tensorlet._src.saved_model.codec import (Decoder, Encoder, SavedModelError, Unsupported, _dtype_from, _short,
                                              dtype_name, shape_from_json, shape_to_json)

MAX_GRAPH_DEPTH = 64
_REFUSED = frozenset(("EagerPyFunc", "PyFunc"))  # ops whose attrs are Python callables


def _graph_only_ops():
    return {PLACEHOLDER.name: PLACEHOLDER, CONST.name: CONST, READ_VAR.name: READ_VAR}


def lookup_op(name):
    """The op registered under ``name`` (registry, graph-only control flow, tf.io ops), or None."""
    if name in _REFUSED:
        return None
    op = _graph_only_ops().get(name)
    if op is not None:
        return op
    from tensorlet._src.ops.registry import REGISTRY

    op = REGISTRY.get(name)
    if op is not None:
        return op
    from tensorlet._src.graph.control_ops import GRAPH_OPS

    op = GRAPH_OPS.get(name)
    if op is not None:
        return op
    return _io_ops().get(name)


def _io_ops():
    try:
        from tensorlet._src.io import _op
    except ImportError:
        return {}
    if not getattr(_io_ops, "loaded", False):
        import importlib
        import pkgutil

        import tensorlet._src.io as io_pkg

        for info in pkgutil.iter_modules(io_pkg.__path__):
            try:
                importlib.import_module(f"tensorlet._src.io.{info.name}")
            except ImportError:
                pass
        _io_ops.loaded = True
    return _op.IO_OPS


# --- writing ------------------------------------------------------------------------------------------------------
class GraphWriter:
    """Collects graphs (and the variables, constants and ops they use) into JSON-ready tables."""

    def __init__(self, variable_index, external, asset_paths=None):
        self.graphs = []  # JSON dicts, by index
        self._index = {}  # id(graph) -> index
        self._keep = []
        self._all_tensors = {}  # id(tensor) -> [graph index, node index, output index]
        self.variable_index = variable_index  # variable -> index (adds unknown variables)
        self.external = external  # array -> constants key
        self.asset_paths = asset_paths or {}  # saved path (bytes) -> asset index

    def add(self, graph: Graph) -> int:
        i = self._index.get(id(graph))
        if i is not None:
            return i
        i = self._index[id(graph)] = len(self.graphs)
        self._keep.append(graph)
        self.graphs.append(None)
        self.graphs[i] = self._write(graph, i)
        return i

    def _op_ref(self, op):
        if lookup_op(op.name) is not op:
            raise Unsupported(f"op {op.name!r} is not a registered tensorlet op and cannot be saved")
        return op.name

    def _write(self, g: Graph, gi: int) -> dict:
        local = {}
        nodes = []
        for ni, node in enumerate(g.nodes):
            op = node.op
            if op.name in _REFUSED:
                raise Unsupported(
                    f"cannot save tf.function graph {g.name!r}: op {node.name} ({op.name}) calls a Python function "
                    "(tf.py_function / tf.numpy_function), and a SavedModel holds no Python code")
            self._op_ref(op)
            ins = []
            for t in node.inputs:
                ref = local.get(id(t))
                if ref is None:
                    raise Unsupported(f"graph {g.name!r}: node {node.name} uses tensor {t.name}, which is not computed "
                                      "earlier in the same graph")
                ins.append(ref)
            enc = Encoder(graph=self.add, variable=self.variable_index, op=self._op_ref, external=self.external,
                          where=f"graph {g.name!r}, node {node.name} ({op.name})")
            attrs = {}
            for k, v in node.attrs.items():
                if op is CONST and k == "value":
                    asset = self._asset_of(v)
                    if asset is not None:
                        attrs[k] = {"t": "asset", "v": asset}
                        continue
                attrs[str(k)] = enc.encode(v)
            entry = {"op": op.name, "name": node.name, "in": ins, "attrs": attrs,
                     "out": [[dtype_name(t.dtype), shape_to_json(t.shape)] for t in node.outputs]}
            if node.loc:
                entry["loc"] = node.loc
            nodes.append(entry)
            for oi, t in enumerate(node.outputs):
                local[id(t)] = [ni, oi]
                self._all_tensors[id(t)] = [gi, ni, oi]

        def ref(t, what):
            r = local.get(id(t))
            if r is None:
                raise Unsupported(f"graph {g.name!r}: {what} {t.name} is not a tensor of the graph")
            return r

        var_of = {id(v): v for v in g.variables}
        out = {
            "name": g.name,
            "nodes": nodes,
            "inputs": [ref(t, "input")[0] for t in g.inputs],
            "outputs": [ref(t, "output") for t in g.outputs],
            "variables": [self.variable_index(v) for v in g.variables],
            "var_reads": [[self.variable_index(var_of[k]), ref(t, "variable read")]
                          for k, t in g.var_reads.items() if k in var_of],
            "var_final": [[self.variable_index(var_of[k]), ref(t, "variable value")]
                          for k, t in g.var_final.items() if k in var_of],
            "captures": [[self._all_tensors.get(id(outer)), ref(inner, "capture")[0]] for outer, inner in g.captures],
        }
        if g.stateful:
            out["stateful"] = True
        return out

    def _asset_of(self, value):
        if not self.asset_paths or getattr(value, "dtype", None) is None or value.dtype.kind != "O" or value.shape:
            return None
        v = value[()]
        return self.asset_paths.get(v if isinstance(v, bytes) else str(v).encode())


# --- reading ------------------------------------------------------------------------------------------------------
def _ref(v, where):
    if not isinstance(v, list) or len(v) != 2 or type(v[0]) is not int or type(v[1]) is not int:
        raise SavedModelError(f"{where}: bad tensor reference {_short(v)}")
    return v


class GraphReader:
    """Rebuilds graphs from the ``graphs`` table, lazily and each once; refuses malformed or unknown content."""

    def __init__(self, table, variables, constants, asset_paths=()):
        if not isinstance(table, list):
            raise SavedModelError("saved_model.json: 'graphs' must be a list")
        self.table = table
        self.variables = variables  # list of Variables, by index
        self.constants = constants  # (key, where) -> array
        self.asset_paths = list(asset_paths)  # index -> loaded absolute path (str)
        self.built = {}
        self._building = []
        self._open = []  # graphs being built, innermost last (the enclosing graph of a nested one)
        self._tensors = {}  # (graph, node, output) -> GraphTensor

    def graph(self, i) -> Graph:
        if type(i) is not int or not 0 <= i < len(self.table):
            raise SavedModelError(f"saved_model.json: graph index {_short(i)} out of range")
        g = self.built.get(i)
        if g is not None:
            return g
        if i in self._building:
            raise SavedModelError(f"saved_model.json: graph {i} contains itself")
        if len(self._building) >= MAX_GRAPH_DEPTH:
            raise SavedModelError("saved_model.json: control-flow graphs nested too deeply")
        self._building.append(i)
        try:
            g = self._read(i, self.table[i])
        finally:
            self._building.pop()
        self.built[i] = g
        return g

    def _variable(self, i):
        if type(i) is not int or not 0 <= i < len(self.variables):
            raise SavedModelError(f"saved_model.json: variable index {_short(i)} out of range")
        return self.variables[i]

    def _op(self, name, where):
        if not isinstance(name, str):
            raise SavedModelError(f"{where}: bad op name {_short(name)}")
        op = lookup_op(name)
        if op is None:
            if name in _REFUSED:
                raise SavedModelError(f"{where}: op {name} calls Python code and is never loaded")
            raise SavedModelError(f"{where}: Op type not registered {_short(name)} in tensorlet; the SavedModel "
                                  "uses an op this version does not have")
        return op

    def _read(self, gi, d) -> Graph:
        where = f"saved_model.json graph {gi}"
        if not isinstance(d, dict) or not isinstance(d.get("nodes"), list):
            raise SavedModelError(f"{where}: malformed graph")
        name = d.get("name")
        if not isinstance(name, str):
            raise SavedModelError(f"{where}: graph name must be a string")
        g = Graph(name, outer=self._open[-1] if self._open else None)
        self._open.append(g)
        try:
            return self._fill(gi, d, g, where, name)
        finally:
            self._open.pop()

    def _fill(self, gi, d, g, where, name) -> Graph:
        nodes = []
        for ni, nd in enumerate(d["nodes"]):
            w = f"{where} ({name}), node {ni}"
            if not isinstance(nd, dict):
                raise SavedModelError(f"{w}: malformed node")
            op = self._op(nd.get("op"), w)
            ins = []
            raw_in = nd.get("in")
            if not isinstance(raw_in, list):
                raise SavedModelError(f"{w}: 'in' must be a list")
            for r in raw_in:
                a, b = _ref(r, w)
                if not 0 <= a < ni or not 0 <= b < len(nodes[a].outputs):
                    raise SavedModelError(f"{w}: input {r} does not name an output of an earlier node")
                ins.append(nodes[a].outputs[b])
            outs = nd.get("out")
            if not isinstance(outs, list) or not all(isinstance(o, list) and len(o) == 2 for o in outs):
                raise SavedModelError(f"{w}: 'out' must be a list of [dtype, shape]")
            if op.n_out is not None and len(outs) != op.n_out:
                raise SavedModelError(f"{w}: op {op.name} has {op.n_out} outputs, the file declares {len(outs)}")
            specs = [Spec(shape_from_json(s, w), _dtype_from(t, w)) for t, s in outs]
            attrs = self._attrs(nd.get("attrs"), op, w)
            node_name = nd.get("name")
            if not isinstance(node_name, str):
                raise SavedModelError(f"{w}: node name must be a string")
            node = g.add(op, ins, attrs, specs, node_name)
            loc = nd.get("loc", "")
            node.loc = loc if isinstance(loc, str) else ""
            if op is CONST:
                value = attrs.get("value")
                if not hasattr(value, "dtype") or len(specs) != 1:
                    raise SavedModelError(f"{w}: Const without an array value")
                node.outputs[0]._const = value
            elif op is PLACEHOLDER and (ins or attrs):
                raise SavedModelError(f"{w}: a Placeholder has no inputs or attrs")
            elif op is READ_VAR and (ins or not hasattr(attrs.get("var"), "assign")):
                raise SavedModelError(f"{w}: ReadVariableOp needs a variable attr")
            nodes.append(node)
            for oi, t in enumerate(node.outputs):
                self._tensors[(gi, ni, oi)] = t

        def tensor(r, what):
            a, b = _ref(r, f"{where} {what}")
            if not 0 <= a < len(nodes) or not 0 <= b < len(nodes[a].outputs):
                raise SavedModelError(f"{where}: {what} {r} out of range")
            return nodes[a].outputs[b]

        inputs = d.get("inputs", [])
        if not isinstance(inputs, list):
            raise SavedModelError(f"{where}: 'inputs' must be a list")
        for i in inputs:
            if type(i) is not int or not 0 <= i < len(nodes) or nodes[i].op is not PLACEHOLDER:
                raise SavedModelError(f"{where}: input {_short(i)} is not a Placeholder node")
            g.inputs.append(nodes[i].outputs[0])
        g.outputs = [tensor(r, "output") for r in _list(d.get("outputs", []), where)]
        g.variables = [self._variable(i) for i in _list(d.get("variables", []), where)]
        known = {id(v) for v in g.variables}
        for key, attr in (("var_reads", g.var_reads), ("var_final", g.var_final)):
            for item in _list(d.get(key, []), where):
                if not isinstance(item, list) or len(item) != 2:
                    raise SavedModelError(f"{where}: malformed {key} entry")
                var = self._variable(item[0])
                if id(var) not in known:
                    raise SavedModelError(f"{where}: {key} names a variable the graph does not list")
                t = tensor(item[1], key)
                if t.dtype is not var.dtype:
                    raise SavedModelError(f"{where}: {key} value for variable {var.name} has dtype {t.dtype.name}")
                attr[id(var)] = t
        for item in _list(d.get("captures", []), where):
            if not isinstance(item, list) or len(item) != 2 or type(item[1]) is not int or \
                    not 0 <= item[1] < len(nodes) or nodes[item[1]].op is not PLACEHOLDER:
                raise SavedModelError(f"{where}: malformed capture")
            outer_t = None
            if item[0] is not None:
                if not isinstance(item[0], list) or len(item[0]) != 3:
                    raise SavedModelError(f"{where}: malformed capture")
                try:
                    outer_t = self._tensors.get(tuple(item[0]))
                except TypeError:  # unhashable entries: not a tensor reference
                    raise SavedModelError(f"{where}: malformed capture") from None
            g.captures.append((outer_t, nodes[item[1]].outputs[0]))
        g.stateful = d.get("stateful") is True
        return g

    def _attrs(self, raw, op, where):
        if not isinstance(raw, dict):
            raise SavedModelError(f"{where}: 'attrs' must be an object")
        dec = Decoder(graph=self.graph, variable=self._variable, op=lambda n: self._op(n, where),
                      constants=self.constants, where=where)
        out = {}
        for k, v in raw.items():
            if op is CONST and k == "value" and isinstance(v, dict) and v.get("t") == "asset":
                i = v.get("v")
                if type(i) is not int or not 0 <= i < len(self.asset_paths):
                    raise SavedModelError(f"{where}: asset index {_short(i)} out of range")
                import numpy as np

                out[k] = np.array(self.asset_paths[i].encode(), dtype=object)
                continue
            out[k] = dec.decode(v)
        return out


def _list(v, where):
    if not isinstance(v, list):
        raise SavedModelError(f"{where}: expected a list, got {_short(v)}")
    return v
