"""The op registry and the op families.  Each family module declares its ops with ``defop``."""

import importlib

FAMILIES = (
    "math_binary", "math_unary", "math_binary_fn", "math_nary", "math_clip", "math_special", "matmul", "indexing",
    "creation", "array_shape", "array_blocks", "array_select", "array_identity", "math_einsum", "array_space",
    "gather_scatter",
    "reduce", "scan_sort", "segment",
    "linalg", "linalg_decomp",
    "nn_activations", "nn_conv", "nn_conv_transpose", "nn_pool", "nn_losses", "nn_norm",
    "random_ops", "random_stateless", "random_gen", "strings_ops", "strings_extra", "image_resize", "image_ops",
    "debugging",
    "collective_ops",
    "dynamic_shape",
    # composite values last: their dispatch handlers wrap the public functions of the families above
    "math_truncate", "strings_split", "signal_fft", "signal_ops", "lookup_ops", "gradient_marks",
    "ragged.ragged_ops", "extension_type", "dispatch_api",
    # composites over RaggedTensor: RowPartition, DynamicRaggedShape (tf.shape of ragged), StructuredTensor
    "ragged.row_partition", "ragged.dynamic_ragged_shape", "ragged.structured_tensor",
    # issue 15's op families
    "math_special_extra", "linalg_extra", "control_misc", "array_sequence", "initializers_v2",
    "quantization_ops", "nn_extra", "nn_sampled", "image_extra", "math_more", "nn_ctc", "type_specs_extra",
    # issue 15, op coverage (ctc beam search, fractional pools, quantize, glimpse, proposals, check numerics)
    "quantize_ops", "check_numerics_mode", "image_glimpse", "nn_fractional_pool",
)

# (ops/linear_operator.py defines no op: tf.linalg.LinearOperator* load with the tf.linalg module, tools/gen_api.py)
for _name in FAMILIES:
    importlib.import_module(f"{__name__}.{_name}")
