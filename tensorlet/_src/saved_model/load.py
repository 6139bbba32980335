"""``tf.saved_model.load``: rebuild the object graph, variables and functions of a tensorlet SavedModel.

Loading reads JSON and raw tensor bytes only: no pickle, no eval, no import of anything the file names.  Op
names are looked up in tensorlet's op tables (unknown names are refused); every index, size, dtype and shape
is checked before it is used.  Loaded functions are ordinary ``ConcreteFunction``s over the loaded graphs,
so they run on the NumPy executor or compiled by XLA and are differentiable (fine-tuning works).
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Mapping

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.module import Module
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.concrete import ConcreteFunction, _Leaf
from tensorlet._src.graph.function import _SpecLike
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model.asset import Asset
from tensorlet._src.saved_model.codec import Decoder, SavedModelError, _dtype_from, _short, shape_from_json
from tensorlet._src.saved_model.graph_io import GraphReader
from tensorlet._src.train import format as _format
from tensorlet._src.util import nest

MAX_JSON_BYTES = 1 << 28
_NO_DEFAULT = object()


class _UserObject(Module):
    """A loaded object: the saved object's variables, sub-objects and tf.functions as attributes."""

    def __init__(self, class_name="_UserObject"):
        self._name = "_user_object"
        self._scope_name = "_user_object"
        self._saved_class = class_name

    def __repr__(self):
        return f"<tensorlet.saved_model._UserObject (saved from {self._saved_class}) at {hex(id(self))}>"


class _SignatureMap(Mapping):
    """``loaded.signatures``: name -> signature function."""

    def __init__(self, sigs):
        self._sigs = dict(sigs)

    def __getitem__(self, key):
        return self._sigs[key]

    def __iter__(self):
        return iter(self._sigs)

    def __len__(self):
        return len(self._sigs)

    def __repr__(self):
        return f"_SignatureMap({self._sigs!r})"


# --- functions ----------------------------------------------------------------------------------------------------
def _spec_text(spec, name=None):
    from tensorlet._src.data.structure import TensorSpec

    return repr(TensorSpec(spec.shape, spec.dtype, name=name))


class SignatureFunction(ConcreteFunction):
    """A signature: call with keyword arguments named after its inputs; returns a dict of outputs."""

    def __init__(self, graph, input_keys, output_keys, name):
        template = {k: _Leaf(i) for k, i in output_keys}
        outs = {k: graph.outputs[i] for k, i in output_keys}
        phs = dict(zip(input_keys, graph.inputs))
        super().__init__(graph, ((), phs), outs, template)
        from tensorlet._src.data.structure import TensorSpec

        self.structured_outputs = {k: TensorSpec(t.shape, t.dtype, name=k) for k, t in outs.items()}
        self._input_keys = list(input_keys)
        self._name = name

    @property
    def structured_input_signature(self):
        from tensorlet._src.data.structure import TensorSpec

        return (), {k: TensorSpec(t.shape, t.dtype, name=k) for k, t in zip(self._input_keys, self.graph.inputs)}

    def __call__(self, *args, **kwargs):
        keys = self._input_keys
        if len(args) > len(keys):
            raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. Received "
                            f"args: {args} and kwargs: {kwargs} for signature: {self._sig_text()}.")
        values = dict(zip(keys, args))
        for k in keys[len(args):]:  # Python's binding order: a missing argument is reported first
            if k in kwargs:
                values[k] = kwargs[k]
            else:
                raise TypeError(f"Binding inputs to tf.function failed due to `missing a required argument: '{k}'`. "
                                f"Received args: {args} and kwargs: {kwargs} for signature: {self._sig_text()}.")
        for k in kwargs:
            if k not in keys:
                raise TypeError(f"Binding inputs to tf.function failed due to `got an unexpected keyword argument "
                                f"'{k}'`. Received args: {args} and kwargs: {kwargs} for signature: "
                                f"{self._sig_text()}.")
            if k in keys[:len(args)]:
                raise TypeError(f"Binding inputs to tf.function failed due to `multiple values for argument '{k}'`.")
        return ConcreteFunction.__call__(self, *[values[k] for k in keys])

    def _sig_text(self):
        ins = ", ".join(f"{k}: {_spec_text(t, k)}" for k, t in zip(self._input_keys, self.graph.inputs))
        outs = ", ".join(f"['{k}', {_spec_text(t, k)}]" for k, t in self.structured_outputs.items())
        return f"(*, {ins}) -> Dict[{outs}]"

    def pretty_printed_signature(self, verbose=True):
        lines = ["Input Parameters:"]
        lines += [f"  {k} (KEYWORD_ONLY): {_spec_text(t, k)}" for k, t in zip(self._input_keys, self.graph.inputs)]
        outs = ", ".join(f"[{k!r}, {_spec_text(t, k)}]" for k, t in self.structured_outputs.items())
        lines += ["Output Type:", f"  Dict[{outs}]"]
        return "\n".join(lines)

    def __repr__(self):
        return f"<ConcreteFunction {self._sig_text()} at {hex(id(self)).upper().replace('X', 'x')}>"


