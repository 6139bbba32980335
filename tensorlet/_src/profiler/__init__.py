"""``tf.profiler.experimental``: host traces written as TF's XSpace (``<host>.xplane.pb``) plus a Chrome
trace-event JSON (``<host>.trace.json.gz``) under ``<logdir>/plugins/profile/<run>/``, the layout TensorBoard's
profile plugin reads."""
