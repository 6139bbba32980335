"""``tf.distribute`` (lazily imported)."""
