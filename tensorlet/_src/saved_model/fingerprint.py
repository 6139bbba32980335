"""``fingerprint.pb``: the FingerprintDef TF writes beside ``saved_model.pb``, with TF's hashes.

TF (tensorflow/cc/saved_model/fingerprinting.cc) fills it from the SavedModel as written:

1. ``saved_model_checksum``: Fingerprint64 of the SavedModel serialized deterministically;
2. ``graph_def_program_hash``: Fingerprint64 of the first MetaGraph's GraphDef after regularization (the UID suffix
   of ``(Stateful)PartitionedCall`` function names stripped, their ``config_proto`` emptied, string ``Const`` values
   cleared, the function library and versions emptied);
3. ``signature_def_hash``: FingerprintCat64 over the signatures sorted by key, each key's and each SignatureDef's
   Fingerprint64;
4. ``saved_object_graph_hash``: FingerprintCat64 over the concrete functions sorted by the UID ending their names,
   each name's Fingerprint64 (UID stripped) and its SavedConcreteFunction's;
5. ``checkpoint_hash``: Fingerprint64 of ``variables/variables.index`` (0 when there is none);

plus a random ``uuid`` and ``version.producer`` 4 (what TF 2.21 writes).  Fingerprint64 is FarmHash's
(``farmhashna::Hash64``), written here in Python (the ``pyfarmhash`` module computes it when installed: same
values, faster).
"""

from __future__ import annotations

import re
import struct

M64 = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0xC6A4A7935BD1E995


def _rot(v, s):
    return ((v >> s) | (v << (64 - s))) & M64 if s else v


def _mix(v):
    return v ^ (v >> 47)


def _len16(u, v, mul):
    a = ((u ^ v) * mul) & M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & M64
    b ^= b >> 47
    return (b * mul) & M64


def _weak32(w, x, y, z, a, b):
    a = (a + w) & M64
    b = _rot((b + a + z) & M64, 21)
    c = a
    a = (a + x + y) & M64
    b = (b + _rot(a, 44)) & M64
    return (a + z) & M64, (b + c) & M64


def _short(s, n):
    """Fingerprint64 of 0..64 bytes."""
    q = struct.unpack_from
    mul = (_K2 + 2 * n) & M64
    if n > 32:
        a = (q("<Q", s, 0)[0] * _K2) & M64
        b = q("<Q", s, 8)[0]
        c = (q("<Q", s, n - 8)[0] * mul) & M64
        d = (q("<Q", s, n - 16)[0] * _K2) & M64
        y = (_rot((a + b) & M64, 43) + _rot(c, 30) + d) & M64
        z = _len16(y, (a + _rot((b + _K2) & M64, 18) + c) & M64, mul)
        e = (q("<Q", s, 16)[0] * mul) & M64
        f = q("<Q", s, 24)[0]
        g = ((y + q("<Q", s, n - 32)[0]) * mul) & M64
        h = ((z + q("<Q", s, n - 24)[0]) * mul) & M64
        return _len16((_rot((e + f) & M64, 43) + _rot(g, 30) + h) & M64, (e + _rot((f + a) & M64, 18) + g) & M64,
                      mul)
    if n > 16:
        a = (q("<Q", s, 0)[0] * _K1) & M64
        b = q("<Q", s, 8)[0]
        c = (q("<Q", s, n - 8)[0] * mul) & M64
        d = (q("<Q", s, n - 16)[0] * _K2) & M64
        return _len16((_rot((a + b) & M64, 43) + _rot(c, 30) + d) & M64, (a + _rot((b + _K2) & M64, 18) + c) & M64,
                      mul)
    if n >= 8:
        a = (q("<Q", s, 0)[0] + _K2) & M64
        b = q("<Q", s, n - 8)[0]
        c = (_rot(b, 37) * mul + a) & M64
        d = ((_rot(a, 25) + b) * mul) & M64
        return _len16(c, d, mul)
    if n >= 4:
        return _len16((n + (q("<I", s, 0)[0] << 3)) & M64, q("<I", s, n - 4)[0], mul)
    if n:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_mix(((y * _K2) ^ (z * _K0)) & M64) * _K2) & M64
    return _K2


