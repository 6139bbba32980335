"""Record real TF's results for the op families added for API coverage (issue 15) into tests/goldens/.

    /work/tfvenv/bin/python tools/record_tf_goldens/op_extras.py

Each case table is shared with its test: one program, run by TF here and by tensorlet in the test.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ragged import main  # noqa: E402

TABLES = {
    "tests/io/sets_cases.py": "sets.json",
    "tests/ops/linear_operator_cases.py": "linear_operator.json",
    "tests/ops/array_sequence_cases.py": "array_sequence.json",
    "tests/ops/quantization_cases.py": "quantization.json",
    "tests/ops/nn_extra_cases.py": "nn_extra.json",
    "tests/ops/nn_sampled_cases.py": "nn_sampled.json",
    "tests/ops/image_extra_cases.py": "image_extra.json",
    "tests/io/sparse_extra_cases.py": "sparse_extra.json",
    "tests/io/feature_cases.py": "feature_ops.json",
    "tests/io/webp_cases.py": "webp.json",
    "tests/io/ctc_beam_cases.py": "ctc_beam.json",
    "tests/ops/check_numerics_cases.py": "check_numerics.json",
    "tests/ops/glimpse_cases.py": "glimpse.json",
    "tests/ops/fractional_pool_cases.py": "fractional_pool.json",
    "tests/io/proto_codec_cases.py": "proto_codec.json",
}

if __name__ == "__main__":
    for cases, out in TABLES.items():
        if len(sys.argv) < 2 or any(a in cases for a in sys.argv[1:]):
            main(cases, out)
