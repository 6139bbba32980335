"""space_to_depth/depth_to_space, dynamic_partition/dynamic_stitch, invert_permutation, histogram_fixed_width."""

import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf

ALL = ("float32", "float64", "int32", "bool")


def _s2d_ref(x, b=2):
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h // b, w // b, b * b * c)


def _d2s_ref(x, b=2):
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h * b, w * b, c // (b * b))


def _s2b_ref(x, block, pads):
    # out[k * batch + n, i, ...] = padded[n, i * b + o, ...] with k the row-major index of the block offsets o
    m = len(block)
    xp = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)] * (x.ndim - 1 - m))
    outs = []
    for off in np.ndindex(*block):
        outs.append(xp[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(off, block))])
    return np.concatenate(outs, axis=0)


def _b2s_ref(x, block, crops):
    m = len(block)
    batch = x.shape[0] // int(np.prod(block))
    full = np.zeros((batch,) + tuple(d * b for d, b in zip(x.shape[1:1 + m], block)) + x.shape[1 + m:], x.dtype)
    for k, off in enumerate(np.ndindex(*block)):
        full[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(off, block))] = x[k * batch:(k + 1) * batch]
    return full[(slice(None),) + tuple(slice(c0, full.shape[1 + i] - c1) for i, (c0, c1) in enumerate(crops))]


def _partition_gen(rng, shapes, dtype):
    from opcheck import make

    data = make(rng, shapes[0], dtype)
    parts = rng.integers(0, 3, size=shapes[1]).astype(np.int32)
    return [data, parts]


def _partition_ref(data, parts):
    return [data[parts == i] for i in range(3)]


def _stitch_gen(rng, shapes, dtype):
    from opcheck import make

    # indices drawn with repeats across the two inputs, so "later indices win" is exercised
    i0 = rng.permutation(6)[:4].astype(np.int32)
    i1 = rng.integers(0, 6, size=(3,)).astype(np.int32)
    return [i0, i1, make(rng, (4,) + shapes[0], dtype), make(rng, (3,) + shapes[0], dtype)]


def _stitch_ref(i0, i1, d0, d1):
    n = int(max(i0.max(), i1.max())) + 1
    out = np.zeros((n,) + d0.shape[1:], d0.dtype)
    out[i0] = d0
    for k, j in enumerate(i1):
        out[j] = d1[k]
    return out


def _stitch_unique_gen(rng, shapes, dtype):
    from opcheck import make

    perm = rng.permutation(7).astype(np.int32)
    return [perm[:4], perm[4:], make(rng, (4,) + shapes[0], dtype), make(rng, (3,) + shapes[0], dtype)]


def _perm_gen(rng, shapes, dtype):
    return [rng.permutation(shapes[0][0]).astype(dtype)]


def _hist_ref(values, rng_, nbins=7):
    v = values.astype(np.float64)
    lo, hi = float(rng_[0]), float(rng_[1])
    idx = np.clip(np.floor((v - lo) / ((hi - lo) / nbins)), 0, nbins - 1).astype(np.int64).ravel()
    return np.bincount(idx, minlength=nbins).astype(np.int32)


def _hist_gen(rng, shapes, dtype):
    from opcheck import make

    return [make(rng, shapes[0], dtype, (-4, 4)), np.array([-2, 3], dtype)]


