"""Sparse odds and ends: serializing ``SparseTensor``s, ``tf.sparse.mask`` / ``bincount`` / ``sampled_addmm``,
``tf.edit_distance``, sparse embedding lookups, the CTC greedy decoder, ``make_tensor_proto`` / ``make_ndarray``,
``decode_json_example`` and ``match_filenames_once``.

Index bookkeeping runs on the eager index arrays with NumPy (as ``sparse_ops``); values go through tensorlet ops
where they carry gradients (embedding lookups).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.io import files
from tensorlet._src.io._op import io_op, strings
from tensorlet._src.io.sparse import SparseTensor
from tensorlet._src.ops import array_blocks, array_shape, creation, gather_scatter, math_binary, math_unary, segment
from tensorlet._src.ops.indexed_slices import IndexedSlices
from tensorlet._src.ops.registry import bind, tf_export
from tensorlet._src.ops.shapes import Spec


def _np(x):
    return np.asarray(convert_to_tensor(x).numpy())


def _check_sparse(sp, what="sp_input"):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp).__name__} for {what}")


# --- TensorProto helpers ---------------------------------------------------------------------

@tf_export("make_tensor_proto")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A ``tensorflow.TensorProto`` holding ``values`` (optionally cast to ``dtype`` and filled to ``shape``).

    >>> tf.make_tensor_proto([1, 2]).tensor_shape.dim[0].size
    2
    """
    d = D.as_dtype(dtype) if dtype is not None else None
    arr = np.asarray(convert_to_tensor(values, dtype=d).numpy()) if not isinstance(values, np.ndarray) or d else \
        np.asarray(values)
    dt = d or D.from_numpy(arr.dtype)
    if shape is not None:
        shape = [int(s) for s in shape]
        n = int(np.prod(shape))
        if verify_shape and list(arr.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
        if arr.size == n:
            arr = arr.reshape(shape)
        elif arr.size == 1 or (allow_broadcast and arr.size):
            arr = np.broadcast_to(arr.reshape(-1)[:1] if arr.size == 1 else arr, shape).copy()
        elif arr.size < n and not allow_broadcast and arr.size:
            arr = np.concatenate([arr.reshape(-1), np.full(n - arr.size, arr.reshape(-1)[-1], arr.dtype)]).reshape(
                shape)
        else:
            raise ValueError(f"Too many elements provided. Needed at most {n}, but received {arr.size}")
    return files.tensor_to_proto(arr, dt)


@tf_export("make_ndarray")
def make_ndarray(tensor):
    """The NumPy array held by a ``TensorProto``.

    >>> tf.make_ndarray(tf.make_tensor_proto([[1, 2]])).tolist()
    [[1, 2]]
    """
    dt = D.as_dtype(tensor.dtype)
    arr = files.proto_to_array(tensor, dt)
    return np.asarray(arr, object) if dt is D.string else np.asarray(arr)


# --- serialized SparseTensors ------------------------------------------------------------------

@tf_export("io.serialize_sparse")
def serialize_sparse(sp_input, out_type=D.string, name=None):
    """``[3]`` strings: the serialized ``TensorProto``s of the indices, values and dense shape.

    >>> tf.io.serialize_sparse(tf.sparse.SparseTensor([[0]], [1.], [2])).shape
    TensorShape([3])
    """
    _check_sparse(sp_input)
    return array_blocks.stack([files.serialize_tensor(sp_input.indices), files.serialize_tensor(sp_input.values),
                               files.serialize_tensor(sp_input.dense_shape)])


@tf_export("io.serialize_many_sparse")
def serialize_many_sparse(sp_input, out_type=D.string, name=None):
    """``[N, 3]`` strings: ``serialize_sparse`` of each of the ``N`` minibatch entries (first dimension).

    >>> tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[0, 1], [1, 0]], [1., 2.], [2, 3])).shape
    TensorShape([2, 3])
    """
    _check_sparse(sp_input)
    idx = _np(sp_input.indices).astype(np.int64)
    vals = _np(sp_input.values)
    shape = _np(sp_input.dense_shape).astype(np.int64)
    if len(shape) < 2:
        raise errors.invalid_argument("SerializeManySparse", f"Rank of input SparseTensor should be > 1, but saw "
                                                             f"rank: {len(shape)}")
    rows = []
    for i in range(int(shape[0])):
        sel = idx[:, 0] == i
        rows.append([files.serialize_tensor(idx[sel][:, 1:].reshape(-1, len(shape) - 1)),
                     files.serialize_tensor(convert_to_tensor(vals[sel], dtype=sp_input.values.dtype)),
                     files.serialize_tensor(shape[1:])])
    if not rows:
        return convert_to_tensor(np.zeros((0, 3), object), dtype=D.string)
    return array_blocks.stack([array_blocks.stack(r) for r in rows])


@tf_export("io.deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The ``SparseTensor`` whose minibatch entries were serialized as the rows of ``serialized_sparse``.

    >>> s = tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[0, 1], [1, 0]], [1., 2.], [2, 3]))
    >>> tf.io.deserialize_many_sparse(s, tf.float32).dense_shape.numpy()
    array([2, 3])
    """
    ser = _np(strings(serialized_sparse))
    dtype = D.as_dtype(dtype)
    if ser.ndim != 2 or ser.shape[1] != 3:
        raise errors.invalid_argument("DeserializeManySparse", f"Serialized sparse should be a matrix with 3 "
                                                               f"columns, got shape {list(ser.shape)}")
    all_idx, all_vals, dims = [], [], None
    for i, row in enumerate(ser):
        ix = _np(files.parse_tensor(row[0], D.int64))
        vs = _np(files.parse_tensor(row[1], dtype))
        sh = _np(files.parse_tensor(row[2], D.int64))
        dims = sh if dims is None else np.maximum(dims, sh)
        if len(dims) != len(sh):
            raise errors.invalid_argument("DeserializeManySparse", "Inconsistent ranks in the serialized sparse "
                                                                   "tensors")
        all_idx.append(np.concatenate([np.full((len(ix), 1), i, np.int64), ix.reshape(len(ix), len(sh))], 1))
        all_vals.append(vs)
    if rank is not None and dims is not None and len(dims) + 1 != int(rank):
        raise errors.invalid_argument("DeserializeManySparse", f"Expected rank {rank}, got {len(dims) + 1}")
    if dims is None:
        r = int(rank) if rank is not None else 1
        return SparseTensor(np.zeros((0, r), np.int64), convert_to_tensor(np.zeros(0, dtype._np), dtype=dtype),
                            np.zeros(r, np.int64))
    idx = np.concatenate(all_idx, 0)
    vals = np.concatenate(all_vals, 0) if all_vals else np.zeros(0)
    order = np.lexsort(idx.T[::-1]) if len(idx) else np.zeros(0, np.int64)
    return SparseTensor(idx[order], convert_to_tensor(vals[order], dtype=dtype),
                        np.concatenate([[len(ser)], dims]).astype(np.int64))


# --- tf.sparse additions -----------------------------------------------------------------------

@tf_export("sparse.mask")
def mask(a, mask_indices, name=None):
    """The ``IndexedSlices`` ``a`` without the slices listed in ``mask_indices``.

    >>> m = tf.sparse.mask(tf.IndexedSlices(tf.ones([3, 2]), tf.constant([0, 4, 9])), [4])
    >>> m.indices.numpy()
    array([0, 9], dtype=int32)
    """
    ind = _np(a.indices)
    drop = set(_np(mask_indices).reshape(-1).tolist())
    keep = np.asarray([i for i, v in enumerate(ind.tolist()) if v not in drop], np.int64)
    return IndexedSlices(gather_scatter.gather(a.values, keep), convert_to_tensor(ind[keep], dtype=a.indices.dtype),
                         a.dense_shape)


@tf_export("sparse.sampled_addmm")
def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=D.float32):
    """``alpha * (mat1 @ mat2)`` at ``indices`` plus ``beta * values``: ``(indices, values, dense_shape)``.

    >>> r = tf.sparse.sampled_addmm([[0, 1]], [10.], [2, 2], [[1., 2.], [3., 4.]], [[1., 0.], [0., 1.]])
    >>> r[1].numpy()
    array([12.], dtype=float32)
    """
    output_type = D.as_dtype(output_type)
    indices = convert_to_tensor(indices, dtype_hint=D.int64)
    mat1 = math_binary.cast(convert_to_tensor(mat1), output_type)
    mat2 = math_binary.cast(convert_to_tensor(mat2), output_type)
    values = math_binary.cast(convert_to_tensor(values), output_type)
    dense_shape = convert_to_tensor(dense_shape)
    prod = matmul_ops.matmul(mat1, mat2)
    rank = mat1.shape.rank
    picked = gather_scatter.gather_nd(prod, indices, batch_dims=rank - 2) if rank > 2 else gather_scatter.gather_nd(
        prod, indices)
    return indices, picked * alpha + values * beta, dense_shape


@tf_export("sparse.bincount")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Counts of each integer in ``values`` (dense, ragged or ``SparseTensor``) as a ``SparseTensor``; with
    ``axis=-1`` one row of counts per input row.

    >>> tf.sparse.to_dense(tf.sparse.bincount([1, 1, 4])).numpy()
    array([0, 2, 0, 0, 1], dtype=int32)
    """
    if isinstance(values, SparseTensor):
        idx, vals = _np(values.indices), _np(values.values)
        rows = idx[:, 0] if idx.shape[1] > 1 else np.zeros(len(vals), np.int64)
        w = _np(weights.values) if isinstance(weights, SparseTensor) else (None if weights is None else _np(weights))
        nrows = int(_np(values.dense_shape)[0]) if idx.shape[1] > 1 else 1
    else:
        v = convert_to_tensor(values)
        if hasattr(v, "flat_values"):  # RaggedTensor
            vals = _np(v.flat_values)
            rows = _np(v.value_rowids())
            nrows = int(_np(v.nrows()))
            w = None if weights is None else _np(weights.flat_values if hasattr(weights, "flat_values") else weights)
        else:
            arr = _np(v)
            vals = arr.reshape(-1)
            rows = (np.repeat(np.arange(arr.shape[0]), arr.shape[1]) if arr.ndim == 2 else np.zeros(len(vals),
                                                                                                   np.int64))
            nrows = arr.shape[0] if arr.ndim == 2 else 1
            w = None if weights is None else _np(weights).reshape(-1)
    if axis not in (0, -1):
        raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
    if len(vals) and vals.min() < 0:
        raise errors.invalid_argument("SparseBincount", f"Input arr must be non-negative, got {vals.min()}")
    if axis == 0:
        rows = np.zeros(len(vals), np.int64)
    keep = np.ones(len(vals), bool) if maxlength is None else vals < int(maxlength)
    vals, rows = vals[keep], rows[keep]
    w = None if w is None else w[keep]
    size = int(vals.max()) + 1 if len(vals) else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    counts = {}
    for k, (r, c) in enumerate(zip(rows.tolist(), vals.tolist())):
        inc = 1 if w is None else w[k]
        counts[(r, c)] = 1 if binary_output else counts.get((r, c), 0) + inc
    keys = sorted(counts)
    out_dtype = w.dtype if w is not None else vals.dtype
    vals_out = np.asarray([counts[k] for k in keys], out_dtype)
    if axis == 0:
        ind = np.asarray([[c] for _, c in keys], np.int64).reshape(-1, 1)
        shape = [size]
    else:
        ind = np.asarray([[r, c] for r, c in keys], np.int64).reshape(-1, 2)
        shape = [nrows, size]
    return SparseTensor(ind, vals_out, np.asarray(shape, np.int64))


