"""``tf.summary.scalar/histogram/image/text/audio/write/graph``: TF2 tensor summaries with plugin metadata.

Each summary is one ``Event`` holding a ``Summary.Value`` with a ``TensorProto`` and the plugin metadata TF
(TensorBoard's ``summary_v2``) writes, so TensorBoard shows it:

==========  =============  ==========================================================  ==================
function    plugin_name    tensor                                                      content
==========  =============  ==========================================================  ==================
scalar      ``scalars``    float32 scalar                                              empty
histogram   ``histograms`` float64 ``[buckets, 3]`` rows of (left edge, right edge, count)   empty
image       ``images``     string ``[2 + n]``: width, height, then n PNG images           empty
text        ``text``       the string tensor as given                                  empty
audio       ``audio``      string ``[n, 2]``: (16-bit PCM WAV, label "")                  ``AudioPluginData``
==========  =============  ==========================================================  ==================

Summaries are written eagerly (values are read with NumPy).  Inside a function being traced by
``tf.function`` each op becomes a host call (``HostCall`` graph op) that writes every time the graph runs,
also when it runs under XLA.
"""

from __future__ import annotations

import contextlib
import io
import re
import struct
import time

import numpy as np

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.summary import writer as _w

_INVALID_SCOPE = re.compile(r"[^-_/.A-Za-z0-9]")
_AUDIO_WAV_CONTENT = b"\x10\x0b"  # AudioPluginData(encoding=WAV), as TensorBoard's audio plugin writes it


def _bool(value: bool):
    from tensorlet._src.framework.tensor import constant

    return constant(value)


def _numpy(x):
    if callable(x) and not hasattr(x, "numpy"):
        x = x()
    if hasattr(x, "numpy"):
        x = x.numpy()
    return np.asarray(x)


def _active_writer():
    """The writer to write to now, or None.  Inside a function being traced nothing is written yet."""
    w = _w.recording_writer()
    if w is None:
        return None
    from tensorlet._src.framework.context import executing_eagerly

    if not executing_eagerly():
        return None  # traced: the public op records a host call instead (see _traceable)
    return w


_TENSOR_ARGS = ("data", "tensor", "step", "buckets", "max_outputs")


def _traceable(fn):
    """Inside tf.function a summary op becomes a host call that writes with the writer (and record_if state)
    active when the function was traced, each time the graph runs -- also when it runs under XLA."""
    import functools
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from tensorlet._src.framework.context import executing_eagerly

        if executing_eagerly():
            return fn(*args, **kwargs)
        writer = _w.recording_writer()
        if writer is None:
            return _bool(False)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        if params.get("step") is None:
            params["step"] = _w.get_step()
            if params["step"] is None:
                raise ValueError("No step set. Please specify one either through the `step` argument or through "
                                 "tf.summary.experimental.set_step()")
        if "name" in params and fn.__name__ != "write":
            params["name"] = _tag(params["name"])
        if "tag" in params:
            params["tag"] = _tag(params["tag"])
        names = [n for n in _TENSOR_ARGS if n in params and params[n] is not None and not isinstance(params[n], str)]
        static = {k: v for k, v in params.items() if k not in names}
        values = [params[n]() if callable(params[n]) and not hasattr(params[n], "numpy") else params[n]
                  for n in names]

        def host(*arrays):
            from tensorlet._src.framework.context import ctx
            from tensorlet._src.framework.tensor import constant

            saved, ctx.name_scope = ctx.name_scope, []  # the tag already carries the trace-time scope
            try:
                with writer.as_default():
                    fn(**static, **{n: constant(np.asarray(a)) for n, a in zip(names, arrays)})
            finally:
                ctx.name_scope = saved

        from tensorlet._src.graph.py_func import host_call

        host_call(host, *values)
        return _bool(True)

    return wrapper


