"""Jacobians from a tape: one backward pass per target element (row by row), then stacked.

TF vectorizes these with pfor; tensorlet loops (pfor-style vectorization can come with
``tf.vectorized_map``), which gives the same values.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.variables import Variable
from tensorlet._src.util import nest
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.array_shape import reshape
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.creation import zeros, zeros_like


def _one_hot_like(t, i):
    from tensorlet._src.framework.tensor import _wrap

    # static shape and dtype, not ``t._v``: inside ``tf.function`` the target is a graph tensor
    z = np.zeros(t.shape.as_list(), t.dtype.as_numpy_dtype)
    z.reshape(-1)[i] = 1
    return _wrap(z)


def _source_value(s):
    return s.value() if isinstance(s, Variable) else s


def jacobian(tape, target, sources, unconnected):
    target = convert_to_tensor(target)
    flat_sources = nest.flatten(sources)
    n = int(np.prod(target.shape.as_list())) if target.shape.rank else 1
    rows = [[] for _ in flat_sources]
    for i in range(n):
        gs = tape._backward([target], [_one_hot_like(target, i)], flat_sources, unconnected)
        for k, g in enumerate(gs):
            rows[k].append(g)
    out = []
    for s, col in zip(flat_sources, rows):
        sv = convert_to_tensor(_source_value(s))
        if all(g is None for g in col):
            out.append(None)
            continue
        col = [zeros_like(sv) if g is None else convert_to_tensor(g) for g in col]
        j = stack(col, 0) if col else zeros([0] + sv.shape.as_list(), sv.dtype)
        out.append(reshape(j, target.shape.as_list() + sv.shape.as_list()))
    return nest.pack_sequence_as(sources, out)


def batch_jacobian(tape, target, source, unconnected):
    """For each output position j: d(sum over the batch of target[:, j]) / d(source) -> [B, *source.shape[1:]]."""
    target = convert_to_tensor(target)
    sv = convert_to_tensor(_source_value(source))
    shape = target.shape.as_list()
    if not shape or shape[0] != sv.shape[0]:
        raise ValueError(f"Need first dimension of `target` shape ({target.shape}) and `source` shape "
                         f"({sv.shape}) to match.")
    b = shape[0]
    m = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    cols = []
    for j in range(m):
        seed = np.zeros((b, m), target.dtype.as_numpy_dtype)
        seed[:, j] = 1
        from tensorlet._src.framework.tensor import _wrap

        g, = tape._backward([target], [_wrap(seed.reshape(shape))], [source], unconnected)
        if g is None:
            cols.append(None)
        else:
            cols.append(reshape(convert_to_tensor(g), [b, -1]))
    if all(c is None for c in cols):
        return None
    cols = [zeros([b, int(np.prod(sv.shape.as_list()[1:]))], sv.dtype) if c is None else c for c in cols]
    j = stack(cols, 1)  # [B, m, prod(source rest)]
    return reshape(j, [b] + shape[1:] + sv.shape.as_list()[1:])
