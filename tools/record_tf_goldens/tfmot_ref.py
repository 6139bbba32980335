"""Records tensorflow_model_optimization's behaviour (tfmot 0.8 on tf_keras, in /work/tfvenv) into
tests/goldens/tfmot.json: schedule values, the mask/threshold a pruning step computes for fixed weights, weight
names of the wrappers, QAT ranges after one training step, and TF's fake-quant values.

    /work/tfvenv/bin/python tools/record_tf_goldens/tfmot_ref.py
"""

import json
import os

import numpy as np
import tensorflow as tf
import tensorflow_model_optimization as tfmot

keras = tfmot.quantization.keras.quantize_model.__globals__.get("keras") or tf.keras
sk, qk = tfmot.sparsity.keras, tfmot.quantization.keras
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "goldens", "tfmot.json")
g = {}

s = sk.PolynomialDecay(0.2, 0.8, begin_step=100, end_step=300, power=3, frequency=50)
c = sk.ConstantSparsity(0.8, begin_step=10, end_step=50, frequency=20)
steps = [0, 9, 10, 50, 100, 125, 150, 200, 300, 350]
g["poly"] = [[bool(a), float(b)] for a, b in (s(tf.constant(k, tf.int64)) for k in steps)]
g["const"] = [[bool(a), float(b)] for a, b in (c(tf.constant(k, tf.int64)) for k in steps)]
g["steps"] = steps

rng = np.random.RandomState(0)
w0 = rng.randn(6, 5).astype(np.float32)
x = rng.randn(8, 6).astype(np.float32)
y = rng.randn(8, 5).astype(np.float32)
m = keras.Sequential([keras.layers.InputLayer(input_shape=(6,)), keras.layers.Dense(5, use_bias=False, name="d")])
m.layers[0].set_weights([w0])
p = sk.prune_low_magnitude(m, pruning_schedule=sk.ConstantSparsity(0.6, 0, frequency=1))
p.compile(keras.optimizers.SGD(0.0), "mse")  # lr 0: the mask comes from w0 alone
p.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[sk.UpdatePruningStep()])
wr = p.layers[0]
g["prune"] = {"w0": w0.tolist(), "weight_names": [v.name for v in wr.weights],
              "mask": wr.pruning_vars[0][1].numpy().tolist(), "threshold": float(wr.pruning_vars[0][2].numpy()),
              "pruning_step": int(wr.pruning_step.numpy()), "kernel": wr.layer.kernel.numpy().tolist()}

xq = rng.rand(4, 6, 6, 1).astype(np.float32)
qm = keras.Sequential([keras.layers.InputLayer(input_shape=(6, 6, 1)), keras.layers.Conv2D(3, 3, activation="relu"),
                       keras.layers.Flatten(), keras.layers.Dense(4, activation="softmax")])
q = qk.quantize_model(qm)
kernel0 = qm.layers[0].kernel.numpy()  # quantize_model copies the weights
q.compile(keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
q.fit(xq, np.arange(4), batch_size=4, epochs=1, verbose=0)
g["qat"] = {"layers": [lay.name for lay in q.layers],
            "weights": {lay.name: [v.name for v in lay.weights] for lay in q.layers},
            "values": {v.name: np.asarray(v.numpy()).tolist() for lay in q.layers for v in lay.non_trainable_weights},
            "x_max": float(xq.max()), "kernel_absmax": np.abs(kernel0).reshape(-1, 3).max(0).tolist()}

xs = np.random.RandomState(1).uniform(-8, 8, 64).astype(np.float32)
g["fake_quant"] = {"x": xs.tolist(), "cases": []}
for lo, hi, narrow in ((-6.0, 6.0, False), (-0.3, 1.7, False), (-1.0, 1.0, True), (0.2, 3.0, False)):
    yq = tf.quantization.fake_quant_with_min_max_vars(xs, lo, hi, num_bits=8, narrow_range=narrow).numpy()
    g["fake_quant"]["cases"].append({"lo": lo, "hi": hi, "narrow": narrow, "y": yq.tolist()})

with open(OUT, "w") as f:
    json.dump(g, f)
print("wrote", OUT)
