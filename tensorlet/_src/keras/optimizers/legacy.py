"""``tf.keras.optimizers.legacy``: tf.keras 2's ``OptimizerV2`` API, so TF2-era optimizer subclasses keep working.

(Keras 3 itself only raises ImportError here; tensorlet implements the old API.)  A subclass sets hyperparameters
with ``_set_hyper``, creates slots in ``_create_slots`` with ``add_slot``, and applies one variable's update in
``_resource_apply_dense(grad, var, apply_state)`` (and ``_resource_apply_sparse`` for IndexedSlices).

>>> class PlainSGD(tf.keras.optimizers.legacy.Optimizer):
...     def __init__(self, learning_rate=0.1, name="PlainSGD", **kwargs):
...         super().__init__(name, **kwargs)
...         self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
...     def _resource_apply_dense(self, grad, var, apply_state=None):
...         return var.assign_sub(self._get_hyper("learning_rate", var.dtype) * grad)
"""

from __future__ import annotations

import inspect

from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.framework.context import init_scope
from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops import array_shape
from tensorlet._src.ops import math_binary
from tensorlet._src.ops import math_unary
from tensorlet._src.ops import segment
from tensorlet._src.ops.array_identity import identity
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import fill, zeros_like
from tensorlet._src.ops.math_binary import cast, maximum
from tensorlet._src.ops.math_clip import clip_by_global_norm, clip_by_norm, clip_by_value
from tensorlet._src.ops.math_unary import sign, sqrt, square
from tensorlet._src.ops.segment import unsorted_segment_sum
from tensorlet._src.keras import backend
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import keras_variable
from tensorlet._src.ops.registry import tf_export

_ALLOWED = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}
_P = "keras.optimizers.legacy."


def _is_schedule(x):
    from tensorlet._src.keras.optimizers.schedules import LearningRateSchedule

    return isinstance(x, LearningRateSchedule)


def _is_variable(x):
    from tensorlet._src.framework.variables import Variable

    return isinstance(x, Variable)


def _var_key(var):
    return getattr(var, "_unique_id", None) or id(var)


