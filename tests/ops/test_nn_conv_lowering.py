"""The GEMM (im2col) lowerings of 2-D convolutions against XLA's convolution and its autodiff transposes."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from tensorlet._src.ops import nn_conv_kernels as K  # noqa: E402
from tensorlet._src.ops import nn_conv_lowering as gemm  # noqa: E402

GEOMETRIES = [  # x shape, w shape, stride, dilation, padding
    ((2, 9, 8, 3), (3, 2, 3, 5), 1, 1, "VALID"),
    ((2, 9, 8, 3), (3, 3, 3, 5), 2, 1, "SAME"),
    ((1, 11, 6, 2), (3, 3, 2, 4), 3, 1, "VALID"),
    ((2, 7, 7, 1), (3, 3, 1, 4), 1, 2, "SAME"),
    ((2, 6, 5, 4), (1, 1, 4, 3), 1, 1, "VALID"),
]


@pytest.mark.parametrize("xs,ws,s,d,pad", GEOMETRIES)
def test_gemm_lowering_matches_xla(xs, ws, s, d, pad):
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    attrs = dict(strides=(1, s, s, 1), padding=pad, dilations=(1, d, d, 1), data_format="NHWC")
    _, _, ss, dd, pads = K.geom(xs, ws[:2], attrs["strides"], pad, (), "NHWC", attrs["dilations"])

    def xla(a, b):
        return lax.conv_general_dilated(a, b, ss, pads, rhs_dilation=dd, dimension_numbers=("NHWC", "HWIO", "NHWC"))

    y_ref, vjp = jax.vjp(xla, x, w)
    g = rng.standard_normal(y_ref.shape).astype(np.float32)
    dx_ref, dw_ref = vjp(g)
    assert gemm.applies(2, False, 1, np.float32, xs[0], y_ref.shape[1:3], ws[:2], ws[2], ws[3])
    got = (K.jax_conv(jnp, x, w, **attrs), K.jax_conv_input(jnp, w, g, xs, **attrs),
           K.jax_conv_filter(jnp, x, g, ws, **attrs))
    for a, b in zip(got, (y_ref, dx_ref, dw_ref)):
        assert a.shape == b.shape
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_gemm_lowering_scope():
    ok = dict(nd=2, cf=False, groups=1, dtype=np.float32, n=32, osz=(11, 11), ks=(3, 3), c=16, o=64)
    assert gemm.applies(**ok)
    for change in (dict(nd=3), dict(cf=True), dict(groups=2), dict(dtype=np.float16), dict(dtype=np.int32),
                   dict(o=0), dict(osz=(0, 11)), dict(ks=(9, 9)), dict(n=4096)):
        assert not gemm.applies(**{**ok, **change}), change
