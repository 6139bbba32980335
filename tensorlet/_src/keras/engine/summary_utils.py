"""``model.summary()``: Keras 3's table, character for character.

Keras renders the table with the ``rich`` library (heavy-head box, a line between rows, fixed column widths shrunk
evenly to the line length, word-wrapped cells cropped with an ellipsis).  tensorlet draws the same table itself;
output is plain text (Keras's colours only appear on a terminal).
"""

from __future__ import annotations

import math
import re
import shutil
import sys

from tensorlet._src.util import nest

_DTYPE_BITS = {"bool": 1, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "int64": 64,
               "uint64": 64, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "complex64": 64,
               "complex128": 128, "string": 128}


def count_params(weights):
    return int(sum(math.prod(tuple(v.shape)) for v in weights))


def weight_memory_size(weights):
    """Bytes used by the weights (each counted once)."""
    unique = {id(w): w for w in weights}.values()
    bits = 0
    for w in unique:
        name = w.dtype.name if hasattr(w.dtype, "name") else str(w.dtype)
        bits += math.prod(tuple(w.shape)) * _DTYPE_BITS.get(name, 32)
    return bits / 8


def readable_memory_size(size):
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


# --- table rendering (rich's algorithm for fixed-width columns) ---------------------------------------------------
def _ratio_reduce(total, ratios, maximums, values):
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return list(values)
    remaining = total
    out = []
    for r, m, v in zip(ratios, maximums, values):
        if r and total_ratio > 0:
            d = min(m, round(r * remaining / total_ratio))
            out.append(v - d)
            remaining -= d
            total_ratio -= r
        else:
            out.append(v)
    return out


def _cell_widths(column_widths, line_length):
    widths = [w + 2 for w in column_widths]  # one space of padding each side
    max_width = line_length - (len(widths) + 1)
    total = sum(widths)
    if total > max_width:
        widths = _ratio_reduce(total - max_width, [1] * len(widths), widths, widths)
        widths = [min(w, max_width) for w in widths]
    return widths


_WORD = re.compile(r"\s*\S+\s*")


def _wrap(text, width):
    """Rich's word wrap without folding: break before words that do not fit; crop long lines with an ellipsis."""
    breaks = []
    offset = 0
    for m in _WORD.finditer(text):
        start, word = m.start(), m.group(0)
        wlen = len(word.rstrip())
        if width - offset >= wlen:
            offset += len(word)
        elif wlen > width:
            if start:
                breaks.append(start)
            offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    lines = []
    prev = 0
    for b in breaks + [len(text)]:
        lines.append(text[prev:b])
        prev = b
    out = []
    for line in lines or [""]:
        if len(line) > width:  # rstrip_end: drop whitespace past the width
            stripped = line.rstrip()
            line = stripped + line[len(stripped):][:max(0, width - len(stripped))]
        out.append(line)
    return out


def _truncate(line, width):
    if len(line) > width:
        return line[:width - 1] + "…" if width > 0 else ""
    return line


def _justify(line, width, how):
    if how == "right":
        line = _truncate(line.rstrip(), width)
        return " " * (width - len(line)) + line
    if how == "center":
        line = _truncate(line.rstrip(), width)
        left = (width - len(line)) // 2
        return " " * left + line + " " * (width - len(line) - left)
    line = _truncate(line, width)
    return line + " " * (width - len(line))


def _render_cell(text, cell_width, how):
    inner = cell_width - 2
    lines = _wrap(text, inner) if inner > 0 else [""]
    return [" " + _justify(line, inner, how) + " " for line in lines]


def render_table(header, rows, column_widths, line_length, alignment):
    widths = _cell_widths(column_widths, line_length)
    out = ["┏" + "┳".join("━" * w for w in widths) + "┓"]

    def emit(cells, bar, mid):
        rendered = [_render_cell(c, w, a) for c, w, a in zip(cells, widths, alignment)]
        height = max(len(r) for r in rendered)
        for i in range(height):
            parts = [r[i] if i < len(r) else " " * w for r, w in zip(rendered, widths)]
            out.append(bar + mid.join(parts) + bar)

    emit(header, "┃", "┃")
    out.append("┡" + "╇".join("━" * w for w in widths) + "┩")
    for i, row in enumerate(rows):
        if i:
            out.append("├" + "┼".join("─" * w for w in widths) + "┤")
        emit(row, "│", "│")
    out.append("└" + "┴".join("─" * w for w in widths) + "┘")
    return out


# --- model inspection -----------------------------------------------------------------------------------------------
def _format_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def format_layer_shape(layer):
    nodes = getattr(layer, "_inbound_nodes", [])
    if not nodes and not getattr(layer, "_build_shapes_dict", None):
        return "?"
    if nodes:
        shapes = [_format_shape(t.shape) for t in nodes[-1].output_tensors]
    else:
        try:
            shape_arg = layer._build_shapes_dict.get("input_shape")
            out = layer.compute_output_shape(shape_arg)
        except Exception:  # noqa: BLE001  (layers that cannot tell their output shape)
            return "?"
        if isinstance(out, tuple) and all(d is None or isinstance(d, int) for d in out):
            return _format_shape(out)
        shapes = [_format_shape(s) for s in _shape_leaves(out)]
    if len(shapes) == 1:
        return shapes[0]
    return "[" + ", ".join(shapes) + "]"


