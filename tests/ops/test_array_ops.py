"""Shape manipulation, shape queries, one_hot, where, einsum and tensordot against NumPy, plus TF's errors."""

import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops.array_blocks import MIRROR_PAD_GRAD
from tensorlet._src.ops.registry import bind

FLOATS = ("float16", "bfloat16", "float32", "float64")
MIXED = ("float32", "int32", "bool", "complex64", "bfloat16")


def _ints(lo, hi):
    """A generator of int32 index arrays in [lo, hi)."""
    return lambda rng, shapes, dtype: [rng.integers(lo, hi, size=s).astype(dtype) for s in shapes]


def _pad_ref(mode, c=0):
    def ref(x):
        p = [[1, 2], [0, 1]][:x.ndim]
        if mode == "constant":
            return np.pad(x, p, constant_values=c)
        return np.pad(x, p, mode=mode)
    return ref


def _mirror_fold_ref(paddings, mode):
    """MirrorPadGrad by its definition: each padded position adds into the input position it was copied from."""
    def ref(g):
        for ax, (a, b) in enumerate(paddings):
            d = g.shape[ax] - a - b
            src = np.pad(np.arange(d), (a, b), mode=mode)  # input index of each padded position
            out = np.zeros(g.shape[:ax] + (d,) + g.shape[ax + 1:], g.dtype)
            np.add.at(np.moveaxis(out, ax, 0), src, np.moveaxis(g, ax, 0))
            g = out
        return g
    return ref


def _one_hot_ref(depth, axis=-1, on=1.0, off=0.0, dtype=np.float32):
    def ref(i):
        ax = i.ndim if axis == -1 else axis
        r = np.arange(depth).reshape((depth,) + (1,) * (i.ndim - ax))
        return np.where(np.expand_dims(i, ax) == r, on, off).astype(dtype)
    return ref


def _unravel_ref(dims):
    def ref(i):
        return np.stack(np.unravel_index(i, dims)).astype(i.dtype)
    return ref


def _seq_mask_ref(maxlen):
    def ref(lens):
        m = int(lens.max()) if maxlen is None else maxlen
        return np.arange(m) < lens[..., None]
    return ref


def _select_gen(rng, shapes, dtype):
    return [rng.random(shapes[0]) < 0.5] + [make(rng, s, dtype) for s in shapes[1:]]


def _bcast_args(rng, shapes, dtype):
    return [np.array([2, 1, 3], dtype), np.array([4, 1], dtype)]


