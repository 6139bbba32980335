"""``tf.experimental.dtensor`` on one client: meshes of local (logical CPU or accelerator) devices, layouts,
and tensors that carry a layout (pack/unpack, relayout, copy_to_mesh, call_with_layout, DVariable)."""
