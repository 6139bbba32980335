"""String ops that split, decode and hash: ``tf.strings.split``, ``unicode_decode``/``encode``/``split``/
``transcode``, ``bytes_split``, ``ngrams``, ``to_hash_bucket*``, ``tf.fingerprint``.

Ops that produce a variable number of pieces per string return TF's ragged components (values + row splits) and
the public functions wrap them in a ``RaggedTensor``.  Kernels loop over the object array in Python (NumPy
executor only: XLA has no strings).  FarmHash comes from ``pyfarmhash`` (TF's ``Fingerprint64``); SipHash-2-4
(TF's strong keyed hash) is written here.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors as tf_errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops.array_shape import reshape
from tensorlet._src.ops.ragged.ragged_tensor import RaggedTensor
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.shapes import Spec, with_dtype

D = _dt
STR = (D.string,)
_WS = b" \t\n\v\f\r"
_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _strings(x, op_name):
    if isinstance(x, RaggedTensor):
        return x
    x = convert_to_tensor(x, dtype=D.string)
    if x.dtype is not D.string:
        raise tf_errors.invalid_argument(op_name, f"cannot compute {op_name} as input #0(zero-based) was expected to "
                                               f"be a string tensor but is a {x.dtype.name} tensor")
    return x


def _pieces_shape(dtype):
    """Tracing rule of a splitting op on a vector of n strings: (pieces [None], row_splits [n + 1])."""
    def rule(x, *rest, **attrs):
        n = x.shape[0] if x.shape.rank else None
        return Spec(TensorShape([None]), dtype), Spec(TensorShape([None if n is None else n + 1]), D.int64)
    return rule


def _splits_of(counts):
    return np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).astype(np.int64)


def _obj(items):
    a = np.empty(len(items), object)
    a[:] = items
    return a


def _rank1_ragged(fn, x, *args, **kw):
    """Apply ``fn`` (rank-1 strings -> RaggedTensor) to strings of any rank (extra ranks become ragged rows)."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(_rank1_ragged(fn, x.flat_values, *args, **kw))
    rank = x.shape.rank
    if rank == 1:
        return fn(x, *args, **kw)
    if rank == 0:
        return fn(reshape(x, [1]), *args, **kw)[0]
    return _nest_rows(fn(reshape(x, [-1]), *args, **kw), x.shape.as_list())


def _nest_rows(rt, dims):
    """Regroup a RaggedTensor with prod(dims) rows into uniform outer dims ``dims``."""
    out = rt
    for d in reversed(dims[1:]):
        out = RaggedTensor.from_uniform_row_length(out, d)
    return out


# --- split ------------------------------------------------------------------------------------

def _split_v2_kernel(xp, x, sep, maxsplit=-1):
    pieces = []
    counts = []
    for s in x.tolist():
        if sep == b"":
            p = s.split(None, maxsplit) if maxsplit >= 0 else s.split()
        else:
            p = s.split(sep, maxsplit)
        pieces.extend(p)
        counts.append(len(p))
    return _obj(pieces), _splits_of(counts)


STRING_SPLIT_V2 = defop("StringSplitV2", _split_v2_kernel, dtypes=STR, n_out=2, grad=NONDIFF, no_lowering=True,
                        shape=_pieces_shape(D.string))


def _split1(x, sep, maxsplit):
    values, splits = bind(STRING_SPLIT_V2, x, sep=sep, maxsplit=int(maxsplit))
    return RaggedTensor.from_row_splits(values, splits, validate=False)


@tf_export("strings.split")
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TF's argument name
    """Split each string on ``sep`` (whitespace runs when None): ``tf.strings.split(["a b", "c"])``.

    >>> tf.strings.split(["hello world", "a"])
    <tf.RaggedTensor [[b'hello', b'world'], [b'a']]>
    """
    x = _strings(input, "StringSplitV2")
    sep = b"" if sep is None else (sep.encode() if isinstance(sep, str) else bytes(sep))
    return _rank1_ragged(_split1, x, sep, maxsplit)


def _bytes_split_kernel(xp, x):
    pieces, counts = [], []
    for s in x.tolist():
        pieces.extend(s[i:i + 1] for i in range(len(s)))
        counts.append(len(s))
    return _obj(pieces), _splits_of(counts)


STRING_BYTES_SPLIT = defop("StringBytesSplit", _bytes_split_kernel, dtypes=STR, n_out=2, grad=NONDIFF,
                           no_lowering=True, shape=_pieces_shape(D.string))


def _bytes1(x):
    values, splits = bind(STRING_BYTES_SPLIT, x)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


