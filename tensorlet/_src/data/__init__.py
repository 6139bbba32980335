"""tf.data: input pipelines (loaded lazily on first use of ``tf.data``)."""
