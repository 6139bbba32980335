"""TF1-era API: ``tf.compat.v1``'s eager surface and ``tf.contrib`` shims (loaded on first use)."""