@tf_export("strings.bytes_split")
def bytes_split(input, name=None):  # noqa: A002 - TF's argument name
    """Each string as its bytes: ``tf.strings.bytes_split("hi")`` -> ``[b'h', b'i']``."""
    return _rank1_ragged(_bytes1, _strings(input, "StringBytesSplit"))


# --- unicode ----------------------------------------------------------------------------------

def _codec(op_name, encoding):
    enc = _ENCODINGS.get(str(encoding).upper())
    if enc is None:
        raise tf_errors.invalid_argument(op_name, f"Could not create converter for input encoding: {encoding}")
    return enc


def _check_errors(op_name, errs):
    if errs not in ("strict", "replace", "ignore"):
        raise tf_errors.invalid_argument(op_name, f'Value for attr \'errors\' of "{errs}" is not in the list of '
                                               'allowed values: "strict", "replace", "ignore"')


def _decode_one(s: bytes, enc, errs, repl, ctrl, op_name):
    """(code points, byte offsets) of ``s``; malformed bytes follow TF's ``errors`` policy."""
    cps, offs = [], []
    if enc == "utf-8":
        i, n = 0, len(s)
        while i < n:
            b = s[i]
            size = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF5 \
                else 0
            cp = None
            if size and i + size <= n:
                try:
                    ch = s[i:i + size].decode("utf-8")
                    cp = ord(ch)
                except UnicodeDecodeError:
                    cp = None
            if cp is None:
                if errs == "strict":
                    raise tf_errors.invalid_argument(op_name, "Invalid formatting on input string")
                if errs == "replace":
                    cps.append(repl)
                    offs.append(i)
                i += 1
                continue
            if ctrl and (cp < 0x20 or 0x7F <= cp < 0xA0):
                cp = repl
            cps.append(cp)
            offs.append(i)
            i += size
        return cps, offs
    width = 2 if enc == "utf-16-be" else 4
    try:
        text = s.decode(enc, errors="strict")
    except UnicodeDecodeError:
        if errs == "strict":
            raise tf_errors.invalid_argument(op_name, "Invalid formatting on input string") from None
        text = s.decode(enc, errors="replace" if errs == "replace" else "ignore")
    pos = 0
    for ch in text:
        cp = ord(ch)
        if cp == 0xFFFD and errs == "replace":
            cp = repl
        if ctrl and (cp < 0x20 or 0x7F <= cp < 0xA0):
            cp = repl
        cps.append(cp)
        offs.append(pos)
        pos += width * (2 if cp > 0xFFFF and width == 2 else 1)
    return cps, offs


def _decode_kernel(xp, x, input_encoding, errors="replace", replacement_char=0xFFFD,
                   replace_control_characters=False):
    enc = _ENCODINGS[input_encoding.upper()]
    cps, offs, counts = [], [], []
    for s in x.tolist():
        c, o = _decode_one(s, enc, errors, replacement_char, replace_control_characters, "UnicodeDecodeWithOffsets")
        cps.extend(c)
        offs.extend(o)
        counts.append(len(c))
    return _splits_of(counts), np.asarray(cps, np.int32), np.asarray(offs, np.int64)


def _decode_shape(x, **attrs):
    n = x.shape[0] if x.shape.rank else None
    return (Spec(TensorShape([None if n is None else n + 1]), D.int64), Spec(TensorShape([None]), D.int32),
            Spec(TensorShape([None]), D.int64))


UNICODE_DECODE = defop("UnicodeDecodeWithOffsets", _decode_kernel, dtypes=STR, n_out=3, grad=NONDIFF,
                       no_lowering=True, shape=_decode_shape)


def _decode1(x, encoding, errs, repl, ctrl, with_offsets):
    splits, cps, offs = bind(UNICODE_DECODE, x, input_encoding=encoding, errors=errs, replacement_char=int(repl),
                             replace_control_characters=bool(ctrl))
    rt = RaggedTensor.from_row_splits(cps, splits, validate=False)
    if not with_offsets:
        return rt
    return rt, RaggedTensor.from_row_splits(offs, splits, validate=False)


def _decode(input, input_encoding,  # noqa: A002
            errors_, replacement_char, replace_control_characters, with_offsets, op_name):
    x = _strings(input, op_name)
    _codec(op_name, input_encoding)
    _check_errors(op_name, errors_)
    if not with_offsets:
        return _rank1_ragged(_decode1, x, input_encoding, errors_, replacement_char, replace_control_characters,
                             False)
    pair = []

    def both(xs, *a):
        r = _decode1(xs, *a)
        pair.append(r[1])
        return r[0]

    chars = _rank1_ragged(both, x, input_encoding, errors_, replacement_char, replace_control_characters, True)
    offsets = chars.with_flat_values(pair[0].flat_values) if isinstance(chars, RaggedTensor) else pair[0][0]
    return chars, offsets


