"""``tensorflow.python`` under the ``tensorflow`` alias: only the private modules TF programs and tools commonly
import (``tensorflow.python.util.deprecation``); anything else is a ModuleNotFoundError naming it, so tools that
probe for TF internals (TensorBoard's ``pywrap_tensorflow``) take their portable path."""
