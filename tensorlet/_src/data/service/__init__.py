"""``tf.data.experimental.service``: dispatcher and worker servers, and datasets read from them.

The servers, the registered datasets and their readers live in one process: a dataset is a Python object and
nothing is ever unpickled, so a dataset definition cannot travel to another process.  The addresses are real
(each server holds its port) and the work is real (each worker runs its tasks in threads, the dispatcher hands
out splits of the source in ``"distributed_epoch"`` mode); a target no server of this process serves raises
``tf.errors.UnavailableError`` naming it.  See docs/architecture.md ("tf.data service").
"""
