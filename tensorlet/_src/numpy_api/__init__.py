"""``tf.experimental.numpy``: NumPy's API over tensorlet ops (see core.py)."""

from tensorlet._src.numpy_api import arrays, behavior, core, random_api  # noqa: F401
