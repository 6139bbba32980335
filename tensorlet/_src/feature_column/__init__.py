"""``tf.feature_column``: declarative feature transformations (numeric, bucketized, categorical, crossed,
indicator, embedding columns) and the parse specs they imply."""
