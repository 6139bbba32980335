"""``keras.applications``: the Keras 3 image models, built layer for layer as Keras builds them."""
