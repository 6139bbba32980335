"""Drop-in: `tensorlet run SCRIPT`, `python -m tensorlet run`, and tensorlet.enable_tensorflow_alias()."""

import subprocess
import sys
import textwrap

import pytest


def _run(tmp_path, source, *args, cmd=("-m", "tensorlet", "run")):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, *cmd, str(script), *args], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)


def test_run_aliases_tensorflow_keras_and_argv(tmp_path):
    out = _run(tmp_path, """
        import sys
        import tensorflow as tf
        import tensorflow.compat.v1 as v1
        from tensorflow.keras.layers import Dense
        import keras
        from keras import layers
        import tensorlet
        assert tf is tensorlet and v1 is tensorlet.compat.v1 and tf.compat.v1 is v1
        assert Dense is tensorlet.keras.layers.Dense and keras is tensorlet.keras and layers is keras.layers
        assert __name__ == "__main__"
        print(sys.argv[1:], tf.reduce_sum(tf.constant([1, 2])).numpy())
    """, "--epochs", "3", "x y")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['--epochs', '3', 'x y'] 3"


@pytest.mark.parametrize("body, code", [("import sys; sys.exit(3)", 3), ("raise SystemExit", 0),
                                        ("raise SystemExit('bye')", 1), ("pass", 0)])
def test_exit_codes_are_preserved(tmp_path, body, code):
    out = _run(tmp_path, body)
    assert out.returncode == code, out.stderr
    if code == 1:
        assert out.stderr.strip() == "bye"


def test_exceptions_exit_1_with_the_scripts_traceback(tmp_path):
    out = _run(tmp_path, """
        def f():
            raise ValueError("boom")
        f()
    """)
    assert out.returncode == 1
    assert out.stderr.startswith("Traceback (most recent call last):")
    assert 'prog.py", line 4, in <module>' in out.stderr and out.stderr.rstrip().endswith("ValueError: boom")
    assert "runpy" not in out.stderr and "dropin" not in out.stderr


def test_missing_names_and_modules_say_so(tmp_path):
    out = _run(tmp_path, """
        import tensorflow as tf
        try:
            tf.not_a_name
        except AttributeError as e:
            print(type(e).__name__, e)
        try:
            import tensorflow.not_a_module
        except ImportError as e:
            print(type(e).__name__, e)
    """)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ("NotImplementedInTensorlet tensorlet does not implement tf.not_a_name yet "
                        "(module 'tensorlet' has no attribute 'not_a_name')")
    assert lines[1] == ("ModuleNotFoundError tensorlet does not implement tf.not_a_module yet "
                        "(no module named 'tensorflow.not_a_module')")


def test_v1_flag_makes_tensorflow_the_v1_api(tmp_path):
    out = _run(tmp_path, """
        import tensorflow as tf
        import tensorlet
        assert tf is tensorlet.compat.v1
        print(tf.contrib.eager.num_gpus() >= 0, tf.train.AdamOptimizer().get_name())
    """, cmd=("-m", "tensorlet", "run", "--v1"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True Adam"


def test_missing_script(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tensorlet", "run", str(tmp_path / "nope.py")], capture_output=True,
                         text=True)
    assert out.returncode == 2 and "can't open file" in out.stderr


def test_enable_tensorflow_alias_in_process():
    code = textwrap.dedent("""
        import sys, tensorlet
        tensorlet.enable_tensorflow_alias()
        import tensorflow as tf
        import tensorflow.keras.optimizers as opt
        import keras.losses
        print(tf is tensorlet, opt is tensorlet.keras.optimizers, keras.losses is tensorlet.keras.losses,
              sys.modules["tensorflow.compat.v1"] if "tensorflow.compat.v1" in sys.modules else None)
        from tensorlet._src.dropin import disable_tensorflow_alias
        disable_tensorflow_alias()
        try:
            import tensorflow
            print("off" if tensorflow is not tensorlet else "still aliased")
        except ImportError:
            print("off")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["True True True None", "off"]


def test_tensorboard_reads_logs_under_the_alias(tmp_path):
    # TensorBoard's loader imports `tensorflow`: under `tensorlet run` it gets tensorlet, probes
    # tensorflow.python.pywrap_tensorflow (absent: its portable path), wraps reads in
    # tensorflow.python.util.deprecation.silence() and reads through tf.compat.v1.io.tf_record_iterator
    out = _run(tmp_path, """
        import tensorflow as tf
        from tensorflow.python.util import deprecation
        deprecation._PRINT_DEPRECATION_WARNINGS = False
        w = tf.summary.create_file_writer("logs")
        with w.as_default():
            for i in range(3):
                tf.summary.scalar("loss", 0.5 * i, step=i)
        w.flush()
        from tensorboard.backend.event_processing import event_accumulator
        for _ in range(2):  # twice: each read enters silence() afresh
            acc = event_accumulator.EventAccumulator("logs", size_guidance={"tensors": 0})
            acc.Reload()
            print([float(tf.make_ndarray(e.tensor_proto)) for e in acc.Tensors("loss")])
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[0.0, 0.5, 1.0]"] * 2
