"""Record Keras 3's recurrent layers (SimpleRNN, LSTM, GRU, RNN with cells, Bidirectional, TimeDistributed) into
tests/goldens/keras_rnn.json: outputs and gradients for every case of tests/keras/keras_rnn_cases.py.

Run with a Python that has TensorFlow 2.21 / Keras 3:

    /work/tfenv/bin/python tools/record_tf_goldens/keras_rnn.py
"""

import importlib.util
import json
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_rnn.json")


def _load_cases():
    path = os.path.join(ROOT, "tests", "keras", "keras_rnn_cases.py")
    spec = importlib.util.spec_from_file_location("keras_rnn_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _enc(a):
    if a is None:
        return None
    a = np.asarray(a)
    return {"shape": list(a.shape), "v": [float(f"{v:.7g}") for v in a.astype(np.float64).ravel()]}


def main():
    cases = _load_cases()
    out = {"_meta": {"tensorflow": tf.__version__, "keras": tf.keras.__version__ if hasattr(tf.keras, "__version__")
                     else None}}
    for name in cases.CASES:
        outs, grads = cases.run_case(tf, name)
        out[name] = {"outputs": [_enc(o) for o in outs], "grads": [_enc(g) for g in grads]}
    out["_configs"] = cases.configs(tf)
    out["_output_shapes"] = cases.output_shapes(tf)
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes, {len(cases.CASES)} cases)")


if __name__ == "__main__":
    main()
