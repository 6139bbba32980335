"""``tf.lite.Interpreter``: runs any ``.tflite`` on LiteRT (``ai-edge-litert``) when it is installed, else on
tensorlet's NumPy reference kernels (the operators the converter emits, float and quantized).

The file is parsed and bounds-checked by ``schema.read_model`` before either engine sees it, so a corrupt model
raises ``DataLossError`` rather than crashing the process.  Details dicts have TF's keys and types.

>>> interpreter = tf.lite.Interpreter(model_content=tflite_bytes)        # doctest: +SKIP
>>> interpreter.allocate_tensors()                                       # doctest: +SKIP
"""

from __future__ import annotations

import os

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.lite import reference, schema
from tensorlet._src.lite.model import LGraph, LOp, LTensor
from tensorlet._src.ops.registry import tf_export

_MAX_FILE = 2 << 30


def litert_available():
    import importlib.util

    return importlib.util.find_spec("ai_edge_litert") is not None


@tf_export("lite.experimental.OpResolverType")
class OpResolverType:
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


@tf_export("lite.Interpreter")
class Interpreter:
    """Interpreter interface for running TFLite models.

    ``experimental_engine`` (tensorlet's): ``"auto"`` (LiteRT if installed), ``"litert"`` or ``"reference"``.
    """

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=OpResolverType.AUTO, experimental_preserve_all_tensors=False,
                 experimental_engine="auto", **kwargs):
        if (model_path is None) == (model_content is None):
            raise ValueError("Can't both provide `model_path` and `model_content`" if model_path is not None
                             else "`model_path` or `model_content` must be specified.")
        if model_path is not None:
            path = os.fspath(model_path)
            if not os.path.isfile(path):
                raise ValueError(f"Could not open '{path}'.")
            if os.path.getsize(path) > _MAX_FILE:
                raise errors.DataLossError(None, None, f"'{path}' is larger than 2 GiB; not a TFLite flatbuffer.")
            with open(path, "rb") as f:
                model_content = f.read()
        if isinstance(model_content, (bytearray, memoryview)):
            model_content = bytes(model_content)
        if not isinstance(model_content, bytes):
            raise TypeError(f"`model_content` must be bytes; got {type(model_content).__name__}.")
        self._content = model_content
        self._model = schema.read_model(model_content)  # DataLossError on a corrupt file
        if experimental_engine not in ("auto", "litert", "reference"):
            raise ValueError("experimental_engine must be 'auto', 'litert' or 'reference'; "
                             f"got {experimental_engine!r}")
        self._flex = flex_ops(self._model)
        # LiteRT's Python package has no Flex delegate: models with Select TF ops run on the reference engine,
        # which executes them on tensorlet's kernels (as TF's own interpreter runs them through its delegate)
        use_litert = experimental_engine == "litert" or (experimental_engine == "auto" and litert_available()
                                                         and not self._flex)
        self._lite = None
        if use_litert:
            try:
                from ai_edge_litert.interpreter import Interpreter as _LiteRT
            except ImportError as e:
                raise ImportError('LiteRT is not installed: pip install "tensorlet[lite]" (ai-edge-litert).') from e
            self._lite = _LiteRT(model_content=model_content, experimental_delegates=experimental_delegates,
                                 num_threads=num_threads,
                                 experimental_preserve_all_tensors=experimental_preserve_all_tensors)
            self.engine = "litert"
        else:
            self.engine = "reference"
            self._ref = _Reference(self._model)

    # --- delegated API ------------------------------------------------------------------------------------------
    def __getattr__(self, name):
        raise AttributeError(f"'Interpreter' object has no attribute {name!r}")

    def allocate_tensors(self):
        if not self._lite:
            return self._ref.allocate()
        try:
            return self._lite.allocate_tensors()
        except RuntimeError as e:
            if not self._flex:
                raise
            raise RuntimeError(
                f"LiteRT cannot run this model: it uses Select TF ops ({', '.join(self._flex)}) and the "
                "ai-edge-litert package has no Flex delegate. Use experimental_engine='reference' (tensorlet runs "
                f"the TF ops itself) or a runtime linked with the Flex delegate. LiteRT said: {e}") from None

    def invoke(self):
        return self._lite.invoke() if self._lite else self._ref.invoke()

    def get_input_details(self):
        return self._lite.get_input_details() if self._lite else [self._ref.details(i) for i in self._ref.g.inputs]

    def get_output_details(self):
        return self._lite.get_output_details() if self._lite else [self._ref.details(i) for i in self._ref.g.outputs]

    def get_tensor_details(self):
        return self._lite.get_tensor_details() if self._lite else [
            self._ref.details(i) for i in range(len(self._ref.g.tensors))]

    def set_tensor(self, tensor_index, value):
        return self._lite.set_tensor(tensor_index, value) if self._lite else self._ref.set(tensor_index, value)

    def get_tensor(self, tensor_index, subgraph_index=0):
        return self._lite.get_tensor(tensor_index, subgraph_index) if self._lite else self._ref.get(tensor_index)

    def tensor(self, tensor_index):
        """A function returning a view of the tensor's current value (TF's zero-copy accessor)."""
        if self._lite:
            return self._lite.tensor(tensor_index)
        return lambda: self._ref.view(tensor_index)

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        if self._lite:
            return self._lite.resize_tensor_input(input_index, tensor_size, strict=strict)
        return self._ref.resize(input_index, tensor_size, strict)

    def get_signature_list(self):
        if self._lite:
            return self._lite.get_signature_list()
        return {s["signature_key"]: {"inputs": [m["name"] for m in s.get("inputs", [])],
                                     "outputs": [m["name"] for m in s.get("outputs", [])]}
                for s in self._model.get("signature_defs", [])}

    def get_signature_runner(self, signature_key=None):
        if self._lite:
            return self._lite.get_signature_runner(signature_key)
        sigs = self._model.get("signature_defs", [])
        if not sigs:
            raise ValueError("SignatureDef signature_key is None and model has 0 Signatures.")
        if signature_key is None:
            if len(sigs) > 1:
                raise ValueError("SignatureDef signature_key is None and model has more than one Signature.")
            sig = sigs[0]
        else:
            sig = next((s for s in sigs if s["signature_key"] == signature_key), None)
            if sig is None:
                raise ValueError(f"SignatureDef signature_key {signature_key!r} not found in the model.")
        return _SignatureRunner(self, sig)

    def reset_all_variables(self):
        return self._lite.reset_all_variables() if self._lite else None


