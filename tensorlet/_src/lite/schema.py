"""The TFLite flatbuffer schema (``TFL3``): field slots and enums, a writer and a checked reader.

Tables are described by their fields in schema order (a field's position is its slot; a union field takes two
slots, ``<name>_type`` then ``<name>``).  The writer builds a model from plain dicts with the ``flatbuffers``
Builder; the reader parses a ``.tflite`` into dicts, checking every offset, vtable and vector length against
the buffer first, so a corrupt file raises ``DataLossError`` instead of reading out of bounds.  Field names,
slots and enum values are the interface of TFLite's ``schema.fbs``.
"""

from __future__ import annotations

import struct

import numpy as np

from tensorlet._src.framework import errors

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3

# type names: bool byte ubyte short ushort int uint long ulong float string, [T] vectors, Table names, ~Union
TABLES_SRC = {
    "Model": "version:uint operator_codes:[OperatorCode] subgraphs:[SubGraph] description:string "
             "buffers:[Buffer] metadata_buffer:[int] metadata:[Metadata] signature_defs:[SignatureDef]",
    "OperatorCode": "deprecated_builtin_code:byte custom_code:string version:int=1 builtin_code:int",
    "SubGraph": "tensors:[Tensor] inputs:[int] outputs:[int] operators:[Operator] name:string",
    "Tensor": "shape:[int] type:byte buffer:uint name:string quantization:QuantizationParameters "
              "is_variable:bool sparsity:Opaque shape_signature:[int] has_rank:bool variant_tensors:[Opaque]",
    "QuantizationParameters": "min:[float] max:[float] scale:[float] zero_point:[long] details:~QuantizationDetails "
                              "quantized_dimension:int",
    "Operator": "opcode_index:uint inputs:[int] outputs:[int] builtin_options:~BuiltinOptions custom_options:[ubyte] "
                "custom_options_format:byte mutating_variable_inputs:[bool] intermediates:[int] "
                "large_custom_options_offset:ulong large_custom_options_size:ulong "
                "builtin_options_2:~BuiltinOptions2",
    "Buffer": "data:[ubyte] offset:ulong size:ulong",
    "Metadata": "name:string buffer:uint",
    "TensorMap": "name:string tensor_index:uint",
    "SignatureDef": "inputs:[TensorMap] outputs:[TensorMap] signature_key:string deprecated_tag:string "
                    "subgraph_index:uint",
    "Opaque": "",  # tables tensorlet neither writes nor interprets (sparsity, variant sub-types)
    # builtin options
    "Conv2DOptions": "padding:byte stride_w:int stride_h:int fused_activation_function:byte dilation_w_factor:int=1 "
                     "dilation_h_factor:int=1 quantized_bias_type:byte",
    "Pool2DOptions": "padding:byte stride_w:int stride_h:int filter_width:int filter_height:int "
                     "fused_activation_function:byte",
    "DepthwiseConv2DOptions": "padding:byte stride_w:int stride_h:int depth_multiplier:int "
                              "fused_activation_function:byte dilation_w_factor:int=1 dilation_h_factor:int=1",
    "FullyConnectedOptions": "fused_activation_function:byte weights_format:byte keep_num_dims:bool "
                             "asymmetric_quantize_inputs:bool quantized_bias_type:byte",
    "SoftmaxOptions": "beta:float",
    "ConcatenationOptions": "axis:int fused_activation_function:byte",
    "AddOptions": "fused_activation_function:byte pot_scale_int16:bool=1",
    "SubOptions": "fused_activation_function:byte pot_scale_int16:bool=1",
    "MulOptions": "fused_activation_function:byte",
    "DivOptions": "fused_activation_function:byte",
    "ReshapeOptions": "new_shape:[int]",
    "PadOptions": "",
    "GatherOptions": "axis:int batch_dims:int",
    "TransposeOptions": "",
    "ReducerOptions": "keep_dims:bool",
    "SqueezeOptions": "squeeze_dims:[int]",
    "StridedSliceOptions": "begin_mask:int end_mask:int ellipsis_mask:int new_axis_mask:int shrink_axis_mask:int "
                           "offset:bool",
    "SplitOptions": "num_splits:int",
    "CastOptions": "in_data_type:byte out_data_type:byte",
    "DequantizeOptions": "",
    "QuantizeOptions": "",
    "MaximumMinimumOptions": "",
    "ShapeOptions": "out_type:byte",
    "PackOptions": "values_count:int axis:int",
    "UnpackOptions": "num:int axis:int",
    "ExpandDimsOptions": "",
    "LeakyReluOptions": "alpha:float",
    "BatchMatMulOptions": "adj_x:bool adj_y:bool asymmetric_quantize_inputs:bool",
    "UnidirectionalSequenceLSTMOptions": "fused_activation_function:byte cell_clip:float proj_clip:float "
                                         "time_major:bool asymmetric_quantize_inputs:bool "
                                         "diagonal_recurrent_tensors:bool",
    "ExpOptions": "", "LogSoftmaxOptions": "", "SquaredDifferenceOptions": "", "SliceOptions": "",
    "TileOptions": "", "NegOptions": "", "HardSwishOptions": "", "AbsOptions": "", "SquareOptions": "",
}

