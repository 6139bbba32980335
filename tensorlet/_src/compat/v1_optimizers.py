"""TF1 optimizers: ``tf.compat.v1.train.AdamOptimizer`` and friends, with TF1's update formulas.

``compute_gradients`` / ``apply_gradients(grads_and_vars, global_step=None)`` / ``minimize(loss, global_step,
var_list)``.  Eagerly ``loss`` is a callable; in a TF1 graph it is a tensor and ``minimize`` returns the grouped
update ops for ``Session.run``.  The arithmetic follows TF1's kernels (``ApplyAdam`` etc.) term by term.

>>> w = tf.Variable([1.0, 2.0])
>>> opt = tf.compat.v1.train.GradientDescentOptimizer(0.5)
>>> opt.minimize(lambda: tf.reduce_sum(w * w))
>>> w.numpy().tolist()
[0.0, 0.0]
"""

from __future__ import annotations

from tensorlet._src.framework.context import executing_eagerly, init_scope
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.autodiff.tape import GradientTape
from tensorlet._src.framework.dtypes import float32
from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.compat.v1_graph import group
from tensorlet._src.ops.array_shape import shape
from tensorlet._src.ops.creation import fill, ones_like, zeros_like
from tensorlet._src.ops.indexed_slices import IndexedSlices
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_unary import rsqrt, sqrt, square
from tensorlet._src.util.nest import flatten


def _var_key(var):
    return id(var)


def _op_name(var) -> str:
    name = getattr(var, "name", None) or "Variable"
    return name[:-2] if name.endswith(":0") else name.split(":")[0]


def _graph_group(ops, name=None):
    ops = [o for o in ops if o is not None]
    return group(*ops, name=name)


