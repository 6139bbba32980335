"""Finite-difference gradient checks driven by the op CASES tables (first and second order, float64)."""

from __future__ import annotations

import numpy as np

import tensorlet as tf
from tensorlet._src.ops.registry import NONDIFF, REGISTRY


def case_grad_status(case):
    """(checkable, reason): whether the case's ops are all differentiable with gradients defined."""
    ops = [REGISTRY[n] for n in case.ops]
    if not ops:
        return False, "case declares no ops"
    if any(op.grad is NONDIFF for op in ops):
        return False, "declares a non-differentiable op"
    missing = [op.name for op in ops if op.grad is None]
    if missing:
        return False, f"no gradient yet for {missing}"
    if not any(d in ("float32", "float64") for d in case.dtypes):
        return False, "no real floating dtype in the case"
    if not case.as_tensors or not case.grad:
        return False, "case opts out of gradient checks"
    return True, ""


def _inputs(case, rng):
    import opcheck

    shapes = case.shapes[0]
    if case.gen:
        arrays = case.gen(rng, shapes, "float64")
    else:
        arrays = [opcheck.make(rng, s, "float64", case.domain) for s in shapes]
    return [np.asarray(a) for a in arrays]


def _objective(case, arrays, weights=None):
    """L = sum_i <w_i, y_i> over the float outputs, with fixed random weights."""
    outs = tf.nest.flatten(case.fn(*[tf.constant(a) for a in arrays]))
    return outs


def check_case_gradients(case, order=2, seed=0, eps=1e-6, rtol=1e-4, atol=1e-6):
    rng = np.random.default_rng(seed)
    arrays = _inputs(case, rng)
    float_idx = [i for i, a in enumerate(arrays) if a.dtype == np.float64]
    if not float_idx:
        return
    outs0 = tf.nest.flatten(case.fn(*[tf.constant(a) for a in arrays]))
    weights = [rng.standard_normal(o.shape.as_list()) if o.dtype == tf.float64 else None for o in outs0]
    if all(w is None for w in weights):
        raise AssertionError(f"{case.label()}: no float64 output for float64 inputs")

    def loss_of(tensors):
        outs = tf.nest.flatten(case.fn(*tensors))
        total = tf.constant(0.0, tf.float64)
        for o, w in zip(outs, weights):
            if w is not None:
                total = total + tf.reduce_sum(o * tf.constant(w))
        return total

    def loss_np(arrs):
        return float(loss_of([tf.constant(a) for a in arrs]))

    def grads(arrs):
        ts = [tf.constant(a) for a in arrs]
        with tf.GradientTape() as tape:
            tape.watch([ts[i] for i in float_idx])
            loss = loss_of(ts)
        return tape.gradient(loss, [ts[i] for i in float_idx])

    analytic = grads(arrays)
    for k, i in enumerate(float_idx):
        num = _numeric(lambda a, i=i: loss_np(arrays[:i] + [a] + arrays[i + 1:]), arrays[i], eps)
        got = np.zeros_like(arrays[i]) if analytic[k] is None else np.asarray(tf.convert_to_tensor(analytic[k]))
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg=f"{case.label()}: first-order gradient wrt input {i}")
    if order < 2:
        return
    # second order: d/dx <grad L(x), v> by nested tapes vs finite differences of the first-order gradient
    vs = [rng.standard_normal(arrays[i].shape) for i in float_idx]

    def dir_grad(arrs):
        ts = [tf.constant(a) for a in arrs]
        with tf.GradientTape() as outer:
            outer.watch([ts[i] for i in float_idx])
            with tf.GradientTape() as inner:
                inner.watch([ts[i] for i in float_idx])
                loss = loss_of(ts)
            gs = inner.gradient(loss, [ts[i] for i in float_idx])
            s = tf.constant(0.0, tf.float64)
            for g, v in zip(gs, vs):
                if g is not None:
                    s = s + tf.reduce_sum(tf.convert_to_tensor(g) * tf.constant(v))
        return s, outer.gradient(s, [ts[i] for i in float_idx])

    _, second = dir_grad(arrays)
    for k, i in enumerate(float_idx):
        num = _numeric(lambda a, i=i: float(dir_grad(arrays[:i] + [a] + arrays[i + 1:])[0]), arrays[i], eps)
        got = np.zeros_like(arrays[i]) if second[k] is None else np.asarray(tf.convert_to_tensor(second[k]))
        np.testing.assert_allclose(got, num, rtol=rtol * 10, atol=atol * 10,
                                   err_msg=f"{case.label()}: second-order gradient wrt input {i}")


def _numeric(f, x, eps):
    g = np.zeros_like(x)
    flat = x.reshape(-1)
    gf = g.reshape(-1)
    for j in range(flat.size):
        xp = flat.copy()
        xm = flat.copy()
        xp[j] += eps
        xm[j] -= eps
        gf[j] = (f(xp.reshape(x.shape)) - f(xm.reshape(x.shape))) / (2 * eps)
    return g
