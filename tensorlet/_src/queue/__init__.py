"""``tf.queue``: thread-safe queues of tensor tuples (FIFO, padding FIFO, random shuffle, priority)."""
