"""``tf.map_fn``, ``tf.scan``, ``tf.foldl``/``tf.foldr`` and ``tf.vectorized_map``.

Eagerly they loop in Python over the unstacked elements.  While tracing they become one ``tf.while_loop``
over the (static) leading dimension, writing results into TensorArray buffers, so a compiled function holds
one loop instead of an unrolled copy per element.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.graph import subgraph
from tensorlet._src.graph.control_flow import while_loop
from tensorlet._src.graph.tensor_array import TensorArray
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest
from tensorlet._src.ops.array_shape import shape
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.creation import zeros, zeros_like
from tensorlet._src.ops.gather_scatter import gather


def _is_ragged(x):
    return type(x).__name__ == "RaggedTensor"  # no import: ragged ops import this module's siblings


def _elems(elems, what):
    flat = [e if _is_ragged(e) else convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{what}: elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}")
    n = flat[0].shape[0] if flat[0].shape.rank else None
    if flat[0].shape.rank == 0:
        raise ValueError(f"{what}: elements in elems must be 1+ dimensional Tensors, not scalars")
    return flat, n


def _spec_dtypes(spec):
    if spec is None:
        return None
    return nest.map_structure(lambda s: _dt.as_dtype(getattr(s, "dtype", s)), spec)


@tf_export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each slice of ``elems`` along dim 0, results stacked.

    >>> tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 4, 9], dtype=int32)>
    """
    flat, n = _elems(elems, "map_fn")
    out_sig = fn_output_signature if fn_output_signature is not None else dtype

    def call(i):
        xs = [gather(e, i) if isinstance(i, Tensor) else e[i] for e in flat]
        return fn(nest.pack_sequence_as(elems, xs) if nest.is_nested(elems) else xs[0])

    if any(_is_ragged(e) for e in flat):  # rows differ in length: a Python loop over the static row count
        return _map_ragged(call, n, flat, out_sig)
    if not subgraph.is_tracing() or n is None:
        if n is None:
            n = int(shape(flat[0])[0])
        results = [call(i) for i in range(n)]
        if n == 0:
            if out_sig is None:
                return zeros_like(flat[0])
            return nest.map_structure(lambda d: zeros([0], dtype=d), _spec_dtypes(out_sig))
        return nest.map_structure(lambda *xs: stack(list(xs)), *results)
    first = call(0)  # traced once to learn the output structure and shapes
    flat_first = [convert_to_tensor(x) for x in nest.flatten(first)]
    tas = [TensorArray(x.dtype, size=n, element_shape=x.shape) for x in flat_first]

    def body(i, *tas_):
        out = [convert_to_tensor(x) for x in nest.flatten(call(i))]
        return (i + 1,) + tuple(ta.write(i, x) for ta, x in zip(tas_, out))

    res = while_loop(lambda i, *_: i < n, body, (convert_to_tensor(0),) + tuple(tas), maximum_iterations=n)
    stacked = [ta.stack() for ta in res[1:]]
    return nest.pack_sequence_as(first, stacked) if nest.is_nested(first) else stacked[0]


def _map_ragged(call, n, flat, out_sig):
    """``map_fn`` over RaggedTensor elems: the rows are dense slices; results stack to a RaggedTensor when the
    output signature is a ``RaggedTensorSpec`` (or, as in TF, when none is given), else to a Tensor."""
    from tensorlet._src.ops.ragged import ragged_ops

    if n is None:
        n = int(flat[0].nrows())
    results = [call(i) for i in range(n)]
    sig = out_sig if out_sig is not None else flat[0]._type_spec

    def pack(s, *xs):
        if type(s).__name__ == "RaggedTensorSpec":
            if not xs:
                return ragged_ops.constant([], dtype=s.dtype, ragged_rank=1)
            return ragged_ops.ragged_stack(list(xs))
        return stack(list(xs)) if xs else zeros([0], dtype=_dt.as_dtype(getattr(s, "dtype", s)))

    if not results:
        return nest.map_structure(pack, sig)
    return nest.map_structure(lambda s, *xs: pack(s, *xs), sig, *results)


