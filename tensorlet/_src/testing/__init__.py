"""``tf.test``: TestCase with TF's array assertions, gradient checking, build and device queries, benchmarks."""