def _fingerprint64_py(data: bytes) -> int:
    s = bytes(data)
    n = len(s)
    if n <= 64:
        return _short(s, n)
    q = struct.unpack_from
    x = 81
    y = (81 * _K1 + 113) & M64
    z = (_mix((y * _K2 + 113) & M64) * _K2) & M64
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + q("<Q", s, 0)[0]) & M64
    end = ((n - 1) // 64) * 64
    for p in range(0, end, 64):
        f = q("<8Q", s, p)
        x = (_rot((x + y + v0 + f[1]) & M64, 37) * _K1) & M64
        y = (_rot((y + v1 + f[6]) & M64, 42) * _K1) & M64
        x ^= w1
        y = (y + v0 + f[5]) & M64
        z = (_rot((z + w0) & M64, 33) * _K1) & M64
        v0, v1 = _weak32(f[0], f[1], f[2], f[3], (v1 * _K1) & M64, (x + w0) & M64)
        w0, w1 = _weak32(f[4], f[5], f[6], f[7], (z + w1) & M64, (y + f[2]) & M64)
        z, x = x, z
    mul = (_K1 + ((z & 0xFF) << 1)) & M64
    f = q("<8Q", s, n - 64)
    w0 = (w0 + ((n - 1) & 63)) & M64
    v0 = (v0 + w0) & M64
    w0 = (w0 + v0) & M64
    x = (_rot((x + y + v0 + f[1]) & M64, 37) * mul) & M64
    y = (_rot((y + v1 + f[6]) & M64, 42) * mul) & M64
    x ^= (w1 * 9) & M64
    y = (y + v0 * 9 + f[5]) & M64
    z = (_rot((z + w0) & M64, 33) * mul) & M64
    v0, v1 = _weak32(f[0], f[1], f[2], f[3], (v1 * mul) & M64, (x + w0) & M64)
    w0, w1 = _weak32(f[4], f[5], f[6], f[7], (z + w1) & M64, (y + f[2]) & M64)
    z, x = x, z
    return _len16((_len16(v0, w0, mul) + _mix(y) * _K0 + z) & M64, (_len16(v1, w1, mul) + x) & M64, mul)


def fingerprint64(data: bytes) -> int:
    """FarmHash's Fingerprint64 of ``data`` (what TF's ``tensorflow::Fingerprint64`` returns), as an unsigned int."""
    try:
        import farmhash  # pyfarmhash, optional: the same function in C
    except ImportError:
        return _fingerprint64_py(data)
    return farmhash.fingerprint64(bytes(data))


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64``: combines two fingerprints (order matters)."""
    r = fp1 ^ _KMUL
    r ^= (_mix((fp2 * _KMUL) & M64) * _KMUL) & M64
    r = (r * _KMUL) & M64
    r = (_mix(r) * _KMUL) & M64
    return _mix(r)


_UID = re.compile(r"\s*[+-]?\d+\s*")


def suffix_uid(name: str):
    """The integer after the last ``_`` of a function name (TF's ``GetSuffixUID``), or None."""
    last = name.split("_")[-1]
    if not _UID.fullmatch(last):
        return None
    uid = int(last)
    return uid if -(1 << 63) <= uid < (1 << 63) else None


def _strip_uid(name, uid):
    tail = str(uid)
    return name[:-len(tail)] if name.endswith(tail) else name


def _regularized_graph_def(graph_def):
    from tensorlet._src.saved_model import protos as P

    g = P.GraphDef()
    g.CopyFrom(graph_def)
    for node in g.node:
        if node.op in ("PartitionedCall", "StatefulPartitionedCall") and "f" in node.attr:
            fname = node.attr["f"].func.name
            uid = suffix_uid(fname)
            if uid is not None:
                node.attr["f"].func.name = _strip_uid(fname, uid)
            if "config_proto" in node.attr:
                node.attr["config_proto"].s = b""
        if node.op == "Const" and "dtype" in node.attr and node.attr["dtype"].type == 7 and "value" in node.attr:
            node.attr["value"].ClearField("value")  # DT_STRING constants: values vary by platform
    g.ClearField("library")
    g.library.SetInParent()
    g.ClearField("versions")
    g.versions.SetInParent()
    return g


def _ser(msg) -> bytes:
    """Serialized as C++ protobuf does with deterministic serialization (what TF hashes): fields by number, map
    entries sorted by key.  Python's upb sorts string keys but not integer keys (FunctionDef.arg_attr), so messages
    holding maps are written here; the rest by upb, which agrees."""
    if not _has_map(msg.DESCRIPTOR):
        return msg.SerializeToString(deterministic=True)
    out = bytearray()
    for fd, value in msg.ListFields():
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            key_fd, val_fd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
            for k in sorted(value):
                body = _scalar_field(key_fd, k)
                if val_fd.message_type is not None:
                    body += _len_field(2, _ser(value[k]))
                else:
                    body += _scalar_field(val_fd, value[k])
                out += _len_field(fd.number, body)
        elif fd.message_type is not None:
            for item in (value if _repeated(fd) else (value,)):
                out += _len_field(fd.number, _ser(item))
        else:
            one = type(msg)()
            if _repeated(fd):
                getattr(one, fd.name).extend(value)
            else:
                setattr(one, fd.name, value)
            out += one.SerializeToString(deterministic=True)
    rest = type(msg)()
    rest.CopyFrom(msg)
    for fd, _ in msg.ListFields():
        rest.ClearField(fd.name)
    out += rest.SerializeToString(deterministic=True)  # unknown fields, kept last as C++ writes them
    return bytes(out)


_MAPS: dict = {}


def _repeated(fd) -> bool:
    rep = getattr(fd, "is_repeated", None)  # protobuf >= 5.29; older versions have only ``label``
    return bool(rep) if rep is not None else fd.label == 3


def _has_map(desc, _seen=None) -> bool:
    hit = _MAPS.get(desc.full_name)
    if hit is not None:
        return hit
    seen = _seen if _seen is not None else set()
    if desc.full_name in seen:
        return False  # recursive type: decided by its other fields
    seen.add(desc.full_name)
    res = any(fd.message_type is not None and (fd.message_type.GetOptions().map_entry
                                               or _has_map(fd.message_type, seen)) for fd in desc.fields)
    if _seen is None or res:
        _MAPS[desc.full_name] = res
    return res


def _varint(n: int) -> bytes:
    n &= M64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _len_field(number: int, body: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(body)) + body


def _scalar_field(fd, value) -> bytes:
    """One map key/value field (number 1 or 2) as protobuf writes it; explicit even when it is the default."""
    t = fd.type
    if t in (fd.TYPE_STRING, fd.TYPE_BYTES):
        return _len_field(fd.number, value.encode() if isinstance(value, str) else bytes(value))
    if t in (fd.TYPE_SINT32, fd.TYPE_SINT64):
        return _varint(fd.number << 3) + _varint((value << 1) ^ (value >> 63))
    if t in (fd.TYPE_FIXED32, fd.TYPE_SFIXED32, fd.TYPE_FLOAT):
        fmt = {fd.TYPE_FIXED32: "<I", fd.TYPE_SFIXED32: "<i", fd.TYPE_FLOAT: "<f"}[t]
        return _varint(fd.number << 3 | 5) + struct.pack(fmt, value)
    if t in (fd.TYPE_FIXED64, fd.TYPE_SFIXED64, fd.TYPE_DOUBLE):
        fmt = {fd.TYPE_FIXED64: "<Q", fd.TYPE_SFIXED64: "<q", fd.TYPE_DOUBLE: "<d"}[t]
        return _varint(fd.number << 3 | 1) + struct.pack(fmt, value)
    return _varint(fd.number << 3) + _varint(int(value))  # int32/64, uint32/64, bool, enum


def signature_def_hash(signature_def) -> int:
    h = 0
    for key in sorted(signature_def):
        h = fingerprint_cat64(h, fingerprint64(key.encode()))
        h = fingerprint_cat64(h, fingerprint64(_ser(signature_def[key])))
    return h


def saved_object_graph_hash(object_graph_def) -> int:
    by_uid = {}
    for name in object_graph_def.concrete_functions:
        uid = suffix_uid(name)
        if uid is None:
            raise ValueError(f"Function name: `{name}` does not end in an integer.")
        by_uid.setdefault(uid, name)  # TF keeps the first name of a UID (btree_map insert)
    h = 0
    for uid in sorted(by_uid):
        name = by_uid[uid]
        h = fingerprint_cat64(h, fingerprint64(_strip_uid(name, uid).encode()))
        h = fingerprint_cat64(h, fingerprint64(_ser(object_graph_def.concrete_functions[name])))
    return h


def fingerprint_def(saved_model, index_bytes, uuid: str):
    """The FingerprintDef of ``saved_model`` (a SavedModel proto) whose ``variables.index`` holds ``index_bytes``
    (None: no checkpoint)."""
    from tensorlet._src.saved_model import protos as P

    mg = saved_model.meta_graphs[0]
    fp = P.FingerprintDef(
        saved_model_checksum=fingerprint64(_ser(saved_model)),
        graph_def_program_hash=fingerprint64(_ser(_regularized_graph_def(mg.graph_def))),
        signature_def_hash=signature_def_hash(mg.signature_def),
        saved_object_graph_hash=saved_object_graph_hash(mg.object_graph_def),
        checkpoint_hash=fingerprint64(index_bytes) if index_bytes is not None else 0,
        uuid=uuid)
    fp.version.producer = 4  # TF 2.21's
    return fp