def _shape_leaves(s):
    if isinstance(s, tuple) and all(d is None or isinstance(d, int) for d in s):
        return [s]
    if isinstance(s, dict):
        s = list(s.values())
    out = []
    for x in s:
        out.extend(_shape_leaves(x))
    return out


def _sequential_like(model):
    from tensorlet._src.keras.engine.functional import Functional
    from tensorlet._src.keras.engine.sequential import Sequential

    if isinstance(model, Sequential) or not isinstance(model, Functional):
        return True, list(model.layers)
    layers = list(model._operations)
    nodes = []
    for v in model._nodes_by_depth.values():
        if len(v) > 1 or (len(v) == 1 and len(v[0].input_tensors) > 1):
            return False, layers
        nodes += v
    ids = {id(n) for n in nodes}
    for layer in model.layers:
        if sum(1 for n in layer._inbound_nodes if id(n) in ids) > 1:
            return False, layers
    return True, layers


def _terminal_columns():
    return shutil.get_terminal_size().columns


def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                  layer_range=None):
    seq_like, layers = _sequential_like(model)
    if seq_like:
        default = 88
        positions = positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        alignment = ["left", "left", "right"]
        relevant = None
    else:
        default = 108
        positions = positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        alignment = ["left", "left", "right", "left"]
        relevant = {id(n) for v in model._nodes_by_depth.values() for n in v}
    if show_trainable:
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        alignment.append("center")
    default = min(default, _terminal_columns() - 4)
    line_length = line_length or default
    widths = []
    current = 0
    for pos in positions:
        w = int(pos * line_length) - current
        if w < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(w)
        current += w

    def connections(layer):
        parts = []
        for node in layer._inbound_nodes:
            if relevant is not None and id(node) not in relevant:
                continue
            for kt in node.input_tensors:
                op, ni, ti = kt._keras_history
                parts.append(f"{op.name}[{ni}][{ti}]")
        return ", ".join(parts) if parts else "-"

    def fields(layer, prefix=""):
        name = f"{prefix}{layer.name} ({type(layer).__name__})"
        if not hasattr(layer, "built"):
            params = "0"
        elif not layer.built:
            params = "0 (unbuilt)"
        else:
            params = f"{layer.count_params():,}"
        row = [name, format_layer_shape(layer), params]
        if not seq_like:
            row.append(connections(layer))
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        return row

    def rows_for(layer, level=0):
        prefix = "   " * level + "└ " if level else ""
        rows = [fields(layer, prefix)]
        if expand_nested and hasattr(layer, "layers") and layer.layers:
            for sub in layer.layers:
                rows.extend(rows_for(sub, level + 1))
        return rows

    lo, hi = _layer_range(layers, layer_range)
    rows = []
    for layer in layers[lo:hi]:
        rows.extend(rows_for(layer))
    lines = [f'Model: "{model.name}"']
    lines += render_table(header, rows, widths, line_length, alignment)
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    t_count, t_size = count_params(trainable), weight_memory_size(trainable)
    n_count, n_size = count_params(non_trainable), weight_memory_size(non_trainable)
    opt = getattr(model, "optimizer", None)
    opt_built = bool(getattr(model, "compiled", False) and opt is not None and getattr(opt, "built", False))
    o_vars = list(opt.variables) if opt_built else []
    if opt_built and callable(o_vars):
        o_vars = list(o_vars())
    o_count, o_size = count_params(o_vars), weight_memory_size(o_vars)
    lines.append(f" Total params: {t_count + n_count + o_count:,} ({readable_memory_size(t_size + n_size + o_size)})")
    lines.append(f" Trainable params: {t_count:,} ({readable_memory_size(t_size)})")
    lines.append(f" Non-trainable params: {n_count:,} ({readable_memory_size(n_size)})")
    if opt_built:
        lines.append(f" Optimizer params: {o_count:,} ({readable_memory_size(o_size)})")
    width = _terminal_columns()  # the console crops what does not fit, as rich does
    text = "\n".join(line[:width] for line in lines) + "\n"
    if print_fn is not None:
        print_fn(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _layer_range(layers, layer_range):
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(f"layer_range must be a list or tuple of length 2. Received: layer_range = {layer_range} "
                         f"of length {len(layer_range)}")
    if not isinstance(layer_range[0], str) or not isinstance(layer_range[1], str):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    upper = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not lower or not upper:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. Received: {layer_range}")
    if min(lower) > max(upper):
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


_ = nest  # shapes of nested outputs are flattened with nest when needed
