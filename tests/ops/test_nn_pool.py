"""Pooling against direct-loop NumPy references (one window at a time, valid elements only)."""

import itertools

import ml_dtypes
import numpy as np
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import nn_pool
from tensorlet._src.ops.registry import bind

# --- references ------------------------------------------------------------------------------


def _pads(padding, sizes, ks, s):
    if padding == "VALID":
        return [(0, 0)] * len(sizes)
    if padding == "SAME":
        out = []
        for n, k, si in zip(sizes, ks, s):
            total = max((-(-n // si) - 1) * si + k - n, 0)
            out.append((total // 2, total - total // 2))
        return out
    return [tuple(p) for p in padding]


def _osz(x_shape, ks, s, padding):
    sizes = x_shape[1:-1]
    pads = _pads(padding, sizes, ks, s)
    return [max((n + lo + hi - k) // si + 1, 0) for n, k, si, (lo, hi) in zip(sizes, ks, s, pads)], pads


def _windows(x_shape, ks, s, padding):
    """Yield (output index, list of valid input indices in row-major window order) for channels-last shapes."""
    sizes = x_shape[1:-1]
    osz, pads = _osz(x_shape, ks, s, padding)
    for o in itertools.product(*[range(n) for n in osz]):
        taps = []
        for k in itertools.product(*[range(n) for n in ks]):
            i = tuple(oi * si + ki - lo for oi, si, ki, (lo, _) in zip(o, s, k, pads))
            if all(0 <= ii < n for ii, n in zip(i, sizes)):
                taps.append(i)
        yield o, taps, osz


def _lowest(dt):
    return ml_dtypes.finfo(dt).min if np.dtype(dt).kind == "f" or dt == ml_dtypes.bfloat16 else np.iinfo(dt).min


def _cl(f):
    """Run a channels-last reference on channels-first data when cf=True."""
    def run(x, *a, cf=False, **kw):
        if cf:
            a = [np.moveaxis(v, 1, -1) if isinstance(v, np.ndarray) and v.ndim == x.ndim else v for v in a]
            return np.moveaxis(f(np.moveaxis(x, 1, -1), *a, **kw), -1, 1)
        return f(x, *a, **kw)
    return run


@_cl
def ref_max(x, ks, s, padding):
    out = np.zeros((x.shape[0], *_osz(x.shape, ks, s, padding)[0], x.shape[-1]), x.dtype)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        vals = np.stack([x[(slice(None),) + i] for i in taps]).astype(np.float64)
        m = np.nanmax(np.where(np.isnan(vals), -np.inf, vals), axis=0)  # NaN never wins
        out[(slice(None),) + o] = np.maximum(m, _lowest(x.dtype))
    return out


@_cl
def ref_avg(x, ks, s, padding):
    out = np.zeros((x.shape[0], *_osz(x.shape, ks, s, padding)[0], x.shape[-1]), np.float64)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        out[(slice(None),) + o] = np.mean([x[(slice(None),) + i].astype(np.float64) for i in taps], axis=0)
    return out.astype(x.dtype)


def _first_max(x, taps, n, c):
    best = None
    for i in taps:  # strict > in row-major order: the first maximum wins
        v = x[(n,) + i + (c,)]
        if best is None or v > best[0]:
            best = (v, i)
    return best


@_cl
def ref_max_grad(x, g, ks, s, padding):
    dx = np.zeros(x.shape, np.float64)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        for n in range(x.shape[0]):
            for c in range(x.shape[-1]):
                _, i = _first_max(x, taps, n, c)
                dx[(n,) + i + (c,)] += g[(n,) + o + (c,)]
    return dx.astype(g.dtype)


@_cl
def _avg_grad(g, x_shape, ks, s, padding):
    dx = np.zeros(x_shape, np.float64)
    for o, taps, _ in _windows(x_shape, ks, s, padding):
        for i in taps:
            dx[(slice(None),) + i] += g[(slice(None),) + o].astype(np.float64) / len(taps)
    return dx.astype(g.dtype)


def ref_avg_grad(g, x_shape, ks, s, padding, cf=False):
    if cf:
        x_shape = (x_shape[0],) + tuple(x_shape[2:]) + (x_shape[1],)
    return _avg_grad(g, x_shape, ks, s, padding, cf=cf)


@_cl
def ref_max_grad_grad(x, y, g, ks, s, padding):
    """Per window: g at the first valid element (row-major) equal to the window's orig_output, else 0."""
    out = np.zeros(y.shape, g.dtype)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        for n in range(x.shape[0]):
            for c in range(x.shape[-1]):
                hit = [i for i in taps if x[(n,) + i + (c,)] == y[(n,) + o + (c,)]]
                if hit:
                    out[(n,) + o + (c,)] = g[(n,) + hit[0] + (c,)]
    return out


@_cl
def ref_max3d_grad(x, y, g, ks, s, padding):
    """TF's CPU MaxPool3DGrad: every valid element within 1e-5 of the window's max gets the window's gradient."""
    dx = np.zeros(x.shape, np.float64)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        for i in taps:
            hit = np.abs(x[(slice(None),) + i].astype(np.float64) - y[(slice(None),) + o]) < 1e-5
            dx[(slice(None),) + i] += np.where(hit, g[(slice(None),) + o], 0)
    return dx.astype(g.dtype)


def ref_argmax(x, ks, s, padding, batch):
    n_b, h, w, c = x.shape
    out = ref_max(x, ks, s, padding)
    idx = np.zeros(out.shape, np.int64)
    for o, taps, _ in _windows(x.shape, ks, s, padding):
        for n in range(n_b):
            for ch in range(c):
                _, (y, xx) = _first_max(x, taps, n, ch)
                idx[(n,) + o + (ch,)] = ((y * w + xx) * c + ch) + (n * h * w * c if batch else 0)
    return out, idx


# --- cases -----------------------------------------------------------------------------------
# grad=False below: inputs with ties, NaN or inf on purpose, where max is not differentiable (finite
# differences cannot check it).

FL = ("float32",)
ALLF = ("float16", "bfloat16", "float32", "float64")


def _pool_case(fn, ref, shapes, dtypes, ops, id_):
    return Case(fn, ref, shapes, dtypes, ops=ops, id=id_)


def _grad_attrs(ks, s, padding, fmt="NHWC"):
    cf = fmt.startswith("NC")
    full = lambda v: (1, 1) + tuple(v) if cf else (1,) + tuple(v) + (1,)  # noqa: E731
    pad = padding if isinstance(padding, str) else "EXPLICIT"
    ep = ()
    if pad == "EXPLICIT":
        ep = (0, 0, 0, 0) + sum(map(tuple, padding), ()) if cf else (0, 0) + sum(map(tuple, padding), ()) + (0, 0)
    return dict(ksize=full(ks), strides=full(s), padding=pad, explicit_paddings=ep, data_format=fmt)


def _max_grad_fn(ks, s, padding, fmt=None, op=None):
    op = op or nn_pool.MAX_POOL_GRAD
    fmt = fmt or ("NHWC" if len(ks) == 2 else "NDHWC")
    public_pad = padding if isinstance(padding, str) else [[0, 0]] + [list(p) for p in padding] + [[0, 0]]

    def fn(x, g):
        attrs = _grad_attrs(ks, s, padding, fmt)
        if op is not nn_pool.MAX_POOL_GRAD:
            attrs.pop("explicit_paddings")
        y = tf.nn.max_pool(x, ks, s, public_pad, fmt)
        return bind(op, x, y, g, **attrs)
    return fn


def _max_grad_grad_fn(ks, s, padding, fmt=None, op=None):
    """MaxPool{,3D}GradGrad(x, max_pool(x), g): orig_output from the forward op (from NumPy for 3D in float64,
    which MaxPool3D lacks)."""
    op = op or nn_pool.MAX_POOL_GRAD_GRAD
    fmt = fmt or ("NHWC" if len(ks) == 2 else "NDHWC")
    public_pad = padding if isinstance(padding, str) else [[0, 0]] + [list(p) for p in padding] + [[0, 0]]

    def fn(x, g):
        attrs = _grad_attrs(ks, s, padding, fmt)
        if op is nn_pool.MAX_POOL_GRAD_GRAD:
            y = tf.nn.max_pool(x, ks, s, public_pad, fmt)
        else:
            attrs.pop("explicit_paddings")
            y = tf.constant(ref_max(x.numpy(), ks, s, padding, cf=fmt.startswith("NC")))
        return bind(op, x, y, g, **attrs)
    return fn


def _argmax_grad_fn(ks, s, padding, batch, op=None):
    op = op or nn_pool.ARGMAX_GRAD

    def fn(x, g):
        _, am = tf.nn.max_pool_with_argmax(x, ks, s, padding, include_batch_in_index=batch)
        a = _grad_attrs(ks, s, padding)
        return bind(op, x, g, am, ksize=a["ksize"], strides=a["strides"], padding=padding,
                    include_batch_in_index=batch)
    return fn


def _max3d_grad_fn(ks, s, padding, fmt="NDHWC"):
    def fn(x, g):
        attrs = _grad_attrs(ks, s, padding, fmt)
        attrs.pop("explicit_paddings")
        return bind(nn_pool.MAX_POOL3D_GRAD, x, tf.nn.max_pool3d(x, ks, s, padding, fmt), g, **attrs)
    return fn


def _near_tie_gen(rng, shapes, dtype):
    """Exact ties plus values 5e-6 apart (within MaxPool3DGrad's 1e-5) and 2e-5 apart (outside it)."""
    x = rng.integers(0, 3, size=shapes[0]).astype(dtype)
    x = x + rng.choice(np.array([0.0, 5e-6, 2e-5], dtype), size=shapes[0])
    return [x.astype(dtype), rng.standard_normal(shapes[1]).astype(dtype)]


def _avg_grad_fn(x_shape, ks, s, padding, fmt=None, op=None):
    op = op or nn_pool.AVG_POOL_GRAD
    fmt = fmt or ("NHWC" if len(ks) == 2 else "NDHWC")

    def fn(g):
        attrs = _grad_attrs(ks, s, padding, fmt)
        attrs.pop("explicit_paddings")
        return bind(op, g, orig_input_shape=x_shape, **attrs)
    return fn


def _tie_gen(rng, shapes, dtype):
    """Values from a tiny set, so windows have ties (the first maximum must win)."""
    out = []
    for sh in shapes:
        out.append(rng.integers(0, 3, size=sh).astype(np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else dtype))
    return out


CASES = [
    # max pooling
    Case(lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), lambda x: ref_max(x, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3),)], ALLF + ("int32", "int8", "uint8"), ops=("MaxPool",), id="max_pool2d_same"),
    Case(lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), lambda x: ref_max(x, (2, 2), (2, 2), "SAME"),
         [((1, 4, 6, 2),), ((0, 4, 4, 1),)], FL, ops=("MaxPool",), id="max_pool2d_shapes"),
    Case(lambda x: tf.nn.max_pool2d(x, [3, 2], [2, 1], "VALID"), lambda x: ref_max(x, (3, 2), (2, 1), "VALID"),
         [((2, 7, 5, 3),), ((1, 2, 2, 1),)], FL, ops=("MaxPool",), id="max_pool2d_valid_nonsquare"),
    Case(lambda x: tf.nn.max_pool2d(x, 3, 2, [[0, 0], [1, 2], [0, 1], [0, 0]]),
         lambda x: ref_max(x, (3, 3), (2, 2), [(1, 2), (0, 1)]), [((2, 6, 5, 2),)], FL + ("int16",), ops=("MaxPool",),
         id="max_pool2d_explicit"),
    Case(lambda x: tf.nn.max_pool2d(x, 3, 1, "SAME", "NCHW"), lambda x: ref_max(x, (3, 3), (1, 1), "SAME", cf=True),
         [((2, 3, 5, 4),)], FL, ops=("MaxPool",), id="max_pool2d_nchw"),
    Case(lambda x: tf.nn.max_pool2d(x, 3, 1, "SAME"), lambda x: ref_max(x, (3, 3), (1, 1), "SAME"),
         [((1, 3, 3, 1),)], ("float32",), ops=("MaxPool",), grad=False, id="max_pool2d_nan_and_inf",
         gen=lambda rng, s, d: [np.array([np.nan, 1, -np.inf, np.nan, np.nan, -np.inf, 2, np.nan, -np.inf],
                                         np.float32).reshape(1, 3, 3, 1)]),
    Case(lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), lambda x: ref_max(x, (2, 2), (2, 2), "VALID"),
         [((1, 2, 2, 1),)], ("float32",), ops=("MaxPool",), grad=False, id="max_pool2d_all_nan",
         gen=lambda rng, s, d: [np.full((1, 2, 2, 1), np.nan, np.float32)]),
    Case(lambda x: tf.nn.max_pool1d(x, 3, 2, "SAME"), lambda x: ref_max(x, (3,), (2,), "SAME"),
         [((2, 9, 3),)], FL, ops=("MaxPool", "StridedSlice"), id="max_pool1d"),
    Case(lambda x: tf.nn.max_pool1d(x, 2, 1, [[0, 0], [1, 0], [0, 0]]), lambda x: ref_max(x, (2,), (1,), [(1, 0)]),
         [((2, 5, 3),)], FL, ops=("MaxPool",), id="max_pool1d_explicit"),
    Case(lambda x: tf.nn.max_pool1d(x, 2, 2, "VALID", "NCW"), lambda x: ref_max(x, (2,), (2,), "VALID", cf=True),
         [((2, 3, 7),)], FL, ops=("MaxPool",), id="max_pool1d_ncw"),
    Case(lambda x: tf.nn.max_pool3d(x, [2, 3, 2], [1, 2, 2], "SAME"),
         lambda x: ref_max(x, (2, 3, 2), (1, 2, 2), "SAME"), [((2, 3, 5, 4, 2),)], ("float32", "float16"),
         ops=("MaxPool3D",), grad=False, id="max_pool3d"),  # grad=False: MaxPool3D has no float64 kernel in TF
    # (finite differences run in float64); its gradients are checked in float32 in tests/autodiff/test_grad_conv.py
    Case(lambda x: tf.nn.max_pool3d(x, 2, 2, "VALID", "NCDHW"),
         lambda x: ref_max(x, (2, 2, 2), (2, 2, 2), "VALID", cf=True), [((1, 2, 4, 5, 4),)], FL, ops=("MaxPool3D",),
         grad=False, id="max_pool3d_ncdhw"),  # grad=False: no float64 MaxPool3D (see max_pool3d)
    Case(lambda x: tf.nn.max_pool(x, 2, 1, "VALID"), lambda x: ref_max(x, (2,), (1,), "VALID"),
         [((2, 5, 3),)], FL, ops=("MaxPool",), id="max_pool_generic_1d"),
    Case(lambda x: tf.nn.max_pool(x, [2, 2], [2, 2], "SAME", "NCHW"),
         lambda x: ref_max(x, (2, 2), (2, 2), "SAME", cf=True), [((2, 3, 5, 5),)], FL, ops=("MaxPool",),
         id="max_pool_generic_2d_nchw"),
    Case(lambda x: tf.nn.max_pool(x, 2, 2, "SAME"), lambda x: ref_max(x, (2, 2, 2), (2, 2, 2), "SAME"),
         [((1, 3, 3, 3, 2),)], FL, ops=("MaxPool3D",), grad=False,
         id="max_pool_generic_3d"),  # grad=False: no float64 MaxPool3D (see max_pool3d)
    Case(lambda x: tf.nn.pool(x, [2, 2], "MAX", [2, 2], "SAME"), lambda x: ref_max(x, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3),)], FL, ops=("MaxPool",), id="pool_max"),
    # average pooling
    Case(lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME"), lambda x: ref_avg(x, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3),)], ALLF, ops=("AvgPool",), id="avg_pool2d_same"),
    Case(lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME"), lambda x: ref_avg(x, (2, 2), (2, 2), "SAME"),
         [((1, 3, 3, 1),), ((0, 4, 4, 1),), ((1, 0, 4, 2),)], FL, ops=("AvgPool",), id="avg_pool2d_shapes"),
    Case(lambda x: tf.nn.avg_pool2d(x, [3, 2], [1, 2], "VALID"), lambda x: ref_avg(x, (3, 2), (1, 2), "VALID"),
         [((2, 6, 5, 3),), ((1, 2, 2, 1),)], FL, ops=("AvgPool",), id="avg_pool2d_valid_nonsquare"),
    Case(lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME", "NCHW"), lambda x: ref_avg(x, (3, 3), (2, 2), "SAME", cf=True),
         [((2, 3, 6, 5),)], ("float32", "float64"), ops=("AvgPool",), id="avg_pool2d_nchw"),
    Case(lambda x: tf.nn.avg_pool1d(x, 3, 2, "SAME"), lambda x: ref_avg(x, (3,), (2,), "SAME"),
         [((2, 8, 3),)], FL, ops=("AvgPool",), id="avg_pool1d"),
    Case(lambda x: tf.nn.avg_pool3d(x, [2, 2, 3], [2, 1, 2], "SAME"),
         lambda x: ref_avg(x, (2, 2, 3), (2, 1, 2), "SAME"), [((2, 3, 4, 5, 2),)], ("float32", "float64"),
         ops=("AvgPool3D",), id="avg_pool3d"),
    Case(lambda x: tf.nn.avg_pool(x, 2, 1, "VALID", "NCDHW"),
         lambda x: ref_avg(x, (2, 2, 2), (1, 1, 1), "VALID", cf=True), [((1, 2, 3, 3, 4),)], FL, ops=("AvgPool3D",),
         id="avg_pool_generic_3d_ncdhw"),
    Case(lambda x: tf.nn.pool(x, [3], "AVG", padding="SAME"), lambda x: ref_avg(x, (3,), (1,), "SAME"),
         [((2, 6, 3),)], FL, ops=("AvgPool",), id="pool_avg"),
    # argmax
    Case(lambda x: tuple(tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")),
         lambda x: ref_argmax(x, (2, 2), (2, 2), "SAME", False), [((2, 5, 5, 3),)], ("float32", "int32"),
         ops=("MaxPoolWithArgmax",), id="max_pool_with_argmax"),
    Case(lambda x: tuple(tf.nn.max_pool_with_argmax(x, [3, 2], 1, "VALID", include_batch_in_index=True)),
         lambda x: ref_argmax(x, (3, 2), (1, 1), "VALID", True), [((2, 4, 5, 2),)], ("float64",),
         ops=("MaxPoolWithArgmax",), gen=_tie_gen, grad=False, id="max_pool_with_argmax_ties_batch"),
    # gradients
    Case(_max_grad_fn((2, 2), (2, 2), "SAME"), lambda x, g: ref_max_grad(x, g, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3), (2, 3, 3, 3))], ("float32", "float64", "int32"), ops=("MaxPoolGrad", "MaxPool"),
         id="max_pool_grad"),
    Case(_max_grad_fn((3, 3), (1, 1), "SAME"), lambda x, g: ref_max_grad(x, g, (3, 3), (1, 1), "SAME"),
         [((2, 4, 5, 2), (2, 4, 5, 2))], ("float32",), ops=("MaxPoolGrad",), gen=_tie_gen,
         grad=False, id="max_pool_grad_overlapping_ties"),
    Case(_max_grad_fn((3, 2), (2, 1), [[1, 2], [0, 1]]),
         lambda x, g: ref_max_grad(x, g, (3, 2), (2, 1), [(1, 2), (0, 1)]),
         [((1, 6, 5, 2), (1, 4, 5, 2))], ("float32",), ops=("MaxPoolGrad",), id="max_pool_grad_explicit"),
    Case(_max_grad_fn((2, 2), (1, 2), "VALID", "NCHW"),
         lambda x, g: ref_max_grad(x, g, (2, 2), (1, 2), "VALID", cf=True),
         [((2, 3, 5, 6), (2, 3, 4, 3))], ("float32",), ops=("MaxPoolGrad",), id="max_pool_grad_nchw"),
    Case(_max_grad_fn((2, 2, 2), (2, 1, 2), "SAME", op=nn_pool.MAX_POOL3D_GRAD),
         lambda x, g: ref_max_grad(x, g, (2, 2, 2), (2, 1, 2), "SAME"),
         [((1, 3, 4, 5, 2), (1, 2, 4, 3, 2))], ("float32", "float16"), ops=("MaxPool3DGrad",), grad=False,
         id="max_pool3d_grad"),  # grad=False: no float64 MaxPool3D (see max_pool3d)
    Case(_max3d_grad_fn((2, 2, 2), (1, 2, 1), "SAME"),
         lambda x, g: ref_max3d_grad(x, ref_max(x, (2, 2, 2), (1, 2, 1), "SAME"), g, (2, 2, 2), (1, 2, 1), "SAME"),
         [((2, 3, 4, 3, 2), (2, 3, 2, 3, 2))], ("float32",), ops=("MaxPool3DGrad", "MaxPool3D"), gen=_near_tie_gen,
         grad=False, id="max_pool3d_grad_ties_within_1e-5"),  # grad=False: ties on purpose
    Case(_max3d_grad_fn((1, 3, 2), (1, 1, 1), "VALID", "NCDHW"),
         lambda x, g: ref_max3d_grad(x, ref_max(x, (1, 3, 2), (1, 1, 1), "VALID", cf=True), g, (1, 3, 2),
                                     (1, 1, 1), "VALID", cf=True),
         [((1, 2, 2, 5, 4), (1, 2, 2, 3, 3))], ("float32",), ops=("MaxPool3DGrad",), gen=_tie_gen, grad=False,
         id="max_pool3d_grad_ties_ncdhw"),  # grad=False: ties on purpose
    # gradients of the gradients
    Case(_max_grad_grad_fn((2, 2), (2, 2), "SAME"),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (2, 2), (2, 2), "SAME"), g, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3), (2, 5, 5, 3))], ("float32", "float64", "int32"), ops=("MaxPoolGradGrad", "MaxPool"),
         id="max_pool_grad_grad"),
    Case(_max_grad_grad_fn((3, 3), (1, 1), "SAME"),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (3, 3), (1, 1), "SAME"), g, (3, 3), (1, 1), "SAME"),
         [((2, 4, 5, 2), (2, 4, 5, 2))], ("float32",), ops=("MaxPoolGradGrad",), gen=_tie_gen, grad=False,
         id="max_pool_grad_grad_overlapping_ties"),  # grad=False: ties on purpose
    Case(_max_grad_grad_fn((3, 2), (2, 1), [[1, 2], [0, 1]]),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (3, 2), (2, 1), [(1, 2), (0, 1)]), g, (3, 2), (2, 1),
                                        [(1, 2), (0, 1)]),
         [((1, 6, 5, 2), (1, 6, 5, 2))], ("float32",), ops=("MaxPoolGradGrad",), id="max_pool_grad_grad_explicit"),
    Case(_max_grad_grad_fn((2, 3), (1, 2), "VALID", "NCHW"),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (2, 3), (1, 2), "VALID", cf=True), g, (2, 3), (1, 2), "VALID",
                                        cf=True),
         [((1, 3, 5, 6), (1, 3, 5, 6))], ("float32",), ops=("MaxPoolGradGrad",), id="max_pool_grad_grad_nchw"),
    Case(_max_grad_grad_fn((2, 2, 2), (2, 1, 2), "SAME", op=nn_pool.MAX_POOL3D_GRAD_GRAD),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (2, 2, 2), (2, 1, 2), "SAME"), g, (2, 2, 2), (2, 1, 2), "SAME"),
         [((1, 3, 4, 5, 2), (1, 3, 4, 5, 2))], ("float32", "float64"), ops=("MaxPool3DGradGrad",), grad=False,
         # graph=False: the case's orig_output comes from NumPy (float64); grad=False: its gradient is
         # MaxPool3DGrad, which has no float64 kernel in TF
         graph=False, id="max_pool3d_grad_grad"),
    Case(_max_grad_grad_fn((2, 2, 2), (1, 1, 1), "VALID", "NCDHW", op=nn_pool.MAX_POOL3D_GRAD_GRAD),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (2, 2, 2), (1, 1, 1), "VALID", cf=True), g, (2, 2, 2),
                                        (1, 1, 1), "VALID", cf=True),
         [((1, 2, 3, 3, 4), (1, 2, 3, 3, 4))], ("float32",), ops=("MaxPool3DGradGrad",), gen=_tie_gen, grad=False,
         graph=False, id="max_pool3d_grad_grad_ties_ncdhw"),  # grad=False: ties on purpose; graph: NumPy ref pool
    # the argmax gradient (TF's MaxPoolGradWithArgmax) and its gradient
    Case(_argmax_grad_fn((2, 2), (2, 2), "SAME", False), lambda x, g: ref_max_grad(x, g, (2, 2), (2, 2), "SAME"),
         [((2, 5, 5, 3), (2, 3, 3, 3))], ("float32", "float64", "int32"), ops=("MaxPoolGradWithArgmax",),
         id="max_pool_grad_with_argmax"),
    Case(_argmax_grad_fn((3, 2), (1, 1), "VALID", True), lambda x, g: ref_max_grad(x, g, (3, 2), (1, 1), "VALID"),
         [((2, 4, 5, 2), (2, 2, 4, 2))], ("float32", "bfloat16"), ops=("MaxPoolGradWithArgmax",), gen=_tie_gen,
         grad=False, id="max_pool_grad_with_argmax_ties_batch"),  # grad=False: ties on purpose
    Case(_argmax_grad_fn((3, 3), (2, 1), "SAME", True, op=nn_pool.ARGMAX_GRAD_GRAD),
         lambda x, g: ref_max_grad_grad(x, ref_max(x, (3, 3), (2, 1), "SAME"), g, (3, 3), (2, 1), "SAME"),
         [((2, 5, 4, 3), (2, 5, 4, 3))], ("float32", "float64"), ops=("MaxPoolGradGradWithArgmax",),
         id="max_pool_grad_grad_with_argmax"),
    Case(_avg_grad_fn((2, 5, 5, 3), (2, 2), (2, 2), "SAME"),
         lambda g: ref_avg_grad(g, (2, 5, 5, 3), (2, 2), (2, 2), "SAME"),
         [((2, 3, 3, 3),)], ("bfloat16", "float32", "float64"), ops=("AvgPoolGrad",), id="avg_pool_grad"),
    Case(_avg_grad_fn((2, 3, 7, 6), (3, 2), (2, 1), "VALID", "NCHW"),
         lambda g: ref_avg_grad(g, (2, 3, 7, 6), (3, 2), (2, 1), "VALID", cf=True),
         [((2, 3, 3, 5),)], FL, ops=("AvgPoolGrad",), id="avg_pool_grad_nchw"),
    Case(_avg_grad_fn((1, 3, 4, 5, 2), (2, 3, 2), (1, 2, 2), "SAME", op=nn_pool.AVG_POOL3D_GRAD),
         lambda g: ref_avg_grad(g, (1, 3, 4, 5, 2), (2, 3, 2), (1, 2, 2), "SAME"),
         [((1, 3, 2, 3, 2),)], ("float32", "float64"), ops=("AvgPool3DGrad",), id="avg_pool3d_grad"),
]