@tf_export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """Code points of each string: ``tf.strings.unicode_decode(["hé"], "UTF-8")`` -> ``[[104, 233]]``."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False,
                   "UnicodeDecode")


@tf_export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """(code points, byte offset of each character) of each string."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, True,
                   "UnicodeDecodeWithOffsets")


def _encode_chars(cps, enc, errs, repl, op_name):
    out = []
    for cp in cps:
        cp = int(cp)
        if not (0 <= cp <= 0x10FFFF) or 0xD800 <= cp <= 0xDFFF:
            if errs == "strict":
                raise tf_errors.invalid_argument(op_name, f"Code point is out of range for Unicode, or a noncharacter: "
                                                       f"{cp}")
            if errs == "ignore":
                continue
            cp = repl
        out.append(chr(cp))
    return "".join(out).encode(enc)


def _encode_kernel(xp, values, splits, output_encoding, errors="replace", replacement_char=0xFFFD):
    enc = _ENCODINGS[output_encoding.upper()]
    vals = values.tolist()
    return _obj([_encode_chars(vals[splits[i]:splits[i + 1]], enc, errors, replacement_char, "UnicodeEncode")
                 for i in range(len(splits) - 1)])


def _encode_shape(values, splits, **attrs):
    n = splits.shape[0]
    return Spec(TensorShape([None if n is None else n - 1]), D.string)


UNICODE_ENCODE = defop("UnicodeEncode", _encode_kernel, dtypes=(D.int32,), grad=NONDIFF, no_lowering=True,
                       shape=_encode_shape)


@tf_export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Strings from code points (the innermost dimension): ``unicode_encode([[104, 105]], "UTF-8")`` -> ``[b'hi']``."""
    _codec("UnicodeEncode", output_encoding)
    _check_errors("UnicodeEncode", errors)
    if isinstance(input, RaggedTensor):
        if input.ragged_rank > 1:
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        if input.values.shape.rank != 1:
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        vals = input.values
        if vals.dtype is not D.int32:
            raise tf_errors.invalid_argument("UnicodeEncode", f"input must be int32, got {vals.dtype.name}")
        return bind(UNICODE_ENCODE, vals, input.row_splits, output_encoding=output_encoding, errors=errors,
                    replacement_char=int(replacement_char))
    x = convert_to_tensor(input, dtype_hint=D.int32)
    if x.dtype is not D.int32:
        raise tf_errors.invalid_argument("UnicodeEncode", f"input must be int32, got {x.dtype.name}")
    rank = x.shape.rank
    if rank == 0:
        raise ValueError("Rank of input_tensor must be at least 1")
    dims = x.shape.as_list()
    flat = reshape(x, [-1])
    n = int(np.prod(dims[:-1]))
    splits = convert_to_tensor(np.arange(0, n * dims[-1] + 1, max(dims[-1], 1) if dims[-1] else 1, dtype=np.int64)
                               if dims[-1] else np.zeros(n + 1, np.int64))
    out = bind(UNICODE_ENCODE, flat, splits, output_encoding=output_encoding, errors=errors,
               replacement_char=int(replacement_char))
    return reshape(out, dims[:-1])


@tf_export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string split into its characters (as encoded strings): ``unicode_split("hé", "UTF-8")``."""
    cps = unicode_decode(input, input_encoding, errors, replacement_char)
    return _chars_as_strings(cps, input_encoding)


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    cps, offs = unicode_decode_with_offsets(input, input_encoding, errors, replacement_char)
    return _chars_as_strings(cps, input_encoding), offs


def _chars_as_strings(cps, encoding):
    enc = _ENCODINGS[encoding.upper()]
    flat = cps.flat_values if isinstance(cps, RaggedTensor) else cps
    strs = convert_to_tensor(_obj([chr(int(c)).encode(enc) for c in np.asarray(flat.numpy()).reshape(-1)])
                             if flat.shape.num_elements() else np.zeros([0], object), dtype=D.string)
    return cps.with_flat_values(strs) if isinstance(cps, RaggedTensor) else strs


