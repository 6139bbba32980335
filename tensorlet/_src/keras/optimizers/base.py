"""``tf.keras.optimizers.Optimizer``: Keras 3's optimizer base (``build`` + ``update_step``).

A subclass creates its slots in ``build(var_list)`` with ``add_variable_from_reference`` and writes the math of
one variable in ``update_step(gradient, variable, learning_rate)``; the base does clipping, weight decay,
gradient accumulation, EMA, loss-scale division, constraints and the ``iterations`` counter.  Updates use only
tensor ops and variable assignments, so a step can run inside ``tf.function``.

>>> opt = tf.keras.optimizers.SGD(0.1)
>>> v = tf.Variable(1.0)
>>> _ = opt.apply_gradients([(tf.constant(2.0), v)])
>>> round(float(v), 4)
0.8
"""

from __future__ import annotations

import sys

import re
import warnings

from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.distribute.strategy import all_reduce_sum_gradients
from tensorlet._src.graph import control_flow
from tensorlet._src.framework import variables as _variables
from tensorlet._src.framework.context import init_scope
from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.creation import zeros, zeros_like
from tensorlet._src.ops.math_binary import cast, equal, maximum, minimum, not_equal
from tensorlet._src.ops.math_clip import clip_by_norm, clip_by_value
from tensorlet._src.ops.math_unary import sqrt, square
from tensorlet._src.ops.reduce import reduce_sum
from tensorlet._src.framework import module as _module
from tensorlet._src.keras import backend
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.ops.registry import tf_export



def keras_variable(value, name, dtype, path, trainable=False):
    """A non-trainable variable named like Keras 3's (``v.name == "iteration"``, ``v.path == "adam/iteration"``)."""
    with init_scope():
        v = _variables.Variable(value, trainable=trainable, dtype=dtype, name=name)
    v._name = name
    v.path = path
    return v


def _cond(pred, true_fn, false_fn):
    """``tf.cond`` over branches that may return None (they run for their assignments)."""
    def _wrap(fn):
        def run():
            out = fn()
            return constant(0) if out is None else out
        return run
    return control_flow.cond(pred, _wrap(true_fn), _wrap(false_fn))


def _is_schedule(lr):
    from tensorlet._src.keras.optimizers.schedules import LearningRateSchedule

    return isinstance(lr, LearningRateSchedule)


def _is_variable(x):
    from tensorlet._src.framework.variables import Variable

    return isinstance(x, Variable)


