"""``steps_per_execution``: a Keras step run over a group of batches in one compiled call.

The group function runs the step on each batch of a group inside one ``tf.function``: a train/test group runs its
first step as written, then loops over the rest stacked (a graph ``While``, one XLA while loop: the program holds
the step twice whatever the group's length) and returns the last step's results; a predict group runs its steps
unrolled and returns each batch's outputs.  One dispatch and one wait per group instead of per batch (Keras 3 on
JAX still calls its jitted step once per batch).  An epoch's shorter last group runs the same program (padded, with
the count of steps to run as an input); batches of another shape (a smaller last batch) run through the single
step.  An eagerly run step (``run_eagerly=True``) or a multi-replica step runs its batches one after another.

``fit`` with ``steps_per_execution=1`` fuses groups of ``AUTO_GROUP`` steps itself when no callback but Keras's
progress bar hooks a batch (nothing can tell the difference) and the fit is long enough (``AUTO_MIN_STEPS``).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.tensor import EagerTensor, Tensor, constant
from tensorlet._src.graph import autograph, control_flow
from tensorlet._src.keras.trainers.callback_hooks import pythonify
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.keras.trainers.step_runner import StepRunner
from tensorlet._src.util import nest


AUTO_GROUP = 32  # steps fused by a fit whose callbacks never look at single batches
AUTO_MIN_STEPS = 8 * AUTO_GROUP  # ... when it runs at least this many steps (short fits keep one step a call)


def group_function(model, kind):
    """The model's ``{kind}`` function over a list of batches, cached until the step function is rebuilt.  A group
    that cannot be compiled runs its batches one after another through the (compiled) single step."""
    single = getattr(model, f"make_{kind}_function")()
    cached = model.__dict__.get("_group_functions_cache")
    if cached is None:
        cached = {}
        object.__setattr__(model, "_group_functions_cache", cached)  # not a tracked attribute
    hit = cached.get(kind)
    if hit is not None and hit[0] is single:
        return hit[1]
    if isinstance(single, StepRunner):
        build = _unrolled if kind == "predict" else _looped
        fn = StepRunner(build(single.python_function, kind), _tf_function(), single._jit, kind,
                        fallback=_sequential(single, kind))
    else:
        fn = _sequential(single, kind)
    cached[kind] = (single, fn)
    return fn


def auto_group_size(model, train_fn, iterator, epochs, hooks):
    """How many steps a ``fit`` with ``steps_per_execution=1`` may fuse without anyone seeing the difference: its
    callbacks hook no batch (so nothing looks at a single step) but Keras's own progress bar (which draws every
    0.05 s: it then sees every group's last step), the step is compiled on one replica, the epoch's batches are
    known in advance (arrays) and the fit runs enough steps to pay for the group's compile; else 1."""
    quiet = hooks == (False, None) or (hooks[0] and hooks[1] is not None)  # or only Keras's progress bar looks
    if model.steps_per_execution != 1 or not quiet or not isinstance(train_fn, StepRunner):
        return 1
    counts = iterator.batch_counts()
    if not counts or sum(counts.values()) * max(epochs, 0) < AUTO_MIN_STEPS:
        return 1
    if not _convolutions_fuse_well(model):
        return 1
    return AUTO_GROUP


def _convolutions_fuse_well(model):
    """Whether fusing steps keeps ``model``'s speed: not shown with convolutions.  Inside a while loop XLA:CPU runs
    its own convolutions 6-7x slower than in a straight-line program; the loop body's convolutions take the GEMM
    form (``ops.nn_conv_lowering``), but on the seed CNN the fused fit measured 4.23 ms/step best and 6.54 median
    against 4.94 / 5.08 one step a call (benchmarks/bench_conv.py, ``tensorlet-fused``): no reliable gain yet."""
    from tensorlet._src.keras.layers import convolutional as conv
    from tensorlet._src.keras.layers.conv_lstm import ConvLSTMCell

    kinds = (conv.BaseConv, conv.BaseConvTranspose, conv.BaseDepthwiseConv, conv.BaseSeparableConv, ConvLSTMCell)
    return not any(isinstance(layer, kinds) for layer in model._flatten_layers(include_self=False))


