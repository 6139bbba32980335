"""Top-level odds and ends of TF's API: ``no_op``, ``tuple``, ``guarantee_const``, ``timestamp``,
``inside_function``, ``is_symbolic_tensor``, ``grad_pass_through``, ``no_gradient`` / ``RegisterGradient``,
``AggregationMethod``, ``CriticalSection`` and ``nondifferentiable_batch_function``.
"""

from __future__ import annotations

import functools
import threading
import time

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework.context import ctx
from tensorlet._src.framework.tensor import EagerTensor, Tensor
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NO_GRADIENT, NONDIFF, REGISTRY, bind, defgrad, defop, tf_export
from tensorlet._src.ops.shapes import Spec


@tf_export("no_op")
def no_op(name=None):
    """Does nothing (TF returns ``None`` eagerly; inside graphs ops run in program order anyway)."""
    return None


@tf_export("tuple")
def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 - TF's name
    """The ``tensors`` (a list), each after all of them are computed; ``None`` entries stay ``None``.

    >>> [int(v) for v in tf.tuple([tf.constant(1), tf.constant(2)])]
    [1, 2]
    """
    if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors must be a list or tuple, got {type(tensors).__name__}")
    if control_inputs is not None and not isinstance(control_inputs, (list, type(()))):
        raise TypeError(f"'control_inputs' must be a list or tuple, got: {type(control_inputs).__name__}")
    return [None if x is None else array_identity.identity(x) for x in tensors]


@tf_export("guarantee_const")
def guarantee_const(input, name=None):  # noqa: A002 - TF's name
    """``input`` unchanged (a promise to the runtime that it is constant).  ``tf.guarantee_const(1.)`` -> ``1.0``."""
    return array_identity.identity(input)


def _timestamp_kernel(xp):
    return np.float64(time.time())


TIMESTAMP = defop("Timestamp", _timestamp_kernel, shape=lambda: Spec(_shape(()), D.float64), stateful=True,
                  no_lowering=True, no_lowering_reason="reads the host clock", grad=NONDIFF)


def _shape(dims):
    from tensorlet._src.framework.tensor_shape import TensorShape

    return TensorShape(dims)


@tf_export("timestamp")
def timestamp(name=None):
    """Seconds since the epoch, as a float64 scalar, when the op runs (each run in a graph reads the clock)."""
    return bind(TIMESTAMP)


@tf_export("inside_function")
def inside_function():
    """True while a ``tf.function`` (or a TF1 graph) is being built.  ``tf.inside_function()`` -> ``False``."""
    interp = ctx.interp
    return interp is not None and not getattr(interp, "eager", False)


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor):
    """True for graph tensors (inside ``tf.function``), False for eager tensors and everything else."""
    return isinstance(tensor, Tensor) and not isinstance(tensor, EagerTensor)


@tf_export("grad_pass_through")
def grad_pass_through(f):
    """``f`` whose gradient is the identity: the forward value is ``f(x)``, the backward pass skips ``f``.

    >>> x = tf.constant(3.)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tf.grad_pass_through(tf.round)(x * 2.5)
    >>> float(tape.gradient(y, x))
    2.5
    """
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        out = f(*args, **kwargs)
        flat_in = [t(a) for a in args]
        if isinstance(out, (list, type(()))):
            return type(out)(_pass(x, y) for x, y in zip(flat_in, out))
        return _pass(flat_in[0], out)
    return wrapped


def _pass(x, y):
    y = t(y)
    x = math_binary.cast(x, y.dtype) if x.dtype is not y.dtype else x
    return x + array_identity.stop_gradient(y - x)


_NO_GRADIENT_NAMES: set = set()
_REGISTERED_GRADIENTS: dict = {}


@tf_export("no_gradient")
def no_gradient(op_type):
    """Declares that op ``op_type`` has no gradient: gradients through it are ``None`` (it stops them).

    >>> tf.no_gradient("MyCustomOp")
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _NO_GRADIENT_NAMES.add(op_type)
    if op_type in REGISTRY:
        defgrad(REGISTRY[op_type], NONDIFF)


class _OpView:
    """What a ``RegisterGradient`` function receives as ``op``: the op's inputs, outputs and attributes."""

    def __init__(self, op, inputs, outputs, attrs):
        self.type = op.name
        self.name = op.name
        self.inputs = list(inputs)
        self.outputs = list(outputs) if isinstance(outputs, (list, type(()))) else [outputs]
        self._attrs = attrs

    def get_attr(self, name):
        if name not in self._attrs:
            raise ValueError(f"Operation {self.name!r} has no attr named {name!r}.")
        return self._attrs[name]