def _bind(params, args, kwargs):
    """Python's argument binding for saved parameters: name -> value (defaults applied), or raises TypeError."""
    out, kwargs, i = {}, dict(kwargs), 0
    for name, kind, default in params:
        if kind in ("positional_only", "positional_or_keyword"):
            if i < len(args):
                if name in kwargs and kind != "positional_only":
                    raise TypeError(f"got multiple values for argument '{name}'")
                out[name] = args[i]
                i += 1
                continue
            if kind != "positional_only" and name in kwargs:
                out[name] = kwargs.pop(name)
            elif default is not _NO_DEFAULT:
                out[name] = default
            else:
                raise TypeError(f"missing a required argument: '{name}'")
        elif kind == "var_positional":
            out[name] = tuple(args[i:])
            i = len(args)
        elif kind == "keyword_only":
            if name in kwargs:
                out[name] = kwargs.pop(name)
            elif default is not _NO_DEFAULT:
                out[name] = default
            else:
                raise TypeError(f"missing a required argument: '{name}'")
        else:  # var_keyword
            out[name] = dict(kwargs)
            kwargs = {}
    if i < len(args):
        raise TypeError("too many positional arguments")
    if kwargs:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(kwargs))}'")
    return out


def _match(template, value, found) -> bool:
    """Does call value ``value`` fit ``template`` (a traced structure with placeholders)?  Collects
    (placeholder, tensor) pairs in ``found``."""
    if isinstance(template, GraphTensor):
        if isinstance(value, _SpecLike):
            ok = _dt.as_dtype(value.dtype) is template.dtype and template.shape.is_compatible_with(value.shape)
            if ok:
                found.append((template, None))
            return ok
        if isinstance(value, Variable):
            value = value.value()
        if not isinstance(value, Tensor):
            if not isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, complex)) or \
                    isinstance(value, bool) and template.dtype is not _dt.bool:
                return False
            try:
                value = convert_to_tensor(value, dtype_hint=template.dtype)
            except (TypeError, ValueError):
                return False
        if value.dtype is not template.dtype or not template.shape.is_compatible_with(value.shape):
            return False
        found.append((template, value))
        return True
    if isinstance(template, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(template):
            return False
        return all(_match(t, v, found) for t, v in zip(template, value))
    if isinstance(template, dict):
        if not isinstance(value, dict) or set(value) != set(template):
            return False
        return all(_match(template[k], value[k], found) for k in template)
    if isinstance(value, (Tensor, Variable)):
        return False
    if isinstance(template, bool) or isinstance(value, bool):
        return type(template) is type(value) and template == value
    try:
        return bool(template == value)
    except Exception:  # noqa: BLE001 - incomparable values simply do not match
        return False


def _describe_args(args, kwargs, names=(), indent="  "):
    lines = [f"{indent}Positional arguments ({len(args)} total):"]
    lines += [f"{indent}  * {_arg_text(a, names[i] if i < len(names) else None)}" for i, a in enumerate(args)]
    kw = ", ".join(f"{k!r}: {_arg_text(v, k)}" for k, v in kwargs.items())
    lines.append(f"{indent}Keyword arguments: {{{kw}}}")
    return "\n".join(lines)


def _arg_text(a, name=None):
    """A traced argument as TF prints it: placeholders as TensorSpecs named after their parameter."""
    from tensorlet._src.data.structure import TensorSpec
    from tensorlet._src.saved_model.signatures import _DEFAULT_PH

    def one(x):
        if isinstance(x, GraphTensor):
            own = x.node.name
            return TensorSpec(x.shape, x.dtype, name=name if name and _DEFAULT_PH.match(own) else own)
        return x

    return repr(nest.map_structure(one, a))


class RestoredFunction:
    """A loaded ``tf.function``: calls the saved concrete function matching the arguments."""

    def __init__(self, name, concrete_functions, params_json, params, input_signature=None):
        self._name = name
        self.__name__ = name
        self.concrete_functions = list(concrete_functions)
        self._params_json = params_json
        self._params = params
        self.input_signature = input_signature
        self._canon = [self._canonical(cf._structured_inputs) for cf in self.concrete_functions]

    @property
    def name(self):
        return self._name

    def _canonical(self, structured):
        args, kwargs = structured
        if self._params is None:
            return (tuple(args), dict(kwargs))
        try:
            return _bind(self._params, tuple(args), kwargs)
        except TypeError:
            return (tuple(args), dict(kwargs))

    def _find(self, args, kwargs):
        if self._params is not None:
            try:
                call = _bind(self._params, args, kwargs)
            except TypeError as e:
                raise TypeError(f"{self._name}() {e}") from None
        else:
            call = (tuple(args), dict(kwargs))
        for cf, canon in zip(self.concrete_functions, self._canon):
            found = []
            if type(canon) is type(call) and _match(canon, call, found):
                return cf, found
        options = []
        names = [p[0] for p in self._params or ()]
        for i, cf in enumerate(self.concrete_functions):
            a, k = cf._structured_inputs
            options.append(f"Option {i + 1}:\n{_describe_args(a, k, names)}")
        raise ValueError("Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
                         f"{_describe_args(args, kwargs)}\n\n Expected these arguments to match one of the "
                         f"following {len(options)} option(s):\n\n" + "\n\n".join(options))

    def __call__(self, *args, **kwargs):
        cf, found = self._find(args, kwargs)
        order = {id(t): i for i, t in enumerate(cf.graph.inputs)}
        flat = [None] * len(cf.graph.inputs)
        for ph, value in found:
            flat[order[id(ph)]] = value
        return ConcreteFunction.__call__(cf, *flat)

    def get_concrete_function(self, *args, **kwargs):
        """The saved concrete function for these arguments (tensors or ``tf.TensorSpec``s)."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        return self._find(args, kwargs)[0]

    def experimental_get_tracing_count(self):
        return 0

    def __repr__(self):
        return f"<tensorlet.saved_model.RestoredFunction {self._name}>"


# --- reading the directory ----------------------------------------------------------------------------------------
def _json_path(export_dir):
    return os.path.join(export_dir, "saved_model.json")


@tf_export("saved_model.contains_saved_model")
def contains_saved_model(export_dir) -> bool:
    """True if ``export_dir`` is a directory holding a tensorlet SavedModel."""
    export_dir = os.fspath(export_dir)
    return os.path.isdir(export_dir) and os.path.isfile(_json_path(export_dir))


def read_document(export_dir) -> dict:
    """The parsed, format-checked ``saved_model.json`` of ``export_dir``."""
    path = _json_path(export_dir)
    if not os.path.isfile(path):
        if os.path.isfile(os.path.join(export_dir, "saved_model.pb")):
            raise SavedModelError(f"{export_dir} holds a SavedModel written by TensorFlow (saved_model.pb); "
                                  "tensorlet reads only its own SavedModel format (saved_model.json)")
        raise SavedModelError(f"SavedModel file does not exist at: {export_dir}/{{saved_model.json}}")
    size = os.path.getsize(path)
    if size > MAX_JSON_BYTES:
        raise SavedModelError(f"{path} is too large ({size} bytes; the limit is {MAX_JSON_BYTES})")
    with open(path, "rb") as f:
        raw = f.read(MAX_JSON_BYTES + 1)
    try:
        doc = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise SavedModelError(f"Cannot parse file {path}: not valid JSON ({type(e).__name__}: "
                              f"{str(e)[:200]})") from None
    from tensorlet._src.saved_model.save import FORMAT, VERSION

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SavedModelError(f"{path} is not a tensorlet SavedModel (format must be {FORMAT!r})")
    if doc.get("version") != VERSION:
        raise SavedModelError(f"{path}: unsupported SavedModel format version {_short(doc.get('version'))} (this "
                              f"tensorlet reads version {VERSION})")
    for key, kind in (("objects", list), ("variables", list), ("functions", list), ("graphs", list),
                      ("signatures", dict), ("assets", list), ("captured_variables", list), ("tags", list)):
        if not isinstance(doc.get(key), kind):
            raise SavedModelError(f"{path}: '{key}' must be a {kind.__name__}")
    if not doc["objects"]:
        raise SavedModelError(f"{path}: the object graph is empty")
    return doc


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _read_variables(export_dir, doc):
    prefix = os.path.join(export_dir, "variables", "variables")
    try:
        with open(prefix + _format.INDEX_SUFFIX, "rb") as f:
            crc = zlib.crc32(f.read(_format.MAX_INDEX_BYTES + 1))
        reader = _format.Reader(prefix)
    except OSError as e:
        raise SavedModelError(f"{export_dir}: cannot read the variables checkpoint: {e}") from None
    except _format.CorruptCheckpoint as e:
        raise SavedModelError(f"{export_dir}: corrupt variables checkpoint: {e}") from None
    if doc.get("variables_index_crc32") != crc:
        raise SavedModelError(f"{export_dir}: variables/variables.index does not belong to this saved_model.json "
                              "(an interrupted or mixed save)")
    out = []
    from tensorlet._src.framework.context import init_scope

    for i, e in enumerate(doc["variables"]):
        where = f"variable {i}"
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not isinstance(e.get("key"), str):
            raise SavedModelError(f"saved_model.json: malformed {where}")
        dtype = _dtype_from(e.get("dtype"), where)
        shape = shape_from_json(e.get("shape"), where)
        key = e["key"]
        if not reader.has(key):
            raise SavedModelError(f"{export_dir}: the variables checkpoint has no value for {key!r}")
        if reader.dtype(key) != dtype.name or not shape.is_compatible_with(reader.shape(key)):
            raise SavedModelError(f"{export_dir}: checkpoint value {key!r} is {reader.dtype(key)}"
                                  f"{list(reader.shape(key))}, the variable is declared {dtype.name}{shape}")
        try:
            value = reader.get(key)
        except _format.CorruptCheckpoint as ce:
            raise SavedModelError(f"{export_dir}: {ce}") from None
        name = e["name"][:-2] if e["name"].endswith(":0") else e["name"]
        with init_scope():
            v = Variable(value, trainable=e.get("trainable") is True, name=name or "Variable", dtype=dtype,
                         shape=shape)
        out.append(v)
    return out


def _constants(export_dir):
    prefix = os.path.join(export_dir, "constants", "constants")
    state = {}

    def get(key, where):
        r = state.get("reader")
        if r is None:
            if not _format.exists(prefix):
                raise SavedModelError(f"{where}: refers to constant {key!r} but {export_dir} has no constants file")
            try:
                r = state["reader"] = _format.Reader(prefix)
            except (OSError, _format.CorruptCheckpoint) as e:
                raise SavedModelError(f"{export_dir}: corrupt constants file: {e}") from None
        if not r.has(key):
            raise SavedModelError(f"{where}: constant {key!r} is not in the constants file")
        try:
            return r.get(key)
        except _format.CorruptCheckpoint as e:
            raise SavedModelError(f"{export_dir}: {e}") from None

    return get


def _asset_paths(export_dir, doc):
    base = os.path.join(os.path.abspath(export_dir), "assets")
    out = []
    for i, a in enumerate(doc["assets"]):
        name = a.get("filename") if isinstance(a, dict) else None
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
                or "\0" in name:
            raise SavedModelError(f"saved_model.json: asset {i} has a bad file name {_short(name)}")
        out.append(os.path.join(export_dir, "assets", name) if not os.path.isabs(export_dir) else
                   os.path.join(base, name))
    return out


class _Loader:
    def __init__(self, export_dir, doc):
        self.dir = export_dir
        self.doc = doc
        self.variables = _read_variables(export_dir, doc)
        self.assets = _asset_paths(export_dir, doc)
        self.graphs = GraphReader(doc["graphs"], self.variables, _constants(export_dir), self.assets)
        self._cfs = {}

    def _index(self, i, table, what):
        if type(i) is not int or not 0 <= i < len(self.doc[table]):
            raise SavedModelError(f"saved_model.json: {what} index {_short(i)} out of range")
        return i

    def concrete(self, i) -> ConcreteFunction:
        i = self._index(i, "functions", "function")
        cf = self._cfs.get(i)
        if cf is not None:
            return cf
        e = self.doc["functions"][i]
        where = f"saved_model.json function {i}"
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise SavedModelError(f"{where}: malformed function")
        graph = self.graphs.graph(e.get("graph"))
        if graph.captures:
            raise SavedModelError(f"{where}: a function graph cannot have captures")

        def placeholder(p):
            if type(p) is not int or not 0 <= p < len(graph.inputs):
                raise SavedModelError(f"{where}: input index {_short(p)} out of range")
            return graph.inputs[p]

        def leaf(p):
            if type(p) is not int or not 0 <= p < len(graph.outputs):
                raise SavedModelError(f"{where}: output index {_short(p)} out of range")
            return _Leaf(p)

        inputs = Decoder(where=where, extra={"input": placeholder}).decode(e.get("inputs"))
        if not isinstance(inputs, tuple) or len(inputs) != 2 or not isinstance(inputs[0], (tuple, list)) \
                or not isinstance(inputs[1], dict):
            raise SavedModelError(f"{where}: inputs must be (args, kwargs)")
        used = [x for x in nest.flatten(inputs) if isinstance(x, GraphTensor)]
        if [id(t) for t in used] != [id(t) for t in graph.inputs]:
            raise SavedModelError(f"{where}: the input structure does not list the graph's inputs in order")
        template = Decoder(where=where, extra={"output": leaf}).decode(e.get("outputs"))
        flat = nest.flatten(template)
        structured = nest.pack_sequence_as(template, [graph.outputs[x.i] if isinstance(x, _Leaf) else x
                                                      for x in flat]) if flat else template
        cf = ConcreteFunction(graph, inputs, structured, template)
        if e.get("jit_compile") in (True, False):
            cf._jit = e["jit_compile"]
        self._cfs[i] = cf
        return cf

    def restored_function(self, e, where) -> RestoredFunction:
        cfs = e.get("concrete_functions")
        if not isinstance(cfs, list):
            raise SavedModelError(f"{where}: concrete_functions must be a list")
        params_json = e.get("params")
        params = None
        if params_json is not None:
            if not isinstance(params_json, list):
                raise SavedModelError(f"{where}: malformed params")
            params = []
            dec = Decoder(where=where, extra={"unsaved_default": lambda p: _NO_DEFAULT})
            for p in params_json:
                if not isinstance(p, list) or len(p) not in (2, 3) or not isinstance(p[0], str) or p[1] not in (
                        "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"):
                    raise SavedModelError(f"{where}: malformed parameter {_short(p)}")
                params.append((p[0], p[1], dec.decode(p[2]) if len(p) == 3 else _NO_DEFAULT))
        sig = None
        if e.get("input_signature") is not None:
            sig = Decoder(where=where, extra={"spec": _spec_from}).decode(e["input_signature"])
        name = e.get("name") if isinstance(e.get("name"), str) else "function"
        return RestoredFunction(name, [self.concrete(i) for i in cfs], params_json, params, sig)

    def signature(self, name, e) -> SignatureFunction:
        where = f"saved_model.json signature {name!r}"
        if not isinstance(e, dict):
            raise SavedModelError(f"{where}: malformed signature")
        cf = self.concrete(e.get("function"))
        ins, outs = e.get("inputs"), e.get("outputs")
        if not isinstance(ins, list) or len(ins) != len(cf.graph.inputs) or not all(isinstance(k, str) for k in ins) \
                or len(set(ins)) != len(ins):
            raise SavedModelError(f"{where}: inputs must name each graph input once")
        if not isinstance(outs, list) or not all(
                isinstance(o, list) and len(o) == 2 and isinstance(o[0], str) and type(o[1]) is int
                and 0 <= o[1] < len(cf.graph.outputs) for o in outs):
            raise SavedModelError(f"{where}: malformed outputs")
        sf = SignatureFunction(cf.graph, ins, [tuple(o) for o in outs], name)
        sf._jit = cf._jit
        return sf

    def objects(self):
        table = self.doc["objects"]
        built = [None] * len(table)
        pending = []
        for i, e in enumerate(table):
            where = f"saved_model.json object {i}"
            if not isinstance(e, dict):
                raise SavedModelError(f"{where}: malformed object")
            kind = e.get("kind")
            if kind == "user_object":
                cls = e.get("class")
                built[i] = _UserObject(cls if isinstance(cls, str) else "_UserObject")
                pending.append(i)
            elif kind == "list" or kind == "dict":
                built[i] = [] if kind == "list" else {}
                pending.append(i)
            elif kind == "tuple":
                pending.append(i)
            elif kind == "variable":
                built[i] = self.variables[self._index(e.get("variable"), "variables", "variable")]
            elif kind == "function":
                built[i] = self.restored_function(e, where)
            elif kind == "concrete_function":
                built[i] = self.concrete(e.get("function"))
            elif kind == "asset":
                a = Asset.__new__(Asset)
                j = self._index(e.get("asset"), "assets", "asset")
                Asset.__init__(a, self.assets[j])
                built[i] = a
            else:
                raise SavedModelError(f"{where}: unknown object kind {_short(kind)}")
        tuples_done = set()

        def resolve(j, stack=()):
            if type(j) is not int or not 0 <= j < len(table):
                raise SavedModelError(f"saved_model.json: object index {_short(j)} out of range")
            if table[j].get("kind") == "tuple" and j not in tuples_done:
                if j in stack:
                    raise SavedModelError("saved_model.json: a tuple contains itself")
                built[j] = tuple(resolve(c, stack + (j,)) for _, c in self._children(j))
                tuples_done.add(j)
            return built[j]

        for i in pending:
            kind = table[i]["kind"]
            kids = self._children(i)
            if kind == "tuple":
                resolve(i)
            elif kind == "list":
                if [n for n, _ in kids] != [str(k) for k in range(len(kids))]:
                    raise SavedModelError(f"saved_model.json object {i}: list children must be named 0, 1, ...")
                built[i].extend(resolve(c) for _, c in kids)
            elif kind == "dict":
                for n, c in kids:
                    built[i][n] = resolve(c)
            else:
                obj = built[i]
                for n, c in kids:
                    if n.startswith("__"):
                        raise SavedModelError(f"saved_model.json object {i}: refusing attribute name {_short(n)}")
                    obj.__dict__[n] = resolve(c)
        return built

    def _children(self, i):
        kids = self.doc["objects"][i].get("children")
        if not isinstance(kids, list) or not all(
                isinstance(k, list) and len(k) == 2 and isinstance(k[0], str) for k in kids):
            raise SavedModelError(f"saved_model.json object {i}: malformed children")
        return kids


def _spec_from(p):
    from tensorlet._src.data.structure import TensorSpec

    if not isinstance(p, list) or len(p) != 3 or not (p[2] is None or isinstance(p[2], str)):
        raise SavedModelError("saved_model.json: malformed TensorSpec")
    return TensorSpec(shape_from_json(p[0], "TensorSpec"), _dtype_from(p[1], "TensorSpec"), name=p[2])


@tf_export("saved_model.load")
def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by ``tf.saved_model.save``; no Python code of the original program is needed.

    Returns an object with the saved attributes (variables, sub-objects, tf.functions), ``signatures``
    (name -> function taking keyword arguments and returning a dict) and ``variables`` /
    ``trainable_variables``.

    >>> loaded = tf.saved_model.load("/tmp/adder")  # doctest: +SKIP
    >>> loaded.add(tf.constant([1.0]))  # doctest: +SKIP
    <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.], dtype=float32)>
    """
    export_dir = os.fspath(export_dir)
    doc = read_document(export_dir)
    if tags is not None:
        wanted = {tags} if isinstance(tags, str) else set(tags)
        have = set(t for t in doc["tags"] if isinstance(t, str))
        if wanted and wanted != have:
            raise RuntimeError(f"MetaGraphDef associated with tags {sorted(wanted)!r} could not be found in "
                               f"SavedModel, with available tags '{[sorted(have)]}'. To inspect available tag-sets "
                               "in the SavedModel, please use the SavedModel CLI: `saved_model_cli`.")
    loader = _Loader(export_dir, doc)
    built = loader.objects()
    root = built[0]
    sigs = {}
    for name, e in doc["signatures"].items():
        sigs[name] = loader.signature(name, e)
    if isinstance(root, _UserObject):
        captured = []
        for i in doc["captured_variables"]:
            if type(i) is not int or not 0 <= i < len(loader.variables):
                raise SavedModelError("saved_model.json: captured variable index out of range")
            captured.append(loader.variables[i])
        if captured:
            root.__dict__["_captured_variables"] = tuple(captured)
        root.__dict__["signatures"] = _SignatureMap(sigs)
    return root
