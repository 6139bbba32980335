"""Quantization-aware training as ``tensorflow_model_optimization.quantization.keras`` does it (8-bit default).

``quantize_model(model)`` returns a model whose input passes a ``QuantizeLayer`` (``quantize_layer``) and whose
layers are ``QuantizeWrapperV2`` (``quant_<name>``).  For Dense, Conv2D and DepthwiseConv2D the wrapper
fake-quantizes the kernel (symmetric, narrow range, 8 bits; per output channel for convolutions, per tensor for
Dense, range = the last training batch's ``max |w|``: ``kernel_min`` / ``kernel_max``) and the activation
(asymmetric per tensor with moving min/max, EMA decay 0.999 from ``[-6, 6]``, widened to include 0; the
input's range is every value seen): after ReLU /
linear activations (``post_activation_min/max``), before softmax / sigmoid / tanh (``pre_activation_min/max``).
Fake quantization is TF's ``FakeQuantWithMinMaxVars`` (nudged range, straight-through gradient inside it).

``tf.lite.TFLiteConverter.from_keras_model`` on such a model (with ``optimizations=[tf.lite.Optimize.DEFAULT]``)
writes a full-integer ``.tflite`` whose activation ranges are the learned ones (no representative dataset needed):
the hook registered below hands it the float layers and the ranges, in layer order.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras import activations as _activations
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.wrappers import Wrapper
from tensorlet._src.keras.ops import core as _core
from tensorlet._src.keras.ops import nn as _nn
from tensorlet._src.keras.ops import numpy_array as _arr
from tensorlet._src.keras.ops import numpy_elementwise as _ew
from tensorlet._src.keras.ops import numpy_reduce as _red
from tensorlet._src.lite import convert as _lite_convert
from tensorlet._src.ops.matmul import matmul as _matmul_op

EMA_DECAY = 0.999
_POST = {"linear", "relu", "relu6"}
_PRE = {"softmax", "sigmoid", "tanh"}
_WEIGHTED = {"Dense": ("kernel", False), "Conv2D": ("kernel", True), "DepthwiseConv2D": ("depthwise_kernel", True)}
_PASSTHROUGH = {"MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Flatten",
                "Reshape", "Dropout", "InputLayer", "ReLU", "Activation", "ZeroPadding2D", "Softmax"}


def fake_quant(x, lo, hi, num_bits=8, narrow_range=False):
    """TF's FakeQuantWithMinMaxVars(PerChannel): nudges ``[lo, hi]`` so 0 is exact, rounds ``x`` to the grid;
    the gradient passes unchanged inside the nudged range and is 0 outside."""
    qmin, qmax = (1 if narrow_range else 0), 2 ** num_bits - 1
    lo, hi = _core.stop_gradient(lo), _core.stop_gradient(hi)
    scale = _ew.maximum((hi - lo) / float(qmax - qmin), 1e-12)  # an untrained [0, 0] range stays finite
    zp = _ew.clip(_ew.floor(qmin - lo / scale + 0.5), float(qmin), float(qmax))
    nlo, nhi = (qmin - zp) * scale, (qmax - zp) * scale
    xc = _ew.minimum(_ew.maximum(x, nlo), nhi)
    q = _ew.floor((xc - nlo) / scale + 0.5) * scale + nlo
    return xc + _core.stop_gradient(q - xc)


def _act_name(layer):
    act = getattr(layer, "activation", None)
    if act is None:
        return "linear"
    name = getattr(act, "__name__", None) or type(act).__name__.lower()
    return name


class QuantizeLayer(Layer):
    """Fake-quantizes the model input over every value seen in training (tfmot's AllValuesQuantizer:
    ``quantize_layer_min/max`` start at 0 and only widen)."""

    def __init__(self, quantizer=None, **kwargs):
        kwargs.setdefault("name", "quantize_layer")
        super().__init__(**kwargs)

    def build(self, input_shape=None):
        self.quantize_layer_min = self.add_weight(name="quantize_layer_min", shape=(), initializer="zeros",
                                                  trainable=False)
        self.quantize_layer_max = self.add_weight(name="quantize_layer_max", shape=(), initializer="zeros",
                                                  trainable=False)
        self.optimizer_step = self.add_weight(name="optimizer_step", shape=(), initializer="zeros", dtype="int32",
                                              trainable=False)
        self.optimizer_step.assign(-1)  # as tfmot leaves it
        self.built = True

    def call(self, inputs, training=None):
        lo, hi = self.quantize_layer_min, self.quantize_layer_max
        if training:
            lo = _ew.minimum(_ew.minimum(lo, _red.min(inputs)), 0.0)
            hi = _ew.maximum(_ew.maximum(hi, _red.max(inputs)), 0.0)
            self.quantize_layer_min.assign(lo)
            self.quantize_layer_max.assign(hi)
        return fake_quant(inputs, lo, hi)

    def compute_output_shape(self, input_shape):
        return input_shape


def _moving_quant(x, vmin, vmax, training):
    lo, hi = vmin, vmax
    if training:
        bmin = _ew.minimum(_red.min(x), 0.0)
        bmax = _ew.maximum(_red.max(x), 0.0)
        lo = vmin - (vmin - bmin) * (1.0 - EMA_DECAY)
        hi = vmax - (vmax - bmax) * (1.0 - EMA_DECAY)
        vmin.assign(lo)
        vmax.assign(hi)
    return fake_quant(x, lo, hi)


class QuantizeWrapperV2(Wrapper):
    """Runs the wrapped layer with fake-quantized weights and activation (or passes it through unchanged for
    layers such as pooling, Flatten and Dropout, which TFLite runs on the quantized input as is)."""

    def __init__(self, layer, quantize_config=None, **kwargs):
        kind = type(layer).__name__
        if kind not in _WEIGHTED and kind not in _PASSTHROUGH:
            raise RuntimeError(f"Layer {layer.name}:{type(layer)} is not supported. You can quantize this layer by "
                               "passing a `tfmot.quantization.keras.QuantizeConfig` instance to the "
                               "`quantize_annotate_layer` API.")
        kwargs.setdefault("name", f"quant_{layer.name}")
        super().__init__(layer, **kwargs)
        self.kind = kind
        self.quantize_config = quantize_config

    def build(self, input_shape=None):
        super().build(input_shape)
        self.optimizer_step = self.add_weight(name="optimizer_step", shape=(), initializer="zeros", dtype="int32",
                                              trainable=False)
        self.optimizer_step.assign(-1)  # as tfmot leaves it
        if self.kind in _WEIGHTED:
            attr, per_channel = _WEIGHTED[self.kind]
            w = getattr(self.layer, attr)
            shape = (int(w.shape[-1]) if self.kind != "DepthwiseConv2D" else int(w.shape[-2] * w.shape[-1]),) \
                if per_channel else ()
            self.kernel_min = self.add_weight(name="kernel_min", shape=shape, initializer="zeros", trainable=False)
            self.kernel_max = self.add_weight(name="kernel_max", shape=shape, initializer="zeros", trainable=False)
            self.kernel_min.assign(np.full(shape, -6.0, np.float32))
            self.kernel_max.assign(np.full(shape, 6.0, np.float32))
            act = _act_name(self.layer)
            if act not in _POST | _PRE:
                raise RuntimeError(f"Activation {act!r} of layer {self.layer.name} is not supported by "
                                   "quantize_model; use relu, relu6, linear, softmax, sigmoid or tanh.")
            self.act_where = "post" if act in _POST else "pre"
            self.act_min = self.add_weight(name=f"{self.act_where}_activation_min", shape=(), initializer="zeros",
                                           trainable=False)
            self.act_max = self.add_weight(name=f"{self.act_where}_activation_max", shape=(), initializer="zeros",
                                           trainable=False)
            self.act_min.assign(-6.0)
            self.act_max.assign(6.0)
        self.built = True

    def _quant_kernel(self, training):
        attr, per_channel = _WEIGHTED[self.kind]
        w = getattr(self.layer, attr)
        if self.kind == "DepthwiseConv2D":
            flat = _core.convert_to_tensor(w)
            shape = tuple(int(d) for d in w.shape)
            flat = _nn_reshape(flat, shape[:-2] + (shape[-2] * shape[-1],))
        else:
            flat = w
        lo, hi = self.kernel_min, self.kernel_max
        if training:
            axes = tuple(range(len(flat.shape) - 1)) if per_channel else None
            r = _ew.maximum(_red.max(_ew.abs(flat), axis=axes), 1e-12)  # symmetric range, TF's LastValueQuantizer
            lo, hi = -r, r
            self.kernel_min.assign(lo)
            self.kernel_max.assign(hi)
        q = fake_quant(flat, lo, hi, narrow_range=True)
        if self.kind == "DepthwiseConv2D":
            q = _nn_reshape(q, tuple(int(d) for d in w.shape))
        return q

    def call(self, inputs, training=None):
        if self.kind not in _WEIGHTED:
            kw = {"training": training} if self.kind == "Dropout" else {}
            return self.layer(inputs, **kw)
        lay = self.layer
        k = self._quant_kernel(training)
        if self.kind == "Dense":
            y = _matmul(inputs, k)
        elif self.kind == "Conv2D":
            if getattr(lay, "groups", 1) != 1:
                raise RuntimeError("quantize_model does not support grouped Conv2D.")
            y = _nn.conv(inputs, k, strides=lay.strides, padding=lay.padding, data_format=lay.data_format,
                         dilation_rate=lay.dilation_rate)
        else:
            y = _nn.depthwise_conv(inputs, k, strides=lay.strides, padding=lay.padding, data_format=lay.data_format,
                                   dilation_rate=lay.dilation_rate)
        if lay.use_bias:
            y = y + lay.bias
        act = _activations.get(lay.activation) if lay.activation is not None else None
        if self.act_where == "pre":
            y = _moving_quant(y, self.act_min, self.act_max, training)
            return act(y)
        if act is not None:
            y = act(y)
        return _moving_quant(y, self.act_min, self.act_max, training)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)


def _matmul(x, k):
    if len(x.shape) == 2:
        return _matmul_op(x, k)
    return _arr.reshape(_matmul_op(_arr.reshape(x, (-1, int(x.shape[-1]))), k), tuple(
        -1 if d is None else int(d) for d in x.shape[:-1]) + (int(k.shape[-1]),))


def _nn_reshape(x, shape):
    return _arr.reshape(x, shape)


def quantize_model(to_quantize, quantize_scheme=None):
    """A QAT copy of a built Sequential model (its layers cloned with their weights, then wrapped)."""
    from tensorlet._src.keras.engine.input_layer import Input
    from tensorlet._src.keras.engine.sequential import Sequential

    if not isinstance(to_quantize, Sequential):
        raise ValueError("`to_quantize` can only either be a keras Sequential or Functional model; tensorlet's "
                         f"quantize_model supports Sequential models. Got {type(to_quantize).__name__}.")
    if not to_quantize.built or not getattr(to_quantize, "inputs", None):
        raise ValueError("`to_quantize` must be a built model (start it with keras.Input(shape=...)).")
    x = to_quantize.inputs[0]
    clones = []
    for lay in to_quantize.layers:
        c = type(lay).from_config(lay.get_config())
        clones.append((lay, c))
    new = Sequential(name=to_quantize.name)
    new.add(Input(shape=tuple(x.shape)[1:], dtype=x.dtype))
    new.add(QuantizeLayer())
    for _, c in clones:
        new.add(QuantizeWrapperV2(c))
    for orig, c in clones:
        c.set_weights(orig.get_weights())
    return new


def _qat_export(model):
    """The lite converter's hook: ``(float model, ranges)`` for a model built by ``quantize_model``."""
    from tensorlet._src.keras.engine.input_layer import Input
    from tensorlet._src.keras.engine.sequential import Sequential

    layers = getattr(model, "layers", None)
    if not isinstance(model, Sequential) or not layers or not isinstance(layers[0], QuantizeLayer):
        return None
    x = model.inputs[0]
    flt = Sequential(name=model.name)
    flt.add(Input(shape=tuple(x.shape)[1:], dtype=x.dtype))
    weighted = []
    for w in layers[1:]:
        if not isinstance(w, QuantizeWrapperV2):
            raise ValueError(f"Layer {w.name} of a quantize_model model is not a QuantizeWrapperV2.")
        flt.add(w.layer)
        if w.kind in _WEIGHTED:
            weighted.append(_nudged(w.act_min, w.act_max))
    ranges = {"inputs": [_nudged(layers[0].quantize_layer_min, layers[0].quantize_layer_max)],
              "weighted": weighted}
    return flt, ranges


def _nudged(vmin, vmax):
    lo, hi = float(np.asarray(vmin.numpy())), float(np.asarray(vmax.numpy()))
    return min(lo, 0.0), max(hi, 0.0)


_lite_convert.KERAS_MODEL_HOOKS.append(_qat_export)
