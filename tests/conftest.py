import tensorlet  # noqa: F401  (register every op before tests wrap kernels)

import pytest


@pytest.fixture(autouse=True)
def _fresh_global_seed():
    """Each test starts without a global random seed (a test's tf.random.set_seed must not leak into the next:
    TF's op-seed rules make later streams depend on it)."""
    from tensorlet._src.ops.random_gen import set_seed

    set_seed(None)
    yield


@pytest.fixture(autouse=True)
def _no_tensorflow_alias_leak():
    """A test (or a doctest of ``tf.enable_tensorflow_alias``) that turns the ``import tensorflow`` alias on must not
    leave it on: later tests in the process (TensorBoard's readers import ``tensorflow``) would get tensorlet."""
    import sys

    from tensorlet._src import dropin

    was_on = dropin._FINDER in sys.meta_path
    yield
    if not was_on and dropin._FINDER in sys.meta_path:
        dropin.disable_tensorflow_alias()
