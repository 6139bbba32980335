"""``tf.compat.v1.train`` helpers: the global step.

One ``global_step`` variable (int64, not trainable) per TF1 graph, and one for eager code.

>>> step = tf.compat.v1.train.get_or_create_global_step()
>>> step is tf.compat.v1.train.get_global_step()
True
"""

from __future__ import annotations

from tensorlet._src.framework.context import executing_eagerly, init_scope
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.framework.dtypes import int64
from tensorlet._src.framework.tensor import constant
from tensorlet._src.framework.variables import Variable

_EAGER = object()
_steps = {}  # graph (or _EAGER) -> its global step variable


def _current_graph():
    """The default TF1 graph while building one, else None (eager)."""
    if executing_eagerly():
        return None
    try:
        from tensorlet import compat

        return compat.v1.get_default_graph()
    except AttributeError:
        return None


def _table(graph):
    return _steps, (_EAGER if graph is None else graph)


@tf_export("compat.v1.train.get_global_step")
def get_global_step(graph=None):
    """The global step variable of ``graph`` (default: the current graph, or eager code), or None."""
    graph = _current_graph() if graph is None else graph
    table, key = _table(graph)
    return table.get(key)


@tf_export("compat.v1.train.create_global_step")
def create_global_step(graph=None):
    """Creates the global step (``ValueError`` if it exists)."""
    graph = _current_graph() if graph is None else graph
    table, key = _table(graph)
    if key in table:
        raise ValueError('"global_step" already exists.')
    if graph is None:
        with init_scope():
            step = Variable(constant(0, int64), trainable=False, name="global_step")
    else:
        step = Variable(constant(0, int64), trainable=False, name="global_step")
    table[key] = step
    return step


@tf_export("compat.v1.train.get_or_create_global_step")
def get_or_create_global_step(graph=None):
    """The global step, created (int64 ``global_step:0``, value 0) on first use.

    >>> tf.compat.v1.train.get_or_create_global_step().dtype
    tf.int64
    """
    step = get_global_step(graph)
    return create_global_step(graph) if step is None else step


@tf_export("compat.v1.train.assert_global_step")
def assert_global_step(global_step_tensor):
    """Raises ``TypeError`` unless ``global_step_tensor`` is an integer scalar variable or tensor."""
    dtype = getattr(global_step_tensor, "dtype", None)
    if dtype is None or not dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: {dtype}")
    if global_step_tensor.shape.ndims != 0 and global_step_tensor.shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {global_step_tensor.shape}")
