"""``tf.compat.v1.io.tf_record_iterator`` (also ``tf.compat.v1.python_io``): a TFRecord file's records, eagerly.

TensorBoard's event-file loader reads event files through it when it runs against ``import tensorflow`` (the
``tensorlet run`` alias), as it does against TF 2.x.
"""

from __future__ import annotations

from tensorlet._src.io.tfrecord import TFRecordOptions, iter_records
from tensorlet._src.ops.registry import tf_export


@tf_export("compat.v1.io.tf_record_iterator", "compat.v1.python_io.tf_record_iterator")
def tf_record_iterator(path, options=None):
    """Yield each record of the TFRecord file ``path`` as ``bytes``; ``options`` is a ``TFRecordOptions`` or a
    compression name.  Checksums are verified: a corrupt record raises ``DataLossError`` after the good ones."""
    return iter_records(path, options)


tf_export("compat.v1.python_io.TFRecordOptions")(TFRecordOptions)
