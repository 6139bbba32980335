"""Select TF ops (``target_spec.supported_ops`` with ``SELECT_TF_OPS``): TF ops kept as Flex custom operators.

An op with no TFLite builtin becomes a ``CUSTOM`` operator whose ``custom_code`` is ``"Flex" + TF op name`` and
whose ``custom_options`` is a FlexBuffer vector of two strings, ``[TF op name, serialized NodeDef]``, as TF's
converter writes it: the NodeDef has no name, one empty input name per input, every attr of TF's OpDef (defaults
filled in) and ``experimental_debug_info.original_node_names``; attrs that TF passes as inputs (an axis) are
constant input tensors.  The ``FlexBuffers`` writer here follows the C++ builder's layout (length-prefixed,
NUL-terminated strings, an untyped vector of relative offsets and packed types, then root offset, type and
width).  LiteRT runs such models only with the Flex delegate; the reference interpreter runs them on tensorlet's
own kernels, mapping the NodeDef back to a registry op.  TF's converter also checks its Flex allowlist; here any
op with a TF OpDef is accepted.
"""

from __future__ import annotations

import struct

import numpy as np

_FBT_STRING, _FBT_VECTOR = 5, 10


def _width(u):
    return 0 if u < 1 << 8 else 1 if u < 1 << 16 else 2 if u < 1 << 32 else 3


def _pad(buf, byte_width):
    buf.extend(b"\0" * ((-len(buf)) % byte_width))


def _scalar(buf, value, byte_width):
    buf.extend(struct.pack("<" + {1: "B", 2: "H", 4: "I", 8: "Q"}[byte_width], value))


def flexbuffer_strings(items) -> bytes:
    """A FlexBuffer whose root is an untyped vector of the byte strings ``items``."""
    buf = bytearray()
    locs = []
    for s in items:
        bw = _width(len(s))
        _pad(buf, 1 << bw)
        _scalar(buf, len(s), 1 << bw)
        locs.append((len(buf), bw))
        buf.extend(s + b"\0")

    def elem_width(loc, size, index):  # the narrowest offset width that reaches ``loc`` from slot ``index``
        for bw in range(4):
            byte_width = 1 << bw
            at = size + (-size) % byte_width + index * byte_width
            if _width(at - loc) == bw:
                return bw
        raise ValueError("FlexBuffer too large")

    bw = _width(len(items))
    for k, (loc, _) in enumerate(locs):
        bw = max(bw, elem_width(loc, len(buf), k + 1))
    byte_width = 1 << bw
    _pad(buf, byte_width)
    _scalar(buf, len(items), byte_width)
    vloc = len(buf)
    for loc, _ in locs:
        _scalar(buf, len(buf) - loc, byte_width)
    buf.extend(bytes((_FBT_STRING << 2) | w for _, w in locs))
    root_bw = elem_width(vloc, len(buf), 0)
    root_width = 1 << root_bw
    _pad(buf, root_width)
    _scalar(buf, len(buf) - vloc, root_width)
    buf.append((_FBT_VECTOR << 2) | bw)
    buf.append(root_width)
    return bytes(buf)


def read_flexbuffer_strings(data: bytes):
    """The strings of a FlexBuffer root vector of strings (what :func:`flexbuffer_strings` writes), bounds-checked."""
    from tensorlet._src.framework import errors

    def bad(why):
        return errors.DataLossError(None, None, f"Flex op custom_options: {why}")

    def uint(pos, width):
        if pos < 0 or pos + width > len(data):
            raise bad("offset out of range")
        return int.from_bytes(data[pos:pos + width], "little")

    if len(data) < 3:
        raise bad("too short")
    root_width = data[-1]
    if root_width not in (1, 2, 4, 8):
        raise bad(f"root width {root_width}")
    packed = data[-2]
    if packed >> 2 != _FBT_VECTOR:
        raise bad("root is not a vector")
    rpos = len(data) - 2 - root_width
    vloc = rpos - uint(rpos, root_width)
    width = 1 << (packed & 3)
    n = uint(vloc - width, width)
    if n > len(data):
        raise bad("vector length out of range")
    out = []
    for k in range(n):
        slot = vloc + k * width
        if (uint(vloc + n * width + k, 1) >> 2) != _FBT_STRING:
            raise bad(f"element {k} is not a string")
        sloc = slot - uint(slot, width)
        sw = 1 << (data[vloc + n * width + k] & 3)
        length = uint(sloc - sw, sw)
        if sloc + length > len(data):
            raise bad("string out of range")
        out.append(bytes(data[sloc:sloc + length]))
    return out


def node_def(node, where):
    """``(TF op name, [(input index, constant)] to insert, NodeDef bytes)`` for an IR node."""
    from tensorlet._src.saved_model import protos as P
    from tensorlet._src.saved_model.codec import Unsupported
    from tensorlet._src.saved_model.tf_export import _set_defaults
    from tensorlet._src.saved_model.tf_ops import node_to_tf, opdef

    try:
        tf_name, consts, attrs = node_to_tf(node, [t.dtype for t in node.inputs], [t.dtype for t in node.outputs],
                                            where)
    except Unsupported as e:
        return None, None, str(e)
    nd = P.NodeDef(op=tf_name)
    nd.input.extend([""] * (len(node.inputs) + len(consts)))
    for k, v in attrs.items():
        nd.attr[k].CopyFrom(v)
    _set_defaults(opdef(tf_name), nd)
    nd.experimental_debug_info.original_node_names.append(node.name)
    return tf_name, consts, nd.SerializeToString(deterministic=True)


def run_flex(op, inputs):
    """Runs a Flex custom operator on tensorlet's kernels; returns its outputs."""
    from tensorlet._src.framework import errors
    from tensorlet._src.graph.executor import run_kernel
    from tensorlet._src.saved_model import protos as P
    from tensorlet._src.saved_model.codec import SavedModelError
    from tensorlet._src.saved_model.tf_ops import attr_python, opdef, tf_to_op

    items = read_flexbuffer_strings(op.custom_options or b"")
    if len(items) != 2:
        raise errors.DataLossError(None, None, f"{op.custom}: custom_options hold {len(items)} strings, not 2")
    try:
        nd = P.NodeDef.FromString(items[1])
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.DataLossError(None, None, f"{op.custom}: the NodeDef does not parse: {e}") from None
    where = f"{op.custom} ({nd.op})"
    od = opdef(nd.op)
    if od is None:
        raise errors.NotFoundError(None, None, f"{where}: TF op {nd.op!r} is unknown")
    attrs = {k: attr_python(v, where) for k, v in nd.attr.items()}
    try:
        reg, rest, kattrs = tf_to_op(nd.op, od, attrs, list(inputs), lambda x: True, where)
    except SavedModelError as e:
        raise errors.UnimplementedError(None, None, f"{where}: {e}") from None
    out = run_kernel(reg, [np.asarray(x) for x in rest], kattrs, "")
    return out if isinstance(out, (tuple, list)) else (out,)
