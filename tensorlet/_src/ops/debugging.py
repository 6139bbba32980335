"""``tf.debugging``: assertions, ``check_numerics``, ``tf.Assert`` and ``tf.print``.

Assertions are composites: eagerly they compute their condition with tensorlet ops and raise
``InvalidArgumentError`` (``ValueError``/``TypeError`` for static checks) with TF's eager message
layout, and return None as TF does.  Three primitives remain: ``Assert`` (raises in its ``check``,
so any interpreter that runs checks enforces it; lowered to nothing, as XLA drops TF's Assert),
``CheckNumerics`` and ``PrintV2`` (NumPy only).
"""

from __future__ import annotations

import sys

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.context import executing_eagerly
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

D = _dt
_BIG = 10**9  # "print everything" (TF treats a negative summarize so)


def _fail(message):
    """An InvalidArgumentError with TF's eager assertion message, then the user's line."""
    return errors.InvalidArgumentError(None, None, message + errors.user_location())


def _prefix(message):
    return f"{message}.  " if message else ""


def _shape_and_dtype(x):
    return f"shape={x.shape} dtype={x.dtype.name}"


# --- Assert --------------------------------------------------------------------------------

def _summarize_eager(v, summarize):
    """One data item as TF's eager Assert prints it: ``1, 2, 3, ...``."""
    v = np.asarray(v)
    if v.ndim:
        flat = v.reshape(-1)
        items = [str(e) for e in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return ", ".join(items)
    return str(v[()]) if summarize != 0 else ""


def _summarize_legacy(v, summarize):
    """One data item as TF's Assert kernel prints it in graphs: ``1 2 3...`` (strings unquoted)."""
    v = np.asarray(v)
    flat = v.reshape(-1)
    items = [e.decode("utf-8", "replace") if isinstance(e, bytes) else str(e) for e in flat[:summarize].tolist()]
    return " ".join(items) + ("..." if len(items) < flat.size else "")


def _assert_check(cond, *data, summarize=3, label=None):
    if bool(np.all(cond._v)):
        return
    if label is not None:  # eager: TF's Python-side message
        text = "\n".join(_summarize_eager(d._v, summarize) for d in data)
        raise _fail(f"Expected '{label}' to be true. Summarized data: {text}")
    text = " ".join(f"[{_summarize_legacy(d._v, summarize)}]" for d in data)
    raise errors.invalid_argument("Assert", f"assertion failed: {text}")


ASSERT = defop("Assert", lambda xp, cond, *data, **attrs: (), n_out=None, check=_assert_check, grad=NONDIFF,
               stateful=True, host="sink")


def _summarize_arg(summarize):
    summarize = static(summarize)
    if summarize is None:
        return 3
    return _BIG if summarize < 0 else int(summarize)


@tf_export("debugging.Assert", "Assert")
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raises InvalidArgumentError listing ``data`` when ``condition`` is false; returns None eagerly.

    >>> tf.debugging.Assert(True, ["never printed"])
    """
    data = [t(d) for d in data]
    s = _summarize_arg(summarize)
    if executing_eagerly():
        label = str(condition)
        ok = bool(condition)  # TF's truth test: a tensor of several elements raises ValueError
        return _bind_assert(t(ok), data, s, label)
    return _bind_assert(t(condition), data, s, None)


def _bind_assert(cond, data, summarize, label):
    bind(ASSERT, cond, *data, summarize=summarize, label=label)
    return None


def _graph_assert(cond, data, summarize):
    from tensorlet._src.ops.reduce import reduce_all

    return _bind_assert(reduce_all(cond), [t(d) for d in data], summarize, None)


# --- elementwise comparisons ---------------------------------------------------------------------

def _pretty(item, summarize):
    """A data item of an eager elementwise assertion, as TF prints it."""
    if isinstance(item, Tensor):
        v = np.asarray(item._v)
        if v.ndim == 0:
            return str(v[()])
        flat = v.reshape(-1)
        items = [str(e) for e in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _difference_data(sym, x, y, cond, summarize):
    data = [f"Condition x {sym} y did not hold."]
    if summarize <= 0:
        return data
    xv, yv, cv = np.asarray(x._v), np.asarray(y._v), np.asarray(cond._v)
    if xv.shape == yv.shape and xv.ndim:
        bad = ~cv
        idx = np.argwhere(bad)
        n = min(summarize, idx.shape[0])
        data += [f"Indices of first {n} different values:", idx[:n], "Corresponding x values:",
                 xv[bad].reshape(-1)[:n], "Corresponding y values:", yv[bad].reshape(-1)[:n]]
    xf, yf = xv.reshape(-1), yv.reshape(-1)
    nx, ny = min(xf.size, summarize), min(yf.size, summarize)
    data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return data


def _binary_assert(sym, compare, x, y, message, summarize, data=None):
    x, y = t(x), t(y)
    cond = compare(x, y)
    s = _summarize_arg(summarize)
    if not executing_eagerly():
        if data is None:
            data = [message or "", f"Condition x {sym} y did not hold element-wise:", "x = ", x, "y = ", y]
        return _graph_assert(cond, data, s)
    if bool(np.all(cond._v)):
        return None
    if data is None:
        data = _difference_data(sym, x, y, cond, s)
    if message is not None:
        data = [message] + list(data)
    raise _fail("\n".join(_pretty(d, s) for d in data))


def _compare(name):
    def compare(x, y):
        from tensorlet._src.ops import math_binary

        return getattr(math_binary, name)(x, y)
    return compare


@tf_export("debugging.assert_equal", "assert_equal")
def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x == y`` elementwise (with broadcasting).

    >>> tf.debugging.assert_equal([1, 2], [1, 2])
    """
    return _binary_assert("==", _compare("equal"), x, y, message, summarize)


@tf_export("debugging.assert_none_equal")
def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """Raises InvalidArgumentError unless ``x != y`` everywhere.  ``tf.debugging.assert_none_equal(1, 2)``."""
    return _binary_assert("!=", _compare("not_equal"), x, y, message, summarize)


@tf_export("debugging.assert_less", "assert_less")
def assert_less(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x < y`` elementwise.  ``tf.debugging.assert_less(1, 2)``."""
    return _binary_assert("<", _compare("less"), x, y, message, summarize)


@tf_export("debugging.assert_less_equal")
def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x <= y`` elementwise.  ``tf.debugging.assert_less_equal(1, 1)``."""
    return _binary_assert("<=", _compare("less_equal"), x, y, message, summarize)


@tf_export("debugging.assert_greater", "assert_greater")
def assert_greater(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x > y`` elementwise.  ``tf.debugging.assert_greater(2, 1)``."""
    return _binary_assert(">", _compare("greater"), x, y, message, summarize)


@tf_export("debugging.assert_greater_equal")
def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x >= y`` elementwise.  ``tf.debugging.assert_greater_equal(1, 1)``."""
    return _binary_assert(">=", _compare("greater_equal"), x, y, message, summarize)


def _sign_assert(x, message, summarize, sym, cmp_name, zero_first, sep="\n"):
    x = t(x)
    if x.dtype._kind in "sb":
        raise TypeError(f"Cannot convert 0 to EagerTensor of dtype {x.dtype.name}")
    zero = t(np.zeros((), x.dtype._np))
    head = f"Condition x {sym} 0 did not hold element-wise:"
    xdesc = f"x ({_shape_and_dtype(x)}) = "
    data = [_prefix(message)] + ([head, xdesc] if sep == "\n" else [head + xdesc]) + [x]
    a, b = (zero, x) if zero_first else (x, zero)
    return _binary_assert(sym, _compare(cmp_name), a, b, None, summarize, data=data)


@tf_export("debugging.assert_positive")
def assert_positive(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element is > 0.  ``tf.debugging.assert_positive([1, 2])``."""
    return _sign_assert(x, message, summarize, ">", "less", True)


@tf_export("debugging.assert_negative")
def assert_negative(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element is < 0.  ``tf.debugging.assert_negative([-1])``."""
    return _sign_assert(x, message, summarize, "<", "less", False)


@tf_export("debugging.assert_non_negative")
def assert_non_negative(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element is >= 0.  ``tf.debugging.assert_non_negative([0])``."""
    return _sign_assert(x, message, summarize, ">=", "less_equal", True)


@tf_export("debugging.assert_non_positive")
def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element is <= 0.  ``tf.debugging.assert_non_positive([0])``."""
    # TF's message lacks the line break after "element-wise:" here; kept for identical output.
    return _sign_assert(x, message, summarize, "<=", "less_equal", False, sep="")


@tf_export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``|x - y| <= atol + rtol * |y|`` everywhere (default tolerances 10 eps).

    >>> tf.debugging.assert_near([1.0, 2.0], [1.0, 2.0000001])
    """
    from tensorlet._src.ops import math_binary as mb
    from tensorlet._src.ops.math_unary import abs as _abs

    x = t(x)
    y = t(y, x.dtype)
    d = x.dtype
    if d._kind not in "fc":
        raise ValueError(f"data type {d.as_numpy_dtype} not inexact")
    real = d.real_dtype
    eps = float(real._info().eps)
    rtol = t(10 * eps if rtol is None else rtol, real)
    atol = t(10 * eps if atol is None else atol, real)
    tol = mb.add(atol, mb.multiply(rtol, _abs(y)))
    cond = mb.less_equal(_abs(mb.subtract(x, y)), tol)
    data = [_prefix(message), f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({_shape_and_dtype(x)}) = ", x, f"y ({_shape_and_dtype(y)}) = ", y]
    if not executing_eagerly():
        return _graph_assert(cond, data, _summarize_arg(summarize))
    return Assert(t(bool(np.all(cond._v))), data, summarize=summarize)


# --- static checks: rank, shape, dtype ---------------------------------------------------------------

def _rank_value(rank):
    r = rank if isinstance(rank, Tensor) else t(rank)
    if r.dtype is not D.int32:
        raise TypeError(f"tensor must be of type tf.int32; got tf.{r.dtype.name}")
    if r.ndim:
        raise ValueError("Rank must be a scalar.")
    return int(r._v)


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, message=None, name=None):
    """Raises ValueError unless ``x`` has rank ``rank``.  ``tf.debugging.assert_rank([[1]], 2)``."""
    x = t(x)
    r = _rank_value(rank)
    if x.ndim != r:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {r}.  Received rank {x.ndim}, shape {x.shape}")


@tf_export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None):
    """Raises ValueError unless ``x`` has rank >= ``rank``.  ``tf.debugging.assert_rank_at_least([[1]], 1)``."""
    x = t(x)
    r = _rank_value(rank)
    if x.ndim < r:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {r}.  Received rank {x.ndim}, "
                         f"shape {x.shape}")


@tf_export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None):
    """Raises ValueError unless the rank of ``x`` is one of ``ranks``.  ``tf.debugging.assert_rank_in([1], [0, 1])``."""
    x = t(x)
    rs = tuple(_rank_value(r) for r in ranks)
    if x.ndim not in rs:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {rs}.  Received rank {x.ndim}, "
                         f"shape {x.shape}")


@tf_export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None):
    """Raises ValueError unless ``tensor`` is a scalar.  ``tf.debugging.assert_scalar(3)``."""
    x = t(tensor)
    if x.ndim:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {x.shape}.")


@tf_export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """Raises TypeError unless ``tensor`` has dtype ``tf_type``.  ``tf.debugging.assert_type(1.0, tf.float32)``."""
    x = t(tensor)
    want = D.as_dtype(tf_type)
    if x.dtype is not want:
        raise TypeError(f"{_prefix(message)}tensor must be of type tf.{want.name}; got tf.{x.dtype.name}")


@tf_export("debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """Raises TypeError unless ``x`` has an integer dtype.  ``tf.debugging.assert_integer([1])``."""
    x = t(x)
    if not x.dtype.is_integer:
        raise TypeError(f"{_prefix(message)}Expected \"x\" to be integer type.  Found: tensor of dtype "
                        f"<dtype: '{x.dtype.name}'>")


@tf_export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """True for a tensor of a numeric (integer, floating or complex) dtype.  ``is_numeric_tensor([1])`` is False."""
    return isinstance(tensor, Tensor) and tensor.dtype._kind in "fiuc"


@tf_export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``); ValueError if they differ or are not floats."""
    found = dtype
    first = None
    for x in tensors or ():
        if found is None:
            found, first = x.dtype, x
        elif x.dtype != found:
            where = f" as {first!s}" if first is not None else ""
            raise ValueError(f"{x!s}, type={x.dtype}, must be of the same type ({found}){where}.")
    if found is None:
        return D.float32
    found = D.as_dtype(found)
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found}.")
    return found


@tf_export("debugging.assert_proper_iterable")
def assert_proper_iterable(values):
    """TypeError unless ``values`` is a non-string, non-tensor, non-ndarray iterable."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks tensors against shape specs with shared symbols; ValueError on mismatch.

    >>> tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "Q")), (tf.zeros([2]), ("N",))])
    """
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = _prefix(message)
    bound = {}  # symbol -> (size, described tensor, dimension index)
    for x, spec in items:
        x = t(x)
        spec = list(spec)
        desc = _shape_and_dtype(x)
        dims = list(x.shape.as_list())
        ellipsis = False
        for i, s in enumerate(spec):
            if s is Ellipsis or (isinstance(s, str) and s == "*"):
                if i:
                    raise ValueError(f"Tensor {desc} specified shape index {i}.  Symbol `...` or `*` for a variable "
                                     "number of unspecified dimensions is only allowed as the first entry")
                ellipsis = True
        if ellipsis:
            spec = spec[1:]
            if len(dims) < len(spec):
                raise ValueError(f"{prefix}Tensor  must have rank at least {len(spec)}.  Received rank {len(dims)}, "
                                 f"shape {x.shape}")
            pairs = [(i - len(spec), dims[len(dims) - len(spec) + i], s) for i, s in enumerate(spec)]
        else:
            if len(spec) <= 1:  # TF lets a scalar stand for a shape of one dimension
                if len(dims) > 1:
                    raise ValueError(f"{prefix}Tensor  must have rank in (0, 1).  Received rank {len(dims)}, "
                                     f"shape {x.shape}")
                dims = dims or [1]
            elif len(dims) != len(spec):
                raise ValueError(f"{prefix}Tensor  must have rank {len(spec)}.  Received rank {len(dims)}, "
                                 f"shape {x.shape}")
            pairs = [(i, dims[i], s) for i, s in enumerate(spec)]
        for i, size, s in pairs:
            if s is None or (isinstance(s, str) and s in (".", "")):
                continue
            if isinstance(s, str):
                if s not in bound:
                    bound[s] = (size, desc, i)
                    continue
                want, by, j = bound[s]
                source = f"Specified by tensor {by} dimension {j}."
            else:
                want, source = int(s), "Specified explicitly."
            if size is not None and size != want:
                raise ValueError(f"{prefix}{source}  Tensor {desc} dimension {i} must have size {want}.  "
                                 f"Received size {size}, shape {x.shape}")


# --- numerics ------------------------------------------------------------------------------------

def _check_numerics(x, message=""):
    v = x._v
    bad_nan = bool(np.isnan(v).any())
    bad_inf = bool(np.isinf(v).any())
    if bad_nan or bad_inf:
        what = "Inf and NaN" if bad_nan and bad_inf else "NaN" if bad_nan else "Inf"
        raise errors.invalid_argument("CheckNumerics", f"{message} : Tensor had {what} values")


def _check_numerics_grad(g, ans, x, message=""):
    """TF's gradient: the upstream gradient, itself checked for NaN/Inf.  TF formats the message
    attr as bytes, so the text reads ``... in gradient. b'msg' : Tensor had NaN values``."""
    return check_numerics(g, "Not a number (NaN) or infinity (Inf) values detected in gradient. "
                             f"{message.encode('utf-8')!r}")


CHECK_NUMERICS = defop("CheckNumerics", lambda xp, x, message="": x, check=_check_numerics, located=True,
                       dtypes=(D.bfloat16, D.float16, D.float32, D.float64), grad=_check_numerics_grad)


@tf_export("debugging.check_numerics")
def check_numerics(tensor, message, name=None):
    """Returns ``tensor``; raises InvalidArgumentError (with ``message``) if it holds NaN or Inf.

    >>> tf.debugging.check_numerics(tf.constant([1.0]), "bad").numpy()
    array([1.], dtype=float32)
    """
    return bind(CHECK_NUMERICS, t(tensor), message=str(message))


@tf_export("debugging.assert_all_finite")
def assert_all_finite(x, message, name=None):
    """``check_numerics``: returns ``x``, or raises InvalidArgumentError naming NaN/Inf values."""
    return check_numerics(x, message)


_LOG_DEVICE_PLACEMENT = [False]


@tf_export("debugging.set_log_device_placement")
def set_log_device_placement(enabled):
    """Records whether op placements should be logged (tensorlet accepts the flag; it logs nothing)."""
    _LOG_DEVICE_PLACEMENT[0] = bool(enabled)


@tf_export("debugging.get_log_device_placement")
def get_log_device_placement():
    """The flag set by ``set_log_device_placement``."""
    return _LOG_DEVICE_PLACEMENT[0]


_TRACEBACK_FILTERING = [True]


@tf_export("debugging.enable_traceback_filtering")
def enable_traceback_filtering():
    """Accepted for compatibility: tensorlet's errors already name the user's line."""
    _TRACEBACK_FILTERING[0] = True


@tf_export("debugging.disable_traceback_filtering")
def disable_traceback_filtering():
    """Accepted for compatibility (see ``enable_traceback_filtering``)."""
    _TRACEBACK_FILTERING[0] = False


@tf_export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled():
    """The flag set by ``enable_traceback_filtering``/``disable_traceback_filtering``."""
    return _TRACEBACK_FILTERING[0]


# --- tf.print ------------------------------------------------------------------------------------

_LOG_LEVELS = {"info": "log(info)", "warning": "log(warning)", "warn": "log(warning)", "error": "log(error)",
               "fatal": "log(error)", "critical": "log(error)"}


def _stream_name(stream):
    if stream is sys.stdout or stream is sys.__stdout__:
        return "stdout"
    if stream is sys.stderr or stream is sys.__stderr__:
        return "stderr"
    if isinstance(stream, str) and stream.startswith("file://"):
        return stream
    fn = getattr(stream, "__name__", None)
    if callable(stream) and fn in _LOG_LEVELS and "logging" in (getattr(stream, "__module__", "") or ""):
        return _LOG_LEVELS[fn]
    raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. Supported streams are sys.stdout, "
                     "sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. File needs to be in the form "
                     "of 'file://<filepath>'.")


def _print_kernel(xp, s, output_stream="stderr", end="\n"):
    text = np.asarray(s)[()].decode("utf-8", "replace") + end
    if output_stream == "stdout":
        sys.stdout.write(text)
        sys.stdout.flush()
    elif output_stream == "stderr":
        sys.stderr.write(text)
        sys.stderr.flush()
    elif output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
    else:
        import logging

        level = output_stream[4:-1]
        getattr(logging, level)(text.rstrip("\n") if end == "\n" else text)
    return ()


PRINT_V2 = defop("PrintV2", _print_kernel, n_out=None, dtypes=(D.string,), grad=NONDIFF, stateful=True,
                  host="sink")


def _keys(d):
    return sorted(d) if type(d) is dict else list(d)  # pprint sorts plain dicts only


def _flatten(x):
    if isinstance(x, dict):
        return [leaf for k in _keys(x) for leaf in _flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _flatten(v)]
    return [x]


def _pack(x, leaves):
    if isinstance(x, dict):
        return type(x)((k, _pack(x[k], leaves)) for k in _keys(x))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[_pack(v, leaves) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_pack(v, leaves) for v in x)
    return next(leaves)


def _is_tensor(x):
    return isinstance(x, Tensor) or (hasattr(x, "__tf_tensor__") and not isinstance(x, type))


@tf_export("print")
def print(*inputs, **kwargs):  # noqa: A001 - TF's name
    """Prints tensors (TF's formatting: ``[1 2 3]``) and Python values; strings print as they are.

    Keyword arguments: ``output_stream`` (default ``sys.stderr``; also ``sys.stdout`` or
    ``"file://path"``), ``summarize`` (entries kept at each end of each axis, default 3; -1 for
    all), ``sep`` (default ``" "``) and ``end`` (default ``"\\n"``).

    >>> tf.print("x:", tf.constant([1, 2]), output_stream=sys.stdout)
    x: [1 2]
    """
    import pprint

    from tensorlet._src.ops.strings_ops import format as string_format

    allowed = {"output_stream", "summarize", "sep", "end", "name"}
    unknown = {k: v for k, v in kwargs.items() if k not in allowed}
    if unknown:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {unknown}")
    stream = _stream_name(kwargs.get("output_stream", sys.stderr))
    summarize = kwargs.get("summarize", 3)
    sep = kwargs.get("sep", " ")
    end = kwargs.get("end", "\n")
    if len(inputs) == 1 and _is_tensor(inputs[0]) and t(inputs[0]).dtype is D.string and t(inputs[0]).ndim == 0:
        formatted = t(inputs[0])
    else:
        free = " ".join(pprint.pformat(_pack(x, iter(["" if _is_tensor(v) else v for v in _flatten(x)])))
                        for x in inputs)
        placeholder = "{}"
        k = 0
        while placeholder in free:
            placeholder = "{" + str(k) + "}"
            k += 1
        templates, tensors = [], []
        for x in inputs:
            if isinstance(x, str):
                templates.append(x)
                continue
            leaves = []
            for v in _flatten(x):
                if _is_tensor(v):
                    tensors.append(t(v))
                    leaves.append(placeholder)
                else:
                    leaves.append(v)
            templates.append(pprint.pformat(_pack(x, iter(leaves))))
        template = sep.join(templates).replace(repr(placeholder), placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder, summarize=summarize)
    bind(PRINT_V2, formatted, output_stream=stream, end=end)
    return None
