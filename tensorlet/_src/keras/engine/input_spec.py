"""``keras.InputSpec``: the rank, dtype and shape a layer expects of each input, and the check ``Layer.__call__``
runs against it (Keras 3's messages)."""

from __future__ import annotations

from tensorlet._src.keras import backend as _backend
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest


@tf_export("keras.InputSpec", "keras.layers.InputSpec")
class InputSpec:
    """The rank, dtype and shape a layer expects of each input: ``InputSpec(min_ndim=2, axes={-1: 3})``."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = _backend.standardize_dtype(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = tuple(None if d is None else int(d) for d in shape)
            self.ndim = len(self.shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self):
        spec = [f"dtype={self.dtype}" if self.dtype else "", f"shape={self.shape}" if self.shape else "",
                f"ndim={self.ndim}" if self.ndim else "", f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                f"min_ndim={self.min_ndim}" if self.min_ndim else "", f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def shape_tuple(x):
    s = x.shape
    if hasattr(s, "as_list"):
        return tuple(s.as_list()) if s.rank is not None else None
    return tuple(s)


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises Keras's ``ValueError`` when ``inputs`` do not match ``input_spec``."""
    if not input_spec:
        return
    input_spec = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in input_spec]
        if all(names):
            listed = []
            for n in names:
                if n not in inputs:
                    raise ValueError(f'Missing data for input "{n}". You passed a data dictionary with keys '
                                     f"{list(inputs.keys())}. Expected the following keys: {names}")
                listed.append(inputs[n])
            inputs = listed
    inputs = nest.flatten(inputs)
    if len(inputs) != len(input_spec):
        raise ValueError(f'Layer "{layer_name}" expects {len(input_spec)} input(s), but it received '
                         f"{len(inputs)} input tensors. Inputs received: {inputs}")
    for i, (x, spec) in enumerate(zip(inputs, input_spec)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for "
                             f"layer '{layer_name}'.")
        shape = shape_tuple(x)
        if shape is None:
            continue
        ndim = len(shape)
        head = f"Input {i} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer: "
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(head + f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(head + f"expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(head + f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {shape}")
        if spec.dtype is not None:
            dtype = _backend.standardize_dtype(x.dtype)
            if dtype != spec.dtype:
                raise ValueError(head + f"expected dtype={spec.dtype}, found dtype={dtype}")
        if spec.axes:
            for axis, value in spec.axes.items():
                if value is not None and -ndim <= axis < ndim and shape[axis] not in {value, None}:
                    raise ValueError(head + f"expected axis {axis} of input shape to have value {value}, "
                                     f"but received input with shape {shape}")
        if spec.shape is not None:
            spec_shape, got = spec.shape, shape
            if spec.allow_last_axis_squeeze:
                if got and got[-1] == 1:
                    got = got[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for sd, d in zip(spec_shape, got):
                if sd is not None and d is not None and sd != d:
                    raise ValueError(head + f"expected shape={spec.shape}, found shape={shape}")