CASES = [
    # reshape / transpose / expand_dims / squeeze
    Case(lambda x: tf.reshape(x, [3, -1]), lambda x: x.reshape(3, -1), [((2, 3),), ((6, 1),)], MIXED,
         ops=("Reshape",), id="reshape"),
    Case(lambda x: tf.reshape(x, []), lambda x: x.reshape(()), [((1,),), ((1, 1),)], ("float32",),
         ops=("Reshape",), id="reshape_scalar"),
    Case(lambda x: tf.reshape(x, tf.constant([0, 5], tf.int64)), lambda x: x.reshape(0, 5), [((5, 0),)],
         ("int64",), ops=("Reshape",), id="reshape_empty"),
    Case(lambda x: tf.reshape(x, [-1, 0]), lambda x: x.reshape(3, 0), [((0, 3),)], ("float32",),
         ops=("Reshape",), id="reshape_zero_elements"),
    Case(tf.transpose, lambda x: x.T, [((2, 3),), ((2, 3, 4),), ((),), ((0, 2),)], MIXED, ops=("Transpose",)),
    Case(lambda x: tf.transpose(x, [1, 2, 0]), lambda x: x.transpose(1, 2, 0), [((2, 3, 4),)], ("float64",),
         ops=("Transpose",), id="transpose_perm"),
    Case(lambda x: tf.transpose(x, conjugate=True), lambda x: np.conj(x.T), [((2, 3),)], ("complex64",),
         ops=("ConjugateTranspose",), id="transpose_conjugate"),
    Case(lambda x: tf.expand_dims(x, -1), lambda x: x[..., None], [((2, 3),), ((),)], MIXED, ops=("ExpandDims",),
         id="expand_dims"),
    Case(lambda x: tf.expand_dims(x, [1]), lambda x: np.expand_dims(x, 1), [((2, 3),)], ("int64",),
         ops=("ExpandDims",), id="expand_dims_list"),
    Case(tf.squeeze, np.squeeze, [((1, 2, 1),), ((1,),), ((3,),)], MIXED, ops=("Squeeze",)),
    Case(lambda x: tf.squeeze(x, [-1, 0]), lambda x: np.squeeze(x, (0, 2)), [((1, 2, 1),)], ("float32",),
         ops=("Squeeze",), id="squeeze_axes"),
    # concat / stack / unstack / split
    Case(lambda x, y: tf.concat([x, y], 0), lambda x, y: np.concatenate([x, y], 0),
         [((2, 3), (1, 3)), ((0, 2), (3, 2)), ((1,), (1,))], MIXED, ops=("ConcatV2",), id="concat"),
    Case(lambda x, y, z: tf.concat([x, y, z], -1), lambda x, y, z: np.concatenate([x, y, z], -1),
         [((2, 1), (2, 3), (2, 0))], ("float64",), ops=("ConcatV2",), id="concat_3"),
    Case(lambda x: tf.concat([x, [[1.0, 2.0]]], 0), lambda x: np.concatenate([x, [[1.0, 2.0]]], 0).astype(x.dtype),
         [((2, 2),)], ("float32", "float16"), ops=("ConcatV2",), id="concat_python_adopts_dtype"),
    Case(lambda x, y: tf.stack([x, y]), lambda x, y: np.stack([x, y]), [((2, 3), (2, 3)), ((), ())], MIXED,
         ops=("Pack",), id="stack"),
    Case(lambda x, y: tf.stack([x, y], axis=-1), lambda x, y: np.stack([x, y], -1), [((2, 3), (2, 3))],
         ("int32",), ops=("Pack",), id="stack_last"),
    Case(tf.unstack, lambda x: list(x), [((3, 2),), ((1,),)], MIXED, ops=("Unpack",)),
    Case(lambda x: tf.unstack(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)), [((2, 3, 2),)], ("float32",),
         ops=("Unpack",), id="unstack_axis"),
    Case(lambda x: tf.split(x, 3), lambda x: np.split(x, 3), [((6,),), ((3, 2),), ((0,),)], MIXED, ops=("Split",),
         id="split"),
    Case(lambda x: tf.split(x, [1, -1, 2], axis=1), lambda x: np.split(x, [1, 4], axis=1), [((2, 6),)],
         ("float32", "int64"), ops=("SplitV",), id="split_sizes"),
    # tile / repeat / pad / slice / reverse / roll
    Case(lambda x: tf.tile(x, [2, 3]), lambda x: np.tile(x, (2, 3)), [((2, 3),), ((0, 1),)], MIXED, ops=("Tile",),
         id="tile"),
    Case(lambda x: tf.tile(x, []), lambda x: x, [((),)], ("float32",), ops=("Tile",), id="tile_scalar"),
    Case(lambda x: tf.repeat(x, 2), lambda x: np.repeat(x, 2), [((2, 3),), ((),)], ("float32", "int32"),
         ops=("Reshape", "GatherV2"), id="repeat"),
    Case(lambda x: tf.repeat(x, [1, 0, 3], axis=1), lambda x: np.repeat(x, [1, 0, 3], axis=1), [((2, 3),)],
         ("float64",), ops=("GatherV2",), id="repeat_list"),
    Case(lambda x: tf.pad(x, [[1, 2], [0, 1]][:x.ndim]), _pad_ref("constant"), [((2, 3),), ((3,),)], MIXED,
         ops=("Pad",), id="pad"),
    Case(lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=7), _pad_ref("constant", 7), [((2, 3),)],
         ("float32", "int32"), ops=("PadV2",), id="pad_value"),
    Case(lambda x: tf.pad(x, [[1, 2], [0, 1]], "reflect"), _pad_ref("reflect"), [((3, 3),)], ("float32", "int64"),
         ops=("MirrorPad",), id="pad_reflect"),
    Case(lambda x: tf.pad(x, [[1, 2], [0, 1]], mode="Symmetric"), _pad_ref("symmetric"), [((2, 3),)],
         ("float64",), ops=("MirrorPad",), id="pad_symmetric"),
    Case(lambda g: bind(MIRROR_PAD_GRAD, g, paddings=((1, 2), (0, 1), (2, 0)), mode="REFLECT"),
         _mirror_fold_ref(((1, 2), (0, 1), (2, 0)), "reflect"), [((6, 3, 5),)], ("float32", "float64", "int32"),
         ops=("MirrorPadGrad",), id="mirror_pad_grad_reflect"),
    Case(lambda g: bind(MIRROR_PAD_GRAD, g, paddings=((2, 2), (1, 0)), mode="SYMMETRIC"),
         _mirror_fold_ref(((2, 2), (1, 0)), "symmetric"), [((6, 3),), ((8, 2),)], ("float64", "complex64"),
         ops=("MirrorPadGrad",), id="mirror_pad_grad_symmetric"),
    Case(lambda x: tf.slice(x, [1, 0], [-1, 2]), lambda x: x[1:, 0:2], [((3, 4),), ((1, 2),)], MIXED,
         ops=("Slice",), id="slice"),
    Case(lambda x: tf.reverse(x, [0, -1]), lambda x: x[::-1, ::-1], [((2, 3),), ((0, 2),)], MIXED,
         ops=("ReverseV2",), id="reverse"),
    Case(lambda x: tf.roll(x, [1, -4], [0, 1]), lambda x: np.roll(x, (1, -4), (0, 1)), [((3, 5),)], MIXED,
         ops=("Roll",), id="roll"),
    Case(lambda x: tf.roll(x, [1, 2], [0, 0]), lambda x: np.roll(x, 3, 0), [((5,),)], ("int32",), ops=("Roll",),
         id="roll_repeated_axis"),
    # broadcasting
    Case(lambda x: tf.broadcast_to(x, [4, 2, 3]), lambda x: np.broadcast_to(x, (4, 2, 3)), [((2, 3),), ((1, 3),),
                                                                                           ((),)], MIXED,
         ops=("BroadcastTo",), id="broadcast_to"),
    Case(tf.broadcast_dynamic_shape, lambda a, b: np.array(np.broadcast_shapes(tuple(a), tuple(b)), a.dtype),
         [((3,), (2,))], ("int32", "int64"), gen=_bcast_args, ops=("BroadcastArgs",)),
    # shape queries, identity
    Case(tf.shape, lambda x: np.array(x.shape, np.int32), [((2, 3),), ((),), ((0, 4, 1),)], MIXED, ops=("Shape",)),
    Case(lambda x: tf.shape(x, out_type=tf.int64), lambda x: np.array(x.shape, np.int64), [((2, 3),)],
         ("float32",), ops=("Shape",), id="shape_int64"),
    Case(lambda x, y: tf.shape_n([x, y]), lambda x, y: [np.array(x.shape, np.int32), np.array(y.shape, np.int32)],
         [((2, 3), ())], ("float32",), ops=("ShapeN",), id="shape_n"),
    Case(tf.size, lambda x: np.array(x.size, np.int32), [((2, 3),), ((),), ((0, 4),)], MIXED, ops=("Size",)),
    Case(lambda x: tf.size(x, tf.int64), lambda x: np.array(x.size, np.int64), [((2, 3),)], ("float32",),
         ops=("Size",), id="size_int64"),
    Case(tf.rank, lambda x: np.array(x.ndim, np.int32), [((2, 3),), ((),)], MIXED, ops=("Rank",)),
    Case(tf.identity, lambda x: x, [((2, 3),), ((),)], MIXED, ops=("Identity",)),
    Case(lambda x, y: tf.identity_n([x, y]), lambda x, y: [x, y], [((2,), (3, 1))], ("int32", "float64"),
         ops=("IdentityN",), id="identity_n"),
    Case(tf.stop_gradient, lambda x: x, [((2, 3),)], ("float32",), ops=("StopGradient",)),
    Case(lambda x: tf.ensure_shape(x, [None, 3]), lambda x: x, [((2, 3),)], ("float32",), ops=("EnsureShape",),
         id="ensure_shape"),
    # sequence_mask / one_hot
    Case(lambda n: tf.sequence_mask(n, 5), _seq_mask_ref(5), [((3,),), ((2, 2),)], ("int32", "int64"),
         gen=_ints(0, 6), ops=("Range", "Less", "ExpandDims"), id="sequence_mask"),
    Case(tf.sequence_mask, _seq_mask_ref(None), [((4,),)], ("int32",), gen=_ints(1, 6), ops=("Range", "Less"),
         id="sequence_mask_default_maxlen"),
    Case(lambda n: tf.sequence_mask(n, 4, dtype=tf.float32), lambda n: _seq_mask_ref(4)(n).astype(np.float32),
         [((3,),)], ("int32",), gen=_ints(0, 5), ops=("Range", "Less", "Cast"), id="sequence_mask_float"),
    Case(lambda i: tf.one_hot(i, 4), _one_hot_ref(4), [((5,),), ((2, 3),), ((),)], ("int32", "int64", "uint8",
                                                                                     "int8"),
         gen=_ints(-1, 6), ops=("OneHot",), id="one_hot"),
    Case(lambda i: tf.one_hot(i, 3, axis=0), _one_hot_ref(3, 0), [((2, 4),)], ("int32",), gen=_ints(0, 3),
         ops=("OneHot",), id="one_hot_axis0"),
    Case(lambda i: tf.one_hot(i, 3, on_value=5, off_value=-1, axis=1), _one_hot_ref(3, 1, 5, -1, np.int32),
         [((2, 4),)], ("int64",), gen=_ints(0, 3), ops=("OneHot",), id="one_hot_values"),
    Case(lambda i: tf.one_hot(i, 3, dtype=tf.bool), _one_hot_ref(3, -1, True, False, bool),
         [((4,),)], ("int32",), gen=_ints(0, 4), ops=("OneHot",), id="one_hot_bool"),
    # where
    Case(tf.where, lambda c: np.argwhere(c).astype(np.int64), [((2, 3),), ((4,),), ((0, 2),)],
         ("bool", "float32"), domain=(-1, 1), ops=("Where",)),
    Case(lambda c, x, y: tf.where(c, x, y), np.where, [((2, 3), (2, 3), (2, 3)), ((2, 1), (3,), ()),
                                                       ((), (2,), (2,))], ("bool",), ops=("SelectV2",),
         id="where_select_bool"),
    Case(lambda c, x, y: tf.where(c, x, y), np.where, [((2, 3), (2, 3), (2, 3)), ((4, 1), (3,), (1,))],
         ("float32", "int64", "complex64", "bfloat16"), gen=_select_gen, ops=("SelectV2",), id="where_select"),
    # einsum / tensordot
    Case(lambda a, b: tf.einsum("ij,jk->ik", a, b), lambda a, b: np.einsum("ij,jk->ik", a, b),
         [((2, 3), (3, 4)), ((0, 3), (3, 2))], ("float32", "float64", "int32", "complex64"), ops=("Einsum",),
         id="einsum"),
    Case(lambda a, b: tf.linalg.einsum("...ij,...jk->...ik", a, b), lambda a, b: a @ b,
         [((5, 2, 3), (3, 4))], ("float32",), ops=("Einsum",), id="einsum_ellipsis"),
    Case(lambda a: tf.einsum("ii", a), lambda a: np.trace(a), [((3, 3),)], ("float64",), ops=("Einsum",),
         id="einsum_trace"),
    Case(lambda a, b: tf.einsum("iij,j->ij", a, b), lambda a, b: np.einsum("iij,j->ij", a, b),
         [((3, 3, 2), (2,))], ("float64",), ops=("Einsum",), id="einsum_diagonal"),
    Case(lambda a, b: tf.einsum("abc,cd->ad", a, b), lambda a, b: np.einsum("abc,cd->ad", a, b),
         [((2, 3, 4), (4, 2))], ("float64",), ops=("Einsum",), id="einsum_reduced_label"),
    Case(lambda a, b: tf.einsum("...ij,...jk->...ik", a, b), lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
         [((2, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (2, 1, 3, 2))], ("float64",), ops=("Einsum",),
         id="einsum_ellipsis_broadcast"),
    Case(lambda a, b: tf.einsum("ij,jk", a, b), lambda a, b: np.einsum("ij,jk", a, b), [((2, 3), (3, 4))],
         ("float64",), ops=("Einsum",), id="einsum_implicit"),
    Case(lambda a, b, c: tf.einsum("ij,jk,kl->li", a, b, c), lambda a, b, c: np.einsum("ij,jk,kl->li", a, b, c),
         [((2, 3), (3, 4), (4, 2))], ("float64",), ops=("Einsum",), id="einsum_three"),
    Case(lambda a: tf.einsum("ijk->kj", a), lambda a: np.einsum("ijk->kj", a), [((2, 3, 4),)], ("float64",),
         ops=("Einsum",), id="einsum_unary_reduce_transpose"),
    Case(lambda a, b: tf.einsum("bij,bjk->bik", a, b), lambda a, b: np.einsum("bij,bjk->bik", a.astype(np.float32),
                                                                             b.astype(np.float32)).astype(a.dtype),
         [((2, 2, 3), (2, 3, 2))], ("bfloat16", "float16"), ops=("Einsum",), id="einsum_half"),
    Case(lambda a, b: tf.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1), [((2, 3), (3, 4)), ((3,), (3,))],
         ("float32", "int32"), ops=("MatMul", "Reshape", "Transpose"), id="tensordot"),
    Case(lambda a, b: tf.linalg.tensordot(a, b, [[1, 2], [1, 0]]), lambda a, b: np.tensordot(a, b, [[1, 2], [1, 0]]),
         [((2, 3, 4), (4, 3, 5))], ("float64",), ops=("MatMul",), id="tensordot_pairs"),
    Case(lambda a, b: tf.tensordot(a, b, 0), lambda a, b: np.tensordot(a, b, 0), [((2,), (3,))], ("float32",),
         ops=("MatMul",), id="tensordot_outer"),
    # unravel_index
    Case(lambda i: tf.unravel_index(i, [2, 3, 4]), _unravel_ref((2, 3, 4)), [((5,),), ((),), ((2, 2),)],
         ("int32", "int64"), gen=_ints(0, 24), ops=("UnravelIndex",), id="unravel_index"),
]


