"""The ops the SavedModel loader binds for TF ops whose form differs from tensorlet's own
(``saved_model/tf_import_ops.py``): TF's ``StringSplitV2`` (a SparseTensor's parts), ``RaggedTensorToTensor``
(row partition tensors padded into a dense tensor) and ``Bucketize``, against NumPy references."""

import numpy as np
import opcheck
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops.registry import bind
from tensorlet._src.saved_model import tf_import_ops as T

opcheck.instrument_registry()  # these ops register when the loader's module loads, after conftest's pass

BOUNDS = (-1.0, 0.0, 1.5)


def _bucketize_ref(x):
    return np.searchsorted(np.asarray(BOUNDS, x.dtype), x, side="right").astype(np.int32)


def _ragged_gen(rng, shapes, dtype):
    splits = np.array([0, 2, 2, 5, 6], np.int64)  # rows of 2, 0, 3 and 1 values
    return [rng.uniform(-3, 3, (6,) + shapes[0][1:]).astype(dtype), np.asarray(-1, dtype), splits]


def _ragged_ref(values, default, splits, width=None):
    counts = np.diff(splits)
    out = np.full((len(counts), width or counts.max()) + values.shape[1:], default, values.dtype)
    for r, (a, b) in enumerate(zip(splits[:-1], splits[1:])):
        n = min(b - a, out.shape[1])
        out[r, :n] = values[a:a + n]
    return out


def _split_gen(rng, shapes, dtype):
    return [np.array([b"a bb", b"", b"c d e"], object)]


def _split_ref(x):
    rows = [s.split() for s in x]
    idx = np.array([[r, c] for r, parts in enumerate(rows) for c in range(len(parts))], np.int64).reshape(-1, 2)
    vals = np.array([p for parts in rows for p in parts], object)
    return idx, vals, np.array([len(rows), max(len(p) for p in rows)], np.int64)


CASES = [
    Case(lambda x: bind(T.BUCKETIZE, x, boundaries=BOUNDS), _bucketize_ref, [((2, 5),), ((0,),), ((),)],
         ("float32", "float64"), ops=("TFBucketize",), check_dtype=False, id="bucketize"),
    Case(lambda v, d, s: bind(T.R2T, v, d, s, out_shape=None, types=("ROW_SPLITS",)), _ragged_ref,
         [((6,),), ((6, 2),)], ("float32", "int32"), gen=_ragged_gen, ops=("TFRaggedTensorToTensor",), jax=False,
         graph=False, check_dtype=False, id="ragged_to_tensor"),  # no lowering: it runs on the NumPy executor
    Case(lambda v, d, s: bind(T.R2T, v, d, s, out_shape=(None, 2), types=("ROW_SPLITS",)),
         lambda v, d, s: _ragged_ref(v, d, s, width=2), [((6,),)], ("float32",), gen=_ragged_gen,
         ops=("TFRaggedTensorToTensor",), jax=False, graph=False, check_dtype=False, id="ragged_to_tensor_clipped"),
    Case(lambda x: tuple(bind(T.SPLIT_TF, x, sep=b"", maxsplit=-1)), _split_ref, [((3,),)], ("string",),
         gen=_split_gen, ops=("TFStringSplitV2",), jax=False, check_dtype=False, id="string_split"),  # strings
]

ERRORS = [
    Err(lambda: bind(T.R2T, tf.constant([1.0, 2.0]), tf.constant(0.0), tf.constant([0, 5], tf.int64),
                     out_shape=(None, None, 3), types=("ROW_SPLITS",)),
        tf.errors.InvalidArgumentError, "has rank 3"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)
