"""``tf.lite.TFLiteConverter``: Keras models, concrete functions and SavedModels to ``.tflite`` bytes.

The model is traced to a concrete function (Keras: ``model(x, training=False)`` over its input specs, batch
dimension left open), its variables are frozen to constants, and ``lower.Lowerer`` turns the graph into TFLite
builtin operators.  Shapes come from running the lowered graph on the NumPy reference kernels; quantization
(``quantize.py``) then rewrites it as the converter's options ask, and ``model.serialize`` writes the file.

>>> converter = tf.lite.TFLiteConverter.from_keras_model(model)          # doctest: +SKIP
>>> converter.optimizations = [tf.lite.Optimize.DEFAULT]                 # doctest: +SKIP
>>> open("model.tflite", "wb").write(converter.convert())                # doctest: +SKIP
"""

from __future__ import annotations

import enum

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.lite import model as _model
from tensorlet._src.lite import quantize, reference
from tensorlet._src.lite.lower import ConverterError, Lowerer
from tensorlet._src.ops.registry import tf_export


@tf_export("lite.Optimize")
class Optimize(enum.Enum):
    """Optimizations for ``converter.optimizations``: ``DEFAULT`` quantizes (weights only, float16 or full
    integer, by the other options)."""

    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"
    EXPERIMENTAL_SPARSITY = "EXPERIMENTAL_SPARSITY"


@tf_export("lite.OpsSet")
class OpsSet(enum.Enum):
    """Operator sets a converted model may use."""

    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"
    EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 = \
        "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"


@tf_export("lite.TargetSpec")
class TargetSpec:
    """``supported_ops`` (a set of ``OpsSet``) and ``supported_types`` (e.g. ``[tf.float16]``)."""

    def __init__(self, supported_ops=None, supported_types=None, experimental_select_user_tf_ops=None,
                 experimental_supported_backends=None):
        self.supported_ops = set(supported_ops or {OpsSet.TFLITE_BUILTINS})
        self.supported_types = set(supported_types or ())
        self.experimental_select_user_tf_ops = set(experimental_select_user_tf_ops or ())
        self.experimental_supported_backends = experimental_supported_backends


@tf_export("lite.RepresentativeDataset")
class RepresentativeDataset:
    """Wraps a generator function of input lists used to calibrate full-integer quantization."""

    def __init__(self, input_gen):
        self.input_gen = input_gen


# Hooks for Keras models that convert as another model plus learned quantization ranges (quantization-aware
# training registers one): ``hook(model)`` returns None, or ``(float_model, {"inputs": [(lo, hi)], "weighted":
# [(lo, hi) of the output of each CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED, in execution order]})``.
KERAS_MODEL_HOOKS = []
_WEIGHTED_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def _as_np_dtype(t, what):
    if t is None:
        return None
    if isinstance(t, _dt.DType):
        return np.dtype(t.as_numpy_dtype)
    try:
        return np.dtype(t)
    except TypeError:
        raise ValueError(f"`{what}` must be a tf.DType (tf.float32, tf.int8 or tf.uint8); got {t!r}.") from None