def _transcode_kernel(xp, x, input_encoding, output_encoding, errors="replace", replacement_char=0xFFFD,
                      replace_control_characters=False):
    ienc, oenc = _ENCODINGS[input_encoding.upper()], _ENCODINGS[output_encoding.upper()]
    out = np.empty(x.shape, object)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1).tolist()):
        cps, _ = _decode_one(s, ienc, errors, replacement_char, replace_control_characters, "UnicodeTranscode")
        flat[i] = _encode_chars(cps, oenc, errors, replacement_char, "UnicodeTranscode")
    return out


UNICODE_TRANSCODE = defop("UnicodeTranscode", _transcode_kernel, dtypes=STR, grad=NONDIFF, no_lowering=True,
                          shape=with_dtype(D.string))


@tf_export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Re-encode strings: ``unicode_transcode(["hé"], "UTF-8", "UTF-16-BE")``."""
    x = _strings(input, "UnicodeTranscode")
    _codec("UnicodeTranscode", input_encoding)
    _codec("UnicodeTranscode", output_encoding)
    _check_errors("UnicodeTranscode", errors)
    return bind(UNICODE_TRANSCODE, x, input_encoding=input_encoding, output_encoding=output_encoding,
                errors=errors, replacement_char=int(replacement_char),
                replace_control_characters=bool(replace_control_characters))


# --- ngrams -----------------------------------------------------------------------------------

def _ngrams_kernel(xp, data, splits, separator=b" ", ngram_widths=(2,), left_pad=b"", right_pad=b"", pad_width=0,
                   preserve_short_sequences=False):
    vals = data.tolist()
    out, counts = [], []
    for i in range(len(splits) - 1):
        row = vals[splits[i]:splits[i + 1]]
        n0 = len(out)
        for w in ngram_widths:
            pw = pad_width if pad_width >= 0 else w - 1
            pw = min(pw, w - 1)
            padded = [left_pad] * pw + row + [right_pad] * pw
            k = len(padded) - w + 1
            for j in range(max(k, 0)):
                out.append(separator.join(padded[j:j + w]))
        if preserve_short_sequences and len(out) == n0 and row:
            pw = pad_width if pad_width >= 0 else 0
            out.append(separator.join([left_pad] * pw + row + [right_pad] * pw))
        counts.append(len(out) - n0)
    return _obj(out), _splits_of(counts)


def _ngrams_shape(data, splits, **attrs):
    return Spec(TensorShape([None]), D.string), Spec(splits.shape, D.int64)


STRING_NGRAMS = defop("StringNGrams", _ngrams_kernel, dtypes=STR, n_out=2, grad=NONDIFF, no_lowering=True,
                      shape=_ngrams_shape)


def _b(s):
    return s.encode() if isinstance(s, str) else bytes(s)


@tf_export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """N-grams of the innermost dimension: ``ngrams(["a", "b", "c"], 2)`` -> ``[b'a b', b'b c']``."""
    widths = (int(ngram_width),) if np.ndim(ngram_width) == 0 else tuple(int(w) for w in ngram_width)
    if any(w < 1 for w in widths):
        raise tf_errors.invalid_argument("StringNGrams", f"Requires ngram_width >= 1, got {ngram_width}")
    if pad_values is None:
        left = right = b""
        pw = 0
    else:
        if isinstance(pad_values, (tuple, list)):
            left, right = (_b(v) for v in pad_values)
        else:
            left = right = _b(pad_values)
        pw = -1 if padding_width is None else int(padding_width)
        if padding_width is not None and pw < 1:
            raise ValueError("padding_width must be greater than 0.")
    attrs = dict(separator=_b(separator), ngram_widths=widths, left_pad=left, right_pad=right, pad_width=pw,
                 preserve_short_sequences=bool(preserve_short_sequences))
    if isinstance(data, RaggedTensor):
        if data.ragged_rank > 1:
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values, padding_width,
                                           preserve_short_sequences))
        values, splits = bind(STRING_NGRAMS, _strings(data.values, "StringNGrams"), data.row_splits, **attrs)
        return RaggedTensor.from_row_splits(values, splits, validate=False)
    x = _strings(data, "StringNGrams")
    rank = x.shape.rank
    if rank == 0:
        raise ValueError("Data must have rank>0")
    dims = x.shape.as_list()
    n = int(np.prod(dims[:-1])) if rank > 1 else 1
    splits = convert_to_tensor(np.arange(n + 1, dtype=np.int64) * dims[-1])
    values, out_splits = bind(STRING_NGRAMS, reshape(x, [-1]), splits, **attrs)
    if rank == 1:
        return values
    rt = RaggedTensor.from_row_splits(values, out_splits, validate=False)
    ragged = _nest_rows(rt, dims[:-1])
    return ragged.to_tensor() if _uniform_counts(out_splits) else ragged


def _uniform_counts(splits):
    d = np.diff(np.asarray(splits.numpy()))
    return d.size == 0 or bool(np.all(d == d[0]))


# --- hashing ----------------------------------------------------------------------------------

def _farmhash():
    try:
        import farmhash
    except ImportError:
        raise ImportError('tf.strings.to_hash_bucket_fast and tf.fingerprint need pyfarmhash: '
                          'pip install "tensorlet[strings]"') from None
    return farmhash


def _fast_kernel(xp, x, num_buckets):
    fp = _farmhash().fingerprint64
    return _map_hash(lambda s: fp(s) % num_buckets, x)


def _map_hash(fn, x):
    out = np.empty(x.shape, np.int64)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1).tolist()):
        flat[i] = fn(s)
    return out


M64 = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` with the 128-bit key (k0, k1): TF's ``StrongKeyedHash``."""
    v0, v1, v2, v3 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, \
        k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(data)
    end = n - n % 8
    for i in range(0, end, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = int.from_bytes(data[end:] + b"\0" * (7 - n % 8), "little") | ((n & 0xFF) << 56)
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _strong_kernel(xp, x, num_buckets, key):
    k0, k1 = key
    return _map_hash(lambda s: siphash24(k0, k1, s) % num_buckets, x)


HASH_FAST = defop("StringToHashBucketFast", _fast_kernel, dtypes=STR, grad=NONDIFF, no_lowering=True,
                  shape=with_dtype(D.int64))
HASH_STRONG = defop("StringToHashBucketStrong", _strong_kernel, dtypes=STR, grad=NONDIFF, no_lowering=True,
                    shape=with_dtype(D.int64))


def _buckets(num_buckets, op_name):
    n = int(num_buckets)
    if n < 1:
        raise tf_errors.invalid_argument(op_name, f"Value for attr 'num_buckets' of {n} must be at least minimum 1")
    return n


@tf_export("strings.to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF's argument name
    """FarmHash Fingerprint64 of each string modulo ``num_buckets`` (TF's buckets exactly)."""
    x = _strings(input, "StringToHashBucketFast")
    return bind(HASH_FAST, x, num_buckets=_buckets(num_buckets, "StringToHashBucketFast"))


@tf_export("strings.to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002 - TF's argument name
    """SipHash-2-4 keyed by ``key`` (two uint64) of each string modulo ``num_buckets``."""
    x = _strings(input, "StringToHashBucketStrong")
    key = [int(k) for k in key]
    if len(key) != 2:
        raise tf_errors.invalid_argument("StringToHashBucketStrong", f"Key must have 2 elements, got {len(key)}")
    return bind(HASH_STRONG, x, num_buckets=_buckets(num_buckets, "StringToHashBucketStrong"),
                key=(key[0] & M64, key[1] & M64))


def _fingerprint_kernel(xp, x, method="farmhash64"):
    fp = _farmhash().fingerprint64
    n = x.shape[0] if x.ndim else 1
    rows = x.reshape(n, -1)
    out = np.zeros((n, 8), np.uint8)
    for i in range(n):
        row = rows[i]
        if row.dtype == object:
            # TF hashes a row of strings as the fingerprints of each string, combined
            # one string: its fingerprint; several: the fingerprint of their fingerprints (TF's rule)
            h = fp(row[0]) if row.size == 1 else fp(b"".join(fp(s).to_bytes(8, "little") for s in row.tolist()))
        else:
            h = fp(np.ascontiguousarray(row).tobytes())
        out[i] = np.frombuffer(h.to_bytes(8, "little"), np.uint8)
    return out


def _fingerprint_shape(x, **attrs):
    return Spec(TensorShape([x.shape[0] if x.shape.rank else None, 8]), D.uint8)


FINGERPRINT = defop("Fingerprint", _fingerprint_kernel, grad=NONDIFF, no_lowering=True, shape=_fingerprint_shape)


@tf_export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """Fingerprint of each row of ``data``: ``uint8`` ``[N, 8]`` (FarmHash Fingerprint64, little-endian)."""
    if method != "farmhash64":
        raise tf_errors.invalid_argument("Fingerprint", f"Unsupported fingerprint method: {method}")
    x = convert_to_tensor(data)
    if x.shape.rank == 0:
        raise tf_errors.invalid_argument("Fingerprint", "`data` should have at least one dimension: []")
    return bind(FINGERPRINT, x, method=method)
