"""The op registry and the op families.  Each family module declares its ops with ``defop``."""

import importlib

FAMILIES = (
    "math_binary", "math_unary", "math_extra", "math_special", "matmul", "indexing",
    "creation", "array_ops", "array_misc", "array_extra", "gather_scatter",
    "reduce", "scan_sort", "segment",
    "linalg", "linalg_decomp",
    "nn_activations", "nn_conv", "nn_conv_transpose", "nn_pool", "nn_losses", "nn_norm",
    "random_ops", "random_stateless", "random_gen", "strings_ops", "image_resize", "image_ops", "debugging",
    "collective_ops",
    "dynamic_shape",
    # composite values last: their dispatch handlers wrap the public functions of the families above
    "math_truncate", "strings_split", "signal_fft", "signal_ops", "lookup_ops", "gradient_marks",
    "ragged.ragged_ops",
)

for _name in FAMILIES:
    importlib.import_module(f"{__name__}.{_name}")
