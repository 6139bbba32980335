"""tf.image against NumPy references, and tf.image.resize against values recorded from TensorFlow 2.21
(tests/goldens/image.json, written by tools/record_tf_goldens/image.py)."""

import json
import pathlib

import ml_dtypes
import numpy as np
from opcheck import Case, Err, make, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import image_resize
from tensorlet._src.ops.registry import bind

GOLDENS = json.loads((pathlib.Path(__file__).parent.parent / "goldens" / "image.json").read_text())
GRAD_GOLDENS = json.loads((pathlib.Path(__file__).parent.parent / "goldens" / "image_grad.json").read_text())
IMAGE = np.array(GOLDENS["image"], np.float32).reshape(GOLDENS["image_shape"])
UINT8_IMAGE = np.array(GOLDENS["uint8_image"], np.uint8).reshape(GOLDENS["uint8_shape"])
OP_OF = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic",
         "area": "ResizeArea"}

IMG3 = [((5, 6, 3),), ((1, 1, 2),)]
IMG4 = [((2, 5, 6, 3),), ((1, 4, 1, 1),)]
IMGS = IMG3 + IMG4
FEW = [IMG3[0], IMG4[1]]  # composites of other families' ops: fewer shapes keep the jax lowering run short


def _fixed(*arrays):
    return lambda rng, shapes, dtype: [np.asarray(a) for a in arrays]


def _golden_case(method, uint8=False):
    entries = [c for c in GOLDENS["resize"] if c["method"] == method and bool(c.get("input")) == uint8]
    image = UINT8_IMAGE if uint8 else IMAGE

    def fn(x):
        return tuple(tf.image.resize(x, c["size"], method=c["method"], antialias=c["antialias"]) for c in entries)

    def ref(x):
        out = []
        for c in entries:
            shape = tuple(c["size"]) + (x.shape[-1],)
            out.append(np.array(c["output"], np.dtype(c["dtype"])).reshape(shape))
        return tuple(out)

    ops = set()
    for c in entries:
        if c["antialias"] and method in ("bilinear", "bicubic") or method not in OP_OF:
            ops.add("ScaleAndTranslate")
        else:
            ops.add(OP_OF[method])
    return Case(fn, ref, [(image.shape,)], (str(image.dtype),), gen=_fixed(image), ops=tuple(sorted(ops)),
                rtol=2e-5, atol=2e-4, id=f"resize_golden_{method}{'_uint8' if uint8 else ''}")


def _bilinear_ref(x, size):
    """TF 2's bilinear resize, straight from its definition (half-pixel centers), in float64."""
    def axis(n_in, n_out):
        pos = (np.arange(n_out) + 0.5) * n_in / n_out - 0.5
        lo = np.floor(pos)
        frac = pos - lo
        return np.clip(lo, 0, n_in - 1).astype(int), np.clip(lo + 1, 0, n_in - 1).astype(int), frac
    h0, h1, fh = axis(x.shape[-3], size[0])
    w0, w1, fw = axis(x.shape[-2], size[1])
    x = x.astype(np.float64)
    rows = x[..., h0, :, :] * (1 - fh)[:, None, None] + x[..., h1, :, :] * fh[:, None, None]
    out = rows[..., w0, :] * (1 - fw)[:, None] + rows[..., w1, :] * fw[:, None]
    return out.astype(np.float32)


def _nearest_ref(x, size):
    rows = np.minimum(np.floor((np.arange(size[0]) + 0.5) * x.shape[-3] / size[0]).astype(int), x.shape[-3] - 1)
    cols = np.minimum(np.floor((np.arange(size[1]) + 0.5) * x.shape[-2] / size[1]).astype(int), x.shape[-2] - 1)
    return x[..., rows, :, :][..., cols, :]


# --- the resize gradient ops: TF's recorded gradients, and transposes of the NumPy references ------------------