class _SignatureRunner:
    def __init__(self, interp, sig):
        self._i = interp
        self._in = {m["name"]: m["tensor_index"] for m in sig.get("inputs", [])}
        self._out = {m["name"]: m["tensor_index"] for m in sig.get("outputs", [])}
        self._allocated = False

    def get_input_details(self):
        return {k: self._i._ref.details(i) for k, i in self._in.items()}

    def get_output_details(self):
        return {k: self._i._ref.details(i) for k, i in self._out.items()}

    def __call__(self, **kwargs):
        if set(kwargs) != set(self._in):
            raise ValueError(f"Invalid number of inputs provided for running a SignatureDef: expected "
                             f"{sorted(self._in)}, got {sorted(kwargs)}.")
        ref = self._i._ref
        for k, v in kwargs.items():
            v = np.asarray(v)
            idx = self._in[k]
            if list(v.shape) != list(ref.shapes[idx]):
                ref.resize(ref.g.inputs.index(idx) if False else idx, v.shape, False)
        ref.allocate()
        for k, v in kwargs.items():
            ref.set(self._in[k], v)
        ref.invoke()
        return {k: ref.get(i) for k, i in self._out.items()}


def graph_of(model) -> LGraph:
    """The first subgraph of a parsed model as an ``LGraph`` (constants decoded, options as dicts)."""
    sg = model["subgraphs"][0]
    g = LGraph()
    for t in sg.get("tensors", []):
        dtype = schema.TENSOR_TYPES[t["type"]]
        data = model["buffers"][t["buffer"]].get("data") if model.get("buffers") else None
        shape = [int(d) for d in t.get("shape", [])]
        arr = None
        if data is not None and len(data):
            arr = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype).reshape(shape)
        lt = LTensor(t.get("name", ""), dtype, arr, shape)
        sig = t.get("shape_signature")
        lt.sig = [int(d) for d in sig] if sig is not None else None
        q = t.get("quantization")
        if q is not None and q.get("scale") is not None and len(q["scale"]):
            lt.quant = {"scale": np.asarray(q["scale"], np.float32),
                        "zero_point": np.asarray(q.get("zero_point", np.zeros(len(q["scale"]))), np.int64),
                        "dim": int(q.get("quantized_dimension", 0))}
        g.tensors.append(lt)
    codes = model.get("operator_codes", [])
    for o in sg.get("operators", []):
        code = schema.opcode(codes[o["opcode_index"]])
        name = schema.OP_NAMES.get(code)
        custom = codes[o["opcode_index"]].get("custom_code")
        if code == schema.OPS["CUSTOM"]:
            name = "CUSTOM"
        elif name is None:
            name = f"BUILTIN_{code}"
        opts = o.get("builtin_options")
        g.ops.append(LOp(name, [int(i) for i in o.get("inputs", [])], [int(i) for i in o.get("outputs", [])],
                         opts if opts and opts[1] is not None else None, custom=custom,
                         custom_options=o.get("custom_options")))
    g.inputs = [int(i) for i in sg.get("inputs", [])]
    g.outputs = [int(i) for i in sg.get("outputs", [])]
    return g