# BuiltinOptions union members in order (union type value = position + 1); enough for the ops tensorlet emits
BUILTIN_OPTIONS = (
    "Conv2DOptions DepthwiseConv2DOptions ConcatEmbeddingsOptions LSHProjectionOptions Pool2DOptions SVDFOptions "
    "RNNOptions FullyConnectedOptions SoftmaxOptions ConcatenationOptions AddOptions L2NormOptions "
    "LocalResponseNormalizationOptions LSTMOptions ResizeBilinearOptions CallOptions ReshapeOptions SkipGramOptions "
    "SpaceToDepthOptions EmbeddingLookupSparseOptions MulOptions PadOptions GatherOptions BatchToSpaceNDOptions "
    "SpaceToBatchNDOptions TransposeOptions ReducerOptions SubOptions DivOptions SqueezeOptions SequenceRNNOptions "
    "StridedSliceOptions ExpOptions TopKV2Options SplitOptions LogSoftmaxOptions CastOptions DequantizeOptions "
    "MaximumMinimumOptions ArgMaxOptions LessOptions NegOptions PadV2Options GreaterOptions GreaterEqualOptions "
    "LessEqualOptions SelectOptions SliceOptions TransposeConvOptions SparseToDenseOptions TileOptions "
    "ExpandDimsOptions EqualOptions NotEqualOptions ShapeOptions PowOptions ArgMinOptions FakeQuantOptions "
    "PackOptions LogicalOrOptions OneHotOptions LogicalAndOptions LogicalNotOptions UnpackOptions FloorDivOptions "
    "SquareOptions ZerosLikeOptions FillOptions BidirectionalSequenceLSTMOptions BidirectionalSequenceRNNOptions "
    "UnidirectionalSequenceLSTMOptions FloorModOptions RangeOptions ResizeNearestNeighborOptions LeakyReluOptions "
    "SquaredDifferenceOptions MirrorPadOptions AbsOptions SplitVOptions UniqueOptions ReverseV2Options AddNOptions "
    "GatherNdOptions CosOptions WhereOptions RankOptions ReverseSequenceOptions MatrixDiagOptions QuantizeOptions "
    "MatrixSetDiagOptions HardSwishOptions IfOptions WhileOptions DepthToSpaceOptions NonMaxSuppressionV4Options "
    "NonMaxSuppressionV5Options ScatterNdOptions SelectV2Options DensifyOptions SegmentSumOptions "
    "BatchMatMulOptions").split()
UNIONS = {"BuiltinOptions": BUILTIN_OPTIONS, "BuiltinOptions2": (), "QuantizationDetails": ()}