@tf_export(_P + "Optimizer")
class Optimizer:
    """tf.keras 2's optimizer base (``OptimizerV2``)."""

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, name, gradient_aggregator=None, gradient_transformers=None, **kwargs):
        for k in kwargs:
            if k not in _ALLOWED:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. Allowed kwargs are "
                                f"{_ALLOWED}.")
            if kwargs[k] is not None and not callable(kwargs[k]) and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
            if k == "lr":
                import warnings

                warnings.warn("The `lr` argument is deprecated, use `learning_rate` instead.", stacklevel=2)
        object.__setattr__(self, "_hyper", {})
        self._name = name
        self._use_locking = True
        self._slots = {}
        self._slot_names = []
        self._weights = []
        self._iterations = None
        self._hypers_created = False
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0. Received: decay={decay}.")
        self._initial_decay = decay
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError("Cannot accept both `clipnorm` and `global_clipnorm`. Received: `clipnorm`="
                             f"{self.clipnorm}, `global_clipnorm`={self.global_clipnorm}.")
        self.clipvalue = kwargs.pop("clipvalue", None)
        self._dense_takes_state = "apply_state" in inspect.signature(self._resource_apply_dense).parameters
        self._sparse_takes_state = "apply_state" in inspect.signature(self._resource_apply_sparse).parameters

    # --- hyperparameters -------------------------------------------------------------------------------------------
    def _set_hyper(self, name, value):
        if isinstance(value, str):
            raise TypeError(f"Hyperparameter {name} must be a number, a tensor or a schedule; got {value!r}.")
        current = self._hyper.get(name)
        if _is_variable(current) and not (_is_schedule(value) or callable(value)):
            current.assign(cast(value, current.dtype))
        else:
            self._hyper[name] = value

    def _get_hyper(self, name, dtype=None):
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if _is_schedule(value):
            return value
        if callable(value):
            value = value()
        if dtype is not None:
            return cast(value, dtype)
        return value

    def _create_hypers(self):
        if self._hypers_created:
            return
        with init_scope():
            for name, value in sorted(self._hyper.items()):
                if _is_variable(value) or _is_schedule(value) or callable(value):
                    continue
                self._hyper[name] = self.add_weight(name, shape=[], initializer=value)
        self._hypers_created = True

    def _serialize_hyperparameter(self, name):
        value = self._hyper[name]
        if _is_schedule(value):
            from tensorlet._src.keras.optimizers import schedules

            return schedules.serialize(value)
        if callable(value):
            return value()
        if hasattr(value, "numpy"):
            return float(value.numpy())
        return value

    def __getattr__(self, name):
        hyper = self.__dict__.get("_hyper", {})
        if name == "lr" and "learning_rate" in hyper:
            name = "learning_rate"
        if name in hyper:
            return self._get_hyper(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._hyper) | ({"lr"} if "learning_rate" in self._hyper else set()))

    def __setattr__(self, name, value):
        if name == "lr":
            name = "learning_rate"
        if name in self.__dict__.get("_hyper", {}):
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    # --- state ------------------------------------------------------------------------------------------------------
    @property
    def iterations(self):
        """The step counter (an int64 variable named ``iter``)."""
        if self._iterations is None:
            with init_scope():
                self._iterations = self.add_weight("iter", shape=[], dtype="int64", initializer=0)
        return self._iterations

    @iterations.setter
    def iterations(self, variable):
        if self._iterations is not None:
            raise RuntimeError("Cannot set `iterations` to a new Variable after the Optimizer weights have been "
                               "created. Here it is attempting to set `iterations` to {variable}.")
        self._iterations = variable
        self._weights.append(variable)

    def add_weight(self, name, shape, dtype=None, initializer="zeros", trainable=None, synchronization=None,
                   aggregation=None):
        dtype = dtype or backend.floatx()
        shape = tuple(int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape))
        with init_scope():
            if isinstance(initializer, (int, float)) or hasattr(initializer, "dtype"):
                value = fill(shape, cast(initializer, dtype)) if shape else cast(initializer, dtype)
            else:
                from tensorlet._src.keras import initializers

                value = initializers.get(initializer)(shape, dtype=dtype)
        v = keras_variable(value, name, dtype, f"{self._name}/{name}")
        self._weights.append(v)
        return v

    def add_slot(self, var, slot_name, initializer="zeros", shape=None):
        """A variable like ``var`` (or of ``shape``) stored as slot ``slot_name`` of ``var``."""
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slots = self._slots.setdefault(_var_key(var), {})
        if slot_name in slots:
            return slots[slot_name]
        shape = tuple(var.shape) if shape is None else tuple(shape)
        base = getattr(var, "_name", None) or var.name
        base = base[:-2] if base.endswith(":0") else base
        with init_scope():
            if isinstance(initializer, str) or not callable(initializer):
                from tensorlet._src.keras import initializers

                init = initializers.get(initializer) if isinstance(initializer, str) else None
                value = init(shape, dtype=var.dtype) if init else fill(shape, cast(initializer, var.dtype))
            else:
                value = initializer(shape=shape, dtype=var.dtype)
        slot = keras_variable(value, f"{base}/{slot_name}", var.dtype, f"{self._name}/{base}/{slot_name}")
        slots[slot_name] = slot
        self._weights.append(slot)
        return slot

    def get_slot(self, var, slot_name):
        slots = self._slots.get(_var_key(var), {})
        if slot_name not in slots:
            raise KeyError(f"Slot {slot_name!r} not found for variable {var.name!r}")
        return slots[slot_name]

    def get_slot_names(self):
        return list(self._slot_names)

    def _create_slots(self, var_list):
        pass

    def _create_all_weights(self, var_list):
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def variables(self):
        """All the optimizer's variables (iterations, hyperparameters, slots)."""
        return list(self._weights)

    @property
    def weights(self):
        return list(self._weights)

    def get_weights(self):
        return [w.numpy() for w in self._weights]

    def set_weights(self, weights):
        if len(weights) != len(self._weights):
            raise ValueError(f"You called `set_weights(weights)` on optimizer {self._name} with a weight list of "
                             f"length {len(weights)}, but the optimizer was expecting {len(self._weights)} weights. "
                             f"Provided weights: {str(weights)[:50]}...")
        for v, w in zip(self._weights, weights):
            v.assign(cast(w, v.dtype))

    # --- learning rate ------------------------------------------------------------------------------------------
    def _decayed_lr(self, var_dtype):
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if _is_schedule(lr_t):
            lr_t = cast(lr_t(self.iterations), var_dtype)
        if self._initial_decay > 0.0:
            local_step = cast(self.iterations, var_dtype)
            lr_t = lr_t / (1.0 + cast(self._initial_decay, var_dtype) * local_step)
        return lr_t

    def _prepare_local(self, var_device, var_dtype, apply_state):
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = identity(self._decayed_lr(var_dtype))

    def _fallback_apply_state(self, var_device, var_dtype):
        apply_state = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _prepare(self, var_list):
        keys = {(v.device, v.dtype) for v in var_list}
        apply_state = {}
        for k in keys:
            apply_state[k] = {}
            self._prepare_local(k[0], k[1], apply_state)
        return apply_state

    # --- applying -------------------------------------------------------------------------------------------------
    def _resource_apply_dense(self, grad, handle, apply_state):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _resource_apply_sparse(self, grad, handle, indices, apply_state):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices, **kwargs):
        unique, positions = segment.unique(indices)
        summed = unsorted_segment_sum(grad, positions, array_shape.shape(unique)[0])
        return self._resource_apply_sparse(summed, handle, unique, **kwargs)

    def _clip(self, grads):
        if self.clipnorm is not None:
            grads = [None if g is None else (S._with(g, clip_by_norm(g.values, self.clipnorm)) if S.is_sparse(g)
                                             else clip_by_norm(g, self.clipnorm)) for g in grads]
        if self.global_clipnorm is not None:
            grads, _ = clip_by_global_norm([S.dense(g) for g in grads], self.global_clipnorm)
        if self.clipvalue is not None:
            v = self.clipvalue
            grads = [S._with(g, clip_by_value(g.values, -v, v)) if S.is_sparse(g) else clip_by_value(g, -v, v)
                     for g in grads]
        return grads

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Applies ``[(gradient, variable), ...]`` and increments ``iterations``."""
        pairs = [(g, v) for g, v in grads_and_vars]
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: ({[v.name for _, v in pairs]},). "
                             f"Provided `grads_and_vars` is {tuple(pairs)}.")
        var_list = [v for _, v in kept]
        with init_scope():
            self._create_all_weights(var_list)
        grads = self._clip([S.with_static_shape(g, v) for g, v in kept])
        apply_state = self._prepare(var_list)
        for g, var in zip(grads, var_list):
            kwargs = {}
            if S.is_sparse(g):
                if getattr(var, "constraint", None) is not None:
                    raise RuntimeError("Cannot use a constraint function on a sparse variable.")
                if self._sparse_takes_state:
                    kwargs["apply_state"] = apply_state
                self._resource_apply_sparse_duplicate_indices(g.values, var, g.indices, **kwargs)
            else:
                if self._dense_takes_state:
                    kwargs["apply_state"] = apply_state
                self._resource_apply_dense(g, var, **kwargs)
            if getattr(var, "constraint", None) is not None:
                var.assign(var.constraint(var))
        return self.iterations.assign_add(1)

    def apply(self, grads, trainable_variables):
        """Keras 3-style entry point: ``apply(grads, variables)``."""
        return self.apply_gradients(zip(grads, trainable_variables))

    def build(self, var_list):
        """Creates the iteration counter, hyperparameter variables and slots for ``var_list``."""
        self._create_all_weights(list(var_list))

    def scale_loss(self, loss):
        return loss

    def finalize_variable_values(self, var_list):
        pass

    def get_gradients(self, loss, params):
        raise RuntimeError("`get_gradients()` is not supported in eager mode; use `tf.GradientTape`.")

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """Computes gradients of ``loss`` (a callable, or a tensor with ``tape``) and applies them."""
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. "
                             f"Received: loss={loss}, tape={tape}.")
        if callable(loss):
            with GradientTape() as tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list, grad_loss)
        return self.apply_gradients(zip(grads, var_list))

    def _checkpoint_dependencies(self):
        """``iter``, the hyperparameter variables by name, and the slots (``<slot name>/<n>``, in creation order)."""
        deps = [("iter", self._iterations)] if self._iterations is not None else []
        deps += [(k, v) for k, v in sorted(self._hyper.items()) if _is_variable(v)]
        for name in self._slot_names:
            deps.append((f"_slots_{name}", [slots[name] for slots in self._slots.values() if name in slots]))
        return deps

    # --- config -----------------------------------------------------------------------------------------------------
    def get_config(self):
        config = {"name": self._name}
        for k in ("clipnorm", "global_clipnorm", "clipvalue"):
            if getattr(self, k) is not None:
                config[k] = getattr(self, k)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            from tensorlet._src.keras.optimizers import schedules

            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)


def _coef(self, var, apply_state):
    key = (var.device, var.dtype)
    return (apply_state or {}).get(key) or self._fallback_apply_state(*key)


@tf_export(_P + "SGD")
class SGD(Optimizer):
    """tf.keras 2's SGD: ``accum = momentum * accum - lr * g; var += accum`` (``var -= lr * g`` without momentum)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = False
        if callable(momentum) or momentum > 0:
            self._momentum = True
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} (of type "
                             f"{type(momentum)}).")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = identity(self._get_hyper("momentum", var_dtype))

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = _coef(self, var, apply_state)
        if not self._momentum:
            return var.assign_sub(c["lr_t"] * grad)
        accum = self.get_slot(var, "momentum")
        accum.assign(accum * c["momentum"] - grad * c["lr_t"])
        if self.nesterov:
            return var.assign_add(accum * c["momentum"] - grad * c["lr_t"])
        return var.assign_add(accum)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return self._resource_apply_dense(S.dense(S._with_indices(grad, indices, var)), var, apply_state)

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay, "momentum": self._serialize_hyperparameter("momentum"),
                "nesterov": self.nesterov}


