"""``tf.saved_model.load`` of SavedModels in TF's format (written by TF, Keras, or tensorlet itself).

The ``saved_model.pb`` is parsed with protobuf (size-checked first); the ``SavedObjectGraph`` is rebuilt
(user objects, lists/dicts, variables restored from ``variables/`` through the TensorBundle reader, functions,
signatures, assets).  Each concrete function's ``FunctionDef`` is *interpreted* node by node into registry
ops while ``tf.function`` traces it, so a loaded function is an ordinary ``ConcreteFunction`` over tensorlet's
graph IR: it runs on NumPy or XLA and is differentiable.  ``StatefulPartitionedCall`` / ``PartitionedCall``
are inlined (cycles and depth refused), resource ops act on the restored variables, control inputs order
execution.  Nothing from the file is executed as Python: names are looked up in the op registry, and an op
tensorlet lacks is refused with an error naming the op and the function.
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.framework.errors import OpError
from tensorlet._src.framework.tensor import Tensor, constant
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.concrete import ConcreteFunction, _Leaf
from tensorlet._src.graph.function import Function
from tensorlet._src.ops.registry import bind
from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model import tf_import_ops, tf_lists, tf_struct, tf_tables
from tensorlet._src.saved_model.bg_compile import LoadedConcreteFunction
from tensorlet._src.saved_model.codec import CorruptSavedModel, SavedModelError
from tensorlet._src.saved_model.tf_ops import (attr_python, default_python, dtype_of, known_value, opdef,
                                               output_counts, shape_from, tf_to_op)
from tensorlet._src.train import tf_bundle
from tensorlet._src.util import nest

MAX_PB_BYTES = 1 << 30
MAX_FUNCTIONS = 20000
MAX_NODES = 2_000_000  # NodeDefs over the whole library
MAX_CALL_DEPTH = 64
_SAVER_PREFIXES = ("__inference__traced_save", "__inference__traced_restore")
_PASS = frozenset(("Identity", "StopGradient", "PreventGradient", "Snapshot"))
_NOTHING = frozenset(("NoOp", "DisableCopyOnRead"))
_CALLS = frozenset(("StatefulPartitionedCall", "PartitionedCall"))
_RESOURCE = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add", "AssignSubVariableOp": "assign_sub"}


def read_pb(export_dir):
    path = os.path.join(export_dir, "saved_model.pb")
    try:
        size = os.path.getsize(path)
        if size > MAX_PB_BYTES:
            raise CorruptSavedModel(f"{path} is {size} bytes; the limit is {MAX_PB_BYTES}")
        with open(path, "rb") as f:
            data = f.read(MAX_PB_BYTES + 1)
    except OSError as e:
        raise SavedModelError(f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|"
                              f"saved_model.pb}} ({e.strerror})") from None
    sm = P.SavedModel()
    try:
        sm.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf raises DecodeError / RecursionError on hostile bytes
        raise CorruptSavedModel(f"Cannot parse file {path}: {type(e).__name__}: {str(e)[:200]}") from None
    if not sm.meta_graphs:
        raise CorruptSavedModel(f"{path}: the SavedModel has no MetaGraphDef")
    return sm


def select_meta_graph(sm, tags):
    if tags is None:
        return sm.meta_graphs[0]
    wanted = {tags} if isinstance(tags, str) else set(tags)
    for mg in sm.meta_graphs:
        if set(mg.meta_info_def.tags) == wanted:
            return mg
    have = [sorted(mg.meta_info_def.tags) for mg in sm.meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(wanted)!r} could not be found in SavedModel, "
                       f"with available tags '{have}'. To inspect available tag-sets in the SavedModel, please use "
                       "the SavedModel CLI: `saved_model_cli`.")


def _toposort(fd, where):
    """NodeDefs in an order where data and control inputs come first; refuses cycles and unknown names."""
    by_name = {}
    for nd in fd.node_def:
        if nd.name in by_name:
            raise CorruptSavedModel(f"{where}: two nodes named {nd.name!r}")
        by_name[nd.name] = nd
    args = {a.name for a in fd.signature.input_arg}
    deps = {}
    for nd in fd.node_def:
        ds = set()
        for i in nd.input:
            src = i[1:] if i.startswith("^") else i.split(":", 1)[0]
            if src in by_name:
                ds.add(src)
            elif src not in args:
                raise CorruptSavedModel(f"{where}: node {nd.name!r} has input {i!r}, which names nothing")
        deps[nd.name] = ds
    order, state = [], {}
    for root in by_name:
        if root in state:
            continue
        stack = [(root, iter(sorted(deps[root])))]
        state[root] = 1
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[name] = 2
                order.append(by_name[name])
            elif state.get(nxt) == 1:
                raise CorruptSavedModel(f"{where}: the function body has a cycle through node {nxt!r}")
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(deps[nxt]))))
    return order


def _is_const(x):
    if isinstance(x, Variable):
        return False
    if isinstance(x, Tensor) and hasattr(x, "node"):
        return x._const is not None
    return isinstance(x, Tensor)


class Interpreter:
    """Runs FunctionDefs on tensorlet ops (under tracing this builds graph IR)."""

    def __init__(self, library):
        self.library = library
        self._stack = []

    def run(self, fname, args):
        fd = self.library.get(fname)
        if fd is None:
            raise CorruptSavedModel(f"the SavedModel calls function {fname!r}, which its library does not define")
        if fname in self._stack:
            raise CorruptSavedModel(f"function {fname!r} calls itself (a cycle in the function library)")
        if len(self._stack) >= MAX_CALL_DEPTH:
            raise CorruptSavedModel(f"function calls nested deeper than {MAX_CALL_DEPTH} at {fname!r}")
        sig = fd.signature
        if len(args) != len(sig.input_arg):
            raise CorruptSavedModel(f"function {fname!r} takes {len(sig.input_arg)} inputs, called with {len(args)}")
        self._stack.append(fname)
        try:
            env = {a.name: [v] for a, v in zip(sig.input_arg, args)}
            offsets = {}
            for nd in _toposort(fd, f"function {fname!r}"):
                outs, od, attrs = self._node(nd, env, offsets, fname)
                env[nd.name] = outs
                if od is not None:
                    offsets[nd.name] = (od, attrs)
            results = []
            for a in sig.output_arg:
                ref = fd.ret.get(a.name)
                if ref is None:
                    raise CorruptSavedModel(f"function {fname!r}: output {a.name!r} has no return value")
                results.append(self._value(ref, env, offsets, fname))
            return results
        finally:
            self._stack.pop()

    def _value(self, ref, env, offsets, fname):
        parts = ref.split(":")
        name = parts[0]
        if name not in env:
            raise CorruptSavedModel(f"function {fname!r}: {ref!r} names nothing")
        outs = env[name]
        if len(parts) == 1:
            idx = 0
        elif len(parts) == 3 and name in offsets:
            od, attrs = offsets[name]
            counts = output_counts(od, attrs)
            base = 0
            for a, c in zip(od["outputs"], counts):
                if a["name"] == parts[1]:
                    break
                base += c
            else:
                raise CorruptSavedModel(f"function {fname!r}: node {name!r} has no output {parts[1]!r}")
            if not parts[2].isdigit():
                raise CorruptSavedModel(f"function {fname!r}: bad tensor reference {ref!r}")
            idx = base + int(parts[2])
        else:
            raise CorruptSavedModel(f"function {fname!r}: bad tensor reference {ref!r}")
        if idx >= len(outs):
            raise CorruptSavedModel(f"function {fname!r}: {ref!r} is out of range ({len(outs)} outputs)")
        return outs[idx]

    def _node(self, nd, env, offsets, fname):
        where = f"function {fname!r}, node {nd.name!r} ({nd.op})"
        od = opdef(nd.op)
        family = _family(nd.op)
        if od is None and family is not None:  # (ops tf_opdefs.json may not list: no defaults needed)
            od = family.opdef(nd.op)
        if od is None:
            from tensorlet._src.saved_model.codec import UnknownOp

            raise UnknownOp(f"{where}: Op type not registered '{nd.op}' in tensorlet: the SavedModel uses an op "
                            "this version does not have")
        attrs = {k: attr_python(v, where) for k, v in nd.attr.items() if not k.startswith("_")}
        for a in od["attrs"]:  # files may strip attrs at their default value
            if a["name"] not in attrs and "default" in a:
                attrs[a["name"]] = default_python(a)
        ins = [self._value(i, env, offsets, fname) for i in nd.input if not i.startswith("^")]
        op = nd.op
        if op == "Const":
            if "value" not in attrs:
                raise CorruptSavedModel(f"{where}: Const without a value")
            return [constant(attrs["value"])], od, attrs
        if op in _PASS:
            return [ins[0]] if ins else _bad(where, "needs an input"), od, attrs
        if op == "IdentityN":
            return list(ins), od, attrs
        if op in _NOTHING:
            return [], od, attrs
        if op in _CALLS:
            f = attrs.get("f")
            if not isinstance(f, str):
                raise CorruptSavedModel(f"{where}: call without a function")
            return self.run(f, ins), od, attrs
        if op in ("If", "StatelessIf"):
            return self._if(attrs, ins, where), od, attrs
        if op in ("While", "StatelessWhile"):
            return self._while(attrs, ins, where), od, attrs
        if op == "ReadVariableOp":
            return [_var(ins, where).value()], od, attrs
        if op in _RESOURCE:
            if len(ins) != 2:
                _bad(where, "needs a resource and a value")
            getattr(_var(ins, where), _RESOURCE[op])(ins[1])
            return [], od, attrs
        if op == "VarIsInitializedOp":
            _var(ins, where)
            return [constant(True)], od, attrs
        if family is not None:
            return family.run(op, ins, attrs, where), od, attrs
        if any(isinstance(x, (Variable, tf_tables.TableHandle)) for x in ins):
            raise CorruptSavedModel(f"{where}: a resource handle used as a tensor")
        reg, inputs, kw = tf_to_op(op, od, attrs, ins, _is_const, where)
        if op in _AXIS_OPS:
            _positive_axes(inputs, kw)
        folded = _fold(reg, ins, inputs, kw)
        if folded is not None:
            return folded, od, attrs
        try:
            out = bind(reg, *inputs, **kw)
        except SavedModelError:
            raise
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise CorruptSavedModel(f"{where}: cannot apply {reg.name}: {type(e).__name__}: {e}") from None
        return (list(out) if isinstance(out, (tuple, list)) else [out]), od, attrs


    def _if(self, attrs, ins, where):
        from tensorlet._src.graph.control_flow import cond

        then_f, else_f = attrs.get("then_branch"), attrs.get("else_branch")
        if not isinstance(then_f, str) or not isinstance(else_f, str) or not ins:
            raise CorruptSavedModel(f"{where}: If needs a predicate and two branch functions")
        args = list(ins[1:])
        n = len(attrs.get("Tout") or ())
        out = cond(ins[0], lambda: self.run(then_f, args), lambda: self.run(else_f, args))
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(out) != n:
            raise CorruptSavedModel(f"{where}: the branches return {len(out)} values, Tout lists {n}")
        return out

    def _while(self, attrs, ins, where):
        from tensorlet._src.graph.control_flow import while_loop

        cond_f, body_f = attrs.get("cond"), attrs.get("body")
        if not isinstance(cond_f, str) or not isinstance(body_f, str):
            raise CorruptSavedModel(f"{where}: While needs cond and body functions")
        handles = {i: x for i, x in enumerate(ins) if isinstance(x, Variable)}  # resources pass through
        plain = [i for i in range(len(ins)) if i not in handles]

        def full(vs):
            it = iter(vs)
            return [handles[i] if i in handles else next(it) for i in range(len(ins))]

        def c(*vs):
            r = self.run(cond_f, full(vs))
            if len(r) != 1:
                raise CorruptSavedModel(f"{where}: the loop condition returns {len(r)} values")
            return r[0]

        def b(*vs):
            r = self.run(body_f, full(vs))
            if len(r) != len(ins):
                raise CorruptSavedModel(f"{where}: the loop body returns {len(r)} values for {len(ins)} loop "
                                        "variables")
            return [r[i] for i in plain]

        tf_lists.presize([ins[i] for i in plain], b)
        out = while_loop(c, b, [ins[i] for i in plain]) if plain else []
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        return full(out)


# TF ops whose form differs from tensorlet's, a module per family: ``OPS``, ``opdef(op)`` (output names where
# tf_opdefs.json does not list the op) and ``run(op, ins, attrs, where)``
_FAMILIES = (tf_tables, tf_import_ops, tf_lists)


def _family(op):
    for module in _FAMILIES:
        if op in module.OPS:
            return module
    return None


FOLD_MAX_ELEMENTS = 1 << 12
# ops whose axis (a constant input of the TF node) counts the dims of their first input; TF graphs carry it as
# written (-1), tensorlet's kernels and shape rules take it counted from the front, as its Python API passes it
_AXIS_OPS = frozenset(("Sum", "Max", "Min", "Prod", "Mean", "All", "Any", "EuclideanNorm", "ArgMax", "ArgMin",
                       "Cumsum", "Cumprod", "CumulativeLogsumexp", "ReverseV2"))


def _positive_axes(inputs, kw):
    a = kw.get("axis")
    rank = inputs[0].shape.rank if inputs and hasattr(inputs[0], "shape") else None
    if a is None or not rank:
        return
    if isinstance(a, (tuple, list)):
        kw["axis"] = type(a)(int(x) + rank if int(x) < 0 else int(x) for x in a)
    elif isinstance(a, (int, np.integer)) and a < 0:
        kw["axis"] = int(a) + rank


def _fold(reg, tf_ins, inputs, kw):
    """While tracing, the value of an op whose TF inputs are all constants (``Range(0, Rank, 1)`` feeding a
    reduction's axis, say), as constants: the ops after it may need them as attrs.  None when it does not fold."""
    from tensorlet._src.graph import subgraph

    if not tf_ins or not reg.foldable or not subgraph.is_tracing() or not all(_is_const(x) for x in tf_ins):
        return None
    vals = []
    for x in inputs:
        v = known_value(x)
        if v is None or v.size > FOLD_MAX_ELEMENTS:
            return None
        vals.append(v)
    from tensorlet._src.framework.context import init_scope

    try:
        with init_scope():
            out = bind(reg, *[constant(v) for v in vals], **kw)
            outs = [np.asarray(o.numpy()) for o in (out if isinstance(out, (tuple, list)) else [out])]
    except Exception:  # noqa: BLE001 - an op failing on constants is left to run time, with its own error
        return None
    if any(o.size > FOLD_MAX_ELEMENTS or o.dtype == object for o in outs):
        return None
    return [constant(o) for o in outs]


def _bad(where, what):
    raise CorruptSavedModel(f"{where}: {what}")


def _var(ins, where):
    if not ins or not isinstance(ins[0], Variable):
        raise CorruptSavedModel(f"{where}: the resource input is not a variable of the SavedModel")
    return ins[0]


def _spec(s):
    from tensorlet._src.data.structure import TensorSpec

    return TensorSpec(s.shape, s.dtype, name=s.name)


class TFLoader:
    def __init__(self, export_dir, mg):
        self.dir = export_dir
        self.mg = mg
        lib = mg.graph_def.library.function
        if len(lib) > MAX_FUNCTIONS:
            raise CorruptSavedModel(f"{export_dir}: {len(lib)} functions in the library (limit {MAX_FUNCTIONS})")
        if sum(len(f.node_def) for f in lib) > MAX_NODES:
            raise CorruptSavedModel(f"{export_dir}: the function library holds more than {MAX_NODES} nodes")
        self.library = {f.signature.name: f for f in lib}
        self.og = mg.object_graph_def
        if not self.og.nodes:
            raise CorruptSavedModel(f"{export_dir}: the SavedModel has no object graph (a TF1 SavedModel; load it "
                                    "with tf.compat.v1 loaders)")
        self.interp = Interpreter(self.library)
        self._cfs = {}
        self.objects = [None] * len(self.og.nodes)

    # --- variables ---------------------------------------------------------------------------------------
    def _keys(self, reader):
        og = self.og
        keys = {}
        if reader.has("_CHECKPOINTABLE_OBJECT_GRAPH"):
            ck = P.TrackableObjectGraph()
            try:
                ck.ParseFromString(bytes(reader.get("_CHECKPOINTABLE_OBJECT_GRAPH").reshape(())[()]))
            except Exception as e:  # noqa: BLE001 - hostile bytes
                raise CorruptSavedModel(f"{self.dir}: corrupt checkpoint object graph: {type(e).__name__}") from None
            if len(ck.nodes) >= len(og.nodes):
                for i in range(len(og.nodes)):
                    for a in ck.nodes[i].attributes:
                        if a.name == "VARIABLE_VALUE":
                            keys[i] = a.checkpoint_key
        if not keys:  # name paths, breadth-first from the root
            from tensorlet._src.train.trackable import escape_local_name

            paths, queue = {0: []}, [0]
            while queue:
                i = queue.pop(0)
                for c in og.nodes[i].children:
                    if c.node_id not in paths and 0 <= c.node_id < len(og.nodes):
                        paths[c.node_id] = paths[i] + [c.local_name]
                        queue.append(c.node_id)
            for i, p in paths.items():
                keys[i] = "/".join(escape_local_name(x) for x in p) + "/.ATTRIBUTES/VARIABLE_VALUE"
        return keys

    def variables(self):
        from tensorlet._src.framework.context import init_scope
        from tensorlet._src.train.format import CorruptCheckpoint

        idx = [i for i, n in enumerate(self.og.nodes) if n.WhichOneof("kind") == "variable"]
        if not idx:
            return
        prefix = os.path.join(self.dir, "variables", "variables")
        try:
            reader = tf_bundle.read_bundle(prefix)
            keys = self._keys(reader)
            for i in idx:
                sv = self.og.nodes[i].variable
                where = f"variable {sv.name!r} (object {i})"
                dtype = dtype_of(sv.dtype, where)
                shape = shape_from(sv.shape, where)
                key = keys.get(i)
                if key is None or not reader.has(key):
                    raise CorruptSavedModel(f"{self.dir}: the variables checkpoint has no value for {where}")
                if reader.dtype(key) != dtype.name or not shape.is_compatible_with(reader.shape(key)):
                    raise CorruptSavedModel(f"{self.dir}: checkpoint value {key!r} is {reader.dtype(key)}"
                                            f"{list(reader.shape(key))}, {where} is declared {dtype.name}{shape}")
                value = reader.get(key)
                with init_scope():
                    self.objects[i] = Variable(value, trainable=sv.trainable, name=sv.name or "Variable",
                                               dtype=dtype, shape=shape)
        except OSError as e:
            if isinstance(e, SavedModelError):
                raise
            raise CorruptSavedModel(f"{self.dir}: cannot read the variables checkpoint: {e}") from None
        except CorruptCheckpoint as e:
            raise CorruptSavedModel(f"{self.dir}: corrupt variables checkpoint: {e}") from None

    # --- functions ---------------------------------------------------------------------------------------
    def concrete(self, name) -> ConcreteFunction:
        cf = self._cfs.get(name)
        if cf is not None:
            return cf
        if name not in self.library:
            raise CorruptSavedModel(f"{self.dir}: concrete function {name!r} is not in the function library")
        sc = self.og.concrete_functions.get(name) if name in self.og.concrete_functions else None
        fd = self.library[name]
        bound = self._bound(name, sc)
        n_in = len(fd.signature.input_arg) - len(bound)
        if n_in < 0:
            raise CorruptSavedModel(f"{self.dir}: function {name!r} binds more inputs than it has")
        if sc is not None and sc.HasField("canonicalized_input_signature"):
            structured = tf_struct.decode(sc.canonicalized_input_signature, name)
        else:
            structured = (tuple(tf_struct.Spec(None, None, a.name) for a in fd.signature.input_arg[:n_in]), {})
        if not (isinstance(structured, tuple) and len(structured) == 2 and isinstance(structured[1], dict)):
            raise CorruptSavedModel(f"{self.dir}: function {name!r}: malformed input signature")
        flat = [x for x in nest.flatten(structured) if isinstance(x, tf_struct.Spec)]
        if len(flat) != n_in:
            raise CorruptSavedModel(f"{self.dir}: function {name!r} has {n_in} inputs, its signature lists "
                                    f"{len(flat)}")
        for s, a in zip(flat, fd.signature.input_arg):
            if s.dtype is None:
                s.dtype = dtype_of(a.type, name)
                s.shape = None
        out_struct = tf_struct.decode(sc.output_signature, name) if sc is not None and sc.HasField(
            "output_signature") else None
        interp = self.interp

        def body(*xs):
            return interp.run(name, list(xs) + bound)

        fn = Function(body, name=_short_name(name), input_signature=[_spec(s) for s in flat], autograph=False)
        traced = fn.get_concrete_function()
        g = traced.graph
        it = iter(g.inputs)
        inputs = nest.map_structure(lambda x: next(it) if isinstance(x, tf_struct.Spec) else x, structured)
        n_out = len(g.outputs)
        if out_struct is not None and len([x for x in nest.flatten(out_struct) if isinstance(x, tf_struct.Spec)]) \
                == n_out:
            it = iter(range(n_out))
            template = nest.map_structure(lambda x: _Leaf(next(it)) if isinstance(x, tf_struct.Spec) else x,
                                          out_struct)
        else:
            template = _Leaf(0) if n_out == 1 else [_Leaf(i) for i in range(n_out)]
        flat_t = nest.flatten(template)
        structured_out = nest.pack_sequence_as(template, [g.outputs[x.i] if isinstance(x, _Leaf) else x
                                                          for x in flat_t]) if flat_t else template
        cf = LoadedConcreteFunction(g, inputs, structured_out, template)
        cf._name = name
        self._cfs[name] = cf
        return cf

    def _bound(self, name, sc):
        """The objects function ``name`` captures: variables, asset paths, tables, constants."""
        from tensorlet._src.saved_model.asset import Asset

        bound = []
        for i in (sc.bound_inputs if sc is not None else ()):
            obj = self.objects[i] if 0 <= i < len(self.objects) else None
            if isinstance(obj, Asset):
                obj = obj.asset_path
            elif not isinstance(obj, (Variable, tf_tables.TableHandle, Tensor)):
                raise CorruptSavedModel(f"{self.dir}: function {name!r} captures object {i}, which is neither a "
                                        "variable nor an asset (nor a table or a constant)")
            bound.append(obj)
        return bound

    def _constant(self, i, name):
        for nd in self.mg.graph_def.node:
            if nd.name == name and nd.op == "Const" and "value" in nd.attr:
                return constant(attr_python(nd.attr["value"], f"constant object {i}"))
        raise CorruptSavedModel(f"{self.dir}: constant object {i} names {name[:80]!r}, which is not a Const of the "
                                "graph")

    def _resource_fn(self, node, child):
        """The concrete function name of a resource object's ``_create_resource`` / ``_initialize``."""
        for c in node.children:
            if c.local_name == child and 0 <= c.node_id < len(self.og.nodes):
                f = self.og.nodes[c.node_id]
                if f.WhichOneof("kind") == "function" and f.function.concrete_functions:
                    return f.function.concrete_functions[0]
        return None

    def resources(self):
        """Creates and initializes the SavedModel's tables (before the functions capturing them are traced);
        returns the names of the resource functions the loader ran itself."""
        from tensorlet._src.framework.context import init_scope

        ran = set()
        nodes = self.og.nodes
        res = [i for i, n in enumerate(nodes) if n.WhichOneof("kind") == "resource"]
        with init_scope():
            for i in res:
                create = self._resource_fn(nodes[i], "_create_resource")
                if create is None:
                    raise CorruptSavedModel(f"{self.dir}: resource object {i} has no _create_resource function")
                out = self.interp.run(create, [])
                if len(out) != 1 or not isinstance(out[0], tf_tables.TableHandle):
                    raise CorruptSavedModel(f"{self.dir}: resource object {i} is not a lookup table (tensorlet "
                                            "loads table resources only)")
                self.objects[i] = out[0]
            for i in res:
                init = self._resource_fn(nodes[i], "_initialize")
                if init is not None:
                    sc = self.og.concrete_functions.get(init) if init in self.og.concrete_functions else None
                    self.interp.run(init, self._bound(init, sc))
        for i in res:
            for c in nodes[i].children:
                if c.local_name in tf_tables.RESOURCE_FUNCTIONS and 0 <= c.node_id < len(nodes):
                    ran.add(c.node_id)
                    ran.update(cc.node_id for cc in nodes[c.node_id].children)
        return ran

    def restored_function(self, i, sf):
        from tensorlet._src.saved_model.load import _NO_DEFAULT, RestoredFunction

        cfs = [self.concrete(n) for n in sf.concrete_functions]
        jit = {1: True, 2: False}.get(sf.function_spec.jit_compile) if sf.HasField("function_spec") else None
        if jit is not None:
            for cf in cfs:
                cf._jit = jit
        spec = tf_struct.decode(sf.function_spec.fullargspec, "fullargspec") if sf.HasField("function_spec") else {}
        params = None
        if isinstance(spec, dict) and isinstance(spec.get("args"), list):
            names = [a for a in spec["args"] if isinstance(a, str)]
            if names and names[0] == "self" and sf.function_spec.is_method:
                names = names[1:]
            defaults = spec.get("defaults") or ()
            defaults = list(defaults) if isinstance(defaults, (list, tuple)) else []
            params = []
            for k, n in enumerate(names):
                j = k - (len(names) - len(defaults))
                params.append((n, "positional_or_keyword", defaults[j] if j >= 0 else _NO_DEFAULT))
            for n in spec.get("kwonlyargs") or []:
                kwd = spec.get("kwonlydefaults") or {}
                params.append((n, "keyword_only", kwd.get(n, _NO_DEFAULT) if isinstance(kwd, dict) else _NO_DEFAULT))
        sig = None
        if sf.HasField("function_spec") and sf.function_spec.input_signature.WhichOneof("kind") not in (
                None, "none_value"):
            decoded = tf_struct.decode(sf.function_spec.input_signature, "input_signature")
            sig = nest.map_structure(lambda s: _spec(s) if isinstance(s, tf_struct.Spec) else s, decoded)
        label = next((c.local_name for n in self.og.nodes for c in n.children if c.node_id == i), "function")
        return RestoredFunction(label, cfs, params, sig)

    def signature(self, key, cf):
        from tensorlet._src.saved_model.load import SignatureFunction

        args, kwargs = cf._structured_inputs
        if args or not all(hasattr(v, "node") for v in kwargs.values()):
            raise CorruptSavedModel(f"{self.dir}: signature {key!r} does not take keyword tensors only")
        order = {id(t): k for k, t in kwargs.items()}
        ins = [order[id(t)] for t in cf.graph.inputs]
        t = cf._out_template
        if isinstance(t, dict) and all(isinstance(v, _Leaf) for v in t.values()):
            outs = [(k, t[k].i) for k in sorted(t)]
        else:
            outs = [(f"output_{j}", x.i) for j, x in enumerate(nest.flatten(t)) if isinstance(x, _Leaf)]
        sf = SignatureFunction(cf.graph, ins, outs, key)
        return sf

    # --- objects -----------------------------------------------------------------------------------------
    def build(self):
        from tensorlet._src.saved_model.load import _SignatureMap, _UserObject

        self.variables()
        nodes = self.og.nodes
        kinds = [n.WhichOneof("kind") for n in nodes]
        sig_nodes = {i for i, n in enumerate(nodes) if kinds[i] == "user_object"
                     and n.user_object.identifier == "signature_map"}
        for i, n in enumerate(nodes):
            k = kinds[i]
            if k == "user_object":
                ident = n.user_object.identifier
                self.objects[i] = ([] if ident == "trackable_list_wrapper" else {} if ident in (
                    "trackable_dict_wrapper", "signature_map") else _UserObject(ident))
            elif k == "asset":
                self.objects[i] = self._asset(n.asset.asset_file_def_index)
            elif k == "constant":
                self.objects[i] = self._constant(i, n.constant.operation)
        skip = self.resources()
        for i, n in enumerate(nodes):
            k = kinds[i]
            if i in skip:
                continue
            if k == "function":
                self.objects[i] = self.restored_function(i, n.function)
            elif k == "bare_concrete_function":
                self.objects[i] = self.concrete(n.bare_concrete_function.concrete_function_name)
        for i, n in enumerate(nodes):
            obj = self.objects[i]
            for c in n.children:
                if not 0 <= c.node_id < len(nodes):
                    raise CorruptSavedModel(f"{self.dir}: object {i} has child {c.node_id}, out of range")
                child = self.objects[c.node_id]
                if child is None:
                    continue
                if i in sig_nodes:
                    if isinstance(child, ConcreteFunction):
                        obj[c.local_name] = self.signature(c.local_name, child)
                elif isinstance(obj, list):
                    obj.append(child)
                elif isinstance(obj, dict):
                    obj[c.local_name] = child
                elif isinstance(obj, _UserObject):
                    if c.local_name.startswith("__") and c.local_name != "__call__":
                        continue
                    if c.local_name == "signatures" and c.node_id in sig_nodes:
                        continue
                    obj.__dict__[c.local_name] = child
        root = self.objects[0]
        if not isinstance(root, _UserObject):
            return root
        sigs = {}
        for c in nodes[0].children:
            if c.local_name == "signatures" and c.node_id in sig_nodes:
                sigs = self.objects[c.node_id]
        root.__dict__["signatures"] = _SignatureMap(sigs)
        return root

    def _asset(self, index):
        from tensorlet._src.saved_model.asset import Asset

        files = self.mg.asset_file_def
        if not 0 <= index < len(files):
            raise CorruptSavedModel(f"{self.dir}: asset index {index} out of range")
        name = files[index].filename
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise CorruptSavedModel(f"{self.dir}: asset {index} has a bad file name {name[:80]!r}")
        a = Asset.__new__(Asset)
        Asset.__init__(a, os.path.join(os.path.abspath(self.dir), "assets", name))
        return a


def _short_name(name):
    for p in ("__inference_",):
        if name.startswith(p):
            name = name[len(p):]
    return name.rsplit("_", 1)[0] if name.rsplit("_", 1)[-1].isdigit() else name


def load_tf(export_dir, tags=None):
    sm = read_pb(export_dir)
    mg = select_meta_graph(sm, tags)
    try:
        if not mg.object_graph_def.nodes and mg.signature_def:  # a TF1 SavedModel (saved_model.Builder)
            from tensorlet._src.saved_model.tf_load_v1 import load_v1

            return load_v1(export_dir, mg)
        return TFLoader(export_dir, mg).build()
    except SavedModelError as e:
        if isinstance(e, OpError):
            raise
        raise CorruptSavedModel(str(e)) from None  # a malformed value inside the file
    except RuntimeError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, OverflowError, MemoryError, RecursionError,
            UnicodeDecodeError) as e:
        raise CorruptSavedModel(f"Cannot load the SavedModel at {export_dir}: {type(e).__name__}: "
                                f"{str(e)[:300]}") from None


def is_tf_saved_model(export_dir):
    return os.path.isfile(os.path.join(export_dir, "saved_model.pb"))


__all__ = ["load_tf", "is_tf_saved_model", "read_pb"]
