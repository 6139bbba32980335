"""Every layer class through ``run_layer_test`` (tests/keras/layer_test_utils.py): output shapes, weights, config
round trip, eager == tf.function and a training step.  Values are checked against Keras in the per-family tests."""

import os
import sys

import pytest

import tensorlet as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layer_test_utils import run_layer_test  # noqa: E402

L = tf.keras.layers

# (class name, constructor arguments, input shape, expected output shape, (trainable, non-trainable) weight counts)
CASES = [
    ("Dense", {"units": 3}, (2, 4), (2, 3), (2, 0)),
    ("Dense", {"units": 3, "use_bias": False, "activation": "relu"}, (2, 5, 4), (2, 5, 3), (1, 0)),
    ("Embedding", {"input_dim": 5, "output_dim": 2}, None, (2, 3, 2), (1, 0)),
    ("Conv1D", {"filters": 2, "kernel_size": 3}, (2, 6, 3), (2, 4, 2), (2, 0)),
    ("Conv2D", {"filters": 2, "kernel_size": 3, "padding": "same"}, (2, 5, 5, 3), (2, 5, 5, 2), (2, 0)),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2}, (1, 3, 3, 2), (1, 7, 7, 2), (2, 0)),
    ("Conv1DTranspose", {"filters": 2, "kernel_size": 2}, (1, 4, 3), (1, 5, 2), (2, 0)),
    ("DepthwiseConv2D", {"kernel_size": 2}, (1, 4, 4, 2), (1, 3, 3, 2), (2, 0)),
    ("SeparableConv2D", {"filters": 3, "kernel_size": 2}, (1, 4, 4, 2), (1, 3, 3, 3), (3, 0)),
    ("MaxPooling2D", {}, (2, 4, 4, 3), (2, 2, 2, 3), (0, 0)),
    ("AveragePooling1D", {"pool_size": 2}, (2, 6, 3), (2, 3, 3), (0, 0)),
    ("GlobalAveragePooling2D", {}, (2, 4, 4, 3), (2, 3), (0, 0)),
    ("BatchNormalization", {}, (4, 3), (4, 3), (2, 2)),
    ("LayerNormalization", {}, (2, 5), (2, 5), (2, 0)),
    ("GroupNormalization", {"groups": 2}, (2, 4), (2, 4), (2, 0)),
    ("LSTM", {"units": 3}, (2, 4, 2), (2, 3), (3, 0)),
    ("GRU", {"units": 3, "return_sequences": True}, (2, 4, 2), (2, 4, 3), (3, 0)),
    ("SimpleRNN", {"units": 3}, (2, 4, 2), (2, 3), (3, 0)),
    ("MultiHeadAttention", {"num_heads": 2, "key_dim": 2}, None, (2, 3, 4), (8, 0)),
    ("Flatten", {}, (2, 3, 4), (2, 12), (0, 0)),
    ("Reshape", {"target_shape": (6, 2)}, (2, 3, 4), (2, 6, 2), (0, 0)),
    ("Dropout", {"rate": 0.5}, (2, 3), (2, 3), (0, 0)),
    ("ReLU", {"max_value": 6.0}, (2, 3), (2, 3), (0, 0)),
    ("PReLU", {}, (2, 3), (2, 3), (1, 0)),
    ("ZeroPadding2D", {"padding": 1}, (1, 2, 2, 1), (1, 4, 4, 1), (0, 0)),
    ("UpSampling2D", {}, (1, 2, 2, 1), (1, 4, 4, 1), (0, 0)),
]


def _input(name):
    import numpy as np

    if name == "Embedding":
        return np.array([[0, 1, 4], [2, 3, 3]], np.int32)
    if name == "MultiHeadAttention":
        x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
        return x
    return None


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_layer_contract(case):
    name, kwargs, in_shape, out_shape, (n_train, n_non) = case
    data = _input(name)
    call_kwargs = {"value": data} if name == "MultiHeadAttention" else None
    run_layer_test(getattr(L, name), kwargs, input_data=data, input_shape=in_shape, expected_output_shape=out_shape,
                   expected_num_trainable_weights=n_train, expected_num_non_trainable_weights=n_non,
                   call_kwargs=call_kwargs)
