"""Package-level guarantees: import cost, no jax at import, generated API up to date, missing names."""

import os
import subprocess
import sys

import pytest

import tensorlet as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


HEAVY = ("jax", "jaxlib", "scipy", "h5py", "ml_dtypes", "ml_dtypes._ml_dtypes_ext", "matplotlib", "PIL",
         "google.protobuf", "tensorflow", "torch")


def test_import_does_not_import_heavy_modules():
    # ml_dtypes' extension alone takes 1-2 s to import: bfloat16 resolves it on first use
    code = "import sys, tensorlet; print(sorted(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(eval(out.stdout.strip()))  # noqa: S307 - our own child's repr of a list of str
    assert sorted(loaded.intersection(HEAVY)) == []


def test_bfloat16_loads_ml_dtypes_on_first_use():
    code = ("import sys, numpy as np, tensorlet as tf; before = 'ml_dtypes' in sys.modules; "
            "x = tf.constant([1.5, 2.0], tf.bfloat16); import ml_dtypes; "
            "y = tf.constant(np.array([1, 2], ml_dtypes.bfloat16)); "
            "print(before, x.dtype.name, (x + x).numpy().tolist(), y.dtype.name, tf.bfloat16.max, "
            "tf.as_dtype(ml_dtypes.bfloat16) is tf.bfloat16)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "bfloat16", "[3.0,", "4.0]", "bfloat16", "3.38953e+38", "True"]


def test_loading_jax_leaves_numpys_global_stream_alone():
    # importing jax draws from np.random (cluster detection): a seed set before the first compiled call must
    # give the stream it gives without jax (Keras's fit shuffles with it after keras.utils.set_random_seed)
    code = ("import numpy as np, tensorlet as tf; np.random.seed(0); a = np.random.rand(4).tolist(); "
            "np.random.seed(0); tf.function(lambda x: x * 2, jit_compile=True)(tf.constant(1.0)); "
            "import sys; print('jax' in sys.modules, np.random.rand(4).tolist() == a)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_generated_api_is_up_to_date():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_api.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="tensorlet does not implement tf.not_a_real_tf_name yet"):
        tf.not_a_real_tf_name  # noqa: B018
    with pytest.raises(AttributeError, match=r"tensorlet does not implement tf.math.nope yet"):
        tf.math.nope  # noqa: B018
    assert not hasattr(tf, "not_a_real_tf_name")


def test_same_object_in_every_namespace():
    assert tf.add is tf.math.add and tf.matmul is tf.linalg.matmul and tf.cast is tf.dtypes.cast
    assert tf.float32 is tf.dtypes.float32


def test_errors_hierarchy():
    e = tf.errors
    for cls in (e.InvalidArgumentError, e.NotFoundError, e.ResourceExhaustedError, e.DataLossError,
                e.UnimplementedError, e.OutOfRangeError, e.FailedPreconditionError, e.CancelledError):
        assert issubclass(cls, e.OpError)
    err = e.InvalidArgumentError(None, None, "bad")
    assert err.message == "bad" and err.error_code == e.INVALID_ARGUMENT == 3 and str(err) == "bad"
    assert e.exception_type_from_error_code(5) is e.NotFoundError


def test_devices():
    assert tf.config.list_physical_devices("CPU")[0].device_type == "CPU"
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"
    with tf.device("/CPU:0"):
        assert tf.constant(1.0).device.endswith("CPU:0")
    with pytest.raises(ValueError):
        with tf.device("not a device spec!"):
            pass


def test_small_framework_utilities():
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            assert tf.get_current_name_scope() == "a/b"
    tf.get_logger().setLevel("ERROR")
    assert tf.get_logger().name == "tensorflow"  # TF's logger, as in TF
    assert tf.config.get_soft_device_placement() is True
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is False
    tf.config.set_soft_device_placement(True)


@pytest.mark.parametrize("user_level,hidden", [(None, False), ("1", True)])
def test_jax_import_does_not_set_tf_cpp_min_log_level_for_tensorlet(user_level, hidden):
    # jax's import sets TF_CPP_MIN_LOG_LEVEL=1 when unset; tensorlet's own INFO notices follow the user's value only
    code = ("import logging, tensorlet as tf; from tensorlet._src.framework import jax_runtime; jax_runtime.load(); "
            "import os; log = tf.get_logger(); log.setLevel('DEBUG'); got = []; h = logging.Handler(); "
            "h.emit = got.append; log.addHandler(h); "
            "from tensorlet._src.framework import context; "
            "log.handle(log.makeRecord('tensorflow', logging.INFO, context.__file__, 1, 'notice', (), None)); "
            "print(os.environ.get('TF_CPP_MIN_LOG_LEVEL'), len(got))")
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    if user_level is not None:
        env["TF_CPP_MIN_LOG_LEVEL"] = user_level
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    level, seen = out.stdout.split()
    assert level == "1"  # jax's default stays in the environment for XLA's C++ logging
    assert seen == ("0" if hidden else "1"), out.stderr


def test_jax_imported_by_other_code_does_not_filter_tensorlet_notices():
    code = ("import logging, jax, tensorlet as tf; log = tf.get_logger(); print(len(log.filters))")
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["0"]
    code = ("import logging, tensorlet as tf, jax; log = tf.get_logger(); print(len(log.filters))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["0"]