CASES = [
    Case(lambda x: tf.nn.space_to_depth(x, 2), _s2d_ref, [((2, 4, 6, 3),), ((1, 2, 2, 1),), ((0, 2, 4, 2),)], ALL,
         ops=("SpaceToDepth",)),
    Case(lambda x: tf.nn.space_to_depth(x, 3), lambda x: _s2d_ref(x, 3), [((1, 3, 6, 2),)], ("float64",),
         ops=("SpaceToDepth",), id="space_to_depth_3"),
    Case(lambda x: tf.nn.depth_to_space(x, 2), _d2s_ref, [((2, 2, 3, 8),), ((1, 1, 1, 4),), ((0, 1, 2, 4),)], ALL,
         ops=("DepthToSpace",)),
    Case(lambda x: tf.nn.space_to_depth(x, 2, data_format="NCHW"),
         lambda x: _s2d_ref(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2), [((1, 3, 4, 2),)], ("float32",),
         ops=("SpaceToDepth",), id="space_to_depth_nchw"),
    Case(lambda d, p: tf.dynamic_partition(d, p, 3), _partition_ref, [((7,), (7,)), ((4, 3), (4,)), ((2, 3, 2), (2, 3)),
                                                                      ((0, 2), (0,))],
         ("float32", "float64", "int32"), gen=_partition_gen, ops=("DynamicPartition",)),
    Case(lambda i0, i1, d0, d1: tf.dynamic_stitch([i0, i1], [d0, d1]), _stitch_ref, [((),), ((2,),), ((2, 0),)],
         ("float32", "float64", "int64"), gen=_stitch_gen, ops=("DynamicStitch",),
         grad=False),  # TF's gradient is a plain gather: overwritten entries get gradient, unlike finite differences
    Case(lambda i0, i1, d0, d1: tf.dynamic_stitch([i0, i1], [d0, d1]), _stitch_ref, [((),), ((2,),)], ("float64",),
         gen=_stitch_unique_gen, ops=("DynamicStitch",), id="dynamic_stitch_unique"),
    Case(tf.math.invert_permutation, lambda x: np.argsort(x).astype(x.dtype), [((5,),), ((1,),), ((0,),)],
         ("int32", "int64"), gen=_perm_gen, ops=("InvertPermutation",)),
    Case(lambda v, r: tf.histogram_fixed_width(v, r, nbins=7), _hist_ref, [((20,), (2,)), ((3, 4), (2,)), ((0,), (2,))],
         ("float32", "float64", "int32"), gen=_hist_gen, ops=("HistogramFixedWidth",)),
    Case(lambda v, r: tf.histogram_fixed_width(v, r, nbins=7, dtype=tf.int64),
         lambda v, r: _hist_ref(v, r).astype(np.int64), [((10,), (2,))], ("float32",), gen=_hist_gen,
         ops=("HistogramFixedWidth",), id="histogram_int64"),
]

S2B = [((1, 4, 6, 2), (2, 2), ((1, 1), (0, 2))), ((2, 4, 6, 3, 2), (2, 3, 1), ((0, 2), (1, 2), (0, 1))),
       ((3, 4), (2,), ((0, 0),)), ((2, 0, 2), (2,), ((0, 2),))]
B2S = [((8, 2, 3, 1), (2, 2), ((1, 0), (0, 2))), ((12, 2, 1, 3), (3, 2, 1), ((0, 2), (1, 1), (0, 0))),
       ((4, 3), (2,), ((0, 0),)), ((4, 0, 2), (2,), ((0, 0),))]
for _shape, _block, _pads in S2B:
    CASES.append(Case(lambda x, b=_block, p=_pads: tf.space_to_batch_nd(x, b, p), lambda x, b=_block, p=_pads:
                      _s2b_ref(x, b, p), [(_shape,)], ("float32", "float64", "int32"), ops=("SpaceToBatchND",),
                      id=f"space_to_batch_nd_{len(_shape)}d"))
for _shape, _block, _crops in B2S:
    CASES.append(Case(lambda x, b=_block, c=_crops: tf.batch_to_space(x, b, c), lambda x, b=_block, c=_crops:
                      _b2s_ref(x, b, c), [(_shape,)], ("float32", "float64", "int32"), ops=("BatchToSpaceND",),
                      id=f"batch_to_space_{len(_shape)}d"))
CASES.append(Case(lambda x: tf.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]),
                  lambda x: _s2b_ref(x, (2, 2), ((0, 0), (0, 0))), [((1, 2, 4, 1),)], ("float32",),
                  ops=("SpaceToBatchND",), id="nn_space_to_batch"))
CASES.append(Case(lambda x: tf.batch_to_space(x, 2, [[0, 0], [0, 0]]), lambda x: _b2s_ref(x, (2, 2), ((0, 0), (0, 0))),
                  [((4, 2, 2, 1),)], ("float32",), ops=("BatchToSpaceND",), id="batch_to_space_int_block"))

