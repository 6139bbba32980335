"""The converter's in-memory TFLite graph (tensors + builtin operators) and its serialization to a ``.tflite``.

Lowering (``lower.py``) builds an :class:`LGraph`; quantization (``quantize.py``) rewrites it; ``serialize``
writes the TFL3 flatbuffer with ``schema.Writer``.  Tensor shapes are filled by running the graph on the NumPy
reference kernels (batch 1 and batch 2: dims that differ are the dynamic ``-1`` of ``shape_signature``).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.lite import schema

# operator versions as TF's converter writes them for these kernels: {(op, kind): version}
_VERSIONS = {
    ("CONV_2D", "int8"): 3, ("CONV_2D", "hybrid"): 5, ("DEPTHWISE_CONV_2D", "int8"): 3,
    ("DEPTHWISE_CONV_2D", "hybrid"): 6, ("DEPTHWISE_CONV_2D", "float"): 2, ("FULLY_CONNECTED", "int8"): 4,
    ("FULLY_CONNECTED", "hybrid"): 12, ("MAX_POOL_2D", "int8"): 2, ("AVERAGE_POOL_2D", "int8"): 2,
    ("SOFTMAX", "int8"): 2, ("DEQUANTIZE", "float16"): 3, ("DEQUANTIZE", "int8"): 2, ("ADD", "int8"): 2,
    ("SUB", "int8"): 2, ("MUL", "int8"): 2, ("CONCATENATION", "int8"): 2, ("MEAN", "int8"): 2,
    ("RESHAPE", "int8"): 1, ("PAD", "int8"): 2, ("LOGISTIC", "int8"): 2, ("TANH", "int8"): 2,
    ("TRANSPOSE", "int8"): 2, ("GATHER", "int8"): 2, ("STRIDED_SLICE", "int8"): 2, ("QUANTIZE", "int8"): 1,
    ("BATCH_MATMUL", "int8"): 2, ("RELU", "int8"): 2, ("RELU6", "int8"): 2, ("LEAKY_RELU", "int8"): 2,
    ("MAXIMUM", "int8"): 2, ("MINIMUM", "int8"): 2, ("PACK", "int8"): 2, ("UNPACK", "int8"): 2,
    ("SPLIT", "int8"): 2, ("SQUEEZE", "int8"): 1, ("EXPAND_DIMS", "int8"): 1,
}


class LTensor:
    __slots__ = ("name", "shape", "sig", "dtype", "data", "quant")

    def __init__(self, name, dtype, data=None, shape=None):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.data = data  # np.ndarray for constants
        self.shape = list(data.shape) if data is not None else shape
        self.sig = None  # shape_signature (-1 for dynamic dims) when it differs from shape
        self.quant = None  # {"scale": [...], "zero_point": [...], "dim": int}

    def __repr__(self):
        return f"<LTensor {self.name} {self.dtype} {self.shape}>"


class LOp:
    __slots__ = ("code", "inputs", "outputs", "options", "kind", "custom", "custom_options")

    def __init__(self, code, inputs, outputs, options=None, custom=None, custom_options=None):
        self.code = code  # BuiltinOperator name, e.g. "CONV_2D"
        self.inputs = list(inputs)  # tensor indices, -1 = optional input absent
        self.outputs = list(outputs)
        self.options = options  # (BuiltinOptions member name, dict) or None
        self.kind = "float"  # "float", "int8", "hybrid", "float16": picks the operator version
        self.custom = custom  # custom_code for CUSTOM ops
        self.custom_options = custom_options  # bytes (a FlexBuffer for Flex ops)

    def opt(self, key, default=None):
        return self.options[1].get(key, default) if self.options else default

    def __repr__(self):
        return f"<LOp {self.code} {self.inputs}->{self.outputs}>"


class LGraph:
    def __init__(self):
        self.tensors: list[LTensor] = []
        self.ops: list[LOp] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []
        self.input_names: list[str] = []
        self.output_names: list[str] = []
        self.signature_key = "serving_default"

    def add(self, t: LTensor) -> int:
        self.tensors.append(t)
        return len(self.tensors) - 1

    def const(self, value, name, dtype=None) -> int:
        value = np.asarray(value, dtype=dtype)
        return self.add(LTensor(name, value.dtype, np.array(value, order="C")))

    def op(self, code, inputs, outputs, options=None, **kw) -> LOp:
        o = LOp(code, inputs, outputs, options, **kw)
        self.ops.append(o)
        return o

    def consumers(self):
        uses = {}
        for o in self.ops:
            for i in o.inputs:
                if i >= 0:
                    uses.setdefault(i, []).append(o)
        return uses

    def prune(self):
        """Drops ops whose outputs nothing uses, then unreferenced tensors (renumbering)."""
        live = set(self.outputs)
        keep = []
        for o in reversed(self.ops):
            if any(i in live for i in o.outputs):
                keep.append(o)
                live.update(i for i in o.inputs if i >= 0)
        self.ops = keep[::-1]
        used = sorted(set(self.inputs) | live | {i for o in self.ops for i in o.outputs})
        remap = {old: new for new, old in enumerate(used)}
        self.tensors = [self.tensors[i] for i in used]
        for o in self.ops:
            o.inputs = [remap[i] if i >= 0 else -1 for i in o.inputs]
            o.outputs = [remap[i] for i in o.outputs]
        self.inputs = [remap[i] for i in self.inputs]
        self.outputs = [remap[i] for i in self.outputs]


def _quant_dict(q):
    d = {"scale": np.asarray(q["scale"], np.float32), "zero_point": np.asarray(q["zero_point"], np.int64),
         "quantized_dimension": int(q.get("dim", 0))}
    if "min" in q:
        d["min"] = np.asarray(q["min"], np.float32)
        d["max"] = np.asarray(q["max"], np.float32)
    return d


def serialize(g: LGraph, description="tensorlet converted.") -> bytes:
    """The ``.tflite`` bytes of ``g``: operator codes in first-use order, one buffer per constant (buffer 0 is
    the empty sentinel every non-constant tensor points at), and one SignatureDef."""
    codes, code_index = [], {}
    buffers = [{}]
    tensors = []
    for t in g.tensors:
        buf = 0
        if t.data is not None:
            buffers.append({"data": np.ascontiguousarray(t.data).astype(t.dtype.newbyteorder("<"),
                                                                         copy=False).tobytes()})
            buf = len(buffers) - 1
        d = {"shape": list(t.shape), "type": schema.TYPE_OF[t.dtype], "buffer": buf, "name": t.name}
        if t.sig is not None and list(t.sig) != list(t.shape):
            d["shape_signature"] = list(t.sig)
        if t.quant is not None:
            d["quantization"] = _quant_dict(t.quant)
        tensors.append(d)
    ops = []
    for o in g.ops:
        version = _VERSIONS.get((o.code, o.kind), 1)
        key = (o.code, o.custom, version)
        if key not in code_index:
            c = schema.OPS[o.code]
            code_index[key] = len(codes)
            codes.append({"deprecated_builtin_code": min(c, schema.PLACEHOLDER_FOR_GREATER_OP_CODES),
                          "builtin_code": c, "version": version,
                          **({"custom_code": o.custom} if o.custom else {})})
        od = {"opcode_index": code_index[key], "inputs": o.inputs, "outputs": o.outputs}
        if o.options is not None:
            od["builtin_options"] = o.options
        if o.custom_options is not None:
            od["custom_options"] = o.custom_options
        ops.append(od)
    sig = {"inputs": [{"name": n, "tensor_index": i} for n, i in zip(g.input_names, g.inputs)],
           "outputs": [{"name": n, "tensor_index": i} for n, i in zip(g.output_names, g.outputs)],
           "signature_key": g.signature_key, "subgraph_index": 0}
    model = {"version": schema.SCHEMA_VERSION, "operator_codes": codes, "description": description,
             "subgraphs": [{"tensors": tensors, "inputs": g.inputs, "outputs": g.outputs, "operators": ops,
                            "name": "main"}],
             "buffers": buffers, "signature_defs": [sig]}
    size = sum(len(b.get("data", b"")) for b in buffers) + 4096 * (1 + len(ops) // 16)
    return schema.Writer(size).finish(model)
