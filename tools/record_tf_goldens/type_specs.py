"""Record TensorArraySpec, OptionalSpec, TraceType, FunctionType, AtomicFunction and check_pinned results from
real TF into tests/goldens/type_specs.json
(cases: tests/framework/type_specs_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/type_specs.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

if __name__ == "__main__":
    main("tests/framework/type_specs_cases.py", "type_specs.json")