GRAD_IMAGE = np.array(GRAD_GOLDENS["image"], np.float32).reshape(GRAD_GOLDENS["image_shape"])
_GRAD_OP = {"bilinear": ("ResizeBilinearGrad", image_resize.RESIZE_BILINEAR_GRAD, None),
            "bicubic": ("ResizeBicubicGrad", image_resize.RESIZE_BICUBIC_GRAD, None),
            "nearest": ("ResizeNearestNeighborGrad", image_resize.RESIZE_NEAREST_GRAD, None)}
_KERNEL = {"bilinear": "triangle", "bicubic": "keyscubic"}


def _grad_op(method, antialias):
    """(op name, op, attrs) of the gradient op TF runs for ``tf.image.resize(..., method, antialias)``."""
    if method in _GRAD_OP and not (antialias and method != "nearest"):
        return _GRAD_OP[method]
    return ("ScaleAndTranslateGrad", image_resize.SCALE_AND_TRANSLATE_GRAD,
            {"kernel_type": _KERNEL.get(method, method), "antialias": antialias})


def _bind_grad(op, attrs, g, x):
    if op is image_resize.RESIZE_NEAREST_GRAD:
        return bind(op, g, size=tuple(x.shape[-3:-1]))
    return bind(op, g, x, **(attrs or {}))


def _grad_golden_case(method, antialias, dtype="float32"):
    entries = [c for c in GRAD_GOLDENS["resize"] if c["method"] == method and c["antialias"] == antialias
               and c.get("input", "float32") == dtype]
    name, op, attrs = _grad_op(method, antialias)
    ws = [np.array(GRAD_GOLDENS["upstream"]["x".join(map(str, c["size"]))],
               dtype if method == "nearest" else np.float32) for c in entries]
    image = GRAD_IMAGE.astype(dtype)

    def fn(x, *gs):
        return tuple(_bind_grad(op, attrs, g, x) for g in gs)

    def ref(x, *gs):
        return tuple(np.array(c["grad"], c["dtype"]).reshape(x.shape) for c in entries)

    return Case(fn, ref, [(image.shape,) + tuple(w.shape for w in ws)], (dtype,), gen=_fixed(image, *ws),
                ops=(name,), rtol=1e-5, atol=2e-6, id=f"{name}_golden_{method}{'_aa' if antialias else ''}_{dtype}")


def _transpose_ref(fwd_ref, g, in_hw):
    """The transpose of a linear resize ``fwd_ref`` (NumPy reference) applied to ``g``, from its explicit matrix."""
    h, w = in_hw
    basis = np.eye(h * w).reshape(h * w, h, w, 1)
    m = np.stack([np.asarray(fwd_ref(b), np.float64).reshape(-1) for b in basis], axis=1)  # [oh*ow, h*w]
    flat = g.astype(np.float64).reshape(g.shape[:-3] + (-1, g.shape[-1]))
    return np.einsum("oi,...oc->...ic", m, flat).reshape(g.shape[:-3] + (h, w, g.shape[-1]))


def _bilinear_grad_gen(rng, shapes, dtype):
    gs, xs = shapes
    return [rng.uniform(-1, 1, gs).astype(np.float32), make(rng, xs, dtype)]


def _bilinear_grad_ref(g, x):
    out = _transpose_ref(lambda b: _bilinear_ref(b, g.shape[-3:-1]), g, x.shape[-3:-1])
    return out.astype(x.dtype)


def _nearest_grad_ref(g, in_hw=(5, 6)):
    return _transpose_ref(lambda b: _nearest_ref(b, g.shape[-3:-1]), g, in_hw).astype(g.dtype)


