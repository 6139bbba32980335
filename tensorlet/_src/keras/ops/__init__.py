"""``keras.ops``: Keras 3 operations on tensorlet ops (public names are exported from the family modules)."""