@tf_export("lite.TFLiteConverter")
class TFLiteConverter:
    """Converts a TensorFlow model into a TFLite model (``convert()`` returns the ``.tflite`` bytes)."""

    def __init__(self, funcs, trackable_obj=None, *, keras_model=None, signature_keys=None):
        self._funcs = list(funcs)  # [(signature_key, traceable, input specs or None)]
        self._trackable_obj = trackable_obj
        self._keras_model = keras_model
        self.optimizations = set()
        self.representative_dataset = None
        self.target_spec = TargetSpec()
        self.inference_type = None
        self.inference_input_type = None
        self.inference_output_type = None
        self.allow_custom_ops = False
        self.experimental_new_converter = True
        self.experimental_new_quantizer = True
        self.exclude_conversion_metadata = False
        self._experimental_disable_per_channel = False
        self._learned_ranges = None  # set by a KERAS_MODEL_HOOKS hook (quantization-aware training)

    # --- constructors -------------------------------------------------------------------------------------------
    @classmethod
    def from_keras_model(cls, model):
        """A converter for a built Keras model (its serving function: ``model(inputs, training=False)``)."""
        from tensorlet._src.framework.tensor_shape import TensorShape
        from tensorlet._src.graph.function import function
        from tensorlet._src.data.structure import TensorSpec

        learned = None
        for hook in KERAS_MODEL_HOOKS:
            found = hook(model)
            if found is not None:
                model, learned = found
                break
        inputs = getattr(model, "inputs", None)
        if not inputs:
            raise ValueError("The Keras model has no known input shape: build it (call it on data, or start it "
                             "with keras.Input(shape=...)) before converting it.")
        specs = [TensorSpec(TensorShape(list(t.shape)), t.dtype, name=getattr(t, "name", None)) for t in inputs]
        names = [_input_name(t, i) for i, t in enumerate(inputs)]
        single = len(specs) == 1

        def serve(*xs):
            return model(xs[0] if single else list(xs), training=False)

        fn = function(serve)
        cf = fn.get_concrete_function(*specs)
        conv = cls([("serving_default", cf, names, None)], model, keras_model=model)
        conv._learned_ranges = learned
        return conv

    @classmethod
    def from_concrete_functions(cls, funcs, trackable_obj=None):
        """A converter for traced functions (``f.get_concrete_function(...)``); the first one is converted."""
        if not isinstance(funcs, (list, tuple)) or not funcs:
            raise ValueError("`funcs` must be a non-empty list of ConcreteFunctions.")
        items = []
        for i, cf in enumerate(funcs):
            if not hasattr(cf, "graph"):
                raise ValueError(f"This function takes in a list of ConcreteFunction. Item {i} is {type(cf)}.")
            items.append(("serving_default" if i == 0 else f"signature_{i}", cf, None, None))
        return cls(items, trackable_obj)

    @classmethod
    def from_saved_model(cls, saved_model_dir, signature_keys=None, tags=None):
        """A converter for a SavedModel directory, loaded with ``tf.saved_model.load`` (its
        ``serving_default`` signature, or the first of ``signature_keys``)."""
        from tensorlet._src.saved_model.load import load

        loaded = load(saved_model_dir, tags=tags)
        sigs = getattr(loaded, "signatures", {}) or {}
        keys = list(signature_keys or (["serving_default"] if "serving_default" in sigs else list(sigs)[:1]))
        if not keys:
            raise ValueError(f"The SavedModel at {saved_model_dir!r} has no signatures to convert.")
        items = []
        for k in keys:
            if k not in sigs:
                raise ValueError(f"Invalid signature key {k!r}; the SavedModel has {sorted(sigs)}.")
            items.append((k, sigs[k], None, None))
        return cls(items, loaded)

    # --- conversion ---------------------------------------------------------------------------------------------
    def _quant_mode(self):
        opt = any(o in (Optimize.DEFAULT, Optimize.OPTIMIZE_FOR_SIZE, Optimize.OPTIMIZE_FOR_LATENCY)
                  for o in self.optimizations or ())
        ops = set(self.target_spec.supported_ops or ())
        types = {np.dtype(t.as_numpy_dtype) if isinstance(t, _dt.DType) else np.dtype(t)
                 for t in self.target_spec.supported_types or ()}
        int8_only = OpsSet.TFLITE_BUILTINS_INT8 in ops and OpsSet.TFLITE_BUILTINS not in ops
        if self._learned_ranges is not None and (opt or int8_only) and np.dtype(np.float16) not in types:
            return "full_int8"  # a quantization-aware model: its ranges were learned in training
        if self.representative_dataset is not None and (opt or int8_only) and np.dtype(np.float16) not in types:
            return "full_int8"
        if int8_only and self.representative_dataset is None:
            raise ValueError("For full integer quantization, a `representative_dataset` must be specified.")
        if opt and np.dtype(np.float16) in types:
            return "float16"
        if opt:
            return "dynamic"
        return None

    def convert(self) -> bytes:
        """The ``.tflite`` flatbuffer of the (first) function, with its SignatureDef."""
        key, cf, names, _ = self._funcs[0]
        graph = cf.graph
        in_names = names or [_placeholder_name(t, i) for i, t in enumerate(graph.inputs)]
        out_names = _output_names(cf)
        select = OpsSet.SELECT_TF_OPS in set(self.target_spec.supported_ops or ())
        lg = Lowerer(graph, allow_custom=self.allow_custom_ops, select_tf_ops=select).run(in_names, out_names)
        lg.signature_key = key
        for i, n in zip(lg.inputs, in_names):
            lg.tensors[i].name = f"{key}_{n}:0"
        for k, i in enumerate(lg.outputs):
            if lg.tensors[i].data is None and i not in lg.inputs:
                lg.tensors[i].name = f"StatefulPartitionedCall:{k}"
        in_specs = [(list(t.shape.as_list()) if t.shape.rank is not None else None, t.dtype) for t in graph.inputs]
        infer_shapes(lg, in_specs)
        mode = self._quant_mode()
        in_type = _as_np_dtype(self.inference_input_type, "inference_input_type")
        out_type = _as_np_dtype(self.inference_output_type, "inference_output_type")
        for t, what in ((in_type, "inference_input_type"), (out_type, "inference_output_type")):
            if t is not None and t not in (np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.uint8)):
                raise ValueError(f"The `{what}` must be tf.float32, tf.int8 or tf.uint8; got {t}.")
            if t is not None and t != np.float32 and mode != "full_int8":
                raise ValueError(f"The `{what}` can be tf.int8 or tf.uint8 only with full integer quantization "
                                 "(`optimizations` with a `representative_dataset`); it is "
                                 f"{t} here.")
        if mode == "dynamic":
            quantize.dynamic_range(lg)
        elif mode == "float16":
            quantize.float16(lg)
        elif mode == "full_int8":
            strict = OpsSet.TFLITE_BUILTINS_INT8 in self.target_spec.supported_ops and \
                OpsSet.TFLITE_BUILTINS not in self.target_spec.supported_ops
            quantize.full_integer(lg, self.representative_dataset, in_specs, strict=strict,
                                  input_type=in_type or np.dtype(np.float32),
                                  output_type=out_type or np.dtype(np.float32),
                                  per_channel=not self._experimental_disable_per_channel,
                                  ranges=self._tensor_ranges(lg))
        return _model.serialize(lg)

    def _tensor_ranges(self, lg):
        """The learned ranges of a quantization-aware model as {tensor index: (lo, hi)} of the lowered graph."""
        if self._learned_ranges is None:
            return None
        r = self._learned_ranges
        outs = [op.outputs[0] for op in lg.ops if op.code in _WEIGHTED_OPS]
        if len(outs) != len(r["weighted"]) or len(lg.inputs) != len(r["inputs"]):
            raise ConverterError(f"The quantization-aware model has {len(r['weighted'])} quantized layers but "
                                 f"its graph lowered to {len(outs)} CONV_2D/DEPTHWISE_CONV_2D/FULLY_CONNECTED "
                                 "operators; cannot place the learned ranges.")
        ranges = dict(zip(lg.inputs, r["inputs"]))
        ranges.update(zip(outs, r["weighted"]))
        return ranges


