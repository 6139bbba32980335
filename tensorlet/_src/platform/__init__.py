"""Platform-facing public names: ``tf.sysconfig``, the accelerator modules as they behave on a machine without
TPUs or TensorRT (``tf.tpu``, ``tf.experimental.tensorrt``), ``tf.xla.experimental``, ``tf.mlir.experimental``
and the ``tf.types.experimental`` aliases."""
