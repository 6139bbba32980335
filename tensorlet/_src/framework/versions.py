"""Versions: ``tf.__version__`` / ``tf.version.VERSION`` name the TensorFlow release whose API and behaviour
tensorlet follows (so version checks written for TF take TF's branch); ``tensorlet.__tensorlet_version__`` is
tensorlet's own release.  The graph-def versions are TF 2.21's (SavedModels and GraphDefs record them).
"""

from __future__ import annotations

from tensorlet._src.framework.api_export import export_value

VERSION = "2.21.0"  # the TF release tensorlet follows (recorded from tf.version in TF 2.21)
GIT_VERSION = "v2.21.0-rc1-5-ga481b10260d"
COMPILER_VERSION = "Clang 18.1.8"
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
TENSORLET_VERSION = "0.1.0"  # keep equal to pyproject.toml's version

for _n in ("VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER"):
    export_value(f"version.{_n}", __name__, _n)
export_value("__version__", __name__, "VERSION")
export_value("__git_version__", __name__, "GIT_VERSION")
export_value("__compiler_version__", __name__, "COMPILER_VERSION")
export_value("__tensorlet_version__", __name__, "TENSORLET_VERSION")