@tf_export("compat.v1.train.Optimizer")
class Optimizer:
    """Base class of the TF1 optimizers (``tf.compat.v1.train.Optimizer``).

    Subclasses define ``_create_slots(var_list)``, ``_prepare()``, ``_apply_dense(grad, var)`` and optionally
    ``_finish(update_ops)``.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}  # slot name -> {var key: slot variable}
        self._non_slot = {}  # name -> variable (beta1_power, ...)
        self._primaries = {}  # var key -> var (keeps ids valid)

    def get_name(self):
        return self._name

    # --- gradients ------------------------------------------------------------------------------------------
    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """``[(gradient, variable), ...]`` of ``loss`` (a callable eagerly, a tensor in a TF1 graph)."""
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(f"gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             f"Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(var_list)
                loss_value = loss()
            if var_list is None:
                var_list = tape.watched_variables()
            var_list = flatten(var_list)
            if not var_list:
                raise ValueError("No variables to optimize.")
            grads = tape.gradient(loss_value, var_list, output_gradients=grad_loss)
            return list(zip(grads, var_list))
        if executing_eagerly():
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                               "execution is enabled.")
        from tensorlet import compat

        if var_list is None:
            var_list = compat.v1.trainable_variables()
        var_list = flatten(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = compat.v1.gradients(loss, var_list, grad_ys=grad_loss)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies the gradients; increments ``global_step`` by one.  Eagerly returns None, in a graph the op."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        pairs = []
        for g, v in grads_and_vars:
            if g is not None:
                if isinstance(g, IndexedSlices):
                    g = convert_to_tensor(g)  # TF1's sparse updates equal the dense ones for these kernels
                else:
                    g = convert_to_tensor(g)
            pairs.append((g, v))
        var_list = [v for g, v in pairs if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in pairs]}.")
        from tensorlet._src.compat import v1_graph

        builder = v1_graph._current_builder()
        with init_scope():
            for v in var_list:
                self._primaries[_var_key(v)] = v
            self._create_slots(var_list)
        if builder is not None:  # a TF1 graph: slots are global variables of the graph (its Saver saves them)
            have = builder.v1graph.get_collection("variables")
            non_slot = list(self._non_slot.values())
            for v in sorted(self.variables(), key=lambda v: all(v is not x for x in non_slot)):  # (TF's order)
                if all(v is not x for x in have):
                    builder.variable_created(v)
        from tensorlet._src.framework.context import name_scope

        with name_scope(name or self._name):  # (TF1 graphs: the update ops are "GradientDescent/...")
            self._prepare()
            updates = [self._apply_dense(g, v) for g, v in pairs if g is not None]
            updates.append(self._finish(updates))
            if global_step is not None:
                updates.append(global_step.assign_add(cast(1, global_step.dtype)))
        if executing_eagerly():
            return None
        op = _graph_group(updates, name or self._name)
        from tensorlet._src.compat import v1_graph

        v1_graph.get_default_graph().add_to_collection("train_op", op)  # (TF's minimize records it there)
        return op

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """``compute_gradients`` then ``apply_gradients``."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                                aggregation_method=aggregation_method,
                                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                grad_loss=grad_loss)
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError(f"No gradients provided for any variable, check your graph for ops that do not support "
                             f"gradients, between variables {[str(v) for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    # --- slots ----------------------------------------------------------------------------------------------
    def _zeros_slot(self, var, slot_name, op_name):
        return self._get_or_make_slot(var, zeros_like(var.read_value()), slot_name, op_name)

    def _get_or_make_slot(self, var, initial, slot_name, op_name):
        slots = self._slots.setdefault(slot_name, {})
        key = _var_key(var)
        if key not in slots:
            taken = {s.name for d in self._slots.values() for s in d.values()}
            base = f"{_op_name(var)}/{op_name}"
            name, i = base, 0
            while f"{name}:0" in taken:
                i += 1
                name = f"{base}_{i}"
            slots[key] = Variable(initial, trainable=False, name=name)
        return slots[key]

    def _get_slot(self, var, name):
        return self._slots[name][_var_key(var)]

    def get_slot(self, var, name):
        """The slot variable ``name`` ('m', 'v', 'momentum', ...) of ``var``, or None."""
        return self._slots.get(name, {}).get(_var_key(var))

    def get_slot_names(self):
        return sorted(self._slots)

    def _create_non_slot_variable(self, initial_value, name):
        if name not in self._non_slot:
            self._non_slot[name] = Variable(initial_value, trainable=False, name=name)
        return self._non_slot[name]

    def variables(self):
        """The optimizer's own variables (slots, then non-slot ones), in creation order."""
        out = []
        for key in self._primaries:
            for slot_name in self._slots:
                s = self._slots[slot_name].get(key)
                if s is not None:
                    out.append(s)
        return sorted(out, key=lambda v: v.name) + [self._non_slot[k] for k in sorted(self._non_slot)]

    def _checkpoint_dependencies(self):
        deps = dict(self._non_slot)
        order = list(self._primaries)
        for slot_name, by_var in self._slots.items():
            deps[f"slots/{slot_name}"] = [by_var[k] for k in order if k in by_var]
        return deps

    # --- per-optimizer hooks --------------------------------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _finish(self, update_ops):
        return None

    def _hyper(self, value, dtype):
        if callable(value):
            value = value()
        return cast(value, dtype)


@tf_export("compat.v1.train.GradientDescentOptimizer")
class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        return var.assign_sub(grad * self._hyper(self._learning_rate, var.dtype))


@tf_export("compat.v1.train.MomentumOptimizer")
class MomentumOptimizer(Optimizer):
    """``accum = accum * momentum + grad; var -= lr * accum`` (Nesterov: ``var -= lr * (grad + momentum *
    accum)``)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        lr = self._hyper(self._learning_rate, var.dtype)
        mom = self._hyper(self._momentum, var.dtype)
        accum = self._get_slot(var, "momentum")
        accum_t = accum.read_value() * mom + grad
        a = accum.assign(accum_t)
        if self._use_nesterov:
            return group(a, var.assign_sub(grad * lr + accum_t * mom * lr))
        return group(a, var.assign_sub(accum_t * lr))


@tf_export("compat.v1.train.AdamOptimizer")
class AdamOptimizer(Optimizer):
    """TF1 Adam: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``, ``var -= lr_t * m / (sqrt(v) + epsilon)``
    (epsilon is TF1's "epsilon hat")."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        self._create_non_slot_variable(constant(self._b(self._beta1), float32), "beta1_power")
        self._create_non_slot_variable(constant(self._b(self._beta2), float32), "beta2_power")
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    @staticmethod
    def _b(x):
        return x() if callable(x) else x

    def _prepare(self):
        # read the powers once per step: every variable's update and the power update use these values
        self._b1p = self._non_slot["beta1_power"].read_value()
        self._b2p = self._non_slot["beta2_power"].read_value()

    def _apply_dense(self, grad, var):
        dt = var.dtype
        b1p, b2p = cast(self._b1p, dt), cast(self._b2p, dt)
        lr = self._hyper(self._lr, dt)
        b1, b2, eps = self._hyper(self._beta1, dt), self._hyper(self._beta2, dt), self._hyper(self._epsilon, dt)
        one = cast(1, dt)
        alpha = lr * sqrt(one - b2p) / (one - b1p)
        m, v = self._get_slot(var, "m"), self._get_slot(var, "v")
        m_t = m.read_value()
        m_t = m_t + (grad - m_t) * (one - b1)
        v_t = v.read_value()
        v_t = v_t + (square(grad) - v_t) * (one - b2)
        return group(m.assign(m_t), v.assign(v_t), var.assign_sub((m_t * alpha) / (sqrt(v_t) + eps)))

    def _finish(self, update_ops):
        b1, b2 = self._hyper(self._beta1, float32), self._hyper(self._beta2, float32)
        return group(self._non_slot["beta1_power"].assign(self._b1p * b1),
                       self._non_slot["beta2_power"].assign(self._b2p * b2))


@tf_export("compat.v1.train.RMSPropOptimizer")
class RMSPropOptimizer(Optimizer):
    """TF1 RMSProp: ``ms += (grad^2 - ms) * (1 - decay)``, ``mom = mom * momentum + lr * grad / sqrt(ms +
    epsilon)``, ``var -= mom``; the ``rms`` slot starts at one."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot(v, ones_like(v.read_value()), "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        dt = var.dtype
        lr, rho = self._hyper(self._learning_rate, dt), self._hyper(self._decay, dt)
        momentum, eps = self._hyper(self._momentum, dt), self._hyper(self._epsilon, dt)
        one = cast(1, dt)
        ms, mom = self._get_slot(var, "rms"), self._get_slot(var, "momentum")
        ms_t = ms.read_value()
        ms_t = ms_t + (square(grad) - ms_t) * (one - rho)
        ops = [ms.assign(ms_t)]
        denom = ms_t + eps
        if self._centered:
            mg = self._get_slot(var, "mg")
            mg_t = mg.read_value()
            mg_t = mg_t + (grad - mg_t) * (one - rho)
            ops.append(mg.assign(mg_t))
            denom = ms_t - square(mg_t) + eps
        mom_t = mom.read_value() * momentum + (grad * lr) / sqrt(denom)
        ops += [mom.assign(mom_t), var.assign_sub(mom_t)]
        return group(*ops)


@tf_export("compat.v1.train.AdagradOptimizer")
class AdagradOptimizer(Optimizer):
    """TF1 Adagrad: ``accum += grad^2; var -= lr * grad / sqrt(accum)`` (accumulators start at 0.1)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            init = fill(shape(v.read_value()), cast(self._initial, v.dtype))
            self._get_or_make_slot(v, init, "accumulator", self._name)

    def _apply_dense(self, grad, var):
        lr = self._hyper(self._learning_rate, var.dtype)
        acc = self._get_slot(var, "accumulator")
        acc_t = acc.read_value() + square(grad)
        return group(acc.assign(acc_t), var.assign_sub(grad * lr / sqrt(acc_t)))


@tf_export("compat.v1.train.AdadeltaOptimizer")
class AdadeltaOptimizer(Optimizer):
    """TF1 Adadelta (``accum``, ``accum_update`` slots; ``var -= lr * update``)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _apply_dense(self, grad, var):
        dt = var.dtype
        lr, rho, eps = self._hyper(self._lr, dt), self._hyper(self._rho, dt), self._hyper(self._epsilon, dt)
        one = cast(1, dt)
        acc, acc_up = self._get_slot(var, "accum"), self._get_slot(var, "accum_update")
        acc_t = acc.read_value() * rho + square(grad) * (one - rho)
        au = acc_up.read_value()
        update = sqrt(au + eps) * rsqrt(acc_t + eps) * grad
        au_t = au * rho + square(update) * (one - rho)
        return group(acc.assign(acc_t), acc_up.assign(au_t), var.assign_sub(update * lr))