@tf_export("vectorized_map")
def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` over the slices of ``elems`` (same results as ``map_fn``)."""
    return map_fn(fn, elems)


@tf_export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """Cumulative ``acc = fn(acc, x)`` over the slices of ``elems``; returns every ``acc`` stacked."""
    flat, n = _elems(elems, "scan")

    def elem(i):
        xs = [gather(e, i) if isinstance(i, Tensor) else e[i] for e in flat]
        return nest.pack_sequence_as(elems, xs) if nest.is_nested(elems) else xs[0]

    if not subgraph.is_tracing() or n is None:
        if n is None:
            n = int(shape(flat[0])[0])
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = initializer
        outs = []
        for k, i in enumerate(order):
            if k == 0 and initializer is None:
                acc = elem(i)
            else:
                acc = fn(acc, elem(i))
            outs.append(acc)
        if reverse:
            outs = outs[::-1]
        return nest.map_structure(lambda *xs: stack(list(xs)), *outs)
    start = 0
    if initializer is None:
        acc0 = elem(n - 1 if reverse else 0)
        start = 1
    else:
        acc0 = initializer
    acc0 = nest.map_structure(convert_to_tensor, acc0)
    flat_acc = nest.flatten(acc0)
    tas = [TensorArray(a.dtype, size=n, element_shape=a.shape) for a in flat_acc]
    if start:
        tas = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(tas, flat_acc)]
    k = len(flat_acc)

    def body(j, *state):
        accs, tas_ = state[:k], state[k:]
        i = (n - 1 - j) if reverse else j
        new = fn(nest.pack_sequence_as(acc0, list(accs)), elem(i))
        flat_new = [convert_to_tensor(x) for x in nest.flatten(new)]
        return (j + 1,) + tuple(flat_new) + tuple(ta.write(i, x) for ta, x in zip(tas_, flat_new))

    res = while_loop(lambda j, *_: j < n, body, (convert_to_tensor(start),) + tuple(flat_acc) + tuple(tas),
                     maximum_iterations=n - start)
    stacked = [ta.stack() for ta in res[1 + k:]]
    return nest.pack_sequence_as(acc0, stacked)


def _fold(fn, elems, initializer, reverse, what):
    flat, n = _elems(elems, what)

    def elem(i):
        xs = [gather(e, i) if isinstance(i, Tensor) else e[i] for e in flat]
        return nest.pack_sequence_as(elems, xs) if nest.is_nested(elems) else xs[0]

    if n is None:
        n = int(shape(flat[0])[0])
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if initializer is None:
        if not order:
            raise ValueError(f"{what}: elems must not be empty when no initializer is given")
        acc, order = elem(order[0]), order[1:]
    else:
        acc = initializer
    if not subgraph.is_tracing():
        for i in order:
            acc = fn(acc, elem(i))
        return acc
    acc = nest.map_structure(convert_to_tensor, acc)
    first = order[0] if order else 0
    step = -1 if reverse else 1
    flat_acc = nest.flatten(acc)

    def body(i, *accs):
        new = fn(nest.pack_sequence_as(acc, list(accs)), elem(i))
        return (i + step,) + tuple(convert_to_tensor(x) for x in nest.flatten(new))

    res = while_loop(lambda i, *_: (i >= 0) if reverse else (i < n), body,
                     (convert_to_tensor(first),) + tuple(flat_acc), maximum_iterations=len(order))
    return nest.pack_sequence_as(acc, list(res[1:]))


@tf_export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``fn(fn(fn(init, e0), e1), ...)`` over the slices of ``elems``."""
    return _fold(fn, elems, initializer, False, "foldl")


@tf_export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """Like ``foldl`` from the last slice to the first."""
    return _fold(fn, elems, initializer, True, "foldr")
