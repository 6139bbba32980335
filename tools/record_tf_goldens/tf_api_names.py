"""Lists TensorFlow's public API names into tests/goldens/tf_api_names.txt (run with real TF, outside CI).

    /work/tfvenv/bin/python tools/record_tf_goldens/tf_api_names.py

One dotted name a line (``math.add``, ``RaggedTensor``, ``signal.fft``), relative to ``tf``: every public
attribute of every module under ``tf.*`` that TF generates (``tensorflow._api.v2.*`` and
``tensorflow.experimental.*``), except the modules
``tf.raw_ops``, ``tf.compat`` and ``tf.keras`` (and the Keras-backed aliases ``tf.losses``/``tf.metrics``/...,
which TF builds from Keras, not from its own API tree).  Submodules are listed as names too (``signal``).
tests/test_api_coverage.py counts how many of them tensorlet has.
"""

from __future__ import annotations

import os
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "goldens", "tf_api_names.txt")
SKIP = {"raw_ops", "compat", "keras"}
# tf.experimental is generated too but named ``tensorflow.experimental``; ``tf.dtensor``/``tf.tools``/``tf.security``
# are Python packages that show up as attributes by accident (their public form is ``tf.experimental.dtensor``).
PREFIXES = ("tensorflow._api.v2.", "tensorflow.experimental")


def walk():
    names = set()
    seen = set()

    def visit(mod, path):
        if id(mod) in seen:
            return
        seen.add(id(mod))
        for attr in dir(mod):
            if attr.startswith("_"):
                continue
            if not path and attr in SKIP:
                continue
            try:
                val = getattr(mod, attr)
            except Exception:  # noqa: BLE001  (lazy attributes that fail to load are not part of the API)
                continue
            dotted = f"{path}.{attr}" if path else attr
            if isinstance(val, types.ModuleType):
                try:
                    modname = val.__name__
                except AttributeError:  # Keras 3 lazy loaders refuse __name__
                    continue
                if not modname.startswith(PREFIXES):
                    continue  # Keras-backed aliases, tensorflow.python internals
                names.add(dotted)
                visit(val, dotted)
            else:
                names.add(dotted)

    visit(tf, "")
    return sorted(names)


def main():
    names = walk()
    with open(OUT, "w") as f:
        f.write(f"# TensorFlow {tf.__version__} public API names (tools/record_tf_goldens/tf_api_names.py)\n")
        f.writelines(n + "\n" for n in names)
    print(len(names), "names ->", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