# BuiltinOperator codes used by the converter and the reference interpreter
OPS = dict(
    ADD=0, AVERAGE_POOL_2D=1, CONCATENATION=2, CONV_2D=3, DEPTHWISE_CONV_2D=4, DEQUANTIZE=6, FLOOR=8,
    FULLY_CONNECTED=9, LOGISTIC=14, MAX_POOL_2D=17, MUL=18, RELU=19, RELU_N1_TO_1=20, RELU6=21, RESHAPE=22,
    SOFTMAX=25, TANH=28, CUSTOM=32, PAD=34, GATHER=36, TRANSPOSE=39, MEAN=40, SUB=41, DIV=42, SQUEEZE=43,
    UNIDIRECTIONAL_SEQUENCE_LSTM=44, STRIDED_SLICE=45, EXP=47, SPLIT=49, LOG_SOFTMAX=50, CAST=53, MAXIMUM=55,
    MINIMUM=57, NEG=59, SLICE=65, TILE=69, EXPAND_DIMS=70, LOG=73, SUM=74, SQRT=75, RSQRT=76, SHAPE=77, POW=78,
    REDUCE_MAX=82, PACK=83, UNPACK=88, SQUARE=92, LEAKY_RELU=98, SQUARED_DIFFERENCE=99, ABS=101, QUANTIZE=114,
    HARD_SWISH=117, BATCH_MATMUL=126, GELU=150,
)
OP_NAMES = {v: k for k, v in OPS.items()}
PLACEHOLDER_FOR_GREATER_OP_CODES = 127

# TensorType
TENSOR_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_, 7: np.int16,
                9: np.int8, 10: np.float64, 12: np.uint64, 15: np.uint32, 16: np.uint16}
TYPE_OF = {np.dtype(v): k for k, v in TENSOR_TYPES.items()}
ACT = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}
PADDING = {"SAME": 0, "VALID": 1}

_SCALARS = {"bool": ("?", 1, "Bool"), "byte": ("b", 1, "Int8"), "ubyte": ("B", 1, "Uint8"),
            "short": ("h", 2, "Int16"), "ushort": ("H", 2, "Uint16"), "int": ("i", 4, "Int32"),
            "uint": ("I", 4, "Uint32"), "long": ("q", 8, "Int64"), "ulong": ("Q", 8, "Uint64"),
            "float": ("f", 4, "Float32")}
