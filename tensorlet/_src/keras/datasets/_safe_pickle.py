"""Reading the pickled NumPy data some Keras datasets ship (CIFAR batches, IMDB/Reuters object arrays) WITHOUT
unpickling: the opcodes are decoded with ``pickletools`` and interpreted here for plain data only -- dicts,
lists, tuples, strings, numbers, and NumPy arrays/dtypes rebuilt by NumPy's documented reconstruction
protocol.  No module is imported and no callable from the file is ever called; anything else is refused.
"""

from __future__ import annotations

import codecs
import pickletools

import numpy as np


class UnsafePickleError(ValueError):
    """The pickle holds something other than plain data and NumPy arrays."""


_RECONSTRUCT = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")}
_FROMBUFFER = {("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer")}
_ALLOWED = _RECONSTRUCT | _FROMBUFFER | {("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
                                         ("__builtin__", "bytearray"), ("builtins", "bytearray")}


class _Global:
    def __init__(self, module, name):
        if (module, name) not in _ALLOWED:
            raise UnsafePickleError(f"Refusing to load `{module}.{name}` from a dataset file: only plain data and "
                                    "NumPy arrays are read. The file may be corrupted or malicious.")
        self.key = (module, name)


class _ArrayStub:
    def __init__(self):
        self.value = None


class _DTypeStub:
    def __init__(self, spec):
        self.spec = spec.decode("latin1") if isinstance(spec, bytes) else spec
        self.value = None


_MARK = object()


def _dtype_from_state(stub, state):
    endian = state[1]
    if isinstance(endian, bytes):
        endian = endian.decode("latin1")
    if state[2] is not None or state[3] is not None:
        raise UnsafePickleError("structured NumPy dtypes are not supported in dataset files")
    spec = stub.spec
    return np.dtype(endian + spec if endian in "<>" and spec[0] not in "<>|=" else spec)


def _value(x):
    if isinstance(x, (_ArrayStub, _DTypeStub)):
        if x.value is None:
            raise UnsafePickleError("incomplete NumPy object in dataset file")
        return x.value
    return x


def _array_from_state(state):
    _, shape, dtype, fortran, raw = state
    dtype = _value(dtype)
    shape = tuple(int(s) for s in shape)
    if dtype == np.dtype(object):
        out = np.empty(len(raw), dtype=object)
        for i, item in enumerate(raw):
            out[i] = _value(item)
        return out.reshape(shape, order="F" if fortran else "C")
    if isinstance(raw, str):  # Python 2 str unpickled with encoding="latin1"
        raw = raw.encode("latin1")
    arr = np.frombuffer(bytes(raw), dtype=dtype)
    return arr.reshape(shape, order="F" if fortran else "C").copy()


def _reduce(func, args):
    if not isinstance(func, _Global):
        raise UnsafePickleError("dataset file calls a non-allowed object")
    key = func.key
    if key in _RECONSTRUCT:
        return _ArrayStub()
    if key == ("numpy", "dtype"):
        return _DTypeStub(args[0])
    if key == ("_codecs", "encode"):
        text, encoding = args[0], args[1] if len(args) > 1 else "utf-8"
        return codecs.encode(text, encoding)
    if key in _FROMBUFFER:
        buf, dtype, shape, order = args
        arr = np.frombuffer(bytes(buf), dtype=_value(dtype))
        return arr.reshape(tuple(shape), order=order).copy()
    if key[1] == "bytearray":
        return bytearray(*args) if not (args and isinstance(args[0], str)) else bytearray(args[0], args[1])
    raise UnsafePickleError(f"dataset file calls `{key[0]}.{key[1]}`")


def _build(obj, state):
    if isinstance(obj, _ArrayStub):
        obj.value = _array_from_state(state)
    elif isinstance(obj, _DTypeStub):
        obj.value = _dtype_from_state(obj, state)
    else:
        raise UnsafePickleError("dataset file sets the state of a non-NumPy object")
    return obj


def _finish(x):
    """Replaces stubs by their arrays, recursively through containers."""
    x = _value(x)
    if isinstance(x, dict):
        return {_finish(k): _finish(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finish(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_finish(v) for v in x)
    return x


def loads(data: bytes, encoding="bytes"):
    """The plain data in pickle ``data``; Python 2 ``str`` values decode as ``bytes`` (``encoding="bytes"``)
    or with the given codec."""
    stack, memo, marks = [], {}, []

    def pop_mark():
        i = marks.pop()
        items = stack[i:]
        del stack[i:]
        return items

    def py2str(raw):
        if encoding == "bytes":
            return raw if isinstance(raw, bytes) else raw.encode("latin1")
        return raw.decode(encoding) if isinstance(raw, bytes) else raw

    for op, arg, _pos in pickletools.genops(data):
        name = op.name
        if name in ("PROTO", "FRAME"):
            continue
        if name == "STOP":
            break
        if name == "MARK":
            marks.append(len(stack))
        elif name in ("EMPTY_DICT",):
            stack.append({})
        elif name == "EMPTY_LIST":
            stack.append([])
        elif name == "EMPTY_TUPLE":
            stack.append(())
        elif name == "EMPTY_SET":
            stack.append(set())
        elif name == "TUPLE":
            stack.append(tuple(pop_mark()))
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            items = tuple(stack[-n:])
            del stack[-n:]
            stack.append(items)
        elif name == "LIST":
            stack.append(list(pop_mark()))
        elif name == "DICT":
            items = pop_mark()
            stack.append(dict(zip(items[::2], items[1::2])))
        elif name == "APPEND":
            v = stack.pop()
            stack[-1].append(v)
        elif name == "APPENDS":
            items = pop_mark()
            stack[-1].extend(items)
        elif name == "SETITEM":
            v, k = stack.pop(), stack.pop()
            stack[-1][k] = v
        elif name == "SETITEMS":
            items = pop_mark()
            for k, v in zip(items[::2], items[1::2]):
                stack[-1][k] = v
        elif name == "ADDITEMS":
            items = pop_mark()
            stack[-1].update(items)
        elif name == "FROZENSET":
            stack.append(frozenset(pop_mark()))
        elif name in ("INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT"):
            stack.append(arg)
        elif name == "NONE":
            stack.append(None)
        elif name == "NEWTRUE":
            stack.append(True)
        elif name == "NEWFALSE":
            stack.append(False)
        elif name in ("STRING", "BINSTRING", "SHORT_BINSTRING"):
            stack.append(py2str(arg))
        elif name in ("BINBYTES", "SHORT_BINBYTES", "BINBYTES8"):
            stack.append(bytes(arg))
        elif name == "BYTEARRAY8":
            stack.append(bytearray(arg))
        elif name in ("UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"):
            stack.append(arg)
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo[arg])
        elif name == "POP":
            if marks and marks[-1] == len(stack):
                marks.pop()
            else:
                stack.pop()
        elif name == "POP_MARK":
            pop_mark()
        elif name == "DUP":
            stack.append(stack[-1])
        elif name == "GLOBAL":
            module, _, attr = arg.partition(" ")
            stack.append(_Global(module, attr))
        elif name == "STACK_GLOBAL":
            attr, module = stack.pop(), stack.pop()
            stack.append(_Global(module, attr))
        elif name == "REDUCE":
            args, func = stack.pop(), stack.pop()
            stack.append(_reduce(func, tuple(args)))
        elif name == "BUILD":
            state = stack.pop()
            _build(stack[-1], state)
        else:
            raise UnsafePickleError(f"dataset file uses the pickle opcode {name}, which is not read")
    if len(stack) != 1:
        raise UnsafePickleError("malformed pickle in dataset file")
    return _finish(stack[0])


def load_npy(fp):
    """One ``.npy`` member: plain arrays with ``np.load`` rules, object arrays through ``loads``."""
    try:
        return np.lib.format.read_array(fp, allow_pickle=False)
    except ValueError:
        fp.seek(0)
        version = np.lib.format.read_magic(fp)
        if version[0] == 1:
            np.lib.format.read_array_header_1_0(fp)
        elif version[0] in (2, 3):
            np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"Unsupported `.npy` file version: {version}.") from None
        return loads(fp.read(), encoding="latin1")


def load_npz(path):
    """The arrays of an ``.npz`` file, object arrays included (read safely)."""
    import io
    import zipfile

    out = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                with archive.open(member) as raw:
                    out[member[: -len(".npy")]] = load_npy(io.BytesIO(raw.read()))
    return out