# --- edit distance -----------------------------------------------------------------------------

def _groups(sp):
    idx, vals = _np(sp.indices), _np(sp.values)
    g = {}
    for row, v in zip(idx.tolist(), vals.tolist()):
        g.setdefault(tuple(row[:-1]), []).append(v)
    return g, _np(sp.dense_shape)


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _edit_kernel(xp, hi, hv, hs, ti, tv, ts, normalize=True):
    h = SparseTensor(hi, hv, hs)
    tr = SparseTensor(ti, tv, ts)
    gh, hshape = _groups(h)
    gt, tshape = _groups(tr)
    if len(hshape) != len(tshape):
        raise errors.invalid_argument("EditDistance", "hypothesis and truth must have the same rank")
    out_shape = tuple(int(max(a, b)) for a, b in zip(hshape[:-1], tshape[:-1]))
    out = np.zeros(out_shape, np.float32)
    for loc in np.ndindex(*out_shape):
        a, b = gh.get(loc, []), gt.get(loc, [])
        d = float(_levenshtein(a, b))
        if normalize:
            d = d / len(b) if b else (np.inf if a else 0.0)
        out[loc] = d
    return out


EDIT_DISTANCE = io_op("EditDistance", _edit_kernel,
                      shape=lambda *specs, normalize=True: Spec(None, D.float32))


