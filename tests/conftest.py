import tensorlet  # noqa: F401  (register every op before tests wrap kernels)

import pytest


@pytest.fixture(autouse=True)
def _fresh_global_seed():
    """Each test starts without a global random seed (a test's tf.random.set_seed must not leak into the next:
    TF's op-seed rules make later streams depend on it)."""
    from tensorlet._src.ops.random_gen import set_seed

    set_seed(None)
    yield