def _step_value(step):
    if step is None:
        step = _w.get_step()
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` argument or through "
                             "tf.summary.experimental.set_step()")
    return int(_numpy(step))


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def make_tensor_proto(arr: np.ndarray):
    """A ``TensorProto`` the way TF's summary writer stores tensors (raw ``tensor_content`` for numbers)."""
    from tensorboard.compat.proto import tensor_pb2

    from tensorlet._src.framework import dtypes as _dt

    arr = np.asarray(arr)
    if arr.dtype.kind in "OSU":
        proto = tensor_pb2.TensorProto(dtype=_dt.string.as_datatype_enum)
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1).tolist())
    else:
        dt = _dt.from_numpy(arr.dtype)
        proto = tensor_pb2.TensorProto(dtype=dt.as_datatype_enum)
        le = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
        proto.tensor_content = le.reshape(-1).view(np.uint8).tobytes()
    for d in arr.shape:
        proto.tensor_shape.dim.add(size=d)
    return proto


def _metadata(plugin_name, content=b"", description=None):
    from tensorboard.compat.proto import summary_pb2

    md = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin_name, content=content))
    if description:
        md.summary_description = description
    return md


def _tag(name) -> str:
    from tensorlet._src.framework.context import get_current_name_scope

    scope = get_current_name_scope()
    return f"{scope}/{name}" if scope else name


def _emit(writer, tag, arr, step, metadata):
    from tensorboard.compat.proto import event_pb2, summary_pb2

    value = summary_pb2.Summary.Value(tag=tag, tensor=make_tensor_proto(arr), metadata=metadata)
    writer._write_event(event_pb2.Event(wall_time=time.time(), step=step, summary=summary_pb2.Summary(value=[value])))


@tf_export("summary.write")
@_traceable
def write(tag, tensor, step=None, metadata=None, name=None):
    """Writes ``tensor`` under ``tag`` with ``metadata`` (a ``SummaryMetadata`` proto or its bytes).

    Returns a bool tensor: True if something was written (a default writer exists and ``record_if`` allows).
    """
    w = _active_writer()
    if w is None:
        return _bool(False)
    step = _step_value(step)
    if isinstance(metadata, (bytes, bytearray)):
        from tensorboard.compat.proto import summary_pb2

        metadata = summary_pb2.SummaryMetadata.FromString(bytes(metadata))
    _emit(w, tag, _numpy(tensor), step, metadata)
    return _bool(True)


@tf_export("summary.scalar")
@_traceable
def scalar(name, data, step=None, description=None):
    """Writes a scalar (cast to float32) for the Scalars dashboard.

    >>> with tf.summary.create_file_writer("/tmp/logs").as_default(step=1):  # doctest: +SKIP
    ...     tf.summary.scalar("loss", 0.25)
    """
    w = _active_writer()
    if w is None:
        return _bool(False)
    arr = _numpy(data)
    if arr.ndim != 0:
        raise ValueError(f"Expected scalar shape, saw shape: {_shape_text(arr.shape)}.")
    step = _step_value(step)
    _emit(w, _tag(name), arr.astype(np.float32), step, _metadata("scalars", description=description))
    return _bool(True)


def histogram_buckets(data, bucket_count=30) -> np.ndarray:
    """TF2's histogram tensor: float64 ``[k, 3]`` rows (left, right, count) over ``k`` equal-width buckets."""
    k = max(0, int(bucket_count))
    x = np.asarray(data, dtype=np.float64).reshape(-1)
    if x.size == 0 or k == 0:
        return np.zeros((k, 3), np.float64)
    lo, hi = x.min(), x.max()
    if lo == hi:
        counts = np.zeros(k, np.float64)
        counts[-1] = x.size
        edges = np.full(k, hi)
        return np.stack([edges, edges, counts], axis=1)
    width = (hi - lo) / k
    idx = np.minimum(np.floor((x - lo) / width).astype(np.int32), k - 1)
    counts = np.bincount(idx, minlength=k).astype(np.float64)
    edges = lo + np.arange(k + 1, dtype=np.float64) * ((hi - lo) / k)
    edges[-1] = hi
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


@tf_export("summary.histogram")
@_traceable
def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of ``data`` (``buckets`` equal-width buckets, 30 by default)."""
    w = _active_writer()
    if w is None:
        return _bool(False)
    step = _step_value(step)
    arr = _numpy(data)
    table = histogram_buckets(arr.astype(np.float64) if arr.dtype != np.float64 else arr,
                              30 if buckets is None else int(_numpy(buckets)))
    _emit(w, _tag(name), table, step, _metadata("histograms", description=description))
    return _bool(True)


def _to_uint8(arr: np.ndarray) -> np.ndarray:
    if arr.dtype == np.uint8:
        return arr
    if arr.dtype.kind == "f" or arr.dtype.name == "bfloat16":  # TF: saturate_cast(x * 255.5) in x's dtype
        scaled = np.clip(arr * np.asarray(255.5, arr.dtype), 0, 255)
        return np.trunc(scaled.astype(np.float64)).astype(np.uint8)
    if arr.dtype.kind in "iu":
        bits = arr.dtype.itemsize * 8 - (1 if arr.dtype.kind == "i" else 0)
        return np.right_shift(np.maximum(arr, 0), bits - 8).astype(np.uint8)
    if arr.dtype.kind == "b":
        return arr.astype(np.uint8) * 255
    raise ValueError(f"image data of dtype {arr.dtype} cannot be converted to uint8")


def encode_png(img: np.ndarray) -> bytes:
    """PNG bytes of one ``[h, w, c]`` uint8 image (c in 1..4), via Pillow."""
    from PIL import Image

    c = img.shape[-1]
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}.get(c)
    if mode is None:
        raise ValueError(f"images must have 1, 2, 3 or 4 channels, got {c}")
    pil = Image.fromarray(np.ascontiguousarray(img[..., 0] if c == 1 else img), mode=mode)
    buf = io.BytesIO()
    pil.save(buf, format="PNG")
    return buf.getvalue()


@tf_export("summary.image")
@_traceable
def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images from ``data`` ``[k, h, w, c]`` (floats in [0, 1] or uint8) as PNG."""
    w = _active_writer()
    if w is None:
        return _bool(False)
    arr = _numpy(data)
    if arr.ndim != 4:
        raise ValueError(f"Tensor  must have rank 4.  Received rank {arr.ndim}, shape {_shape_text(arr.shape)}")
    step = _step_value(step)
    imgs = _to_uint8(arr[:max(0, int(_numpy(max_outputs)))])
    h, wd = arr.shape[1], arr.shape[2]
    out = np.empty(2 + len(imgs), dtype=object)
    out[0], out[1] = str(wd).encode(), str(h).encode()
    for i, img in enumerate(imgs):
        out[2 + i] = encode_png(img)
    _emit(w, _tag(name), out, step, _metadata("images", description=description))
    return _bool(True)


@tf_export("summary.text")
@_traceable
def text(name, data, step=None, description=None):
    """Writes a string tensor (any shape) for the Text dashboard (Markdown)."""
    w = _active_writer()
    if w is None:
        return _bool(False)
    arr = _numpy(data)
    if arr.dtype.kind not in "OSU":
        raise TypeError(f"tf.summary.text expects string data, got dtype {arr.dtype}")
    step = _step_value(step)
    _emit(w, _tag(name), arr.astype(object), step, _metadata("text", description=description))
    return _bool(True)


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV of ``[frames, channels]`` floats in [-1, 1] (scaled by 32768, rounded, clipped)."""
    frames, channels = samples.shape
    pcm = np.clip(np.round(samples.astype(np.float32) * np.float32(32768.0)), -32768, 32767).astype("<i2")
    data = pcm.tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16)
    return header + b"data" + struct.pack("<I", len(data)) + data


@tf_export("summary.audio")
@_traceable
def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """Writes up to ``max_outputs`` clips from ``data`` ``[k, frames, channels]`` in [-1, 1] as WAV."""
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    w = _active_writer()
    if w is None:
        return _bool(False)
    arr = _numpy(data)
    if arr.ndim != 3:
        raise ValueError(f"Tensor  must have rank 3.  Received rank {arr.ndim}, shape {_shape_text(arr.shape)}")
    step = _step_value(step)
    rate = int(_numpy(sample_rate))
    clips = arr[:max(0, int(_numpy(max_outputs)))]
    out = np.empty((len(clips), 2), dtype=object)
    for i, clip in enumerate(clips):
        out[i, 0] = encode_wav(clip, rate)
        out[i, 1] = b""
    _emit(w, _tag(name), out, step, _metadata("audio", _AUDIO_WAV_CONTENT, description))
    return _bool(True)


@tf_export("summary.graph")
def graph(graph_data):
    """Writes a graph (a ``GraphDef`` proto, its bytes, or an object with ``as_graph_def()``) for the Graphs
    dashboard."""
    from tensorboard.compat.proto import event_pb2

    if hasattr(graph_data, "as_graph_def"):
        graph_data = graph_data.as_graph_def()
    if hasattr(graph_data, "SerializeToString"):
        data = graph_data.SerializeToString()
    elif isinstance(graph_data, (bytes, bytearray)):
        data = bytes(graph_data)
    else:
        raise ValueError("Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received "
                         f"graph_data={graph_data} of type {type(graph_data).__name__}.")
    w = _active_writer()
    if w is None:
        return _bool(False)
    w._write_event(event_pb2.Event(wall_time=time.time(), step=0, graph_def=data))
    return _bool(True)


@tf_export("summary.experimental.write_raw_pb")
def write_raw_pb(tensor, step=None, name=None):
    """Writes already-serialized ``Summary`` protos (a bytes scalar or vector) as events."""
    from tensorboard.compat.proto import event_pb2, summary_pb2

    w = _active_writer()
    if w is None:
        return _bool(False)
    step = _step_value(step)
    arr = _numpy(tensor)
    for raw in arr.reshape(-1).tolist():
        summ = summary_pb2.Summary.FromString(raw if isinstance(raw, bytes) else bytes(raw))
        w._write_event(event_pb2.Event(wall_time=time.time(), step=step, summary=summ))
    return _bool(True)


@tf_export("summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """``with summary_scope("loss") as (tag, scope):`` -- the tag a summary gets inside the name scope."""
    from tensorlet._src.framework.context import get_current_name_scope, name_scope

    name = name or default_name
    current = get_current_name_scope()
    tag = f"{current}/{name}" if current else name
    clean = _INVALID_SCOPE.sub("", name) or default_name
    with name_scope(clean) as scope:
        yield tag, scope


# --- tracing --------------------------------------------------------------------------------------------------------
_trace = {"on": False, "graphs": [], "profiler": False}


def is_tracing_graphs() -> bool:
    """True between ``trace_on(graph=True)`` and ``trace_export``/``trace_off`` (cheap; for tf.function)."""
    return _trace["on"]


def record_function_graph(graph_def) -> None:
    """Hook for ``tf.function``: record the ``GraphDef`` (proto, bytes, or object with ``as_graph_def()``) of a
    function that ran while tracing is on; ``trace_export`` writes the recorded graphs."""
    if _trace["on"]:
        _trace["graphs"].append(graph_def)


@tf_export("summary.trace_on")
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Starts recording the graphs of ``tf.function`` calls (the profiler is not available in tensorlet)."""
    if profiler:
        import warnings

        warnings.warn("tensorlet has no profiler; trace_on(profiler=True) records graphs only.", stacklevel=2)
    _trace["on"] = bool(graph)
    _trace["graphs"] = []


@tf_export("summary.trace_off")
def trace_off():
    """Stops recording and drops what was recorded."""
    _trace["on"] = False
    _trace["graphs"] = []


@tf_export("summary.trace_export")
def trace_export(name, step=None, profiler_outdir=None):
    """Writes the recorded function graphs (``RunMetadata`` with ``function_graphs``, plugin
    ``graph_run_metadata_graph``) under tag ``name``, then stops tracing."""
    from tensorboard.compat.proto import config_pb2, graph_pb2

    graphs, _trace["graphs"] = _trace["graphs"], []
    _trace["on"] = False
    w = _active_writer()
    if w is None:
        return
    step = _step_value(step)
    meta = config_pb2.RunMetadata()
    for g in graphs:
        if hasattr(g, "as_graph_def"):
            g = g.as_graph_def()
        gd = g if isinstance(g, graph_pb2.GraphDef) else graph_pb2.GraphDef.FromString(
            g if isinstance(g, bytes) else g.SerializeToString())
        meta.function_graphs.add().pre_optimization_graph.CopyFrom(gd)
    arr = np.array(meta.SerializeToString(), dtype=object)
    _emit(w, name, arr, step, _metadata("graph_run_metadata_graph", b"1"))