_x = tf.reshape(tf.range(6), [2, 3])
IAE = tf.errors.InvalidArgumentError

ERRORS = [
    Err(lambda: tf.reshape(tf.range(4), [3]), IAE,
        r"Input to reshape is a tensor with 4 values, but the requested shape has 3 \[Op:Reshape\]"),
    Err(lambda: tf.reshape(tf.range(6), [-1, 4]), IAE, "requested shape requires a multiple of 4"),
    Err(lambda: tf.reshape(tf.range(6), [-1, -1]), IAE, "Only one input size may be -1, not both 0 and 1"),
    Err(lambda: tf.reshape(tf.range(6), [-2, -3]), IAE, "Size 0 must be non-negative, not -2"),
    Err(lambda: tf.reshape(_x, [1.0]), IAE, "Value for attr 'Tshape' of float"),
    Err(lambda: tf.transpose(_x, [0]), IAE, "transpose expects a vector of size 2. But input.1. is a vector of size 1"),
    Err(lambda: tf.transpose(_x, [0, 2]), IAE, r"2 is out of range \[0 .. 2\)"),
    Err(lambda: tf.transpose(_x, [0, 0]), IAE, "1 is missing from {0,0}"),
    Err(lambda: tf.expand_dims(_x, 3), IAE, r"Tried to expand dim index 3 for tensor with 2 dimensions. \[Op:Expand"),
    Err(lambda: tf.expand_dims(_x, [1, 2]), IAE, "'dim' must be a tensor with a single value"),
    Err(lambda: tf.squeeze(tf.zeros([1, 2, 1]), [1]), IAE, "Can not squeeze dim.1., expected a dimension of 1, got 2"),
    Err(lambda: tf.squeeze(tf.zeros([1, 2, 1]), [3]), IAE, "Tried to squeeze dim index 3 for tensor with 3 dim"),
    Err(lambda: tf.concat([_x, tf.zeros([2, 4], tf.int32)], 0), IAE,
        r"ConcatOp : Dimension 1 in both shapes must be equal: shape\[0\] = \[2,3\] vs. shape\[1\] = \[2,4\]"),
    Err(lambda: tf.concat([_x, tf.zeros([2], tf.int32)], 0), IAE, "Ranks of all input tensors should match"),
    Err(lambda: tf.concat([_x, tf.zeros([2, 3])], 0), IAE,
        r"cannot compute ConcatV2 as input #1\(zero-based\) was expected to be a int32 tensor but is a float"),
    Err(lambda: tf.concat([_x, _x], 2), IAE, r"Expected concatenating dimensions in the range \[-2, 2\), but got 2"),
    Err(lambda: tf.concat([1, 2], 0), IAE, "Can't concatenate scalars"),
    Err(lambda: tf.stack([_x, tf.zeros([3, 2], tf.int32)]), IAE,
        r"Shapes of all inputs must match: values\[0\].shape = \[2,3\] != values\[1\].shape = \[3,2\] \[Op:Pack\]"),
    Err(lambda: tf.stack([_x, _x], 3), ValueError, r"Argument `axis` = 3 not in range \[-3, 3\)"),
    Err(lambda: tf.stack([tf.constant(1), tf.constant(2.0)]), IAE, "cannot compute Pack as input #1"),
    Err(lambda: tf.unstack(_x, num=3), IAE, r"Input shape axis 0 must equal 3, got shape \[2,3\]"),
    Err(lambda: tf.unstack(tf.constant(1)), ValueError, r"Argument `axis` = 0 not in range \[0, 0\)"),
    Err(lambda: tf.split(tf.range(6), 4), IAE, "Number of ways to split should evenly divide the split dimension"),
    Err(lambda: tf.split(tf.range(6), [1, 2]), IAE, "Determined shape must either match input shape"),
    Err(lambda: tf.split(tf.range(6), [-1, -1]), IAE, "There can only be one -1 in the input."),
    Err(lambda: tf.split(tf.range(6), 0), IAE, "Value for attr 'num_split' of 0 must be at least minimum 1"),
    Err(lambda: tf.tile(_x, [2]), IAE, "Expected multiples argument to be a vector of length 2 but got length 1"),
    Err(lambda: tf.tile(_x, [-1, 2]), IAE, r"Expected multiples\[0\] >= 0, but got -1"),
    Err(lambda: tf.repeat(_x, [1, 2, 3], axis=0), ValueError, "Dimensions 2 and 3 are not compatible"),
    Err(lambda: tf.pad(_x, [[2, 2], [0, 0]], "REFLECT"), IAE,
        "paddings must be less than the dimension size: 2, 2 not less than 2"),
    Err(lambda: tf.pad(_x, [[3, 0], [0, 0]], "SYMMETRIC"), IAE,
        "paddings must be no greater than the dimension size: 3, 0 greater than 2"),
    Err(lambda: tf.pad(_x, [[1, 1], [2, 2]], "EDGE"), ValueError, "Value of argument `mode` expected to be one of"),
    Err(lambda: tf.pad(_x, [[1, 1]]), IAE,
        r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,3\]"),
    Err(lambda: tf.pad(_x, [[-1, 1], [0, 0]]), IAE, "Paddings must be non-negative: -1 1"),
    Err(lambda: tf.pad(_x, [[1, 0], [0, 0]], constant_values=1.5), TypeError, "Cannot convert 1.5 to EagerTensor"),
    Err(lambda: tf.slice(_x, [0, 1], [3, -1]), IAE, r"Expected size\[0\] in \[0, 2\], but got 3"),
    Err(lambda: tf.slice(_x, [0, 1], [1]), IAE, "Expected begin and size arguments to be 1-D tensors of size 2"),
    Err(lambda: tf.slice(_x, [-1, 0], [1, 1]), IAE, r"Expected begin\[0\] in \[0, 2\], but got -1"),
    Err(lambda: tf.reverse(_x, [1, 1]), IAE, "axis 1 specified more than once."),
    Err(lambda: tf.reverse(_x, [2]), IAE, r"'axis'\[0\] = 2 is out of valid range \[0, 1"),
    Err(lambda: tf.reverse(_x, 1), IAE, "'dims' must be 1-dimension, not 0"),
    Err(lambda: tf.roll(tf.range(5), [1, 2], [0]), IAE, "shift and axis must have the same size"),
    Err(lambda: tf.roll(tf.range(5), 1, 1), IAE, r"axis 1 is out of range \[Op:Roll\]"),
    Err(lambda: tf.broadcast_to([1, 2], [3, 3]), IAE, r"Incompatible shapes: \[2\] vs. \[3,3\] \[Op:BroadcastTo\]"),
    Err(lambda: tf.broadcast_to(tf.zeros([3]), [1]), IAE, r"Unable to broadcast tensor of shape \[3\] to tensor of"),
    Err(lambda: tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3])), ValueError,
        r"Incompatible shapes for broadcasting.*Received: \(2,\) and \(3,\)\."),
    Err(lambda: tf.broadcast_dynamic_shape([2], [3]), IAE, r"Incompatible shapes: \[2\] vs. \[3\] \[Op:BroadcastArgs"),
    Err(lambda: tf.shape(_x, out_type=tf.float32), IAE, "Value for attr 'out_type' of float is not in the list"),
    Err(lambda: tf.ensure_shape(_x, [2, 4]), IAE,
        r"Shape of tensor input \[2,3\] is not compatible with expected shape \[2,4\]. \[Op:EnsureShape\]"),
    Err(lambda: tf.ensure_shape(_x, [2]), IAE, r"is not compatible with expected shape \[2\]"),
    Err(lambda: tf.sequence_mask([1, 3], -1), IAE, "Requires start <= limit when delta > 0: 0/-1"),
    Err(lambda: tf.one_hot([0, 2], 3, on_value=5.0, off_value=-1), TypeError,
        "dtype <dtype: 'float32'> of on_value does not match dtype <dtype: 'int32'> of off_value"),
    Err(lambda: tf.one_hot([0, 2], 3, on_value=1.0, dtype=tf.int64), TypeError,
        "dtype <dtype: 'float32'> of on_value does not match dtype parameter <dtype: 'int64'>"),
    Err(lambda: tf.one_hot([0.0, 2.0], 3), IAE, "Value for attr 'TI' of float is not in the list of allowed values"),
    Err(lambda: tf.one_hot([0, 2], -1), IAE, "depth must be non-negative, got: -1"),
    Err(lambda: tf.one_hot([0, 2], 3, axis=2), IAE, r"Expected axis to be -1 or between \[0, 2\).  But received: 2"),
    Err(lambda: tf.where(True), IAE, r"WhereOp : Unhandled input dimensions: 0 \[Op:Where\]"),
    Err(lambda: tf.where([True, False], [1, 2], [3.0, 4.0]), TypeError, "Cannot convert .3.0, 4.0. to EagerTensor"),
    Err(lambda: tf.where([True, False, True], [1, 2], [3, 4]), IAE,
        r"condition \[3\], then \[2\], and else \[2\] must be broadcastable \[Op:SelectV2\]"),
    Err(lambda: tf.where([1, 0], [1, 2], [3, 4]), TypeError, "Cannot convert .1, 0. to EagerTensor of dtype bool"),
    Err(lambda: tf.where([True], [1]), ValueError, "x and y must both be non-None or both be None."),
    Err(lambda: tf.where([True], tf.constant([1]), tf.constant([1.0])), IAE, "cannot compute SelectV2 as input #2"),
    Err(lambda: tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([4, 4])), IAE,
        r"Expected dimension 3 at axis 0 of the input shaped \[4,4\] but got dimension 4"),
    Err(lambda: tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4], tf.float64)), IAE,
        "was expected to be a float tensor but is a double tensor"),
    Err(lambda: tf.einsum("ij,ij->ij", tf.ones([1, 3]), tf.ones([2, 3])), IAE,
        r"Expected dimension 1 at axis 0 of the input shaped \[2,3\] but got dimension 2"),
    Err(lambda: tf.einsum("ij,jk", tf.ones([2, 3])), ValueError, 'Got 1 inputs for equation "ij,jk", expecting 2'),
    Err(lambda: tf.einsum("ij->ji", tf.constant([[True]])), IAE, "Value for attr 'T' of bool"),
    Err(lambda: tf.tensordot(tf.ones([2, 3]), tf.ones([4, 4]), 1), IAE, r"Matrix size-incompatible.*\[Op:MatMul\]"),
    Err(lambda: tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), 3), ValueError,
        "`axes` must not be larger than the number of dimensions of tensor"),
    Err(lambda: tf.unravel_index([7], [2, 3]), IAE, r"index is out of bound as with dims \[Op:UnravelIndex\]"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_shape_query_dtypes():
    x = tf.zeros([2, 3])
    assert tf.shape(x).dtype == tf.int32 and tf.size(x).dtype == tf.int32 and tf.rank(x).dtype == tf.int32
    assert tf.shape(x, tf.int64).dtype == tf.int64
    assert tf.size(x, out_type=tf.float32).numpy() == 6.0
    assert tf.shape([[1, 2]]).numpy().tolist() == [1, 2]
    assert tf.where([[True, False], [False, True]]).dtype == tf.int64


def test_list_results_and_python_inputs():
    assert isinstance(tf.unstack(tf.zeros([2, 3])), list)
    assert isinstance(tf.split(tf.zeros([4]), 2), list)
    assert isinstance(tf.identity_n([tf.zeros([1]), [1.0]]), list)
    assert tf.concat([[1.5], tf.constant([2.0])], 0).dtype == tf.float32
    assert tf.concat([_x], 5) is not None  # a single value is returned as is (no axis check), as in TF
    assert tf.stack([]).shape == (0,) and tf.stack([]).dtype == tf.float32
    assert [p.shape for p in tf.split(tf.range(6), tf.constant([3, 3]))] == [(3,), (3,)]


def test_broadcast_static_shape():
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])) == tf.TensorShape([2, 3])
    r = tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3]))
    assert r.as_list() == [None, 3]
    assert tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), [3]).dtype == tf.int64


def test_one_hot_out_of_range_is_all_off():
    r = tf.one_hot([0, 2, -1, 5], 3).numpy()
    np.testing.assert_array_equal(r, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert tf.one_hot([0], 2, on_value=2).dtype == tf.int32


def test_unravel_index_negative_matches_tf():
    np.testing.assert_array_equal(tf.unravel_index([-1], [2, 3]).numpy(), [[0], [-1]])


def test_reshape_fast_path_and_variable():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert tf.reshape(v, [-1]).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert tf.transpose(v).shape == (2, 2)
    assert tf.shape(v).numpy().tolist() == [2, 2]
test_compiled = compiled_tests(CASES)
