"""The op registry and the op families.  Each family module declares its ops with ``defop``."""

import importlib

FAMILIES = (
    "math_binary", "math_unary", "math_extra", "matmul", "indexing",
    "creation", "array_ops", "gather_scatter",
    "reduce", "scan_sort", "segment",
    "linalg", "linalg_decomp",
    "nn_activations", "nn_conv", "nn_pool", "nn_losses", "nn_norm",
    "random_ops", "strings_ops", "image_ops", "debugging",
)

for _name in FAMILIES:
    importlib.import_module(f"{__name__}.{_name}")