def _convert_ref(x, dtype, saturate=False):
    """convert_image_dtype by its definition: integers span [0, MAX], floats [0, 1]."""
    src, dst = np.dtype(x.dtype), np.dtype(dtype)
    if src.kind in "iu" and dst.kind == "f":
        return (x.astype(dst) * dst.type(1.0 / np.iinfo(src).max)).astype(dst)
    if src.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        y = x.astype(np.float64) * (info.max + 0.5)
        if saturate:
            y = np.clip(y, info.min, info.max)
        return y.astype(np.int64).astype(dst)
    if src.kind in "iu" and dst.kind in "iu":
        a, b = np.iinfo(src).max, np.iinfo(dst).max
        if a > b:
            return (x // ((a + 1) // (b + 1))).astype(dst)
        return x.astype(dst) * dst.type((b + 1) // (a + 1))
    return x.astype(dst)


def _gray_ref(x):
    f = _convert_ref(x, np.float32).astype(np.float64)
    g = (f @ np.array([0.2989, 0.5870, 0.1140]))[..., None].astype(np.float32)
    return _convert_ref(g, x.dtype) if x.dtype != np.float32 else g


def _contrast_ref(x, factor):
    m = x.astype(np.float64).mean(axis=(-3, -2), keepdims=True)
    return ((x - m) * factor + m).astype(x.dtype)


def _standardize_ref(x):
    f = x.astype(np.float64)
    axes = (-3, -2, -1)
    n = np.prod(x.shape[-3:])
    std = np.maximum(f.std(axis=axes, keepdims=True), 1 / np.sqrt(n))
    return ((f - f.mean(axis=axes, keepdims=True)) / std).astype(np.float32)


def _gradients_ref(x):
    dy = np.zeros_like(x)
    dx = np.zeros_like(x)
    dy[:, :-1] = x[:, 1:] - x[:, :-1]
    dx[:, :, :-1] = x[:, :, 1:] - x[:, :, :-1]
    return dy, dx


def _tv_ref(x):
    axes = None if x.ndim == 3 else (1, 2, 3)
    d1 = np.abs(np.diff(x, axis=-3)).sum(axis=axes)
    d2 = np.abs(np.diff(x, axis=-2)).sum(axis=axes)
    return (d1 + d2).astype(x.dtype)


def _patches_ref(x, k, s, r, padding):
    b, h, w, c = x.shape

    def axis(n, k, s, r):
        eff = (k - 1) * r + 1
        if padding == "SAME":
            out = -(-n // s)
            before = max((out - 1) * s + eff - n, 0) // 2
        else:
            out = -(-(n - eff + 1) // s)
            before = 0
        return out, before

    oh, top = axis(h, k[0], s[0], r[0])
    ow, left = axis(w, k[1], s[1], r[1])
    out = np.zeros((b, oh, ow, k[0], k[1], c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for q in range(k[1]):
                    y, z = i * s[0] + a * r[0] - top, j * s[1] + q * r[1] - left
                    if 0 <= y < h and 0 <= z < w:
                        out[:, i, j, a, q] = x[:, y, z]
    return out.reshape(b, oh, ow, -1)


def _psnr_ref(a, b, max_val):
    mse = ((a.astype(np.float64) - b) ** 2).mean(axis=(-3, -2, -1))
    return (20 * np.log10(max_val) - 10 * np.log10(mse)).astype(np.float32)


UNIT = (0.0, 1.0)
# grad= of cases that TF computes in float32 even for float64 images (resize, color adjustments): float64 finite
# differences do not apply; their gradients are checked against TF in tests/autodiff/test_grad_image.py
F32_INSIDE = False

CASES = [_golden_case(m) for m in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                                   "mitchellcubic")]
CASES += [_golden_case(m, uint8=True) for m in ("bilinear", "nearest", "bicubic", "area", "lanczos3")]
CASES += [
    Case(lambda x: tf.image.resize(x, [7, 4]), lambda x: _bilinear_ref(x, (7, 4)), FEW,
         ("float32", "uint8", "float64", "int16"), domain=(0, 200), ops=("ResizeBilinear",), rtol=1e-5, atol=1e-4,
         grad=F32_INSIDE,
         id="resize_bilinear"),
    Case(lambda x: tf.image.resize(x, (3, 9), method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
         lambda x: _nearest_ref(x, (3, 9)), FEW, ("uint8", "int32", "float16", "bfloat16", "float64"), domain=(0, 200),
         ops=("ResizeNearestNeighbor",), id="resize_nearest_keeps_dtype"),
    Case(lambda x: tf.image.resize(x, [4, 8], preserve_aspect_ratio=True), lambda x: _bilinear_ref(x, (4, 5)),
         [((5, 6, 3),)], ops=("ResizeBilinear",), rtol=1e-5, atol=1e-4, id="resize_preserve_aspect_ratio",
         grad=F32_INSIDE),
    # gradient ops of the resizes (tf.image.resize's gradients): TF's values and the references' transposes
    *[_grad_golden_case(m, aa) for m, aa in sorted({(c["method"], c["antialias"]) for c in GRAD_GOLDENS["resize"]})],
    *[_grad_golden_case(m, False, "float64") for m in ("bilinear", "bicubic", "nearest")],
    Case(lambda g, x: bind(image_resize.RESIZE_BILINEAR_GRAD, g, x), _bilinear_grad_ref,
         [((2, 7, 4, 3), (2, 5, 6, 3)), ((3, 2, 1), (5, 6, 1)), ((1, 1, 1, 2), (1, 4, 3, 2))],
         ("float32", "float64", "bfloat16"), gen=_bilinear_grad_gen, ops=("ResizeBilinearGrad",),
         rtol=1e-5, atol=1e-5, id="resize_bilinear_grad"),
    Case(lambda g: bind(image_resize.RESIZE_NEAREST_GRAD, g, size=(5, 6)), _nearest_grad_ref,
         [((2, 3, 9, 3),), ((7, 13, 1),)], ("float64", "uint8", "bfloat16"), domain=(0, 3),
         ops=("ResizeNearestNeighborGrad",), id="resize_nearest_grad"),
    # flips, rotations, transpose
    Case(tf.image.flip_left_right, lambda x: np.flip(x, -2), IMGS, ("float32", "uint8"), ops=("ReverseV2",)),
    Case(tf.image.flip_up_down, lambda x: np.flip(x, -3), IMGS, ("int32",), ops=("ReverseV2",)),
    *[Case(lambda x, k=k: tf.image.rot90(x, k), lambda x, k=k: np.rot90(x, k, axes=(-3, -2)), IMGS, ("float32",),
           ops=("ReverseV2",) if k % 4 == 2 else ("ReverseV2", "Transpose"), id=f"rot90_{k}") for k in (1, 2, 3, -1)],
    Case(tf.image.transpose, lambda x: np.swapaxes(x, -3, -2), IMGS, ("float32",), ops=("Transpose",)),
    # crops and pads
    Case(lambda x: tf.image.central_crop(x, 0.5), lambda x: x[..., 1:4, 1:5, :], [((5, 6, 3),), ((2, 5, 6, 3),)],
         ops=("StridedSlice",), id="central_crop"),
    Case(lambda x: tf.image.central_crop(x, 0.3), lambda x: x[..., 1:2, 1:3, :], [((3, 4, 2),)],
         ops=("StridedSlice",), id="central_crop_small"),
    Case(lambda x: tf.image.crop_to_bounding_box(x, 1, 2, 3, 3), lambda x: x[..., 1:4, 2:5, :], IMG3[:1] + IMG4[:1],
         ("float32", "uint8"), ops=("StridedSlice",), id="crop_to_bounding_box"),
    Case(lambda x: tf.image.pad_to_bounding_box(x, 1, 2, 8, 9),
         lambda x: np.pad(x, [(0, 0)] * (x.ndim - 3) + [(1, 2), (2, 1), (0, 0)]), IMG3[:1] + IMG4[:1],
         ("float32", "int64"), ops=("Pad",), id="pad_to_bounding_box"),
    Case(lambda x: tf.image.resize_with_crop_or_pad(x, 3, 9),
         lambda x: np.pad(x[..., 1:4, :, :], [(0, 0)] * (x.ndim - 3) + [(0, 0), (1, 2), (0, 0)]),
         IMG3[:1] + IMG4[:1], ops=("StridedSlice", "Pad"), id="resize_with_crop_or_pad"),
    Case(lambda x: tf.image.resize_with_pad(x, 10, 3),
         lambda x: np.pad(_bilinear_ref(x, (2, 3)), [(0, 0)] * (x.ndim - 3) + [(3, 5), (0, 0), (0, 0)]),
         IMG3[:1], ops=("ResizeBilinear", "Pad"), rtol=1e-5, atol=1e-4, id="resize_with_pad",
         grad=F32_INSIDE),
    # dtype conversion
    # (the float sources convert to integer or float16 images: no float64 output to finite-difference)
    *[Case(lambda x, d=d: tf.image.convert_image_dtype(x, d), lambda x, d=d: _convert_ref(x, d), IMG3[:1],
           (src,), domain=dom, ops=ops, grad=not src.startswith("float"), id=f"convert_{src}_to_{d}")
      for src, d, dom, ops in [("uint8", "float32", (0, 255), ("Cast", "Mul")),
                               ("int16", "float64", (-300, 300), ("Cast", "Mul")),
                               ("float32", "uint8", UNIT, ("Cast", "Mul")),
                               ("float64", "int32", UNIT, ("Cast", "Mul")),
                               ("uint8", "int32", (0, 255), ("Cast", "Mul")),
                               ("int32", "uint8", (0, 2**31 - 1), ("FloorDiv", "Cast")),
                               ("float32", "float16", UNIT, ("Cast",))]],
    Case(lambda x: tf.image.convert_image_dtype(x * 2 - 0.5, tf.uint8, saturate=True),
         lambda x: _convert_ref(x * 2 - 0.5, np.uint8, saturate=True), IMG3[:1], domain=UNIT,
         ops=("Maximum", "Minimum", "Cast"), id="convert_saturate", grad=False),  # uint8 output
    # color and adjustments
    Case(tf.image.rgb_to_grayscale, _gray_ref, [((2, 5, 6, 3),), ((3,),)], ("float32", "uint8"),
         domain=(0, 255), rtol=1e-5, atol=1e-5, ops=("StridedSlice",), grad=F32_INSIDE),
    Case(tf.image.grayscale_to_rgb, lambda x: np.repeat(x, 3, axis=-1), [((4, 5, 1),), ((2, 3, 1, 1),), ((3, 1),)],
         ("float32", "uint8"), ops=("Tile",)),
    Case(lambda x: tf.image.adjust_brightness(x, 0.25), lambda x: (x + np.float32(0.25)).astype(x.dtype), IMGS,
         ("float32", "float16"), domain=UNIT, ops=("AddV2",), id="adjust_brightness", grad=F32_INSIDE),
    Case(lambda x: tf.image.adjust_brightness(x, 0.1),
         lambda x: np.clip(np.floor((x / np.float32(255) + np.float32(0.1)) * np.float32(255.5)), 0, 255).astype(
             np.uint8), IMG3[:1], ("uint8",), domain=(0, 255), ops=("AddV2", "Cast"), id="adjust_brightness_uint8"),
    Case(lambda x: tf.image.adjust_contrast(x, 1.7), lambda x: _contrast_ref(x, 1.7), IMGS, ("float32",),
         ops=("AdjustContrastv2",), rtol=1e-5, atol=1e-5, id="adjust_contrast",
         grad=False),  # TF defines no gradient (LookupError): tests/autodiff/test_grad_image.py
    Case(lambda x: tf.image.adjust_contrast(x, 0.5), lambda x: _contrast_ref(x, 0.5), IMG3[:1], ("float16",),
         ops=("AdjustContrastv2",), id="adjust_contrast_float16"),
    Case(lambda x: tf.image.adjust_gamma(x, 2.0, 0.5), lambda x: (0.5 * x.astype(np.float64) ** 2).astype(x.dtype),
         FEW, ("float32",), domain=UNIT, ops=("Pow", "Mul"), id="adjust_gamma", grad=F32_INSIDE),
    Case(tf.image.per_image_standardization, _standardize_ref, FEW + [((2, 2, 1),)], ("float32", "uint8"),
         domain=(0, 255), rtol=1e-4, atol=1e-5, ops=("Mean",),
         grad=F32_INSIDE),
    Case(tf.image.image_gradients, _gradients_ref, IMG4[:1], ("float32", "int32"), ops=("Sub", "Pad")),
    Case(tf.image.total_variation, _tv_ref, FEW, ("float32",), rtol=1e-5, atol=1e-4,
         ops=("Sub", "Abs", "Sum")),
    Case(tf.image.total_variation, _tv_ref, IMG3[:1], ("int32",), ops=("Sub", "Abs", "Sum"), id="total_variation_int"),
    Case(lambda a, b: tf.image.psnr(a, b, 1.0), lambda a, b: _psnr_ref(a, b, 1.0),
         [((5, 6, 3), (5, 6, 3)), ((2, 4, 4, 1), (2, 4, 4, 1))], domain=UNIT, rtol=1e-5, ops=("Log",), id="psnr",
         grad=F32_INSIDE),
    *[Case(lambda x, a=a: tf.image.extract_patches(x, [1, *a[0], 1], [1, *a[1], 1], [1, *a[2], 1], a[3]),
           lambda x, a=a: _patches_ref(x, *a), [((2, 7, 6, 2),)], dtypes, ops=("ExtractImagePatches",),
           id=f"extract_patches_{a}")
      for a, dtypes in [(((2, 2), (1, 1), (1, 1), "VALID"), ("float32", "bfloat16")),
                        (((2, 3), (2, 1), (1, 1), "SAME"), ("uint8", "float32")),
                        (((3, 2), (3, 2), (2, 1), "SAME"), ("int32", "float32")),
                        (((2, 2), (2, 2), (2, 2), "VALID"), ("float64",))]],
]


def _img(*shape, dtype=np.float32):
    return tf.constant(np.zeros(shape, dtype))


ERRORS = [
    Err(lambda: bind(image_resize.RESIZE_BILINEAR_GRAD, _img(1, 3, 4, 1, dtype=np.float64), _img(1, 2, 2, 1)),
        tf.errors.InvalidArgumentError, r"cannot compute ResizeBilinearGrad as input #0\(zero-based\) was expected to "
        r"be a float tensor but is a double tensor \[Op:ResizeBilinearGrad\]"),
    Err(lambda: bind(image_resize.SCALE_AND_TRANSLATE_GRAD, _img(1, 3, 4, 1), _img(1, 2, 2, 1, dtype=np.int32)),
        tf.errors.InvalidArgumentError, "Value for attr 'T' of int32 is not in the list of allowed values: float, "
        "bfloat16, half, double"),
    Err(lambda: bind(image_resize.RESIZE_BICUBIC_GRAD, _img(1, 3, 4, 1), _img(1, 2, 2, 1, dtype=np.float16)),
        tf.errors.InvalidArgumentError, "Value for attr 'T' of half is not in the list of allowed values: float, "
        "double"),
    Err(lambda: bind(image_resize.RESIZE_NEAREST_GRAD, _img(1, 3, 4, 1, dtype=np.int64), size=(2, 2)),
        tf.errors.InvalidArgumentError, "Value for attr 'T' of int64 is not in the list of allowed values: uint8, "
        "int8, int32, half, float, double, bfloat16"),
    Err(lambda: tf.image.resize(_img(3, 4), [5, 3]), ValueError, "'images' must have either 3 or 4 dimensions."),
    Err(lambda: tf.image.resize(_img(3, 4, 1), [5]), ValueError, "'size' must be a 1-D Tensor of 2 elements"),
    Err(lambda: tf.image.resize(_img(3, 4, 1), [5.0, 3]), ValueError, "'size' must be a 1-D int32 Tensor"),
    Err(lambda: tf.image.resize(_img(3, 4, 1), [5, 3], method="bad"), ValueError,
        "Resize method is not implemented: bad"),
    Err(lambda: tf.image.resize(_img(3, 4, 1), [0, 3]), tf.errors.InvalidArgumentError,
        r"output dimensions must be positive \[Op:ResizeBilinear\]"),
    Err(lambda: tf.image.resize(_img(3, 4, 1), [2, -1], method="area"), tf.errors.InvalidArgumentError,
        r"output dimensions must be positive \[Op:ResizeArea\]"),
    Err(lambda: tf.image.resize(_img(1, 1, 1, dtype=bool), [5, 3]), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of bool is not in the list of allowed values: int8, uint8, int16, uint16, int32, int64, "
        "bfloat16, half, float, double"),
    Err(lambda: tf.image.flip_left_right(_img(3, 4)), ValueError,
        r"'image' \(shape \(3, 4\)\) must be at least three-dimensional."),
    Err(lambda: tf.image.flip_up_down(_img(0, 2, 3)), ValueError, r"inner 3 dims of 'image.shape' must be > 0"),
    Err(lambda: tf.image.central_crop(_img(3, 4, 1), 1.5), ValueError, r"central_fraction must be within \(0, 1\]"),
    Err(lambda: tf.image.central_crop(_img(5, 7), 0.5), ValueError, "must be at least three-dimensional"),
    Err(lambda: tf.image.crop_to_bounding_box(_img(5, 7, 1), 0, -1, 1, 1), ValueError, "offset_width must be >= 0."),
    Err(lambda: tf.image.crop_to_bounding_box(_img(5, 7, 1), 0, 0, 1, 8), ValueError,
        "width must be >= target \\+ offset."),
    Err(lambda: tf.image.crop_to_bounding_box(_img(5, 7, 1), 0, 0, 0, 2), ValueError, "target_height must be > 0."),
    Err(lambda: tf.image.crop_to_bounding_box(_img(5, 7), 0, 0, 1, 1), ValueError,
        r"'image' \(shape \(5, 7\)\) must have either 3 or 4 dimensions."),
    Err(lambda: tf.image.pad_to_bounding_box(_img(5, 7, 1), 0, 0, 1, 8), ValueError,
        "height must be <= target - offset"),
    Err(lambda: tf.image.pad_to_bounding_box(_img(5, 7, 1), 0, -1, 5, 8), ValueError, "offset_width must be >= 0"),
    Err(lambda: tf.image.resize_with_crop_or_pad(_img(2, 3, 4, 2), 0, 2), ValueError, "target_height must be > 0."),
    Err(lambda: tf.image.convert_image_dtype(_img(2, dtype=bool), tf.float32), AttributeError,
        "image dtype must be either floating point or integer"),
    Err(lambda: tf.image.convert_image_dtype(_img(2), tf.bool), AttributeError,
        "dtype must be either floating point or integer"),
    Err(lambda: tf.image.rgb_to_grayscale(_img(3, 4, 2)), tf.errors.InvalidArgumentError, "Matrix size-incompatible"),
    Err(lambda: tf.image.grayscale_to_rgb(_img(3, 4, 3)), ValueError,
        "Last dimension of a grayscale image should be size 1."),
    Err(lambda: tf.image.grayscale_to_rgb(_img(1)), ValueError,
        r"A grayscale image \(shape \(1,\)\) must be at least two-dimensional."),
    Err(lambda: tf.image.adjust_contrast(_img(4, 3), 2.0), tf.errors.InvalidArgumentError,
        r"input must be at least 3-D, got shape\[4,3\] \[Op:AdjustContrastv2\]"),
    Err(lambda: tf.image.adjust_gamma(_img(2, 2, 1), -1.0), ValueError, "Gamma should be a non-negative real number."),
    Err(lambda: tf.image.per_image_standardization(_img(2, 2)), ValueError, "must be at least three-dimensional"),
    Err(lambda: tf.image.image_gradients(_img(3, 4, 3)), ValueError,
        r"image_gradients expects a 4D tensor \[batch_size, h, w, d\], not \(3, 4, 3\)."),
    Err(lambda: tf.image.total_variation(_img(3, 4)), ValueError, "'images' must be either 3 or 4-dimensional."),
    Err(lambda: tf.image.total_variation(_img(3, 4, 1, dtype=np.uint8)), tf.errors.InvalidArgumentError,
        "Value for attr 'T' of uint8 is not in the list of allowed values"),
    Err(lambda: tf.image.extract_patches(_img(3, 4, 3), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        tf.errors.InvalidArgumentError, r"input must be 4-dimensional\[3,4,3\]"),
    Err(lambda: tf.image.extract_patches(_img(2, 3, 4, 3), [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        tf.errors.UnimplementedError, "Only support ksizes across space."),
    Err(lambda: tf.image.extract_patches(_img(2, 3, 4, 3), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "BAD"),
        tf.errors.InvalidArgumentError, "Value for attr 'padding' of \"BAD\" is not in the list of allowed values"),
    Err(lambda: tf.image.random_brightness(_img(2, 2, 1), -0.1), ValueError, "max_delta must be non-negative."),
    Err(lambda: tf.image.random_contrast(_img(2, 2, 1), 0.5, 0.2), ValueError, "upper must be > lower."),
    Err(lambda: tf.image.random_contrast(_img(2, 2, 1), -0.5, 1.2), ValueError, "lower must be non-negative."),
]


test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)


def test_resize_output_dtypes():
    x = np.zeros((3, 4, 1))
    for d in ("uint8", "int32", "float16", "float64"):
        assert tf.image.resize(x.astype(d), [5, 3]).dtype == tf.float32
        assert tf.image.resize(x.astype(d), [5, 3], method="nearest").dtype == tf.as_dtype(d)
        assert tf.image.resize(x.astype(d), [5, 3], method="lanczos3").dtype == tf.float32
    assert tf.image.resize(x, tf.constant([5, 3])).shape == (5, 3, 1)
    assert tf.image.resize(x.astype(ml_dtypes.bfloat16), [2, 2]).dtype == tf.float32


def test_convert_image_dtype_saturation_matches_tf():
    # recorded from TF: float -> int32 saturates to the largest float32 below 2**31
    got = tf.image.convert_image_dtype(tf.constant([1.0, 2.0]), tf.int32, saturate=True).numpy()
    assert got.tolist() == [2147483520, 2147483520]
    got = tf.image.convert_image_dtype(tf.constant([1.0, 2.0], tf.float16), tf.int16, saturate=True).numpy()
    assert got.tolist() == [32752, 32752]
    assert tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0, 1.5, -0.5]), tf.uint8).numpy().tolist() == [
        0, 127, 255, 127, 129]  # without saturation values wrap, as in TF
    assert tf.image.adjust_brightness(tf.constant([[[1]]]), 1).numpy().item() == 2147483520


def _is_flip_of(out, x, axis):
    return np.array_equal(out, x) or np.array_equal(out, np.flip(x, axis))


def test_random_flips_are_flips_about_half_the_time():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4, 1)
    flipped = 0
    for _ in range(60):
        out = tf.image.random_flip_left_right(x[0]).numpy()
        assert _is_flip_of(out, x[0], 1)
        flipped += not np.array_equal(out, x[0])
    assert 10 < flipped < 50
    batch = np.concatenate([x] * 30)
    out = tf.image.random_flip_up_down(batch).numpy()
    changed = [not np.array_equal(o, b) for o, b in zip(out, batch)]
    assert all(_is_flip_of(o, b, 0) for o, b in zip(out, batch))
    assert 10 < sum(changed) < 50  # each image of a batch is flipped independently
    a = tf.image.random_flip_left_right(x, seed=5)
    assert a.shape == x.shape and a.dtype == tf.float32


def test_random_brightness_and_contrast_stay_in_range():
    x = np.full((4, 4, 1), 0.5, np.float32)
    deltas = [float(tf.image.random_brightness(x, 0.2).numpy()[0, 0, 0]) - 0.5 for _ in range(40)]
    assert all(-0.2 - 1e-6 <= d < 0.2 + 1e-6 for d in deltas) and np.std(deltas) > 0.02
    img = np.linspace(0, 1, 16, dtype=np.float32).reshape(4, 4, 1)
    for _ in range(10):
        out = tf.image.random_contrast(img, 0.5, 1.5).numpy()
        factor = (out[0, 0, 0] - img.mean()) / (img[0, 0, 0] - img.mean())
        assert 0.5 - 1e-4 <= factor <= 1.5 + 1e-4
        np.testing.assert_allclose(out.mean(), img.mean(), rtol=1e-5)


def test_resize_method_names():
    assert tf.image.ResizeMethod.BILINEAR == "bilinear" and tf.image.ResizeMethod.NEAREST_NEIGHBOR == "nearest"
    assert tf.image.ResizeMethod.MITCHELLCUBIC == "mitchellcubic"
test_compiled = compiled_tests(CASES)
