"""``tf.compat.v1.train.summary_iterator``: the ``Event`` protos of a TensorBoard event file, in order."""

from __future__ import annotations

from tensorlet._src.framework import errors
from tensorlet._src.io.tfrecord import iter_records
from tensorlet._src.ops.registry import tf_export


@tf_export("compat.v1.train.summary_iterator")
def summary_iterator(path):
    """Yield each ``tensorboard`` ``Event`` proto of the event file ``path`` (records are checksummed; a corrupt
    record or proto raises ``DataLossError``)."""
    from google.protobuf.message import DecodeError
    from tensorboard.compat.proto import event_pb2

    for record in iter_records(path):
        event = event_pb2.Event()
        try:
            event.ParseFromString(record)
        except DecodeError as e:
            raise errors.DataLossError(None, None, f"{path}: corrupted Event record ({e})") from None
        yield event
