"""Record TF's core surface outside the op modules into tests/goldens/core_surface.json
(cases: tests/platform/core_surface_cases.py), plus the dense values of feature columns (what DenseFeatures
concatenates, from TF's FeatureTransformationCache) into tests/goldens/feature_column_dense.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/core_surface.py
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import ROOT, load, main  # noqa: E402


def record_dense():
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.feature_column import feature_column_v2 as fcv2

    cases = load("tests/platform/core_surface_cases.py")
    feats = {k: tf.constant(v) for k, v in cases.FC_FEATURES.items()}
    out = {}
    for col in cases.fc_columns(tf):
        cache = fcv2.FeatureTransformationCache(feats)
        dense = np.asarray(col.get_dense_tensor(cache, None))
        out[col.name + ("_normalized" if getattr(col, "normalizer_fn", None) else "")] = \
            dense.reshape(dense.shape[0], -1).tolist()
    path = os.path.join(ROOT, "tests", "goldens", "feature_column_dense.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {len(out)} columns to {path}")


if __name__ == "__main__":
    main("tests/platform/core_surface_cases.py", "core_surface.json")
    record_dense()
