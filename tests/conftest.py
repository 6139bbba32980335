import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # tests/opcheck.py and friends

import tensorlet  # noqa: E402,F401  (register every op before tests wrap kernels)
