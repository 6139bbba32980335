"""``tf.Tensor`` and the eager tensor, plus conversion of Python/NumPy values to tensors.

An ``EagerTensor`` is a thin immutable wrapper over one array (``_v``): a NumPy
array or NumPy scalar on CPU.  The design leaves room for accelerator tensors
whose ``_v`` is a jax array: everything here reads ``_v.dtype``/``_v.shape`` only.
Python operators are installed by ``tensorlet._src.ops.operators``.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape

_new = object.__new__
CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

__all__ = ["Tensor", "EagerTensor", "convert_to_tensor", "constant", "is_tensor", "Reference"]


# Keras masks live beside tensors, not in them (slots); tensorlet/_src/keras/engine/masking.py installs its lookup
KERAS_MASK_LOOKUP = [None]


class Tensor:
    """Base class of all tensors (eager and, later, symbolic).  ``isinstance(x, tf.Tensor)``."""

    __slots__ = ()
    # NumPy defers binary operators to us: np_array + tensor -> tensor, as in TF.
    __array_priority__ = 100

    @property
    def _keras_mask(self):
        """The Keras mask a layer attached to this tensor (Keras-on-TF's ``x._keras_mask``); like TF, an
        AttributeError when there is none."""
        get = KERAS_MASK_LOOKUP[0]
        mask = None if get is None else get(self)
        if mask is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_keras_mask'")
        return mask

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self):
        """A hashable reference to this tensor (``tensor.ref()``), for dict keys and sets."""
        return Reference(self)

    experimental_ref = ref

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int:
        return self.shape.rank


class EagerTensor(Tensor):
    """A concrete tensor: a value computed eagerly."""

    __slots__ = ("_v", "__weakref__")

    # --- properties -----------------------------------------------------------
    @property
    def dtype(self) -> _dt.DType:
        return _dt._FROM_NP[self._v.dtype]

    @property
    def shape(self) -> TensorShape:
        return TensorShape._from_tuple(self._v.shape)

    @property
    def ndim(self) -> int:
        return self._v.ndim

    @property
    def device(self) -> str:
        return CPU_DEVICE

    @property
    def backing_device(self) -> str:
        return CPU_DEVICE

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    # --- values ---------------------------------------------------------------
    def numpy(self):
        """The value as a NumPy array (a copy: tensors are immutable) or NumPy scalar."""
        v = self._v
        if v.dtype.names:  # TF's quantized dtypes: NumPy sees the storage integers, as TF's numpy() gives
            v = v.view(v.dtype[0])
        if v.ndim == 0:
            return v[()]
        return v.copy()

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._v)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        if copy:
            return a.copy()
        if a.flags.writeable and a.ndim:
            a = a.view()
            a.flags.writeable = False  # a view of our value must not let users mutate the tensor
        return a

    def _scalar(self, what):
        v = self._v
        if v.ndim != 0 and v.size != 1:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return v.reshape(()) if v.ndim else v

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        v = self._v
        if v.dtype.kind not in "iub" or v.ndim != 0:
            raise TypeError(f"Only integer scalar tensors can be used as an index; got {self.dtype.name} "
                            f"tensor of shape {self.shape}")
        return int(v)

    def __bool__(self):
        return bool(self._v)

    def __len__(self):
        if self._v.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._v.shape[0]

    def __iter__(self):
        v = self._v
        if v.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (_wrap(v[i]) for i in range(v.shape[0]))

    def __format__(self, spec):
        v = self._v
        return format(v[()] if v.ndim == 0 else v, spec)

    def __repr__(self):
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={numpy_text(self._v, True)}>"

    def __str__(self):
        return f"tf.Tensor({numpy_text(self._v, False)}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return convert_to_tensor, (self.numpy(),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {TensorShape(shape)}.")

    def _rank(self):
        return self._v.ndim

    def _numpy(self):
        return self._v

    def cpu(self):
        return self

    def gpu(self, gpu_index=0):
        return self


def _wrap(a) -> EagerTensor:
    t = _new(EagerTensor)
    t._v = a
    return t


def numpy_text(v, is_repr: bool) -> str:
    """Format a value as TF does inside ``tf.Tensor(...)`` and ``<tf.Tensor ... numpy=...>``."""
    if v.dtype.names:  # quantized: printed as its storage integers
        v = v.view(v.dtype[0])
    if v.ndim == 0:
        # TF: repr shows the Python value (0.10000000149011612), str the NumPy scalar (0.1)
        s = v[()]
        if isinstance(s, bytes):
            text = repr(s)
        else:
            text = repr(s.item()) if is_repr else str(s)
    else:
        text = repr(v) if is_repr else str(v)
    if "\n" in text:
        text = "\n" + text
    return text


class Reference:
    """A hashable reference to a tensor or variable (``x.ref()``); ``deref()`` returns it."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


# --- conversion ----------------------------------------------------------------------

_PY_SCALARS = (int, float, bool, complex, str, bytes)
_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


def _first_leaf(value):
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return value


def _from_python(value) -> np.ndarray:
    """TF's inference for Python values: int -> int32 (int64 if large), float -> float32."""
    t = type(value)
    if t is float:
        if value == value and abs(value) > 3.4028234663852886e38 and value not in (float("inf"), float("-inf")):
            return np.asarray(value, np.float64)
        return np.asarray(value, np.float32)
    if t is int:
        if _I32_MIN <= value <= _I32_MAX:
            return np.asarray(value, np.int32)
        if -(2**63) <= value < 2**63:
            return np.asarray(value, np.int64)
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if t is bool:
        return np.asarray(value, np.bool_)
    if t is str:
        return _strings(value)
    if t is bytes:
        a = np.empty((), object)
        a[()] = value
        return a
    if t is complex:
        return np.asarray(value, np.complex128)
    # sequences
    leaf = _first_leaf(value)
    if isinstance(leaf, (str, bytes)):  # straight to object arrays: NumPy's 'S' dtype drops trailing b"\x00"
        try:
            return _strings(value)
        except ValueError:
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        except TypeError:  # ['a', 1]: TF refuses mixed types
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.") from None
    try:
        a = np.array(value)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    k = a.dtype.kind
    if k == "O":
        if isinstance(leaf, (str, bytes)):
            return _strings(value)
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    if k in "US":
        if not isinstance(leaf, (np.ndarray, np.generic)):  # [1, 'a']: NumPy makes it all strings, TF refuses
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        return _strings(a)
    if isinstance(leaf, (np.ndarray, np.generic, Tensor)):
        return a
    if k == "f" and a.dtype == np.float64:
        return a.astype(np.float32)
    if k == "i" and a.dtype == np.int64:
        if a.size == 0 or (a.min() >= _I32_MIN and a.max() <= _I32_MAX):
            return a.astype(np.int32)
        return a
    if k == "u":  # Python ints beyond int64 range
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if a.size == 0 and a.dtype == np.float64:
        return a.astype(np.float32)
    return a


def _strings(value) -> np.ndarray:
    a = np.array(value, dtype=object)
    flat = a.reshape(-1)
    for i, s in enumerate(flat):
        if isinstance(s, str):
            flat[i] = s.encode("utf-8")
        elif isinstance(s, np.str_):
            flat[i] = str(s).encode("utf-8")
        elif isinstance(s, np.bytes_):
            flat[i] = bytes(s)
        elif isinstance(s, (list, tuple)):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        elif not isinstance(s, bytes):
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor: mixed strings and {type(s).__name__}.")
    return a


def _to_dtype_python(value, dtype: _dt.DType) -> np.ndarray:
    """Convert a Python value to ``dtype`` with TF's checks (no float -> int), without a detour
    through TF's default types (0.1 -> float64 must not pass through float32)."""
    if dtype is _dt.string:
        return _strings(value)
    a = _from_python(value)  # for the kind checks and ragged/str errors only
    if a.size == 0:  # ``[]`` parses as float64, but there is no element to check: any dtype takes it
        return a.astype(dtype._np)
    k = a.dtype.kind
    tk = dtype._kind
    if (k == "f" and tk in "iub") or (k == "c" and tk != "c") or (k == "O"):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if tk == "b" and k != "b":
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if k == "i" and tk == "u":
        with np.errstate(over="ignore"):
            return a.astype(np.int64).astype(dtype._np)  # TF wraps (-1 -> 255)
    if k in "fc" and not isinstance(_first_leaf(value), (np.ndarray, np.generic, Tensor)):
        return np.array(value, dtype=dtype._np)  # straight from the Python floats
    return a.astype(dtype._np)


# (base_type, conversion_func) pairs of tf.register_tensor_conversion_function, by priority (tensor_conversion.py)
CONVERSIONS: list = []


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None, preferred_dtype=None) -> Tensor:
    """Converts Python values, NumPy arrays, tensors and variables to a ``Tensor``.

    >>> convert_to_tensor([1, 2]).dtype
    tf.int32
    """
    cls = value.__class__
    if cls is EagerTensor:
        if dtype is not None and _dt._FROM_NP[value._v.dtype] is not _dt.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {_dt.as_dtype(dtype).name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != _dt.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {_dt.as_dtype(dtype).name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    conv = getattr(value, "__tf_tensor__", None)
    if conv is not None and not isinstance(value, type):
        return conv(dtype=None if dtype is None else _dt.as_dtype(dtype), name=name)
    if CONVERSIONS:
        for base, fn in CONVERSIONS:
            if isinstance(value, base):
                r = fn(value, dtype=None if dtype is None else _dt.as_dtype(dtype), name=name, as_ref=False)
                if r is not NotImplemented:
                    return convert_to_tensor(r, dtype=dtype)
    if isinstance(value, (list, tuple)) and _has_symbolic(value):
        return _auto_pack(value, dtype if dtype is not None else dtype_hint)
    if dtype is not None:
        return _wrap(_value_to_array(value, _dt.as_dtype(dtype), strict=True))
    hint = dtype_hint if dtype_hint is not None else preferred_dtype
    if hint is not None:
        hint = _dt.as_dtype(hint)
        try:
            return _wrap(_value_to_array(value, hint, strict=False))
        except (TypeError, ValueError):
            pass
    return _wrap(_value_to_array(value, None, strict=False))


def _value_to_array(value, dtype, strict):
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "USO":
            a = _strings(value)
        else:
            _dt.from_numpy(value.dtype)  # raises TypeError for unsupported dtypes
            a = np.array(value)  # a copy: the user's array is not aliased
        if dtype is not None and _dt.from_numpy(a.dtype) is not dtype:
            if not strict and dtype._kind != a.dtype.kind and not (dtype._kind in "fc" and a.dtype.kind in "fiu"):
                raise TypeError("incompatible hint")
            if dtype is _dt.string or a.dtype.kind == "O":
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
            a = a.astype(dtype._np)
        return a
    if value is None:
        raise ValueError(f"Attempt to convert a value (None) with an unsupported type ({type(None)}) to a Tensor.")
    if isinstance(value, (list, tuple)) and any(isinstance(x, Tensor) for x in _leaves(value)):
        a = np.array([np.asarray(x) if isinstance(x, Tensor) else x for x in value]) \
            if not any(isinstance(x, (list, tuple)) for x in value) else np.array(_to_arrays(value))
        if dtype is not None:
            return a.astype(dtype._np)
        return _from_python(value) if a.dtype.kind == "O" else a
    if isinstance(value, _PY_SCALARS) or isinstance(value, (list, tuple)):
        if dtype is None:
            return _from_python(value)
        return _to_dtype_python(value, dtype)
    if hasattr(value, "__array__"):
        return _value_to_array(np.asarray(value), dtype, strict)
    raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a Tensor.")


def _has_symbolic(value) -> bool:
    """A list holding graph tensors whose values are unknown while tracing (TF packs them with tf.stack)."""
    return any(isinstance(x, Tensor) and x.__class__ is not EagerTensor and getattr(x, "_const", None) is None
               or hasattr(x, "__tf_tensor__") and not isinstance(x, type) for x in _leaves(value))


# Set by the ops layer (array_ops): stack_hook(list of tensors) -> tensor (TF packs lists holding graph tensors).
stack_hook = None


def _auto_pack(value, dtype):
    items = [_auto_pack(x, dtype) if isinstance(x, (list, tuple)) else x for x in value]
    first = next((x for x in items if isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")), None)
    d = dtype if dtype is not None else getattr(first, "dtype", None)
    return stack_hook([convert_to_tensor(x, dtype_hint=d) for x in items])


def _leaves(value):
    for x in value:
        if isinstance(x, (list, tuple)):
            yield from _leaves(x)
        else:
            yield x


def _to_arrays(value):
    if isinstance(value, (list, tuple)):
        return [_to_arrays(x) for x in value]
    return np.asarray(value) if isinstance(value, Tensor) else value


def constant(value, dtype=None, shape=None, name="Const") -> Tensor:
    """Creates a constant tensor (``tf.constant``); ``shape`` broadcasts a scalar or reshapes."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != _dt.as_dtype(dtype):
            raise TypeError(f"Expected tensor {value.numpy()} with dtype {_dt.as_dtype(dtype)!r}, "
                            f"but got dtype {value.dtype!r}.")
        t = value
    else:
        t = _wrap(_value_to_array(value, None if dtype is None else _dt.as_dtype(dtype), strict=True))
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        v = t._v
        n = int(np.prod(shape)) if shape else 1
        if v.size == n:
            t = _wrap(np.reshape(v, shape))
        elif v.size == 1:
            t = _wrap(np.broadcast_to(np.reshape(v, ()), shape).copy())
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {v} has {v.size} "
                            f"elements, but got `shape` {shape} with {n} elements).")
    return t


def is_tensor(x) -> bool:
    """True for tensors (and tensor-like objects such as variables), as ``tf.is_tensor``."""
    return isinstance(x, Tensor) or hasattr(x, "__tf_tensor__") and not isinstance(x, type)
