"""keras.utils.Progbar and the ProgbarLogger callback: byte-for-byte the output real Keras 3 printed for the same
updates and the same clock readings (tests/goldens/keras_metrics_utils.json)."""

import logging
import json
import os

import pytest

import tensorlet as tf
from tensorlet._src.keras.utils.progbar import Progbar

GOLDENS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "keras_metrics_utils.json")
with open(GOLDENS, encoding="utf-8") as f:
    RECORDED = json.load(f)


class FakeClock:
    def __init__(self, start=0.0, step=0.25):
        self.t, self.step = start, step

    def __call__(self):
        self.t += self.step
        return self.t


@pytest.mark.parametrize("sc", RECORDED["progbar"], ids=[s["name"] for s in RECORDED["progbar"]])
def test_progbar_output_is_keras_bytes(sc, capsys, monkeypatch):
    clock = iter(sc["clock"])
    monkeypatch.setattr(Progbar, "clock", staticmethod(lambda: next(clock)))
    bar = tf.keras.utils.Progbar(**sc["kwargs"])
    for cur, vals, fin in sc["steps"]:
        bar.update(cur, [tuple(v) for v in vals], finalize=fin)
    assert capsys.readouterr().out == sc["output"]


@pytest.mark.parametrize("sc", RECORDED["logger"], ids=[s["name"] for s in RECORDED["logger"]])
def test_progbar_logger_output_is_keras_bytes(sc, capsys, monkeypatch):
    monkeypatch.setattr(Progbar, "clock", FakeClock(1000.0, 0.25))
    cb = tf.keras.callbacks.ProgbarLogger()
    cb.set_params(sc["params"])
    for kind, *args in sc["events"]:
        getattr(cb, f"on_{kind}")(*args)
    assert capsys.readouterr().out == sc["output"]


def test_verbose1_line_shape_readable():
    # the documented look: "157/157 ━━━━━━━━━━━━━━━━━━━━ 2s 9ms/step - accuracy: 0.9100 - loss: 0.3000"
    out = next(s["output"] for s in RECORDED["progbar"] if s["name"] == "v1_epoch")
    last = out.split("\r")[-1]
    plain = last.replace("\x1b[1m", "").replace("\x1b[0m", "").replace("\x1b[32m", "").replace("\x1b[37m", "")
    assert plain.startswith("5/5 " + "━" * 20 + " 1s ")
    assert plain.endswith(" 40ms/step - accuracy: 0.8000 - loss: 0.2500\n")


def test_add_and_interactive_logging_off(capsys, monkeypatch, caplog):
    monkeypatch.setattr(Progbar, "clock", FakeClock(0.0, 1.0))
    tf.keras.utils.disable_interactive_logging()
    try:
        assert not tf.keras.config.is_interactive_logging_enabled()
        bar = Progbar(2, verbose=2)
        logger = logging.getLogger("tensorflow")  # TF's logger may not propagate to the root once configured
        logger.addHandler(caplog.handler)
        try:
            with caplog.at_level("INFO", logger="tensorflow"):
                bar.add(1, [("loss", 2.0)])
                bar.add(1, [("loss", 4.0)])
        finally:
            logger.removeHandler(caplog.handler)
        assert capsys.readouterr().out == ""
        assert "2/2 - 2s - 1s/step - loss: 4.0000" in caplog.text  # finalize reports the last value
    finally:
        tf.keras.utils.enable_interactive_logging()


def test_both_metric_kinds_rejected():
    with pytest.raises(ValueError, match="Only one of `stateful_metrics` or `stateless_metrics`"):
        Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"])