@tf_export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distance between the sequences of two ``SparseTensor``s (grouped by all but the last index),
    divided by the truth's length if ``normalize``.

    >>> h = tf.sparse.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
    >>> t = tf.sparse.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> tf.edit_distance(h, t).numpy()
    array([1.], dtype=float32)
    """
    _check_sparse(hypothesis, "hypothesis")
    _check_sparse(truth, "truth")
    if hypothesis.values.dtype is not truth.values.dtype:
        raise TypeError(f"hypothesis and truth must have the same dtype, got {hypothesis.values.dtype.name} and "
                        f"{truth.values.dtype.name}")
    return bind(EDIT_DISTANCE, hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices,
                truth.values, truth.dense_shape, normalize=bool(normalize))


# --- sparse embedding lookups ------------------------------------------------------------------

def _params(params):
    if isinstance(params, (list, tuple)):
        return params[0] if len(params) == 1 else array_blocks.concat(list(params), 0)
    return params


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False):
    """Embeds each row of the ``SparseTensor`` ``sp_ids`` as the ``combiner`` ("mean" default, "sum", "sqrtn") of
    its ids' embeddings, weighted by ``sp_weights`` (or 1); one output row per input row up to the last non-empty.

    >>> ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0, 2, 1], tf.int64), [2, 2])
    >>> tf.nn.embedding_lookup_sparse(tf.constant([[1.], [2.], [3.]]), ids, None).numpy()
    array([[2.],
           [2.]], dtype=float32)
    """
    combiner = combiner or "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    _check_sparse(sp_ids, "sp_ids")
    params = convert_to_tensor(_params(params))
    seg = math_binary.cast(sp_ids.indices[:, 0], D.int32)
    ids = sp_ids.values
    emb = nn_norm.embedding_lookup(params, ids, max_norm=max_norm)
    if sp_weights is None:
        weights = creation.ones(array_shape.shape(ids), params.dtype)
    else:
        _check_sparse(sp_weights, "sp_weights")
        weights = math_binary.cast(sp_weights.values, params.dtype)
    w = array_shape.reshape(weights, [-1] + [1] * (emb.shape.rank - 1))
    summed = segment.segment_sum(emb * w, seg)
    if combiner == "sum":
        return summed
    if combiner == "mean":
        return math_binary.divide_no_nan(summed, array_shape.reshape(segment.segment_sum(weights, seg),
                                                                     [-1] + [1] * (emb.shape.rank - 1)))
    norm = math_unary.sqrt(segment.segment_sum(weights * weights, seg))
    return math_binary.divide_no_nan(summed, array_shape.reshape(norm, [-1] + [1] * (emb.shape.rank - 1)))


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """``embedding_lookup_sparse`` that drops negative ids (and non-positive weights), gives every row of the
    batch an output (zeros, or ``default_id``'s embedding, for empty rows) and keeps ``sparse_ids``' leading shape.

    >>> ids = tf.sparse.SparseTensor([[0, 0], [2, 0]], tf.constant([1, -1], tf.int64), [3, 1])
    >>> tf.nn.safe_embedding_lookup_sparse(tf.constant([[1.], [2.]]), ids).numpy()
    array([[2.],
           [0.],
           [0.]], dtype=float32)
    """
    _check_sparse(sparse_ids, "sparse_ids")
    params = convert_to_tensor(_params(embedding_weights))
    shape = _np(sparse_ids.dense_shape).astype(np.int64)
    rows = int(np.prod(shape[:-1]))
    idx = _np(sparse_ids.indices).astype(np.int64)
    flat_rows = np.ravel_multi_index(idx[:, :-1].T, shape[:-1]) if len(idx) else np.zeros(0, np.int64)
    ids = _np(sparse_ids.values).astype(np.int64)
    keep = ids >= 0
    wv = None
    if sparse_weights is not None:
        wv = _np(sparse_weights.values)
        keep &= wv > 0
    fr, kept_ids = flat_rows[keep], ids[keep]
    # every row gets at least one entry: empty rows look up default_id (or 0, zeroed below)
    empty = np.setdiff1d(np.arange(rows), fr)
    fill = int(default_id) if default_id is not None else 0
    all_rows = np.concatenate([fr, empty])
    all_ids = np.concatenate([kept_ids, np.full(len(empty), fill, np.int64)])
    order = np.argsort(all_rows, kind="stable")
    all_rows, all_ids = all_rows[order], all_ids[order]
    cols = np.zeros(len(all_rows), np.int64)
    for k in range(1, len(all_rows)):
        cols[k] = cols[k - 1] + 1 if all_rows[k] == all_rows[k - 1] else 0
    sp = SparseTensor(np.stack([all_rows, cols], 1), convert_to_tensor(all_ids), [rows, int(cols.max() + 1)
                                                                                 if len(cols) else 1])
    spw = None
    if wv is not None:
        ww = np.concatenate([wv[keep], np.ones(len(empty), wv.dtype)])[order]
        spw = SparseTensor(np.stack([all_rows, cols], 1), convert_to_tensor(ww), sp.dense_shape)
    out = embedding_lookup_sparse(params, sp, spw, combiner=combiner, max_norm=max_norm)
    if default_id is None and len(empty):
        m = np.ones((rows,) + (1,) * (out.shape.rank - 1), params.dtype.as_numpy_dtype)
        m[empty] = 0
        out = out * convert_to_tensor(m)
    return array_shape.reshape(out, list(shape[:-1]) + list(out.shape[1:]))


# --- CTC greedy decoding -----------------------------------------------------------------------

@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding of ``[max_time, batch, num_classes]`` logits: ``([decoded SparseTensor], neg_sum_logits)``
    (the blank is the last class unless ``blank_index`` says otherwise).

    >>> logits = tf.math.log([[[.1, .8, .1]], [[.1, .8, .1]], [[.8, .1, .1]]])
    >>> tf.sparse.to_dense(tf.nn.ctc_greedy_decoder(logits, [3])[0][0]).numpy()
    array([[1, 0]])
    """
    x = _np(inputs)
    if x.ndim != 3:
        raise errors.invalid_argument("CTCGreedyDecoder", f"inputs is not a 3-Tensor, got rank {x.ndim}")
    seq = _np(sequence_length).astype(np.int64)
    max_time, batch, num_classes = x.shape
    blank = num_classes - 1 if blank_index is None else (blank_index % num_classes)
    if len(seq) != batch:
        raise errors.invalid_argument("CTCGreedyDecoder", f"len(sequence_length) != batch_size.  len(sequence_"
                                                          f"length):  {len(seq)} batch_size: {batch}")
    if np.any(seq > max_time):
        raise errors.invalid_argument("CTCGreedyDecoder", "sequence_length(b) <= max_time")
    ind, vals, neg = [], [], np.zeros((batch, 1), x.dtype)
    width = 0
    for b in range(batch):
        prev = -1
        k = 0
        for tt in range(int(seq[b])):
            c = int(np.argmax(x[tt, b]))
            neg[b, 0] -= x[tt, b, c]
            if c != blank and not (merge_repeated and c == prev):
                ind.append([b, k])
                vals.append(c)
                k += 1
            prev = c
        width = max(width, k)
    decoded = SparseTensor(np.asarray(ind, np.int64).reshape(-1, 2), np.asarray(vals, np.int64),
                           np.asarray([batch, width], np.int64))
    return [decoded], convert_to_tensor(neg)


# --- misc --------------------------------------------------------------------------------------

@tf_export("io.decode_json_example")
def decode_json_example(json_examples, name=None):
    """JSON-encoded ``tf.train.Example`` protos (protobuf's JSON mapping) to their binary serialization.

    >>> ex = tf.io.decode_json_example('{"features": {"feature": {"a": {"int64List": {"value": ["1"]}}}}}')
    >>> tf.train.Example.FromString(ex.numpy()).features.feature["a"].int64_list.value[0]
    1
    """
    from google.protobuf import json_format

    from tensorlet._src.io.example import Example

    arr = _np(strings(json_examples))
    out = np.empty(arr.shape, object)
    for i, s in np.ndenumerate(arr):
        text = s.decode() if isinstance(s, bytes) else str(s)
        try:
            out[i] = json_format.Parse(text, Example()).SerializeToString(deterministic=True)
        except json_format.ParseError as e:
            raise errors.invalid_argument("DecodeJSONExample", f"Error while parsing JSON: {e}") from None
    return convert_to_tensor(out, dtype=D.string)


@tf_export("io.match_filenames_once")
def match_filenames_once(pattern, name=None):
    """A non-trainable ``tf.Variable`` holding the files matching ``pattern`` (evaluated once, now)."""
    from tensorlet._src.framework.variables import Variable

    return Variable(files.matching_files(pattern), trainable=False, name=name or "matching_filenames",
                    shape=None)


from tensorlet._src.ops import matmul as matmul_ops  # noqa: E402
from tensorlet._src.ops import nn_norm  # noqa: E402
