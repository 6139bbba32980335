"""tfmot.sparsity.keras on tensorlet: schedules, masks and the callbacks, checked against the rules tfmot's
pruning_schedule.py / pruning_impl.py implement (recomputed here in NumPy), and the drop-in import name."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.tfmot import sparsity

sk = sparsity.keras
keras = tf.keras


def test_constant_sparsity_schedule():
    s = sk.ConstantSparsity(0.8, begin_step=10, end_step=50, frequency=20)
    assert [s(k)[0] for k in (0, 9, 10, 11, 30, 50, 51, 70)] == [False, False, True, False, True, True, False, False]
    assert float(s(30)[1]) == pytest.approx(0.8)
    forever = sk.ConstantSparsity(0.5, 0, frequency=7)
    assert forever(7000)[0] and not forever(7001)[0]


def test_polynomial_decay_schedule():
    s = sk.PolynomialDecay(0.2, 0.8, begin_step=100, end_step=300, power=3, frequency=50)
    for step in (0, 100, 150, 200, 300, 400):
        p = min(1.0, max(0.0, (step - 100) / 200))
        assert float(s(step)[1]) == pytest.approx((0.2 - 0.8) * (1 - p) ** 3 + 0.8, rel=1e-6)
    assert [s(k)[0] for k in (50, 100, 125, 150, 300, 350)] == [False, True, False, True, True, False]


@pytest.mark.parametrize("bad", [dict(initial_sparsity=1.0), dict(begin_step=-1), dict(end_step=5, begin_step=10),
                                 dict(frequency=0)])
def test_schedule_validation(bad):
    args = dict(initial_sparsity=0.1, final_sparsity=0.5, begin_step=0, end_step=10, frequency=1)
    args.update(bad)
    with pytest.raises(ValueError):
        sk.PolynomialDecay(**args)


def test_wrapper_variables_and_mask_update():
    keras.utils.set_random_seed(1)
    layer = sk.prune_low_magnitude(keras.layers.Dense(6), pruning_schedule=sk.ConstantSparsity(0.75, 0, frequency=2))
    assert isinstance(layer, sk.PruneLowMagnitude) and layer.name == "prune_low_magnitude_" + layer.layer.name
    layer(np.ones((1, 8), np.float32))
    names = sorted(w.name for w in layer.non_trainable_weights)
    assert names == ["mask", "pruning_step", "threshold"]
    assert int(layer.pruning_step.numpy()) == -1
    w = layer.layer.kernel.numpy().copy()
    assert layer.conditional_mask_update(0)
    layer.weight_mask_op()
    k = max(round(w.size * 0.25), 1)
    thr = np.sort(np.abs(w).ravel())[::-1][k - 1]
    np.testing.assert_array_equal(layer.pruning_vars[0][1].numpy(), (np.abs(w) >= thr).astype(np.float32))
    assert float(layer.pruning_vars[0][2].numpy()) == pytest.approx(thr)
    np.testing.assert_array_equal(layer.layer.kernel.numpy(), w * (np.abs(w) >= thr))
    assert np.count_nonzero(layer.layer.kernel.numpy()) == k
    assert not layer.conditional_mask_update(1)  # off-frequency step: masks untouched
    assert int(layer.pruning_step.numpy()) == 1


def test_unsupported_layer_and_training_without_callback():
    class Odd(keras.layers.Layer):
        def build(self, shape):
            self.v = self.add_weight(shape=(1,))

        def call(self, x):
            return x * self.v

    with pytest.raises(ValueError, match="supported layer"):
        sk.prune_low_magnitude(Odd())
    with pytest.raises(ValueError, match="can only prune"):
        sk.prune_low_magnitude("dense")
    layer = sk.prune_low_magnitude(keras.layers.Dense(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="UpdatePruningStep"):
        layer(np.ones((1, 3), np.float32), training=True)


def test_fit_prunes_and_strip(tmp_path):
    keras.utils.set_random_seed(0)
    x = np.random.RandomState(0).randn(64, 10).astype(np.float32)
    y = (x[:, :3].sum(1) > 0).astype(np.int64)
    model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
    pruned = sk.prune_low_magnitude(model, pruning_schedule=sk.PolynomialDecay(0.0, 0.75, 0, 4, frequency=1))
    assert [lay.name for lay in pruned.layers] == ["prune_low_magnitude_" + lay.name for lay in model.layers]
    pruned.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    pruned.fit(x, y, batch_size=8, epochs=1, verbose=0,
               callbacks=[sk.UpdatePruningStep(), sk.PruningSummaries(str(tmp_path), update_freq="epoch")])
    assert int(pruned.layers[0].pruning_step.numpy()) == 8  # 8 batches: steps 1..8
    stripped = sk.strip_pruning(pruned)
    assert [type(lay).__name__ for lay in stripped.layers] == ["Dense", "Dense"]
    for lay in stripped.layers:
        k = lay.kernel.numpy()
        assert 1 - np.count_nonzero(k) / k.size == pytest.approx(0.75, abs=0.02)
    np.testing.assert_allclose(stripped.predict(x, verbose=0), pruned.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    events = list((tmp_path / "train").glob("events.out.tfevents.*"))
    assert events, "PruningSummaries wrote no event file"
    data = events[0].read_bytes()
    assert f"{pruned.layers[0].name}/mask/sparsity".encode() in data and b"/threshold/threshold" in data


def test_dropin_import_name(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import tensorflow_model_optimization as tfmot
        from tensorflow_model_optimization.sparsity import keras as sk
        import tensorlet
        assert tfmot.sparsity.keras.prune_low_magnitude is sk.prune_low_magnitude
        assert tfmot.quantization.keras.quantize_model.__module__.startswith("tensorlet")
        print("ok")
    """))
    out = subprocess.run([sys.executable, "-m", "tensorlet", "run", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
