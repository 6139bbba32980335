"""Keras utilities (``keras.utils``): Progbar, to_categorical/normalize, set_random_seed, get_file."""