@tf_export("keras.Optimizer", "keras.optimizers.Optimizer")
class Optimizer:
    """Base class of Keras optimizers; subclasses implement ``build`` and ``update_step``."""

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        self._lock = False
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.", stacklevel=2)
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if name is None:
            name = backend.auto_name(backend.to_snake_case(type(self).__name__))
        self.name = name
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue
        self.use_ema = use_ema
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. Received: "
                             f"gradient_accumulation_steps={gradient_accumulation_steps}")
        if use_ema:
            if ema_momentum > 1 or ema_momentum < 0:
                raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
            if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                            or ema_overwrite_frequency < 1):
                raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                                 f"ema_overwrite_frequency={ema_overwrite_frequency}")
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.built = False
        self._variables = []
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        self._iterations = self._own_variable(0, "iteration", "int64")
        if _is_schedule(learning_rate) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            if not isinstance(learning_rate, float):
                raise ValueError("Argument `learning_rate` should be float, or an instance of LearningRateSchedule, "
                                 "or a callable (that takes in the current iteration value and returns the "
                                 f"corresponding learning rate value). Received instead: learning_rate={learning_rate}")
            self._learning_rate = self._own_variable(learning_rate, "learning_rate", backend.floatx())

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        hook = _module.setattr_hook
        if hook is not None:  # deferred checkpoint restoration: slots assigned in build() get their saved values
            hook(self, name, value)

    def _own_variable(self, value, name, dtype):
        v = keras_variable(value, name, dtype, f"{self.name}/{name}")
        self._variables.append(v)
        return v

    # --- state -----------------------------------------------------------------------------------------------------
    @property
    def iterations(self):
        """Number of applied steps (an int64 variable; divided by ``gradient_accumulation_steps`` when set)."""
        if self.gradient_accumulation_steps:
            return self._iterations // self.gradient_accumulation_steps
        return self._iterations

    @property
    def variables(self):
        """The optimizer's variables in Keras's order (iteration, learning_rate, slots...)."""
        return self._variables[:]

    def _var_key(self, variable):
        return getattr(variable, "_unique_id", None) or id(variable)

    def _get_variable_index(self, variable):
        return self._trainable_variables_indices[self._var_key(variable)]

    def _overwrite_variable_with_gradient(self, variable):
        return getattr(variable, "overwrite_with_gradient", False)

    def build(self, variables):
        """Creates the optimizer's slot variables for ``variables`` (subclasses call ``super().build`` first)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(variables, "average")
        if self.gradient_accumulation_steps:
            self._accumulated_gradients = []
        for i, variable in enumerate(variables):
            self._trainable_variables_indices[self._var_key(variable)] = i
            if self.gradient_accumulation_steps:
                self._accumulated_gradients.append(self.add_variable_from_reference(
                    variable, name="gradient_accumulator"))
        self._trainable_variables = list(variables)
        self.built = True

    def _check_super_called(self):
        if not hasattr(self, "_lock"):
            raise RuntimeError(f"In optimizer '{self.__class__.__name__}', you forgot to call `super().__init__()` "
                               "as the first statement in the `__init__()` method. Go add it!")

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None):
        """A new optimizer variable of ``shape`` (created outside any function being traced)."""
        self._check_super_called()
        from tensorlet._src.keras import initializers

        init = initializers.get(initializer)
        dtype = dtype if dtype is not None else backend.floatx()
        if name is None:
            name = backend.auto_name("variable")
        shape = tuple(int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape))
        with init_scope():
            value = init(shape, dtype=dtype)
        v = keras_variable(value, name, dtype, f"{self.name}/{name}")
        self._variables.append(v)
        return v

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A slot shaped like ``reference_variable``, named ``<its path with _>_<name>``."""
        name = name or "var"
        if hasattr(reference_variable, "path"):
            name = f"{reference_variable.path.replace('/', '_')}_{name}"
        else:
            name = f"{str(reference_variable.name).replace('/', '_').replace(':', '_')}_{name}"
        return self.add_variable(shape=reference_variable.shape, initializer=initializer,
                                 dtype=reference_variable.dtype, name=name)

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """One slot per variable for each name in ``name`` (a str gives one list, a list gives a tuple of lists)."""
        names = [name] if isinstance(name, str) else list(name)
        if isinstance(name, str):
            inits = [initializer]
        elif isinstance(initializer, (list, tuple)):
            inits = list(initializer)
        else:
            inits = [initializer] * len(names)
        if len(names) != len(inits):
            raise ValueError("The number of provided names must match the number of provided initializers.  "
                             f"Received name='{name}', initializer='{initializer}'")
        out = tuple([] for _ in names)
        for variable in trainable_variables:
            overwrite = self._overwrite_variable_with_gradient(variable)
            for i, (n, init) in enumerate(zip(names, inits)):
                out[i].append(None if overwrite else self.add_variable_from_reference(variable, name=n,
                                                                                       initializer=init))
        return out[0] if isinstance(name, str) else out

    def _check_variables_are_known(self, variables):
        for v in variables:
            if self._var_key(v) not in self._trainable_variables_indices:
                raise ValueError(f"Unknown variable: {v}. This optimizer can only be called for the variables it was "
                                 "originally built with. When working with a new set of variables, you should "
                                 "recreate a new optimizer instance.")

    # --- assignment helpers (IndexedSlices -> scatter) ---------------------------------------------------------------
    def assign(self, variable, value):
        value = S.cast(value, variable.dtype)
        if S.is_sparse(value):
            S.scatter(variable, value, "update")
        else:
            variable.assign(value)

    def assign_add(self, variable, value):
        value = S.cast(value, variable.dtype)
        if S.is_sparse(value):
            S.scatter(variable, value, "add")
        else:
            variable.assign_add(value)

    def assign_sub(self, variable, value):
        value = S.cast(value, variable.dtype)
        if S.is_sparse(value):
            S.scatter(variable, value, "sub")
        else:
            variable.assign_sub(value)

    # --- applying ----------------------------------------------------------------------------------------------------
    def update_step(self, gradient, variable, learning_rate):
        raise NotImplementedError

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Applies ``[(gradient, variable), ...]``; returns the ``iterations`` variable."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self._iterations
        grads, variables = zip(*pairs)
        self.apply(list(grads), list(variables))
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Applies ``grads`` to ``trainable_variables`` (or to the variables the optimizer was built with)."""
        grads = list(grads)
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built on "
                                 "a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            if len(grads) != len(self._trainable_variables_indices):
                raise ValueError("When passing `grads` as a list of gradient tensors, the gradients must match "
                                 f"`optimizer.variables` one-to-on. Received a list of {len(grads)} gradients, but "
                                 f"the optimizer is tracking {len(self._trainable_variables)} trainable variables.")
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                self.build(trainable_variables)
                self.built = True
                ck = sys.modules.get("tensorlet._src.train.checkpoint")
                if ck is not None and ck._PENDING:  # slots restored before they existed (deferred restoration)
                    ck.restore_pending(self)
            self._check_variables_are_known(trainable_variables)
        grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
        grads = all_reduce_sum_gradients(grads)  # inside a multi-replica strategy.run: sum over replicas
        grads = [S.with_static_shape(g, v) for g, v in zip(grads, trainable_variables)]
        grads, trainable_variables = self._overwrite_variables_directly_with_gradients(grads, trainable_variables)
        if grads:
            scale = self.loss_scale_factor
            if scale is not None:
                grads = [None if g is None else S.dense(g) / scale for g in grads]
            self._backend_apply_gradients(grads, trainable_variables)
            for variable in trainable_variables:
                if getattr(variable, "constraint", None) is not None:
                    variable.assign(variable.constraint(variable))
        self._iterations.assign_add(1)

    def minimize(self, loss, var_list, tape=None):
        """Computes gradients of ``loss`` (a tensor with ``tape``, or a callable) and applies them (tf.keras 2 API)."""
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
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def _backend_apply_gradients(self, grads, trainable_variables):
        if self.gradient_accumulation_steps:
            steps = self.gradient_accumulation_steps
            is_update_step = equal((self._iterations + 1) % steps, 0)
            acc_grads = [self._accumulated_gradients[self._get_variable_index(v)] for v in trainable_variables]

            def update():
                gs = [(S.dense(g) + acc) / steps for g, acc in zip(grads, acc_grads)]
                gs = self._clip_gradients(gs)
                self._apply_weight_decay(trainable_variables)
                self._backend_update_step(gs, trainable_variables, self.learning_rate)
                for acc in self._accumulated_gradients:
                    if acc is not None:
                        acc.assign(zeros(acc.shape, dtype=acc.dtype))

            def accumulate():
                for g, acc in zip(grads, acc_grads):
                    acc.assign(S.dense(g) + acc)

            _cond(is_update_step, update, accumulate)
        else:
            grads = self._clip_gradients(grads)
            self._apply_weight_decay(trainable_variables)
            self._backend_update_step(grads, trainable_variables, self.learning_rate)
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            if self.ema_overwrite_frequency:
                should = equal((self.iterations + 1) % self.ema_overwrite_frequency, 0)
                _cond(should, lambda: self._overwrite_model_variables_with_average_value(self._trainable_variables),
                      lambda: None)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        for grad, var in zip(grads, trainable_variables):
            self.update_step(grad, var, learning_rate)

    def _filter_empty_gradients(self, grads, variables):
        kept_g, kept_v, missing = [], [], []
        for g, v in zip(grads, variables):
            if g is None:
                missing.append(getattr(v, "path", None) or v.name)
            else:
                kept_g.append(g)
                kept_v.append(v)
        if not kept_g:
            raise ValueError("No gradients provided for any variable.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss. If using "
                          "`model.compile()`, did you forget to provide a `loss` argument?", stacklevel=3)
        return kept_g, kept_v

    def _overwrite_variables_directly_with_gradients(self, grads, variables):
        if not any(self._overwrite_variable_with_gradient(v) for v in variables):
            return grads, variables
        kept_g, kept_v = [], []
        for g, v in zip(grads, variables):
            if self._overwrite_variable_with_gradient(v):
                if self.gradient_accumulation_steps:
                    is_update = equal((self._iterations + 1) % self.gradient_accumulation_steps, 0)
                    acc = self._accumulated_gradients[self._get_variable_index(v)]
                    g = S.dense(g)
                    new_acc = where(is_update, zeros_like(g), maximum(g, acc))
                    new_g = where(is_update, maximum(g, acc), g)
                    v.assign(where(is_update, new_g, v.value()))
                    acc.assign(new_acc)
                else:
                    v.assign(S.dense(g))
            else:
                kept_g.append(g)
                kept_v.append(v)
        return kept_g, kept_v

    # --- clipping and weight decay ------------------------------------------------------------------------------------
    def _clip_by_norm(self, values):
        if S.is_sparse(values):
            return S._with(values, clip_by_norm(values.values, self.clipnorm))
        return clip_by_norm(values, self.clipnorm)

    def _clip_gradients(self, grads):
        if self.clipnorm and self.clipnorm > 0:
            return [self._clip_by_norm(g) if g is not None else g for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            v = self.clipvalue
            return [None if g is None else clip_by_value(S.dense(g), cast(-v, g.dtype), cast(v, g.dtype))
                    for g in grads]
        return grads

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Excludes variables (objects or name regexes) from ``weight_decay``; call before the first step."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        self._exclude_from_weight_decay = {self._var_key(v) for v in var_list} if var_list else set()
        self._exclude_from_weight_decay_pattern = re.compile("|".join(set(var_names))) if var_names else None
        self._exclude_from_weight_decay_cache = {}

    def _use_weight_decay(self, variable):
        key = self._var_key(variable)
        cache = self.__dict__.setdefault("_exclude_from_weight_decay_cache", {})
        if key in cache:
            return cache[key]
        use = True
        if key in getattr(self, "_exclude_from_weight_decay", set()):
            use = False
        else:
            pattern = getattr(self, "_exclude_from_weight_decay_pattern", None)
            if pattern is not None and re.search(pattern, _short_name(variable)) is not None:
                use = False
        cache[key] = use
        return use

    def _apply_weight_decay(self, variables):
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = cast(self.learning_rate, variable.dtype)
                wd = cast(self.weight_decay, variable.dtype)
                variable.assign_sub(variable * wd * lr)

    # --- EMA ---------------------------------------------------------------------------------------------------------
    def _update_model_variables_moving_average(self, trainable_variables):
        for var, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is not None:
                not_first = cast(not_equal(self.iterations, 0), var.dtype)
                momentum = not_first * cast(self.ema_momentum, var.dtype)
                average.assign(momentum * average + (cast(1, var.dtype) - momentum) * var)

    def _overwrite_model_variables_with_average_value(self, trainable_variables):
        if len(trainable_variables) != len(self._model_variables_moving_average):
            raise ValueError(f"The length of model variables ({len(trainable_variables)}) to override does not match "
                             "the length of model variables stored in the optimizer "
                             f"({len(self._model_variables_moving_average)}). Please check if the optimizer was "
                             "called on your model.")
        for var, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is not None:
                var.assign(average)

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, writes the moving averages into the model variables (end of ``fit``)."""
        if self.use_ema:
            self._overwrite_model_variables_with_average_value(var_list)

    # --- learning rate --------------------------------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate: the variable (float), or the schedule's value at ``iterations``."""
        return self._get_current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        prev = self._learning_rate if _is_variable(self._learning_rate) else None
        if _is_schedule(learning_rate) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            if _is_schedule(self._learning_rate):
                raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                                "`learning_rate` constructor argument, hence its learning rate is not settable. If "
                                "you need the learning rate to be settable, you should instantiate the optimizer "
                                "with a float `learning_rate` argument.")
            if _is_variable(self._learning_rate):
                self._learning_rate.assign(cast(learning_rate, self._learning_rate.dtype))
            else:
                self._learning_rate = self._own_variable(float(learning_rate), "learning_rate", backend.floatx())
        if prev is not None and not _is_variable(self._learning_rate):
            self._variables = [v for v in self._variables if v is not prev]

    lr = learning_rate  # tf.keras 2's alias

    def _get_current_learning_rate(self):
        lr = self._learning_rate
        if _is_schedule(lr):
            return lr(self._iterations)
        if _is_variable(lr):
            return lr
        if callable(lr):
            return lr()
        return lr

    def scale_loss(self, loss):
        """``loss * loss_scale_factor`` when set (gradients are divided back in ``apply``)."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    # --- weights and config -------------------------------------------------------------------------------------
    def get_weights(self):
        return [v.numpy() for v in self._variables]

    def set_weights(self, weights):
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            if tuple(variable.shape) != tuple(getattr(weight, "shape", ())):
                raise ValueError(f"Optimizer variable {self._var_key(variable)} has shape {variable.shape} not "
                                 f"compatible with provided weight shape {weight.shape}.")
            variable.assign(cast(weight, variable.dtype))

    def save_own_variables(self, store):
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store):
        if len(store.keys()) != len(self.variables):
            msg = (f"Skipping variable loading for optimizer '{self.name}', because it has {len(self.variables)} "
                   f"variables whereas the saved optimizer has {len(store.keys())} variables. ")
            if len(self.variables) == 0:
                msg += "This is likely because the optimizer has not been called/built yet."
            warnings.warn(msg, stacklevel=2)
            return
        for i, variable in enumerate(self.variables):
            variable.assign(cast(store[str(i)], variable.dtype))

    def get_config(self):
        lr = self._learning_rate
        if _is_schedule(lr):
            from tensorlet._src.keras.optimizers import schedules

            learning_rate = schedules.serialize(lr)
        elif _is_variable(lr):
            learning_rate = float(lr.numpy())
        elif hasattr(lr, "numpy"):
            learning_rate = float(lr)
        elif callable(lr):
            from tensorlet._src.keras.saving.serialization import serialize_keras_object

            learning_rate = serialize_keras_object(lr)
        else:
            learning_rate = 0.5
        return {"name": self.name, "learning_rate": learning_rate, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue,
                "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency, "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            from tensorlet._src.keras.saving.serialization import deserialize_keras_object

            config["learning_rate"] = deserialize_keras_object(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)

    def _checkpoint_dependencies(self):
        """Checkpoint children named as TF names a Keras 3 optimizer's: its attributes in assignment order
        (``_variables/N``, ``_trainable_variables/N``, ``_iterations``, ``_learning_rate``, slot lists...)."""
        from tensorlet._src.train.keras_trackable import optimizer_children

        return optimizer_children(self)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _short_name(variable):
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


def global_norm(values):
    squares = [reduce_sum(square(S.dense(v))) for v in values if v is not None]
    return sqrt(reduce_sum(stack(squares)))


def clip_by_global_norm(values, clip_norm):
    """Keras's global-norm clipping: every gradient times ``clip_norm * min(1/norm, 1/clip_norm)``."""
    norm = global_norm(values)
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)
    return [None if v is None else S.mul(v, cast(scale, v.dtype)) for v in values]