_NP = {"bool": np.bool_, "byte": np.int8, "ubyte": np.uint8, "short": np.int16, "ushort": np.uint16,
       "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64, "float": np.float32}


def _parse(src):
    fields, slot = [], 0
    for item in src.split():
        name, typ = item.split(":")
        default = 0
        if "=" in typ:
            typ, d = typ.split("=")
            default = float(d) if typ == "float" else int(d)
        if typ.startswith("~"):
            fields.append((name + "_type", "ubyte", slot, 0))
            slot += 1
        fields.append((name, typ, slot, default))
        slot += 1
    return fields


TABLES = {name: _parse(src) for name, src in TABLES_SRC.items()}


# --- writing --------------------------------------------------------------------------------------------------------
class Writer:
    """Builds one ``.tflite`` from a dict shaped like the schema (``{"version": 3, "subgraphs": [...], ...}``).

    Union fields take ``(member_name, dict)``; ``[ubyte]`` fields take ``bytes``; numeric vectors take sequences.
    """

    def __init__(self, size_hint=1 << 16):
        import flatbuffers  # a required dependency; imported here so `import tensorlet` does not load it

        self.b = flatbuffers.Builder(size_hint)
        self._strings = {}
        self._vectors = {}

    def finish(self, model: dict) -> bytes:
        root = self.table("Model", model)
        self.b.Finish(root, file_identifier=FILE_IDENTIFIER)
        return bytes(self.b.Output())

    def _bytes(self, data, align=16):
        b = self.b
        n = len(data)
        b.StartVector(1, n, align)
        b.head = b.head - n
        b.Bytes[b.head:b.head + n] = bytes(data)
        b.vectorNumElems = n
        return b.EndVector()

    def _string(self, s):
        if isinstance(s, str):
            s = s.encode()
        hit = self._strings.get(s)
        if hit is None:
            hit = self._strings[s] = self.b.CreateString(s)
        return hit

    def _value(self, typ, v):
        """Builds the out-of-line part of a field (strings, vectors, tables); returns its offset."""
        if typ == "string":
            return self._string(v)
        if typ.startswith("["):
            inner = typ[1:-1]
            if inner == "ubyte":
                return self._bytes(v)
            if inner in _SCALARS:
                arr = np.ascontiguousarray(np.asarray(v, dtype=_NP[inner]).reshape(-1)).astype(
                    np.dtype(_NP[inner]).newbyteorder("<"), copy=False)
                key = (inner, arr.tobytes())  # equal vectors are written once (a flatbuffer may share objects):
                hit = self._vectors.get(key)  # per-channel zero points of a filter and its bias, shapes, ...
                if hit is None:
                    hit = self._vectors[key] = self.b.CreateNumpyVector(arr)
                return hit
            if inner == "string":
                offs = [self._string(x) for x in v]
            else:
                offs = [self.table(inner, x) for x in v]
            self.b.StartVector(4, len(offs), 4)
            for o in reversed(offs):
                self.b.PrependUOffsetTRelative(o)
            return self.b.EndVector()
        return self.table(typ, v)

    def table(self, name, d: dict) -> int:
        fields = TABLES[name]
        offsets = {}
        for fname, typ, slot, _ in fields:
            v = d.get(fname)
            if v is None or typ in _SCALARS or typ == "ubyte":
                continue
            if typ.startswith("~"):
                member, body = v
                d = dict(d)
                d[fname + "_type"] = UNIONS[typ[1:]].index(member) + 1
                offsets[slot] = self.table(member, body)
            else:
                offsets[slot] = self._value(typ, v)
        b = self.b
        b.StartObject(len(fields))
        for fname, typ, slot, default in fields:
            if slot in offsets:
                b.PrependUOffsetTRelativeSlot(slot, offsets[slot], 0)
            elif typ in _SCALARS and d.get(fname) is not None:
                v = d[fname]
                getattr(b, f"Prepend{_SCALARS[typ][2]}Slot")(slot, bool(v) if typ == "bool" else v, default)
        return b.EndObject()


# --- reading --------------------------------------------------------------------------------------------------------
def _corrupt(msg):
    return errors.DataLossError(None, None, f"Invalid or corrupt TFLite model: {msg}")


class Reader:
    """Parses a ``.tflite`` into dicts, checking every offset against the buffer before reading it."""

    def __init__(self, data: bytes):
        self.buf = memoryview(data).cast("B") if not isinstance(data, memoryview) else data
        self.n = len(self.buf)
        if self.n < 8:
            raise _corrupt(f"{self.n} bytes is too short for a flatbuffer")
        if bytes(self.buf[4:8]) != FILE_IDENTIFIER:
            raise _corrupt(f"file identifier is {bytes(self.buf[4:8])!r}, expected {FILE_IDENTIFIER!r} "
                           "(not a TFLite model)")
        self._depth = 0

    def _u32(self, pos):
        self._check(pos, 4)
        return struct.unpack_from("<I", self.buf, pos)[0]

    def _check(self, pos, size, what="field"):
        if pos < 0 or size < 0 or pos + size > self.n:
            raise _corrupt(f"{what} at offset {pos} (+{size} bytes) is outside the {self.n}-byte file")

    def model(self) -> dict:
        return self.table(self._u32(0), "Model")

    def table(self, pos, name):
        self._depth += 1
        if self._depth > 64:
            raise _corrupt("tables nested too deeply")
        self._check(pos, 4, f"table {name}")
        vt = pos - struct.unpack_from("<i", self.buf, pos)[0]
        self._check(vt, 4, f"vtable of {name}")
        vt_size, obj_size = struct.unpack_from("<HH", self.buf, vt)
        if vt_size < 4 or vt_size % 2:
            raise _corrupt(f"vtable of {name} has size {vt_size}")
        self._check(vt, vt_size, f"vtable of {name}")
        self._check(pos, obj_size, f"table {name}")
        n_slots = (vt_size - 4) // 2
        out = {}
        for fname, typ, slot, default in TABLES[name]:
            off = struct.unpack_from("<H", self.buf, vt + 4 + 2 * slot)[0] if slot < n_slots else 0
            if off == 0:
                if typ in _SCALARS or typ == "ubyte":
                    out[fname] = default
                continue
            if off >= obj_size:
                raise _corrupt(f"field {name}.{fname} lies outside its table")
            fpos = pos + off
            if typ in _SCALARS or typ == "ubyte":
                fmt, size, _ = _SCALARS.get(typ, ("B", 1, None))
                self._check(fpos, size, f"{name}.{fname}")
                out[fname] = struct.unpack_from("<" + fmt, self.buf, fpos)[0]
            elif typ.startswith("~"):
                members = UNIONS[typ[1:]]
                k = out.get(fname + "_type", 0)
                target = fpos + self._u32(fpos)
                if 1 <= k <= len(members) and members[k - 1] in TABLES:
                    out[fname] = (members[k - 1], self.table(target, members[k - 1]))
                else:
                    out[fname] = (k, None)
            else:
                target = fpos + self._u32(fpos)
                out[fname] = self._read(typ, target, f"{name}.{fname}")
        self._depth -= 1
        return out

    def _read(self, typ, pos, what):
        if typ == "string":
            n = self._u32(pos)
            self._check(pos + 4, n, what)
            return bytes(self.buf[pos + 4:pos + 4 + n]).decode("utf-8", "replace")
        if typ.startswith("["):
            inner = typ[1:-1]
            n = self._u32(pos)
            start = pos + 4
            if inner in _SCALARS or inner == "ubyte":
                size = _SCALARS[inner][1]
                self._check(start, n * size, what)
                if inner == "ubyte":
                    return self.buf[start:start + n]
                return np.frombuffer(self.buf, dtype=np.dtype(_NP[inner]).newbyteorder("<"), count=n,
                                     offset=start).astype(_NP[inner])
            self._check(start, 4 * n, what)
            items = []
            for i in range(n):
                p = start + 4 * i
                target = p + self._u32(p)
                items.append(self._read(inner, target, f"{what}[{i}]") if inner == "string" else
                             self.table(target, inner))
            return items
        return self.table(pos, typ)


def read_model(data) -> dict:
    """The model as dicts (``[ubyte]`` fields are memoryviews into ``data``), after bounds checks."""
    r = Reader(data)
    model = r.model()
    if model.get("version") != SCHEMA_VERSION:
        raise _corrupt(f"schema version {model.get('version')} (tensorlet reads version {SCHEMA_VERSION})")
    buffers = model.get("buffers", [])
    for i, b in enumerate(buffers):
        b["data"] = buffer_data(model, i, r)
    for sg in model.get("subgraphs", []):
        tensors = sg.get("tensors", [])
        for t in tensors:
            if t["buffer"] >= max(len(buffers), 1):
                raise _corrupt(f"tensor {t.get('name')!r} refers to buffer {t['buffer']} of {len(buffers)}")
            if t["type"] not in TENSOR_TYPES:
                raise _corrupt(f"tensor {t.get('name')!r} has unsupported type {t['type']}")
            data_ = buffers[t["buffer"]]["data"] if buffers else None
            if data_ is not None and len(data_):
                need = int(np.prod(t.get("shape", []), dtype=np.int64)) * np.dtype(TENSOR_TYPES[t["type"]]).itemsize
                if need != len(data_):
                    raise _corrupt(f"tensor {t.get('name')!r} of shape {list(t.get('shape', []))} needs {need} "
                                   f"bytes; its buffer holds {len(data_)}")
        nt = len(tensors)
        for op in sg.get("operators", []):
            if op["opcode_index"] >= len(model.get("operator_codes", [])):
                raise _corrupt(f"operator refers to operator code {op['opcode_index']}")
            for i in list(op.get("inputs", [])) + list(op.get("outputs", [])):
                if not -1 <= i < nt:
                    raise _corrupt(f"operator refers to tensor {i} of {nt}")
        for i in list(sg.get("inputs", [])) + list(sg.get("outputs", [])):
            if not 0 <= i < nt:
                raise _corrupt(f"subgraph input/output {i} of {nt} tensors")
    return model


def buffer_data(model, index, reader=None):
    """The bytes of buffer ``index`` (inline data, or ``offset``/``size`` past the flatbuffer), bounds-checked."""
    buffers = model.get("buffers", [])
    if index >= len(buffers):
        return None
    b = buffers[index]
    if b.get("data") is not None:
        return b["data"]
    if b.get("offset", 0) > 1 and reader is not None:
        off, size = b["offset"], b["size"]
        reader._check(off, size, f"buffer {index}")
        return reader.buf[off:off + size]
    return None


def opcode(code: dict) -> int:
    return max(code.get("builtin_code", 0), code.get("deprecated_builtin_code", 0))