# --- errors ----------------------------------------------------------------------------------

X = lambda *s: tf.ones(s)  # noqa: E731
IAE = tf.errors.InvalidArgumentError
UNIMPL = tf.errors.UnimplementedError

ERRORS = [
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), [2, 2, 2], 2, "SAME"), ValueError,
        r"ksize should be of length 1, 2 or 4. Received: ksize=\[2, 2, 2\] of length 3"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), 2, [2, 2, 2], "SAME"), ValueError, "strides should be of length 1, 2"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), [2, 2, 2, 1], 2, "SAME"), UNIMPL,
        r"Pooling is not yet supported on the batch dimension. \[Op:MaxPool\]"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), [1, 2, 2, 2], 2, "SAME"), UNIMPL,
        "exactly one of pooling across depth or pooling across width/height"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), 0, 2, "SAME"), IAE,
        "Sliding window ksize must be positive. The specified or inferred ksize is: 1,0,0,1"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), 2, 2, "FOO"), IAE,
        "Value for attr 'padding' of \"FOO\" is not in the list of allowed values"),
    Err(lambda: tf.nn.max_pool2d(X(5, 5, 3), 2, 2, "SAME"), IAE, "must be 4-dimensional"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), 2, 2, [[0, 0], [2, 2], [0, 1], [0, 0]]), IAE,
        "Top padding 2 needs to be smaller than the window size 2"),
    Err(lambda: tf.nn.max_pool2d(X(2, 5, 5, 3), 2, 2, "SAME", "NHCW"), IAE, "attr 'data_format' of \"NHCW\""),
    Err(lambda: tf.nn.max_pool2d(tf.ones([2, 5, 5, 3], tf.bool), 2, 2, "SAME"), IAE,
        "Value for attr 'T' of bool is not in the list of allowed values"),
    Err(lambda: tf.nn.max_pool3d(tf.ones([2, 5, 5, 5, 3], tf.float64), 2, 2, "SAME"), IAE,
        r"Value for attr 'T' of float64 .* \[Op:MaxPool3D\]"),
    Err(lambda: tf.nn.avg_pool2d(tf.ones([2, 5, 5, 3], tf.int32), 2, 2, "SAME"), IAE,
        r"Value for attr 'T' of int32 .* \[Op:AvgPool\]"),
    Err(lambda: tf.nn.avg_pool2d(X(2, 5, 5, 3), 2, 2, [[0, 0], [1, 1], [0, 1], [0, 0]]), TypeError,
        "Expected string for argument 'padding'"),
    Err(lambda: tf.nn.avg_pool2d(X(2, 5, 5, 3), [1, 2, 2, 2], 2, "SAME"), UNIMPL,
        r"exactly one of pooling across depth .* \[Op:AvgPool\]"),
    Err(lambda: tf.nn.max_pool(X(2, 4, 4, 4, 4, 3), 2, 2, "SAME"), ValueError,
        r"`input.shape.rank` must be 3, 4 or 5. Received: input.shape=\(2, 4, 4, 4, 4, 3\) of rank 6."),
    Err(lambda: tf.nn.max_pool_with_argmax(X(2, 5, 5, 3), 2, 2, "SAME", data_format="NCHW"), ValueError,
        "`data_format` values other  than 'NHWC' are not supported"),
    Err(lambda: tf.nn.pool(X(2, 5, 5, 3), [2, 2], "MIN", padding="SAME"), ValueError,
        "2-D MIN pooling is not supported."),
    Err(lambda: tf.nn.pool(X(2, 5, 5, 3), [2, 2], "AVG", padding="SAME", dilations=[2, 2]), ValueError,
        "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1"),
    Err(lambda: bind(nn_pool.MAX_POOL_GRAD, X(1, 4, 4, 1), X(1, 2, 2, 1), X(1, 3, 2, 1), ksize=(1, 2, 2, 1),
                     strides=(1, 2, 2, 1), padding="VALID", explicit_paddings=(), data_format="NHWC"), IAE,
        r"Expected grad shape to be \[1,2,2,1\], but got \[1,3,2,1\] \[Op:MaxPoolGrad\]"),
    Err(lambda: bind(nn_pool.MAX_POOL_GRAD_GRAD, X(1, 4, 4, 1), X(1, 2, 2, 1), X(1, 2, 2, 1), ksize=(1, 2, 2, 1),
                     strides=(1, 2, 2, 1), padding="VALID", explicit_paddings=(), data_format="NHWC"), IAE,
        r"Expected grad shape to be \[1,4,4,1\], but got \[1,2,2,1\] \[Op:MaxPoolGradGrad\]"),
    Err(lambda: bind(nn_pool.MAX_POOL_GRAD_GRAD, X(1, 4, 4, 1), X(1, 4, 4, 1), X(1, 4, 4, 1), ksize=(1, 2, 2, 1),
                     strides=(1, 2, 2, 1), padding="VALID", explicit_paddings=(), data_format="NHWC"), IAE,
        r"Expected orig_output shape to be \[1,2,2,1\], but got \[1,4,4,1\]"),
    Err(lambda: bind(nn_pool.MAX_POOL_GRAD_GRAD, X(4, 4, 1), X(1, 2, 2, 1), X(4, 4, 1), ksize=(1, 2, 2, 1),
                     strides=(1, 2, 2, 1), padding="VALID", explicit_paddings=(), data_format="NHWC"), IAE,
        r"tensor_in must be 4-dimensional \[Op:MaxPoolGradGrad\]"),
    Err(lambda: bind(nn_pool.MAX_POOL3D_GRAD_GRAD, X(1, 1, 4, 4, 1), X(1, 1, 2, 2, 1), X(1, 1, 2, 2, 1),
                     ksize=(1, 1, 2, 2, 1), strides=(1, 1, 2, 2, 1), padding="VALID", data_format="NDHWC"), IAE,
        r"Expected grad shape to be \[1,1,4,4,1\], but got \[1,1,2,2,1\] \[Op:MaxPool3DGradGrad\]"),
    Err(lambda: bind(nn_pool.ARGMAX_GRAD, X(1, 4, 4, 1), X(1, 2, 2, 1), tf.constant([1, 7, 12, 16], shape=(1, 2, 2, 1),
                     dtype=tf.int64), ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID",
                     include_batch_in_index=False),
        IAE, r"Invalid argmax index: 16, must be in \[0, 16\) \[Op:MaxPoolGradWithArgmax\]"),
    Err(lambda: bind(nn_pool.ARGMAX_GRAD_GRAD, X(1, 4, 4, 1), X(1, 4, 4, 1), -tf.ones([1, 2, 2, 1], tf.int64),
                     ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID", include_batch_in_index=False),
        IAE, r"Invalid argmax index: -1"),
    Err(lambda: bind(nn_pool.ARGMAX_GRAD, X(1, 4, 4, 1), X(1, 3, 2, 1), tf.zeros([1, 2, 2, 1], tf.int64),
                     ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID", include_batch_in_index=False),
        IAE, r"Expected grad shape to be \[1,2,2,1\], but got \[1,3,2,1\]"),
    Err(lambda: bind(nn_pool.AVG_POOL_GRAD, X(1, 3, 2, 1), orig_input_shape=(1, 4, 4, 1), ksize=(1, 2, 2, 1),
                     strides=(1, 2, 2, 1), padding="VALID", data_format="NHWC"), IAE,
        r"Expected grad shape to be \[1,2,2,1\]"),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


# --- focused checks --------------------------------------------------------------------------

def test_avg_pool_same_averages_valid_elements_only():
    x = tf.constant(np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1))
    np.testing.assert_array_equal(tf.nn.avg_pool2d(x, 2, 2, "SAME").numpy().ravel(), [2.0, 3.5, 6.5, 8.0])


def test_max_pool_pads_with_lowest_not_zero():
    x = -tf.ones([1, 3, 3, 1], tf.int8)
    assert tf.nn.max_pool2d(x, 2, 2, "SAME").numpy().max() == -1
    y = tf.nn.max_pool2d(tf.constant(np.full((1, 2, 2, 1), -np.inf, np.float32)), 3, 1, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), np.full(4, np.finfo(np.float32).min))  # TF's lowest()


def test_argmax_ties_first_in_row_major_order():
    r = tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 1]), 3, 1, "SAME")
    np.testing.assert_array_equal(r.argmax.numpy().ravel(), [0, 0, 1, 2, 0, 0, 1, 2, 4, 4, 5, 6, 8, 8, 9, 10])
    assert r.argmax.dtype == tf.int64
    assert tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 1]), 2, 2, "SAME", output_dtype=tf.int32).argmax.dtype \
        == tf.int32


def test_max_pool_grad_all_minus_inf_goes_to_first_valid_element():
    x = tf.constant(np.full((1, 2, 2, 1), -np.inf, np.float32))
    g = bind(nn_pool.MAX_POOL_GRAD, x, x, tf.ones([1, 2, 2, 1]), **_grad_attrs((3, 3), (1, 1), "SAME"))
    np.testing.assert_array_equal(g.numpy().ravel(), [4, 0, 0, 0])  # as TF
test_compiled = compiled_tests(CASES)