@tf_export(_P + "Adam")
class Adam(Optimizer):
    """tf.keras 2's Adam (``epsilon`` added to ``sqrt(v)``; optional AMSGrad)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or 1e-7
        self.amsgrad = amsgrad

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        step = cast(self.iterations + 1, var_dtype)
        b1 = identity(self._get_hyper("beta_1", var_dtype))
        b2 = identity(self._get_hyper("beta_2", var_dtype))
        b1_power, b2_power = math_binary.pow(b1, step), math_binary.pow(b2, step)
        lr = apply_state[(var_device, var_dtype)]["lr_t"] * (sqrt(1 - b2_power) / (1 - b1_power))
        apply_state[(var_device, var_dtype)].update(dict(
            lr=lr, epsilon=constant(self.epsilon, dtype=var_dtype), beta_1_t=b1, beta_1_power=b1_power,
            one_minus_beta_1_t=1 - b1, beta_2_t=b2, beta_2_power=b2_power, one_minus_beta_2_t=1 - b2))

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = _coef(self, var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m.assign_add((grad - m) * c["one_minus_beta_1_t"])
        v.assign_add((square(grad) - v) * c["one_minus_beta_2_t"])
        if self.amsgrad:
            vhat = self.get_slot(var, "vhat")
            vhat.assign(maximum(vhat, v))
            v = vhat
        return var.assign_sub((m * c["lr"]) / (sqrt(v) + c["epsilon"]))

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return self._resource_apply_dense(S.dense(S._with_indices(grad, indices, var)), var, apply_state)

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay, "beta_1": self._serialize_hyperparameter("beta_1"),
                "beta_2": self._serialize_hyperparameter("beta_2"), "epsilon": self.epsilon, "amsgrad": self.amsgrad}


@tf_export(_P + "RMSprop")
class RMSprop(Optimizer):
    """tf.keras 2's RMSprop (``epsilon`` outside the square root unless momentum is used, as TF's kernels)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = callable(momentum) or momentum > 0
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or 1e-7
        self.centered = centered

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        rho = identity(self._get_hyper("rho", var_dtype))
        apply_state[(var_device, var_dtype)].update(dict(
            neg_lr_t=-apply_state[(var_device, var_dtype)]["lr_t"], epsilon=constant(self.epsilon, dtype=var_dtype),
            rho=rho, momentum=identity(self._get_hyper("momentum", var_dtype)), one_minus_rho=1.0 - rho))

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = _coef(self, var, apply_state)
        rms = self.get_slot(var, "rms")
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            rms.assign_add((square(grad) - rms) * c["one_minus_rho"])
            denom = rms.value()
            if self.centered:
                mg = self.get_slot(var, "mg")
                mg.assign_add((grad - mg) * c["one_minus_rho"])
                denom = denom - square(mg.value())
            mom.assign(mom * c["momentum"] + c["lr_t"] * grad / sqrt(denom + c["epsilon"]))
            return var.assign_sub(mom)
        rms.assign(c["rho"] * rms + c["one_minus_rho"] * square(grad))
        denom = rms.value()
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg.assign(c["rho"] * mg + c["one_minus_rho"] * grad)
            denom = denom - square(mg.value())
        return var.assign(var - c["lr_t"] * grad / (sqrt(denom) + c["epsilon"]))

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return self._resource_apply_dense(S.dense(S._with_indices(grad, indices, var)), var, apply_state)

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay, "rho": self._serialize_hyperparameter("rho"),
                "momentum": self._serialize_hyperparameter("momentum"), "epsilon": self.epsilon,
                "centered": self.centered}