@tf_export("RegisterGradient")
class RegisterGradient:
    """Decorator registering ``f(op, *grads)`` as the gradient of op type ``op_type`` (TF's rule: an op type
    gets one gradient function; registering a second raises ``KeyError``).

    >>> @tf.RegisterGradient("MyCustomSquare")
    ... def _my_grad(op, grad):
    ...     return grad * 2.0 * op.inputs[0]
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        name = self._op_type
        op = REGISTRY.get(name)
        if name in _REGISTERED_GRADIENTS or (op is not None and op.grad not in (None, NO_GRADIENT)):
            raise KeyError(f"Registering two gradient with name '{name}'! (Previous registration was in "
                           f"{getattr(_REGISTERED_GRADIENTS.get(name), '__module__', 'tensorlet')})")
        _REGISTERED_GRADIENTS[name] = f
        if op is not None:
            def grad(g, ans, *inputs, **attrs):
                gs = g if isinstance(g, (list, type(()))) else [g]
                r = f(_OpView(op, inputs, ans, attrs), *gs)
                return r if isinstance(r, (list, type(()))) else (r,)
            defgrad(op, grad)
        return f


def registered_gradient(op_type):
    """The function ``RegisterGradient`` recorded for ``op_type`` (used by TF1's ``gradient_override_map``)."""
    return _REGISTERED_GRADIENTS.get(op_type)


@tf_export("AggregationMethod")
class AggregationMethod:
    """How gradients reaching one tensor are summed (all give the same sum here).

    ``ADD_N`` (= ``DEFAULT``) sums all at once; the experimental methods sum in a tree or as they arrive.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


@tf_export("CriticalSection")
class CriticalSection:
    """Runs functions one at a time: ``execute(fn)`` holds the section's lock while ``fn`` runs.

    >>> cs = tf.CriticalSection()
    >>> int(cs.execute(lambda: tf.constant(1) + 1))
    2
    """

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        if critical_section_def is not None:
            raise ValueError("critical_section_def is not supported (TF1 graph import)")
        self._name = name or "CriticalSection"
        self._shared_name = shared_name or self._name
        self._lock = threading.RLock()
        self._owner = None

    name = property(lambda self: self._name)

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Runs ``fn()`` inside the critical section and returns its result."""
        me = threading.get_ident()
        if self._owner == me:
            raise ValueError("Attempting to lock a CriticalSection in which we are already running. This is "
                             "illegal and may cause deadlocks.")
        with self._lock:
            self._owner = me
            try:
                return fn()
            finally:
                self._owner = None


@tf_export("nondifferentiable_batch_function")
def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10, autograph=True,
                                     enable_large_batch_splitting=True):
    """Decorator for a function that TF would batch across concurrent callers; results are the function's own
    (batching only changes throughput) and carry no gradient.

    >>> f = tf.nondifferentiable_batch_function(1, 10, 100000)(lambda x: x * 2)
    >>> f(tf.constant([1.])).numpy()
    array([2.], dtype=float32)
    """
    if allowed_batch_sizes is not None and sorted(allowed_batch_sizes) != list(allowed_batch_sizes):
        raise ValueError("allowed_batch_sizes must be sorted in ascending order.")
    if allowed_batch_sizes is not None and allowed_batch_sizes[-1] != max_batch_size:
        raise ValueError("the last entry of allowed_batch_sizes must be max_batch_size.")

    def decorator(fn):
        @functools.wraps(fn)
        def batched(*args):
            for a in args:
                if not isinstance(t(a), Tensor):
                    raise ValueError("All arguments to functions decorated with `batch_function` are supposed "
                                     "to be Tensors")
            out = fn(*args)
            if isinstance(out, (list, type(()))):
                return type(out)(array_identity.stop_gradient(o) for o in out)
            return array_identity.stop_gradient(out)
        return batched
    return decorator


from tensorlet._src.ops import array_identity, math_binary  # noqa: E402
