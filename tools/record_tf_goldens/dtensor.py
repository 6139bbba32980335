"""Record DTensor results from real TF into tests/goldens/dtensor.json (cases: tests/platform/dtensor_cases.py),
with the CPU split into 2 logical devices before TF initializes.

    /work/tfvenv/bin/python tools/record_tf_goldens/dtensor.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    import tensorflow as tf

    tf.config.set_logical_device_configuration(tf.config.list_physical_devices("CPU")[0],
                                               [tf.config.LogicalDeviceConfiguration()] * 2)
    main("tests/platform/dtensor_cases.py", "dtensor.json")