@tf_export(_P + "Adagrad")
class Adagrad(Optimizer):
    """tf.keras 2's Adagrad: ``accum += g**2; var -= lr * g / (sqrt(accum) + epsilon)``."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value must be non-negative: {initial_accumulator_value}")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or 1e-7

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = _coef(self, var, apply_state)
        acc = self.get_slot(var, "accumulator")
        acc.assign_add(square(grad))
        return var.assign_sub(c["lr_t"] * grad / (sqrt(acc.value()) + cast(self.epsilon, var.dtype)))

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return self._resource_apply_dense(S.dense(S._with_indices(grad, indices, var)), var, apply_state)

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay, "initial_accumulator_value": self._initial_accumulator_value,
                "epsilon": self.epsilon}


@tf_export(_P + "Ftrl")
class Ftrl(Optimizer):
    """tf.keras 2's FTRL-proximal optimizer."""

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, name="Ftrl",
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, **kwargs):
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError("`initial_accumulator_value` needs to be positive or zero. Received: "
                             f"initial_accumulator_value={initial_accumulator_value}.")
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)
            self.add_slot(var, "linear")

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = _coef(self, var, apply_state)
        dt = var.dtype
        lr = c["lr_t"]
        power = self._get_hyper("learning_rate_power", dt)
        l1 = self._get_hyper("l1_regularization_strength", dt)
        l2 = self._get_hyper("l2_regularization_strength", dt) + self._get_hyper("beta", dt) / (2.0 * lr)
        accum, linear = self.get_slot(var, "accumulator"), self.get_slot(var, "linear")
        grad_shrink = grad + 2.0 * self._l2_shrinkage_regularization_strength * var
        new_accum = accum + square(grad)
        sigma = (math_binary.pow(new_accum, -power) - math_binary.pow(accum, -power)) / lr
        linear.assign_add(grad_shrink - sigma * var)
        quadratic = math_binary.pow(new_accum, -power) / lr + 2.0 * l2
        var.assign(where(math_unary.abs(linear) > l1, (sign(linear) * l1 - linear) / quadratic, zeros_like(var)))
        return accum.assign(new_accum)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return self._resource_apply_dense(S.dense(S._with_indices(grad, indices, var)), var, apply_state)

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("learning_rate"),
                "decay": self._initial_decay,
                "initial_accumulator_value": self._initial_accumulator_value,
                "learning_rate_power": self._serialize_hyperparameter("learning_rate_power"),
                "l1_regularization_strength": self._serialize_hyperparameter("l1_regularization_strength"),
                "l2_regularization_strength": self._serialize_hyperparameter("l2_regularization_strength"),
                "beta": self._serialize_hyperparameter("beta"),
                "l2_shrinkage_regularization_strength": self._l2_shrinkage_regularization_strength}