X4 = np.zeros((2, 4, 6, 3), np.float32)
ERRORS = [
    Err(lambda: tf.nn.space_to_depth(X4, 3), tf.errors.InvalidArgumentError, "should be divisible by block_size"),
    Err(lambda: tf.nn.space_to_depth(X4, 1), tf.errors.InvalidArgumentError, "must be at least minimum 2"),
    Err(lambda: tf.nn.depth_to_space(X4, 2), tf.errors.InvalidArgumentError, "Input depth dimension 3 should be"),
    Err(lambda: tf.nn.space_to_depth(X4[0], 2), tf.errors.InvalidArgumentError, "Input rank should be 4 instead of 3"),
    Err(lambda: tf.dynamic_partition([1., 2, 3], [0, 1, 2], 2), tf.errors.InvalidArgumentError,
        r"partitions\[2\] = 2 is not in \[0, 2\)"),
    Err(lambda: tf.dynamic_partition([1., 2, 3], [0, 1], 2), tf.errors.InvalidArgumentError,
        "data.shape must start with partitions.shape"),
    Err(lambda: tf.dynamic_stitch([[0, 1]], [[1., 2, 3]]), tf.errors.InvalidArgumentError,
        r"data\[0\].shape = \[3\] does not start with indices\[0\].shape = \[2\]"),
    Err(lambda: tf.dynamic_stitch([[0, 1], [2.5]], [[1., 2], [3.]]), TypeError, "int32"),
    Err(lambda: tf.math.invert_permutation([0, 0, 1]), tf.errors.InvalidArgumentError, "0 is duplicated in the input"),
    Err(lambda: tf.math.invert_permutation([[0]]), tf.errors.InvalidArgumentError, "expects a 1D vector"),
    Err(lambda: tf.math.invert_permutation([0., 1.]), tf.errors.InvalidArgumentError, "int32, int64"),
    Err(lambda: tf.space_to_batch(X4[:1], [3, 3], [[0, 0], [0, 0]]), tf.errors.InvalidArgumentError,
        r"padded_shape\[0\]=4 is not divisible by block_shape\[0\]=3"),
    Err(lambda: tf.space_to_batch(X4, [2, 2], [[0, 0]]), tf.errors.InvalidArgumentError,
        r"paddings should have shape \[2, 2\] instead of \[1, ?2\]"),
    Err(lambda: tf.space_to_batch(X4, [0, 2], [[0, 0], [0, 0]]), tf.errors.InvalidArgumentError,
        "All values in block_shape must be positive"),
    Err(lambda: tf.space_to_batch(X4, [2, 2], [[-1, 0], [0, 0]]), tf.errors.InvalidArgumentError,
        "Paddings must be non-negative"),
    Err(lambda: tf.space_to_batch(X4, [2, 2, 2, 2], [[0, 0]] * 4), tf.errors.InvalidArgumentError,
        "input rank should be >= 5 instead of 4"),
    Err(lambda: tf.batch_to_space(X4[:1], [3, 3], [[0, 0], [0, 0]]), tf.errors.InvalidArgumentError,
        r"Input batch dimension \(1\) is not divisible by product of block sizes \(9\)"),
    Err(lambda: tf.batch_to_space(np.zeros((4, 2, 2, 1)), [2, 2], [[0, 0], [0, 5]]), tf.errors.InvalidArgumentError,
        r"cropped_shape\[1\]=-1 must be non-negative"),
    Err(lambda: tf.histogram_fixed_width([1., 2, 3], [5., 0.]), tf.errors.InvalidArgumentError,
        r"value_range\[0\] < value_range\[1\]"),
    Err(lambda: tf.histogram_fixed_width([1., 2, 3], [0., 5.], nbins=0), tf.errors.InvalidArgumentError,
        "nbins should be a positive number"),
    Err(lambda: tf.histogram_fixed_width([1., 2, 3], [0., 5., 3.], nbins=2), tf.errors.InvalidArgumentError,
        "value_range should be a vector of 2 elements"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_get_static_value():
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(3) == 3


def test_partition_gradient_matches_tf():
    d = tf.constant([1., 2, 3, 4])
    with tf.GradientTape() as tape:
        tape.watch(d)
        o = tf.dynamic_partition(d, tf.constant([1, 0, 1, 0]), 2)
        loss = tf.reduce_sum(o[0] * 3.) + tf.reduce_sum(o[1] * o[1])
    np.testing.assert_allclose(tape.gradient(loss, d).numpy(), [2., 3., 6., 3.])  # real TF's values


def test_stitch_gradient_matches_tf():
    a, b = tf.constant([1., 2]), tf.constant([3., 4.])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        loss = tf.reduce_sum(tf.dynamic_stitch([[0, 1], [1, 2]], [a, b]) * tf.constant([1., 2, 3]))
    ga, gb = tape.gradient(loss, [a, b])
    # TF's gradient is a plain gather: overwritten entries still receive gradient
    np.testing.assert_allclose(ga.numpy(), [1., 2.])
    np.testing.assert_allclose(gb.numpy(), [2., 3.])
test_compiled = compiled_tests(CASES)
