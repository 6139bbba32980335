"""``keras.utils`` image helpers (Pillow): ``load_img``, ``img_to_array``, ``array_to_img``, ``save_img``; and
model plotting (``model_to_dot`` / ``plot_model`` through pydot + Graphviz when installed).

>>> img_to_array(array_to_img(np.zeros((2, 2, 3)))).shape
(2, 2, 3)
"""

from __future__ import annotations

import io
import os

import numpy as np

from tensorlet._src.keras.backend import floatx, standardize_data_format
from tensorlet._src.ops.registry import tf_export

_RESAMPLE = {"nearest": 0, "lanczos": 1, "bilinear": 2, "bicubic": 3, "box": 4, "hamming": 5}


def _pil():
    try:
        from PIL import Image
    except ImportError as e:  # pillow is a dependency; say so plainly if it is missing
        raise ImportError("keras.utils image functions need Pillow: pip install pillow") from e
    return Image


@tf_export("keras.utils.array_to_img", "keras.preprocessing.image.array_to_img")
def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image of a rank-3 array (``scale`` maps the value range onto 0..255)."""
    Image = _pil()
    data_format = standardize_data_format(data_format)
    x = np.asarray(x, dtype=dtype or floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        mx = np.max(x)
        if mx != 0:
            x = x / mx
        x = x * 255
    c = x.shape[2]
    if c == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if c == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if c == 1:
        if np.max(x) > 255:
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {c}")


@tf_export("keras.utils.img_to_array", "keras.preprocessing.image.img_to_array")
def img_to_array(img, data_format=None, dtype=None):
    """A float array ``(h, w, c)`` (or ``(c, h, w)``) of a PIL image."""
    data_format = standardize_data_format(data_format)
    x = np.asarray(img, dtype=dtype or floatx())
    if x.ndim == 2:
        x = x.reshape(x.shape + (1,)) if data_format == "channels_last" else x.reshape((1,) + x.shape)
    elif x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


@tf_export("keras.utils.save_img", "keras.preprocessing.image.save_img")
def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes an image array to ``path`` (written to a temporary name, then renamed)."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg" or
                               (file_format is None and str(path).lower().endswith((".jpg", ".jpeg")))):
        img = img.convert("RGB")
    fmt = file_format or os.path.splitext(str(path))[1][1:] or None
    fmt = {"jpg": "JPEG"}.get((fmt or "").lower(), fmt)
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)


@tf_export("keras.utils.load_img", "keras.preprocessing.image.load_img")
def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """A PIL image loaded from ``path`` (or a file-like object), converted to ``color_mode`` and resized to
    ``target_size`` (``(height, width)``), optionally center-cropped to keep the aspect ratio."""
    Image = _pil()
    if isinstance(path, (str, os.PathLike)):
        with open(path, "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    elif hasattr(path, "read"):
        img = Image.open(io.BytesIO(path.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        size = (target_size[1], target_size[0])
        if img.size != size:
            if interpolation not in _RESAMPLE:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported methods are "
                                 f"{', '.join(_RESAMPLE)}")
            resample = _RESAMPLE[interpolation]
            if keep_aspect_ratio:
                w, h = img.size
                tw, th = size
                cw, ch = (w, int(w * th / tw)) if w * th / tw <= h else (int(h * tw / th), h)
                cw, ch = min(cw, w), min(ch, h)
                left, top = (w - cw) // 2, (h - ch) // 2
                img = img.crop((left, top, left + cw, top + ch))
            img = img.resize(size, resample)
    return img


@tf_export("keras.utils.get_source_inputs")
def get_source_inputs(tensor):
    """The ``keras.Input`` tensors a functional-API tensor was computed from."""
    node = getattr(tensor, "_keras_history", None)
    if node is None:
        return [tensor]
    layer = node[0] if isinstance(node, tuple) else getattr(node, "operation", None)
    inbound = getattr(layer, "_inbound_nodes", None) or []
    if not inbound or not getattr(inbound[0], "parent_nodes", None):
        return [tensor]
    out = []
    for t in getattr(inbound[0], "input_tensors", []):
        for s in get_source_inputs(t):
            if not any(s is o for o in out):
                out.append(s)
    return out or [tensor]


def _pydot():
    try:
        import pydot
    except ImportError as e:
        raise ImportError("You must install pydot (`pip install pydot`) and install graphviz "
                          "(see instructions at https://graphviz.gitlab.io/download/) for `plot_model` to work.") from e
    return pydot


@tf_export("keras.utils.model_to_dot")
def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB", expand_nested=False,
                 dpi=200, subgraph=False, show_layer_activations=False, show_trainable=False, **kwargs):
    """A ``pydot.Dot`` graph of the model's layers (one node per layer, edges along the data flow)."""
    pydot = _pydot()
    dot = pydot.Dot(graph_type="digraph", rankdir=rankdir, dpi=dpi, concentrate=True)
    layers = list(getattr(model, "layers", []))
    ids = {}
    for layer in layers:
        label = layer.name if show_layer_names else type(layer).__name__
        if show_layer_names:
            label = f"{layer.name} ({type(layer).__name__})"
        if show_shapes:
            try:
                label += f"\\noutput: {tuple(layer.output.shape)}"
            except (AttributeError, ValueError):
                pass
        if show_dtype:
            label += f"\\ndtype: {getattr(layer, 'dtype', None)}"
        if show_trainable:
            label += f"\\ntrainable: {layer.trainable}"
        node_id = str(id(layer))
        ids[id(layer)] = node_id
        dot.add_node(pydot.Node(node_id, label=label, shape="record"))
    prev = None
    for layer in layers:
        parents = []
        for node in getattr(layer, "_inbound_nodes", []) or []:
            for p in getattr(node, "parent_nodes", []) or []:
                op = getattr(p, "operation", None)
                if op is not None and id(op) in ids:
                    parents.append(op)
        if not parents and prev is not None and not hasattr(model, "_nodes_by_depth"):
            parents = [prev]
        for p in parents:
            dot.add_edge(pydot.Edge(ids[id(p)], ids[id(layer)]))
        prev = layer
    return dot


@tf_export("keras.utils.plot_model")
def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=False,
               rankdir="TB", expand_nested=False, dpi=200, show_layer_activations=False, show_trainable=False,
               **kwargs):
    """Renders ``model_to_dot(model)`` to ``to_file`` with Graphviz (needs pydot and the Graphviz binaries)."""
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype, show_layer_names=show_layer_names,
                       rankdir=rankdir, expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    ext = os.path.splitext(to_file)[1][1:] or "png"
    try:
        data = dot.create(format=ext)
    except (OSError, FileNotFoundError) as e:
        raise ImportError("plot_model needs the Graphviz `dot` program (see https://graphviz.gitlab.io/download/)"
                          ) from e
    tmp = to_file + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, to_file)
    return None
