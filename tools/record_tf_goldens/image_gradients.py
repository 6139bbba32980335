"""Record which tf.image functions real TF differentiates into tests/goldens/image_gradients.json
(cases: tests/ops/image_gradient_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/image_gradients.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/ops/image_gradient_cases.py", "image_gradients.json")
