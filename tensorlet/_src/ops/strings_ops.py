"""String ops (``tf.strings``): lengths, case, joins, substrings, regexes, number parsing and formatting.

A string tensor is a NumPy object array of ``bytes``.  There is no vectorized bytes arithmetic, so
the kernels here loop over elements in Python; they run on NumPy only (XLA has no string type).
``summarize`` (TF's ``Tensor::SummarizeValue``) is shared with ``tf.print``.
"""

from __future__ import annotations

import re

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.ops._helpers import mismatch, static, static_axis, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

D = _dt
STR = (D.string,)
_UNITS = ("BYTE", "UTF8_CHAR")
_WS = b" \t\n\v\f\r"
_CONT = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes


def _obj0(v):
    a = np.empty((), object)
    a[()] = v
    return a


def _map(fn, a, dtype=object):
    """``fn`` on each element of the object array ``a``; same shape (0-d stays a 0-d array)."""
    out = np.empty(a.shape, dtype)
    flat = out.reshape(-1)
    for i, s in enumerate(a.reshape(-1).tolist()):
        flat[i] = fn(s)
    return out


def _strings(x, op_name, index=0):
    x = t(x)
    if x.dtype is not D.string:
        raise mismatch(op_name, index, D.string, x.dtype)
    return x


def _check_unit(op_name, unit):
    if unit not in _UNITS:
        raise errors.invalid_argument(op_name, f'Value for attr \'unit\' of "{unit}" is not in the list of allowed '
                                               'values: "BYTE", "UTF8_CHAR"')


