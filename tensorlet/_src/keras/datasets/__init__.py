"""Keras's built-in datasets (``keras.datasets.mnist.load_data()``, ...), read from Keras's cache files."""