@tf_export("lite.experimental.Analyzer")
class Analyzer:
    """``Analyzer.analyze(model_content=...)`` prints the model's subgraphs, tensors and operators."""

    @staticmethod
    def analyze(model_path=None, model_content=None, gpu_compatibility=False, **kwargs):
        from tensorlet._src.lite import schema

        data = open(model_path, "rb").read() if model_path is not None else model_content
        m = schema.read_model(data)
        for si, sg in enumerate(m.get("subgraphs", [])):
            print(f"Subgraph#{si} {sg.get('name', '')}({list(sg.get('inputs', []))}) -> "
                  f"[{', '.join(str(i) for i in sg.get('outputs', []))}]")
            for k, op in enumerate(sg.get("operators", [])):
                code = schema.opcode(m["operator_codes"][op["opcode_index"]])
                print(f"  Op#{k} {schema.OP_NAMES.get(code, code)}({list(op.get('inputs', []))}) -> "
                      f"{list(op.get('outputs', []))}")
        print(f"\nModel size: {len(data)} bytes")


def _input_name(t, i):
    name = getattr(t, "name", None) or f"input_{i}"
    return name.split(":")[0].replace("/", "_")


def _placeholder_name(t, i):
    name = t.node.name if hasattr(t, "node") else f"arg{i}"
    return name.split(":")[0]


def _output_names(cf):
    out = getattr(cf, "structured_outputs", None)
    n = len(cf.graph.outputs)
    if isinstance(out, dict) and len(out) == n:
        return [str(k) for k in sorted(out)]  # graph outputs are the flattened dict: sorted by key
    return [f"output_{i}" for i in range(n)]


def infer_shapes(lg, in_specs):
    """Fills every tensor's ``shape`` (and ``sig`` where dims are dynamic) by running the graph twice on the
    reference kernels: unknown batch dims as 1 then 2, other unknown dims as 64 then 65."""
    def probe(first):
        feeds = {}
        for i, (shape, _) in zip(lg.inputs, in_specs):
            if shape is None:
                raise ConverterError(f"Input {lg.tensors[i].name!r} has unknown rank; TFLite needs a known rank.")
            dims = [(1 if first else 2) if d is None and k == 0 else (64 if first else 65) if d is None else d
                    for k, d in enumerate(shape)]
            feeds[i] = np.zeros(dims, lg.tensors[i].dtype)
        with np.errstate(all="ignore"):
            return reference.execute(lg, feeds)
    dynamic = any(d is None for s, _ in in_specs if s is not None for d in s)
    a = probe(True)
    b = probe(False) if dynamic else a
    for i, t in enumerate(lg.tensors):
        if i not in a:
            continue
        sa, sb = np.shape(a[i]), np.shape(b[i])
        if len(sa) != len(sb):
            raise ConverterError(f"Tensor {t.name!r} changes rank with the batch size; TFLite cannot express it.")
        t.shape = [int(x) for x in sa]
        if sa != sb:
            t.sig = [int(x) if x == y else -1 for x, y in zip(sa, sb)]
            t.shape = [x if x == y else 1 for x, y in zip(t.shape, sb)] if any(
                x != y for k, (x, y) in enumerate(zip(sa, sb)) if k > 0) else t.shape
