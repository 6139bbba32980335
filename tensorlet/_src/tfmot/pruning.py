"""Magnitude pruning as ``tensorflow_model_optimization.sparsity.keras`` does it.

``prune_low_magnitude`` wraps each layer in ``PruneLowMagnitude``, which adds, per prunable weight (``kernel`` of
Dense/Conv, ``depthwise_kernel`` of DepthwiseConv2D, ...), a ``mask`` (ones, the weight's shape) and a scalar
``threshold``, plus one int64 ``pruning_step`` (-1, set to 0 when training starts).  Before every training batch
``pruning_step`` is incremented (the first batch runs at step 1, as in tfmot 0.8); at a step where the schedule
says to prune
(``begin_step <= step <= end_step`` and ``(step - begin_step) % frequency == 0``) each mask becomes
``|w| >= t`` where ``t`` is the k-th largest magnitude, ``k = max(1, round(size * (1 - sparsity)))``, and the
weight becomes ``w * mask`` (also at every epoch end, so a saved model holds masked weights).  Pruned entries keep
receiving gradients between mask updates, as in tfmot.  ``strip_pruning`` returns the model without wrappers.

The mask update runs on the host between batches (the callback), not inside the compiled training step; the
observable state (masks, thresholds, weights at batch and epoch boundaries) follows tfmot.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.callbacks.callback import Callback
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers.wrappers import Wrapper

_CALLBACK_MSG = ("Prune() wrapper requires the UpdatePruningStep callback to be provided during training. Please "
                 "add it as a callback to your model.fit call.")

# layer class name -> attribute names of its prunable weights (tfmot's PruneRegistry for built-in layers)
_PRUNABLE = {
    "Dense": ["kernel"], "EinsumDense": ["kernel"], "Conv1D": ["kernel"], "Conv2D": ["kernel"], "Conv3D": ["kernel"],
    "Conv1DTranspose": ["kernel"], "Conv2DTranspose": ["kernel"], "Conv3DTranspose": ["kernel"],
    "DepthwiseConv2D": ["depthwise_kernel"], "DepthwiseConv1D": ["depthwise_kernel"],
    "SeparableConv1D": ["pointwise_kernel"], "SeparableConv2D": ["pointwise_kernel"], "Embedding": ["embeddings"],
    "LocallyConnected1D": ["kernel"], "LocallyConnected2D": ["kernel"],
    "SimpleRNN": ["cell.kernel", "cell.recurrent_kernel"], "GRU": ["cell.kernel", "cell.recurrent_kernel"],
    "LSTM": ["cell.kernel", "cell.recurrent_kernel"],
}
# layers with nothing to prune (tfmot wraps them too, with no masks)
_NO_WEIGHTS = {
    "Activation", "ReLU", "Softmax", "LeakyReLU", "ELU", "PReLU", "Flatten", "Reshape", "Permute", "RepeatVector",
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise", "GaussianDropout",
    "AlphaDropout", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
    "AveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D", "GlobalAveragePooling1D",
    "GlobalAveragePooling2D", "GlobalAveragePooling3D", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
    "Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D", "Add", "Subtract",
    "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot", "BatchNormalization", "LayerNormalization",
    "Lambda", "Masking", "InputLayer",
}


# --- schedules ----------------------------------------------------------------------------------------------------
def _validate_step(begin_step, end_step, frequency, allow_negative_1):
    if begin_step < 0:
        raise ValueError("begin_step should be >= 0")
    if not (allow_negative_1 and end_step == -1):
        if end_step < 0:
            raise ValueError("end_step should be >= 0")
        if end_step < begin_step:
            raise ValueError("begin_step should be <= end_step if end_step != -1")
    if frequency <= 0:
        raise ValueError("frequency should be > 0")


def _validate_sparsity(sparsity, name):
    if not 0.0 <= sparsity < 1.0:
        raise ValueError(f"{name} must be in range [0,1)")


class PruningSchedule:
    """A schedule: ``schedule(step)`` returns ``(should_prune, sparsity)`` for the training step."""

    def __call__(self, step):
        raise NotImplementedError("PruningSchedule subclasses implement __call__(step).")

    @staticmethod
    def _should_prune_in_step(step, begin_step, end_step, frequency):
        in_range = step >= begin_step and (end_step == -1 or step <= end_step)
        return bool(in_range and (step - begin_step) % frequency == 0)

    def get_config(self):
        raise NotImplementedError("PruningSchedule subclasses implement get_config().")

    @classmethod
    def from_config(cls, config):
        return cls(**config.get("config", config))


class ConstantSparsity(PruningSchedule):
    """``target_sparsity`` from ``begin_step`` on, masks refreshed every ``frequency`` steps until ``end_step``
    (-1: until training ends)."""

    def __init__(self, target_sparsity, begin_step, end_step=-1, frequency=100):
        _validate_step(begin_step, end_step, frequency, allow_negative_1=True)
        _validate_sparsity(target_sparsity, "target_sparsity")
        self.target_sparsity, self.begin_step = float(target_sparsity), int(begin_step)
        self.end_step, self.frequency = int(end_step), int(frequency)

    def __call__(self, step):
        step = int(step)
        return self._should_prune_in_step(step, self.begin_step, self.end_step, self.frequency), \
            np.float32(self.target_sparsity)

    def get_config(self):
        return {"class_name": type(self).__name__, "config": {
            "target_sparsity": self.target_sparsity, "begin_step": self.begin_step, "end_step": self.end_step,
            "frequency": self.frequency}}


class PolynomialDecay(PruningSchedule):
    """Sparsity rising from ``initial_sparsity`` to ``final_sparsity`` between ``begin_step`` and ``end_step``:
    ``final + (initial - final) * (1 - p) ** power`` with ``p = clip((step - begin) / (end - begin), 0, 1)``."""

    def __init__(self, initial_sparsity, final_sparsity, begin_step, end_step, power=3, frequency=100):
        _validate_step(begin_step, end_step, frequency, allow_negative_1=False)
        _validate_sparsity(initial_sparsity, "initial_sparsity")
        _validate_sparsity(final_sparsity, "final_sparsity")
        if power <= 0:
            raise ValueError("power should be > 0")
        self.initial_sparsity, self.final_sparsity = float(initial_sparsity), float(final_sparsity)
        self.begin_step, self.end_step = int(begin_step), int(end_step)
        self.power, self.frequency = power, int(frequency)

    def __call__(self, step):
        step = int(step)
        span = max(self.end_step - self.begin_step, 1)
        p = min(1.0, max(0.0, (step - self.begin_step) / span))
        sparsity = (self.initial_sparsity - self.final_sparsity) * (1.0 - p) ** self.power + self.final_sparsity
        return self._should_prune_in_step(step, self.begin_step, self.end_step, self.frequency), \
            np.float32(sparsity)

    def get_config(self):
        return {"class_name": type(self).__name__, "config": {
            "initial_sparsity": self.initial_sparsity, "final_sparsity": self.final_sparsity,
            "power": self.power, "begin_step": self.begin_step, "end_step": self.end_step,
            "frequency": self.frequency}}


def _schedule_from(obj):
    if isinstance(obj, PruningSchedule):
        return obj
    if isinstance(obj, dict):
        cls = {"ConstantSparsity": ConstantSparsity, "PolynomialDecay": PolynomialDecay}.get(obj.get("class_name"))
        if cls is not None:
            return cls.from_config(obj)
    raise ValueError(f"pruning_schedule must be a PruningSchedule (ConstantSparsity, PolynomialDecay); got {obj!r}")


# --- the wrapper --------------------------------------------------------------------------------------------------
def _resolve(layer, path):
    obj = layer
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _prunable_paths(layer):
    if hasattr(layer, "get_prunable_weights"):
        return None  # PrunableLayer: asks the layer itself
    name = type(layer).__name__
    if name in _PRUNABLE:
        return _PRUNABLE[name]
    if name in _NO_WEIGHTS or not layer.weights and not hasattr(layer, "build"):
        return []
    return False


def _unsupported(layer):
    return ValueError("Please initialize `Prune` with a supported layer. Layers should either be supported by the "
                      "PruneRegistry (built-in keras layers) or should be a `PrunableLayer` instance, or should has "
                      f"a customer defined `get_prunable_weights` method. You passed: {type(layer)}")


class PruneLowMagnitude(Wrapper):
    """Wraps a layer so that its prunable weights are masked by magnitude as the schedule says."""

    def __init__(self, layer, pruning_schedule=None, block_size=(1, 1), block_pooling_type="AVG", **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"`layer` can only be a `tf.keras.layers.Layer` instance. You passed an instance of "
                             f"type: {type(layer).__name__}.")
        if _prunable_paths(layer) is False:
            raise _unsupported(layer)
        if tuple(block_size) != (1, 1):
            raise NotImplementedError("tensorlet's prune_low_magnitude supports block_size=(1, 1) only.")
        if block_pooling_type not in ("AVG", "MAX"):
            raise ValueError(f"Unsupported pooling type '{block_pooling_type}'. Should be 'AVG' or 'MAX'.")
        kwargs.setdefault("name", f"prune_low_magnitude_{layer.name}")
        super().__init__(layer, **kwargs)
        self.pruning_schedule = _schedule_from(pruning_schedule or ConstantSparsity(0.5, 0))
        self.block_size, self.block_pooling_type = tuple(block_size), block_pooling_type
        self.pruning_vars = []  # [(weight, mask, threshold)]

    def prunable_weights(self):
        paths = _prunable_paths(self.layer)
        if paths is None:
            return list(self.layer.get_prunable_weights())
        return [_resolve(self.layer, p) for p in paths]

    def build(self, input_shape=None):
        super().build(input_shape)
        self.pruning_vars = []
        for w in self.prunable_weights():
            mask = self.add_weight(name="mask", shape=tuple(w.shape), initializer="ones", dtype=w.dtype,
                                   trainable=False)
            threshold = self.add_weight(name="threshold", shape=(), initializer="zeros", dtype=w.dtype,
                                        trainable=False)
            self.pruning_vars.append((w, mask, threshold))
        self.pruning_step = self.add_weight(name="pruning_step", shape=(), initializer="zeros", dtype="int64",
                                            trainable=False)
        self.pruning_step.assign(-1)
        self.built = True

    def call(self, inputs, training=None, **kwargs):
        if training and _eager_value(self.pruning_step) is not None and _eager_value(self.pruning_step) < 0:
            from tensorlet._src.framework import errors

            raise errors.InvalidArgumentError(None, None, _CALLBACK_MSG)
        return self.layer(inputs, **({"training": training} if training is not None and _takes_training(
            self.layer) else {}), **kwargs)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    # host-side updates, driven by UpdatePruningStep
    def conditional_mask_update(self, step):
        """Sets ``pruning_step`` to ``step`` and, when the schedule prunes at it, recomputes masks/thresholds."""
        self.pruning_step.assign(int(step))
        should_prune, sparsity = self.pruning_schedule(step)
        if not should_prune:
            return False
        for w, mask, threshold in self.pruning_vars:
            t, m = _magnitude_mask(np.asarray(w.numpy()), float(sparsity))
            threshold.assign(t)
            mask.assign(m)
        return True

    def weight_mask_op(self):
        """``weight = weight * mask`` for every pruned weight."""
        for w, mask, _ in self.pruning_vars:
            w.assign(np.asarray(w.numpy()) * np.asarray(mask.numpy()))

    def get_config(self):
        return {**super().get_config(), "pruning_schedule": self.pruning_schedule.get_config(),
                "block_size": list(self.block_size), "block_pooling_type": self.block_pooling_type}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["pruning_schedule"] = _schedule_from(config["pruning_schedule"])
        return super().from_config(config, custom_objects)


def _eager_value(v):
    try:
        return int(np.asarray(v.numpy()))
    except Exception:  # noqa: BLE001 - a symbolic value while tracing: no eager check
        return None


def _takes_training(layer):
    import inspect

    try:
        return "training" in inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False


def _magnitude_mask(w, sparsity):
    """The (threshold, mask) pair tfmot computes: keep the ``k`` largest magnitudes (ties at the threshold kept)."""
    a = np.abs(w)
    k = max(int(np.round(np.float32(a.size) * np.float32(1.0 - sparsity))), 1)
    flat = np.sort(a.reshape(-1))[::-1]
    t = flat[k - 1]
    return np.asarray(t, w.dtype), (a >= t).astype(w.dtype)


# --- public functions ---------------------------------------------------------------------------------------------
def prune_low_magnitude(to_prune, pruning_schedule=None, block_size=(1, 1), block_pooling_type="AVG",
                        pruning_policy=None, sparsity_m_by_n=None, **kwargs):
    """Wraps a layer, a list of layers, or every layer of a Sequential model in ``PruneLowMagnitude``.

    The wrapped layers are the model's own (the pruned model starts from its weights); recompile it before fit.
    """
    from tensorlet._src.keras.engine.sequential import Sequential
    from tensorlet._src.keras.engine.training import Model

    if sparsity_m_by_n is not None or pruning_policy is not None:
        raise NotImplementedError("tensorlet's prune_low_magnitude does not support sparsity_m_by_n or "
                                  "pruning_policy yet.")
    params = dict(pruning_schedule=pruning_schedule or ConstantSparsity(0.5, 0), block_size=block_size,
                  block_pooling_type=block_pooling_type)

    def wrap(layer):
        if isinstance(layer, PruneLowMagnitude):
            return layer
        return PruneLowMagnitude(layer, **params, **kwargs)

    if isinstance(to_prune, list):
        return [wrap(lay) for lay in to_prune]
    if isinstance(to_prune, Sequential):
        return _rebuild_sequential(to_prune, wrap)
    if isinstance(to_prune, Model):
        raise ValueError("tensorlet's prune_low_magnitude wraps layers and Sequential models; wrap the layers of a "
                         "functional or subclassed model one by one with prune_low_magnitude(layer).")
    if isinstance(to_prune, Layer):
        return wrap(to_prune)
    raise ValueError("`prune_low_magnitude` can only prune an object of the following types: keras.models.Sequential"
                     ", keras functional model, keras.layers.Layer, list of keras.layers.Layer. You passed an object "
                     f"of type: {type(to_prune).__name__}.")


def _rebuild_sequential(model, fn):
    from tensorlet._src.keras.engine.input_layer import Input
    from tensorlet._src.keras.engine.sequential import Sequential

    layers = [fn(lay) for lay in model.layers]
    inputs = getattr(model, "inputs", None)
    new = Sequential(name=model.name)
    if inputs:
        new.add(Input(shape=tuple(inputs[0].shape)[1:], dtype=inputs[0].dtype, batch_size=inputs[0].shape[0]))
    for lay in layers:
        new.add(lay)
    return new


def strip_pruning(model):
    """The model with every ``PruneLowMagnitude`` replaced by its layer, weights multiplied by their masks."""
    from tensorlet._src.keras.engine.sequential import Sequential

    def unwrap(layer):
        if isinstance(layer, PruneLowMagnitude):
            if layer.built:
                layer.weight_mask_op()
            return layer.layer
        return layer

    if isinstance(model, Sequential):
        return _rebuild_sequential(model, unwrap)
    if isinstance(model, Layer) and not hasattr(model, "layers"):
        return unwrap(model)
    raise ValueError(f"Expected model to be a `tf.keras.Model` instance but got: {type(model).__name__}")


def _prunable_layers(model):
    out = []
    for layer in getattr(model, "layers", []):
        if isinstance(layer, PruneLowMagnitude):
            out.append(layer)
        elif hasattr(layer, "layers"):
            out.extend(_prunable_layers(layer))
    return out


class UpdatePruningStep(Callback):
    """Drives the wrappers as tfmot's training-mode call does: ``pruning_step`` starts at 0 (from -1) when
    training begins, and before each training batch it is incremented, the masks the schedule asks for at the new
    step are recomputed, and the weights are masked; at each epoch end the weights are masked again."""

    def __init__(self):
        super().__init__()
        self.prunable_layers = []

    def on_train_begin(self, logs=None):
        self.prunable_layers = _prunable_layers(self.model)
        if self.prunable_layers and self.prunable_layers[0].built and \
                int(np.asarray(self.prunable_layers[0].pruning_step.numpy())) == -1:
            for layer in self.prunable_layers:
                layer.pruning_step.assign(0)

    def on_train_batch_begin(self, batch, logs=None):
        if not self.prunable_layers:
            self.on_train_begin()
        for layer in self.prunable_layers:
            if layer.built:
                layer.conditional_mask_update(int(np.asarray(layer.pruning_step.numpy())) + 1)
                layer.weight_mask_op()

    def on_epoch_end(self, batch, logs=None):
        for layer in self.prunable_layers:
            if layer.built:
                layer.weight_mask_op()


class PruningSummaries(Callback):
    """Writes ``<mask name>/sparsity`` and ``<threshold name>/threshold`` scalars for every pruned weight at each
    epoch end (``update_freq="epoch"``) or every ``update_freq`` batches, into ``log_dir/train``."""

    def __init__(self, log_dir, update_freq="epoch", **kwargs):
        super().__init__()
        if not isinstance(log_dir, str) or not log_dir:
            raise ValueError("`log_dir` must be a non-empty string.")
        self.log_dir, self.update_freq = log_dir, update_freq
        self._writer, self._batches = None, 0

    def _log(self):
        import os

        from tensorlet._src.summary.summary_ops import scalar
        from tensorlet._src.summary.writer import create_file_writer

        if self._writer is None:
            self._writer = create_file_writer(os.path.join(self.log_dir, "train"))
        step = int(np.asarray(self.model.optimizer.iterations.numpy()))
        with self._writer.as_default():
            for layer in _prunable_layers(self.model):
                for _, mask, threshold in layer.pruning_vars:
                    scalar(f"{mask.path}/sparsity", 1.0 - float(np.mean(mask.numpy())), step=step)
                    scalar(f"{threshold.path}/threshold", float(np.asarray(threshold.numpy())), step=step)
        self._writer.flush()

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        if isinstance(self.update_freq, int) and self._batches % self.update_freq == 0:
            self._log()

    def on_epoch_end(self, epoch, logs=None):
        if self.update_freq == "epoch":
            self._log()

    def on_train_end(self, logs=None):
        if self._writer is not None:
            self._writer.close()
