"""``keras.layers.serialize`` / ``deserialize``: the config dicts real Keras 3 writes (recorded by
``tools/record_tf_goldens/keras_layer_serialize.py``), round trips, and the error for a config of a non-layer."""

import json
import os

import pytest

import tensorlet as tf

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(__file__)), "goldens", "keras_layer_serialize.json")
LAYERS = {
    "dense": lambda: tf.keras.layers.Dense(3, activation="relu", name="d"),
    "conv2d": lambda: tf.keras.layers.Conv2D(4, 3, strides=2, padding="same", name="c"),
    "dropout": lambda: tf.keras.layers.Dropout(0.25, name="drop"),
}


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_serialize_is_keras_config_and_round_trips(kind):
    with open(GOLDEN) as f:
        want = json.load(f)[kind]
    got = json.loads(json.dumps(tf.keras.layers.serialize(LAYERS[kind]())))
    assert got == want
    layer = tf.keras.layers.deserialize(want)
    assert type(layer).__name__ == want["class_name"]
    assert json.loads(json.dumps(tf.keras.layers.serialize(layer))) == want


def test_deserialize_of_a_non_layer_config():
    with pytest.raises(ValueError, match="not a `keras.layers.Layer`"):
        tf.keras.layers.deserialize(tf.keras.initializers.serialize(tf.keras.initializers.Ones()))