def _char_starts(s: bytes):
    """Byte offsets where UTF-8 characters start (every byte that is not a continuation byte)."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80]


# --- length, case, strip -------------------------------------------------------------------

def _length_kernel(xp, x, unit="BYTE"):
    if unit == "BYTE":
        return _map(len, x, np.int32)
    return _map(lambda s: len(s.translate(None, _CONT)), x, np.int32)


STRING_LENGTH = defop("StringLength", _length_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.length")
def length(input, unit="BYTE", name=None):  # noqa: A002 - TF's argument name
    """Length of each string in bytes (``unit="BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``).

    >>> tf.strings.length(["hé", ""]).numpy()
    array([3, 0], dtype=int32)
    """
    x = _strings(input, "StringLength")
    _check_unit("StringLength", unit)
    return bind(STRING_LENGTH, x, unit=unit)


def _case_kernel(method):
    def kernel(xp, x, encoding=""):
        if encoding == "":  # ASCII letters only, as TF without an encoding
            return _map(getattr(bytes, method), x)
        return _map(lambda s: getattr(s.decode("utf-8", "replace"), method)().encode("utf-8"), x)
    return kernel


STRING_LOWER = defop("StringLower", _case_kernel("lower"), dtypes=STR, grad=NONDIFF)
STRING_UPPER = defop("StringUpper", _case_kernel("upper"), dtypes=STR, grad=NONDIFF)


def _case(op, op_name, x, encoding):
    x = _strings(x, op_name)
    if encoding not in ("", "utf-8"):
        raise errors.invalid_argument(op_name, f"only utf-8 or '' (no encoding) is supported, received {encoding}")
    return bind(op, x, encoding=encoding)


@tf_export("strings.lower")
def lower(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Lower-cases each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``.

    >>> tf.strings.lower("ABC").numpy()
    b'abc'
    """
    return _case(STRING_LOWER, "StringLower", input, encoding)


@tf_export("strings.upper")
def upper(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Upper-cases each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``.

    >>> tf.strings.upper("abc").numpy()
    b'ABC'
    """
    return _case(STRING_UPPER, "StringUpper", input, encoding)


STRING_STRIP = defop("StringStrip", lambda xp, x: _map(lambda s: s.strip(_WS), x), dtypes=STR, grad=NONDIFF)


@tf_export("strings.strip")
def strip(input, name=None):  # noqa: A002 - TF's argument name
    """Removes leading and trailing whitespace.  ``tf.strings.strip(" a ")`` -> ``b"a"``."""
    return bind(STRING_STRIP, _strings(input, "StringStrip"))


# --- joins -----------------------------------------------------------------------------------

def _join_kernel(xp, *arrays, separator=b""):
    if not arrays:
        return _obj0(b"")
    cols = np.broadcast_arrays(*arrays)
    shape = cols[0].shape
    rows = zip(*[c.reshape(-1).tolist() for c in cols])
    out = np.empty(shape, object)
    flat = out.reshape(-1)
    for i, parts in enumerate(rows):
        flat[i] = separator.join(parts)
    return out


STRING_JOIN = defop("StringJoin", _join_kernel, dtypes=STR, grad=NONDIFF)


def _separator(separator):
    if isinstance(separator, str):
        return separator.encode("utf-8")
    if isinstance(separator, bytes):
        return separator
    raise TypeError(f"Expected string for argument 'separator' not {separator!r}.")


@tf_export("strings.join")
def join(inputs, separator="", name=None):
    """Joins a list of string tensors elementwise (scalars broadcast; other shapes must match).

    >>> tf.strings.join(["a", ["b", "c"]], separator="-").numpy()
    array([b'a-b', b'a-c'], dtype=object)
    """
    sep = _separator(separator)
    xs = [_join_input(x, i) for i, x in enumerate(inputs)]
    shape = None
    for x in xs:
        if x.ndim:
            if shape is not None and tuple(x.shape) != shape:
                raise errors.invalid_argument("StringJoin", f"Input shapes do not match: {errors.shape_str(shape)} "
                                                            f"vs. {errors.shape_str(x.shape)}")
            shape = tuple(x.shape)
    return bind(STRING_JOIN, *xs, separator=sep)


def _join_input(x, i):
    if isinstance(x, Tensor):
        if x.dtype is not D.string:
            raise ValueError(f"Tensor conversion requested dtype string for Tensor with dtype {x.dtype.name}: {x!r}")
        return x
    return t(x, D.string)


def _reduce_join_kernel(xp, x, axes=(), keepdims=False, separator=b""):
    kept = [i for i in range(x.ndim) if i not in axes]
    kshape = tuple(x.shape[i] for i in kept)
    m = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    # the first listed axis varies fastest in the joined order, as in TF
    rows = np.transpose(x, kept + list(reversed(axes))).reshape(kshape + (m,))
    out = np.empty(kshape, object)
    flat = out.reshape(-1)
    for i, row in enumerate(rows.reshape(out.size, m).tolist()):
        flat[i] = separator.join(row)
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return out


REDUCE_JOIN = defop("ReduceJoin", _reduce_join_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (all axes when None).

    >>> tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",").numpy()
    array([b'a,b', b'c,d'], dtype=object)
    """
    x = _strings(inputs, "ReduceJoin")
    sep = _separator(separator)
    nd = x.ndim
    axis = static_axis(axis)
    if axis is None:
        axes = tuple(reversed(range(nd)))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
    norm = []
    for a in axes:
        if not -nd <= a < nd:
            raise errors.op_error(errors.OutOfRangeError, "ReduceJoin",
                                  f"Invalid reduction dimension {a} for input with {nd} dimension(s)")
        a = a % nd
        if a in norm:
            raise errors.invalid_argument("ReduceJoin", f"Duplicate reduction dimension {a}")
        norm.append(a)
    return bind(REDUCE_JOIN, x, axes=tuple(norm), keepdims=bool(keepdims), separator=sep)


# --- substr ----------------------------------------------------------------------------------

def _substr_kernel(xp, x, pos, ln, unit="BYTE"):
    xs, ps, ls = np.broadcast_arrays(x, pos, ln)
    out = np.empty(xs.shape, object)
    flat = out.reshape(-1)
    for i, (s, p, n) in enumerate(zip(xs.reshape(-1).tolist(), ps.reshape(-1).tolist(), ls.reshape(-1).tolist())):
        if unit == "BYTE":
            size = len(s)
            if not -size <= p <= size:
                raise errors.invalid_argument("Substr", f"pos {p} out of range for string {s!r} at index {i}")
            p = p + size if p < 0 else p
            flat[i] = s[p:] if n < 0 else s[p:p + n]
        else:
            starts = _char_starts(s)
            size = len(starts)
            if not -size <= p <= size:
                raise errors.invalid_argument("Substr", f"pos {p} out of range for string at index {i}")
            p = p + size if p < 0 else p
            if n < 0:
                flat[i] = b""
                continue
            end = p + n
            b0 = starts[p] if p < size else len(s)
            b1 = starts[end] if end < size else len(s)
            flat[i] = s[b0:b1]
    return out


SUBSTR = defop("Substr", _substr_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TF's argument names
    """Substrings starting at ``pos`` (negative counts from the end) of ``len`` bytes or UTF-8 characters.

    >>> tf.strings.substr(["hello", "world"], 1, 3).numpy()
    array([b'ell', b'orl'], dtype=object)
    """
    x = _strings(input, "Substr")
    _check_unit("Substr", unit)
    p = t(pos)
    n = t(len)
    if p.dtype not in (D.int32, D.int64):
        raise errors.invalid_argument("Substr", f"Value for attr 'T' of {p.dtype.name} is not in the list of allowed "
                                                "values: int32, int64")
    if n.dtype is not p.dtype:
        raise mismatch("Substr", 2, p.dtype, n.dtype)
    if tuple(p.shape) != tuple(n.shape):
        raise errors.invalid_argument("Substr", f"pos and len should have the same shape, got: "
                                                f"{errors.shape_str(p.shape)} vs. {errors.shape_str(n.shape)}")
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(p.shape))
    except ValueError:
        raise errors.invalid_argument("Substr", f"Incompatible shapes: {errors.shape_str(x.shape)} vs. "
                                                f"{errors.shape_str(p.shape)}") from None
    return bind(SUBSTR, x, p, n, unit=unit)


# --- regular expressions -----------------------------------------------------------------------
# RE2 semantics approximated with Python's re on text: '.' is one UTF-8 character, \w \d \s are ASCII.

def _compile(op_name, pattern):
    pattern = static(pattern)
    if isinstance(pattern, bytes):
        pattern = pattern.decode("utf-8", "surrogateescape")
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as e:
        raise errors.invalid_argument(op_name, f"Invalid pattern: {pattern}, error: {e}") from None


def _text(s: bytes) -> str:
    return s.decode("utf-8", "surrogateescape")


def _bytes(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _full_match_kernel(xp, x, pattern):
    rx = re.compile(pattern, re.ASCII)
    return _map(lambda s: rx.fullmatch(_text(s)) is not None, x, np.bool_)


STATIC_REGEX_FULL_MATCH = defop("StaticRegexFullMatch", _full_match_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):  # noqa: A002 - TF's argument name
    """True where the whole string matches the regular expression ``pattern``.

    >>> tf.strings.regex_full_match(["abc", "xabc"], "ab.").numpy()
    array([ True, False])
    """
    x = _strings(input, "StaticRegexFullMatch")
    rx = _compile("StaticRegexFullMatch", pattern)
    return bind(STATIC_REGEX_FULL_MATCH, x, pattern=rx.pattern)


def _parse_rewrite(rewrite: str):
    """RE2's rewrite string: ``\\0``-``\\9`` name groups, ``\\\\`` is a backslash; an invalid escape ends it.

    Returns (pieces, max_group): pieces are str literals or int group numbers.
    """
    pieces, lit, i, top = [], [], 0, 0
    while i < len(rewrite):
        c = rewrite[i]
        if c != "\\":
            lit.append(c)
            i += 1
            continue
        nxt = rewrite[i + 1] if i + 1 < len(rewrite) else ""
        if nxt.isdigit() and nxt.isascii():
            if lit:
                pieces.append("".join(lit))
                lit = []
            pieces.append(int(nxt))
            top = max(top, int(nxt))
            i += 2
        elif nxt == "\\":
            lit.append("\\")
            i += 2
        else:  # RE2 logs "invalid rewrite pattern" and keeps what it rewrote so far
            break
    if lit:
        pieces.append("".join(lit))
    return pieces, top


def _replace_kernel(xp, x, pattern, rewrite, replace_global=True):
    rx = re.compile(pattern, re.ASCII)
    pieces, top = _parse_rewrite(rewrite)
    if top > rx.groups:  # RE2 refuses the rewrite and leaves the input as it is
        return _map(lambda s: s, x)

    def repl(m):
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)

    count = 0 if replace_global else 1
    return _map(lambda s: _bytes(rx.sub(repl, _text(s), count=count)), x)


STATIC_REGEX_REPLACE = defop("StaticRegexReplace", _replace_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002 - TF's argument name
    r"""Replaces matches of ``pattern`` by ``rewrite`` (``\1`` names a group): all, or the first one.

    >>> tf.strings.regex_replace("hello world", r"(\w+) (\w+)", r"\2 \1").numpy()
    b'world hello'
    """
    x = _strings(input, "StaticRegexReplace")
    rx = _compile("StaticRegexReplace", pattern)
    rewrite = static(rewrite)
    if isinstance(rewrite, bytes):
        rewrite = rewrite.decode("utf-8", "surrogateescape")
    return bind(STATIC_REGEX_REPLACE, x, pattern=rx.pattern, rewrite=rewrite, replace_global=bool(replace_global))


# --- to_number / as_string ----------------------------------------------------------------------

_NUMBER_OUT = (D.float32, D.float64, D.int32, D.int64, D.uint32, D.uint64)
_FLOAT_RE = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.I)
_HEX_RE = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_INT_RE = re.compile(rb"[+-]?[0-9]+")


def _parse_number(s: bytes, dtype):
    body = s.strip(_WS)
    kind = dtype.kind
    if kind == "f":
        if _FLOAT_RE.fullmatch(body):
            return float(body)
        if _HEX_RE.fullmatch(body):
            return float.fromhex(body.decode("ascii"))
    elif _INT_RE.fullmatch(body) and not (kind == "u" and body.startswith(b"-")):
        v = int(body)
        info = np.iinfo(dtype)
        if info.min <= v <= info.max:
            return v
    raise errors.invalid_argument("StringToNumber", "StringToNumberOp could not correctly convert string: "
                                                    f"{s.decode('utf-8', 'backslashreplace')}")


def _to_number_kernel(xp, x, out_type):
    vals = _map(lambda s: _parse_number(s, np.dtype(out_type)), x)
    if np.dtype(out_type).kind == "f":
        return vals.astype(np.float64).astype(out_type)  # float32 overflows to inf, as strtof
    return vals.astype(out_type)


STRING_TO_NUMBER = defop("StringToNumber", _to_number_kernel, dtypes=STR, grad=NONDIFF)


@tf_export("strings.to_number")
def to_number(input, out_type=D.float32, name=None):  # noqa: A002 - TF's argument name
    """Parses each string as a number of ``out_type`` (float32, float64, int32, int64, uint32, uint64).

    >>> tf.strings.to_number(["1.5", " -2 "]).numpy()
    array([ 1.5, -2. ], dtype=float32)
    """
    x = _strings(input, "StringToNumber")
    out = D.as_dtype(out_type)
    if out not in _NUMBER_OUT:
        from tensorlet._src.ops.registry import _tf_type_name

        raise errors.invalid_argument("StringToNumber", f"Value for attr 'out_type' of {_tf_type_name(out)} is not in "
                                                        "the list of allowed values: float, double, int32, int64, "
                                                        "uint32, uint64")
    return bind(STRING_TO_NUMBER, x, out_type=out._np)


def _as_string_kernel(xp, x, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    kind = D.from_numpy(x.dtype)._kind
    w = str(width) if width > -1 else ""
    if kind == "b":
        return _map(lambda v: b"true" if v else b"false", x)
    if kind == "s":
        spec = f"%{fill}{w}s".encode()
        return _map(lambda s: spec % s, x)
    if kind in "iu":
        spec = f"%{fill}{w}d"
        return _map(lambda v: (spec % v).encode(), x)
    p = f".{precision}" if precision > -1 else ""
    spec = f"%{fill}{w}{p}{'e' if scientific else 'g' if shortest else 'f'}"
    nonfinite = spec.replace("%0", "%", 1)  # C pads inf/nan with spaces even with the 0 flag

    def fmt(v):
        return (spec if np.isfinite(v) else nonfinite) % v

    if kind == "c":
        return _map(lambda v: f"({fmt(v.real)},{fmt(v.imag)})".encode(), x)
    return _map(lambda v: fmt(v).encode(), x.astype(np.float64))


AS_STRING = defop("AsString", _as_string_kernel, grad=NONDIFF, host="source")


@tf_export("strings.as_string", "as_string", "dtypes.as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Formats each element as a string, like C's printf (``%f`` for floats unless ``scientific``/``shortest``).

    >>> tf.strings.as_string([1.5, 2.0], precision=2).numpy()
    array([b'1.50', b'2.00'], dtype=object)
    """
    x = t(input)
    d = x.dtype
    if len(fill) > 1:
        raise errors.invalid_argument("AsString", "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise errors.invalid_argument("AsString", "Cannot select both scientific and shortest notation")
    if fill and fill not in " +-0#":
        raise errors.invalid_argument("AsString", f'Fill argument not supported: "{fill}"')
    if d._kind in "iub":
        if scientific or shortest:
            raise errors.invalid_argument("AsString", f"scientific and shortest format not supported for datatype "
                                                      f"{d.name}")
        if precision > -1:
            raise errors.invalid_argument("AsString", f"precision not supported for datatype {d.name}")
    return bind(AS_STRING, x, precision=int(precision), scientific=bool(scientific), shortest=bool(shortest),
                width=int(width), fill=fill)


# --- summarize (TF's Tensor::SummarizeValue for tf.strings.format and tf.print) ------------------------

def _cescape(s: bytes) -> str:
    """TF's C escaping of a string element (bytes >= 0x80 are kept; surrogate-escaped in the str)."""
    out = []
    for b in s:
        if b in _ESCAPES:
            out.append(_ESCAPES[b])
        elif b < 0x20 or b == 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b) if b < 0x80 else chr(0xDC00 + b))
    return "".join(out)


_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


def _element_formatter(dtype):
    kind = D.from_numpy(dtype)._kind
    if kind == "b":
        return lambda v: "1" if v else "0"
    if kind in "iu":
        return lambda v: str(int(v))
    if kind == "s":
        return lambda v: '"' + _cescape(v) + '"'
    if kind == "f":
        if dtype == np.float64:
            return lambda v: _shortest_float(float(v), 15, 17, float)
        return lambda v: _shortest_float(float(v), 6, 9, lambda s: float(np.float32(float(s))))
    return None  # complex and others print as '?'


def _shortest_float(v, short, full, back):
    s = f"%.{short}g" % v
    if v != v or back(s) == v:
        return s
    return f"%.{full}g" % v


def _spacing(dim, nd):
    if dim == nd - 1:
        return " "
    return "\n" * (nd - dim - 1) + " " * (dim + 1)


def summarize_value(a, summarize=3) -> str:
    """A tensor value as TF prints it (``[1 2 ... 9]``), keeping ``summarize`` entries at each end of each axis."""
    a = np.asarray(a)
    n = a.size
    limit = n if summarize is None or summarize < 0 else min(int(summarize), n)
    fmt = _element_formatter(a.dtype)
    if fmt is None:  # TF's "irregular" types: one '?' per shown element, flat
        body = " ".join("?" for _ in range(limit)) + ("..." if limit < n else "")
        return f"[{body}]" if a.ndim else body
    if a.ndim == 0:
        return (fmt(a[()]) if limit else "") + ("..." if limit < n else "")
    nd = a.ndim
    flat = a.reshape(-1)
    shape = a.shape
    strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(nd)]
    parts = []

    def dim(d, base):
        if d == nd:
            parts.append(fmt(flat[base]))
            return
        parts.append("[")
        count = shape[d]
        tail = max(limit, count - limit)
        for i in range(min(limit, count)):
            if i:
                parts.append(_spacing(d, nd))
            dim(d + 1, base + strides[d] * i)
        if count > 2 * limit:
            parts.append(_spacing(d, nd))
            parts.append("...")
        for i in range(tail, count):
            parts.append(_spacing(d, nd))
            dim(d + 1, base + strides[d] * i)
        parts.append("]")

    dim(0, 0)
    return "".join(parts)


def _format_kernel(xp, *arrays, template="", placeholder="{}", summarize=3):
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for a, rest in zip(arrays, pieces[1:]):
        out.append(summarize_value(a, summarize))
        out.append(rest)
    return _obj0("".join(out).encode("utf-8", "surrogateescape"))


STRING_FORMAT = defop("StringFormat", _format_kernel, grad=NONDIFF, host="source")


@tf_export("strings.format")
def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """Formats tensors into ``template`` at each ``placeholder``, printed as ``tf.print`` does.

    >>> tf.strings.format("x={}", [tf.constant([1, 2])]).numpy()
    b'x=[1 2]'
    """
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    xs = [t(x) for x in inputs]
    expected = template.count(placeholder)
    if expected != len(xs):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has {len(xs)}. Please ensure "
                         "the number of placeholders in template matches inputs length.")
    return bind(STRING_FORMAT, *xs, template=template, placeholder=placeholder,
                summarize=-1 if summarize is None else int(summarize))