def _custom_name(c):
    return c.decode(errors="replace") if isinstance(c, bytes) else (c or "")


def flex_ops(model):
    """The Flex (Select TF) custom codes a parsed model uses, in first-use order."""
    out = []
    for c in model.get("operator_codes", []):
        name = _custom_name(c.get("custom_code"))
        if schema.opcode(c) == schema.OPS["CUSTOM"] and name.startswith("Flex") and name not in out:
            out.append(name)
    return out


class _Reference:
    """The NumPy engine behind ``Interpreter`` when LiteRT is absent."""

    def __init__(self, model):
        self.g = graph_of(model)
        self.shapes = {i: list(t.shape) for i, t in enumerate(self.g.tensors)}
        self.values = {}
        self.allocated = False
        for op in self.g.ops:
            if op.code == "CUSTOM" and _custom_name(op.custom).startswith("Flex"):
                continue
            if op.code == "CUSTOM":
                raise ValueError(f"Encountered unresolved custom op: {_custom_name(op.custom)}. The NumPy reference "
                                 "interpreter runs builtin operators and Select TF (Flex) ops only.")
            if op.code not in reference.K:
                raise ValueError(f"The NumPy reference interpreter has no kernel for TFLite operator {op.code}; "
                                 'install LiteRT (pip install "tensorlet[lite]") to run this model.')

    def _check(self, i):
        if not isinstance(i, (int, np.integer)) or not 0 <= i < len(self.g.tensors):
            raise ValueError(f"Tensor with no shape found. tensor index {i} out of range "
                             f"(the model has {len(self.g.tensors)} tensors).")

    def details(self, i):
        t = self.g.tensors[i]
        q = t.quant
        sig = t.sig if t.sig is not None else self.shapes[i]
        return {
            "name": t.name, "index": i, "shape": np.asarray(self.shapes[i], np.int32),
            "shape_signature": np.asarray(sig, np.int32), "dtype": t.dtype.type,
            "quantization": (float(q["scale"][0]), int(q["zero_point"][0])) if q is not None and len(
                q["scale"]) == 1 else (0.0, 0),
            "quantization_parameters": {
                "scales": np.asarray(q["scale"] if q else [], np.float32),
                "zero_points": np.asarray(q["zero_point"] if q else [], np.int32),
                "quantized_dimension": int(q.get("dim", 0)) if q else 0},
            "sparsity_parameters": {},
        }

    def allocate(self):
        self.allocated = True
        for i in self.g.inputs:
            if i not in self.values or list(self.values[i].shape) != self.shapes[i]:
                self.values[i] = np.zeros(self.shapes[i], self.g.tensors[i].dtype)

    def set(self, i, value):
        self._check(i)
        value = np.asarray(value)
        t = self.g.tensors[i]
        if value.dtype != t.dtype:
            raise ValueError(f"Cannot set tensor: Got value of type {value.dtype.name.upper()} but expected type "
                             f"{t.dtype.name.upper()} for input {i}, name: {t.name} ")
        if list(value.shape) != list(self.shapes[i]):
            raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {list(value.shape)} but expected "
                             f"{list(self.shapes[i])} for input {i}.")
        self.values[i] = value.copy()

    def invoke(self):
        if not self.allocated:
            raise RuntimeError("Invoke called on model that is not ready. Call allocate_tensors() first.")
        feeds = {i: self.values[i] for i in self.g.inputs}
        with np.errstate(all="ignore"):
            out = reference.execute(self.g, feeds)
        self.values = out
        for i, v in out.items():
            self.shapes[i] = list(np.shape(v))

    def get(self, i):
        self._check(i)
        if i in self.values:
            return np.array(self.values[i], copy=True)
        t = self.g.tensors[i]
        if t.data is not None:
            return t.data.copy()
        return np.zeros(self.shapes[i], t.dtype)

    def view(self, i):
        self._check(i)
        return self.values.get(i, self.g.tensors[i].data)

    def resize(self, i, size, strict):
        self._check(i)
        if i not in self.g.inputs:
            raise ValueError(f"Tensor {i} is not an input of the model.")
        size = [int(d) for d in size]
        t = self.g.tensors[i]
        sig = t.sig if t.sig is not None else self.shapes[i]
        if len(size) != len(sig) or (strict and any(s != -1 and s != d for s, d in zip(sig, size))):
            raise ValueError(f"ResizeInputTensorStrict only allows mutating unknown dimensions identified by -1; "
                             f"tensor {i} has signature {list(sig)}, got {size}.")
        self.shapes[i] = size
        self.allocated = False