def run_groups(model, group_fn, iterator, callbacks, kind, hooks, progbar_logs, last, build, size=None):
    """One epoch of a train/test loop in groups: the batch hooks see each group's first and last step (Keras
    3: ``on_*_batch_end(end_step, logs of the group's last step)``).  ``size``: the group size when ``fit``
    fuses steps itself (its epochs then keep their exact length)."""
    n = size or model.steps_per_execution
    all_hooks = hooks and progbar_logs is None
    begin_hook = getattr(callbacks, f"on_{kind}_batch_begin")
    end_hook = getattr(callbacks, f"on_{kind}_batch_end")
    stop = "stop_training" if kind == "train" else "stop_evaluating"
    single = getattr(model, f"make_{kind}_function")()
    # a group longer than the epoch: padded to the epoch's length only
    pad = n if iterator.steps_per_epoch or not iterator.num_batches else min(n, iterator.num_batches)
    logs = None
    for begin, end, batches in iterator.enumerate_groups(n, whole_groups=size is None):
        if size is not None:  # fused by fit itself: the last step's own index
            end = begin + len(batches) - 1
        if all_hooks:
            begin_hook(begin)
        if build:
            model._symbolic_build(batches[0], kind)
            if kind == "train":
                model._build_optimizer()
            build = False
        logs = run_group(group_fn, single, batches, max(pad, len(batches)))
        if hooks:
            if logs is None:  # a quiet group: only the progress bar looks, now and then
                end_hook(end, progbar_logs(model, end >= last))
            else:
                logs = pythonify(logs)
                end_hook(end, logs)
        if getattr(model, stop, False):
            break
    return logs


def predict_groups(model, group_fn, iterator, callbacks, hooks):
    """predict in groups: each hook sees the group's outputs, concatenated (as Keras 3)."""
    out = []
    for begin, end, batches in iterator.enumerate_groups(model.steps_per_execution):
        if hooks:
            callbacks.on_predict_batch_begin(begin)
        if not model.built:
            model._symbolic_build(batches[0], "predict")
        group = [to_numpy(b) for b in group_fn(batches)]
        out.extend(group)
        if hooks:
            flat = [nest.flatten(b) for b in group]
            joined = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
            callbacks.on_predict_batch_end(end, {"outputs": nest.pack_sequence_as(group[0], joined)})
        if model.stop_predicting:
            break
    return out


def to_numpy(batch):
    if batch.__class__ is EagerTensor:
        return np.asarray(batch)
    return nest.map_structure(lambda t: np.asarray(t) if isinstance(t, Tensor) else t, batch)


def _tf_function():
    from tensorlet._src.graph.function import function

    return function


def _unrolled(step, kind):
    converted = []

    def run(batches):
        if not converted:
            converted.append(autograph.convert(step))
        fn = converted[0]
        if kind == "predict":
            return tuple(fn(b) for b in batches)
        logs = None
        for b in batches:
            logs = fn(b)
        return logs

    run.__name__ = run.__qualname__ = f"multi_{kind}_step"
    return run


def _looped(step, kind):
    """A train/test group as a graph loop over ``(count, batches)``: ``batches`` are ``n`` batches of one signature
    (an epoch's shorter last group padded with copies of its last batch), of which the first ``count`` (a tensor)
    run.  The first step runs as written (it may create state, and its results are the loop's first carried
    values), then the loop (``While``, one XLA while loop) runs the rest from the stacked batches: the program
    holds the step twice whatever the group's length, and every group of an epoch -- the last one included --
    runs the same program."""
    converted = []

    def run(data):
        count, batches = data
        if not converted:
            converted.append(autograph.convert(step))
        fn = converted[0]
        logs = fn(batches[0])
        if len(batches) == 1:
            return logs
        flat = [nest.flatten(b) for b in batches[1:]]
        stacked = [None if flat[0][j] is None else stack([f[j] for f in flat]) for j in range(len(flat[0]))]
        template = batches[0]

        def body(i, *carried):
            leaves = [None if s is None else gather(s, i - 1) for s in stacked]
            out = fn(nest.pack_sequence_as(template, leaves))
            return (i + 1, *nest.flatten(out))

        res = control_flow.while_loop(lambda i, *c: i < count, body, [constant(1), *nest.flatten(logs)])
        return nest.pack_sequence_as(logs, list(res[1:]))

    run.__name__ = run.__qualname__ = f"multi_{kind}_step"
    return run


def run_group(group_fn, single_fn, batches, n):
    """One train/test group: its leading batches of the first batch's signature through ``group_fn`` (padded to
    ``n``), then any others (an epoch's smaller last batch) one at a time through ``single_fn``."""
    sig = _signature(batches[0])
    k = 1
    while k < len(batches) and _signature(batches[k]) == sig:
        k += 1
    run = tuple(batches[:k]) + (batches[k - 1],) * (n - k)
    logs = group_fn((constant(k), run))
    for b in batches[k:]:
        logs = single_fn(b)
    return logs


def _signature(batch):
    if batch.__class__ is tuple:  # the common batch, a flat tuple of eager tensors: their arrays' shapes and dtypes
        sig = []
        for t in batch:
            if t.__class__ is EagerTensor:
                v = t._v
                sig.append((v.shape, v.dtype))
            elif t is None:
                sig.append(None)
            else:
                break
        else:
            return tuple(sig)
    return tuple(None if t is None else (tuple(t.shape), t.dtype) for t in nest.flatten(batch))


def _sequential(single, kind):
    def run(data):
        if kind == "predict":
            return tuple(single(b) for b in data)
        count, batches = data
        logs = None
        for b in batches[:int(count)]:
            logs = single(b)
        return logs

    return run
