"""Records ``keras.layers.serialize`` of a few layers from real Keras 3 (run with the TF/Keras venv):

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_layer_serialize.py > tests/goldens/keras_layer_serialize.json
"""

import json

import keras

LAYERS = {
    "dense": lambda: keras.layers.Dense(3, activation="relu", name="d"),
    "conv2d": lambda: keras.layers.Conv2D(4, 3, strides=2, padding="same", name="c"),
    "dropout": lambda: keras.layers.Dropout(0.25, name="drop"),
}

print(json.dumps({k: keras.layers.serialize(f()) for k, f in LAYERS.items()}, indent=1, sort_keys=True))
