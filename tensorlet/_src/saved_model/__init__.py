"""``tf.saved_model``: tensorlet's SavedModel (save/load of traced graph IR, variables and assets).

Loaded lazily: ``import tensorlet`` does not import this package.  The directory layout is documented in
docs/formats.md ("SavedModel").
"""
